/**
 * What the output quality measures watch on a database's skeleton (docs/quality.md): the foot
 * joints (each toe where the rig has one, and each ankle), the hips, the joints whose left-right
 * lines give the body's facing, and each foot joint's own low height in the data — the height it
 * stands at when planted, which foot skate measures heights from. Computed once per database from
 * its poses alone, never from anything the runtime decides.
 */
import type { Database } from '../../database/database.js';
import { poseSource } from '../../database/pose-source.js';
import { capturedData } from '../captured-data.js';
import { jointNameInfo, mirrorJointMap } from '../../features/bone-names.js';
import { upperBodyRig } from '../controller/upper-body-twist.js';

export interface QualityRig {
  /** Foot joints: left toe, right toe (where the rig has toes), left ankle, right ankle. */
  readonly feet: Int32Array;
  /** Per foot joint: where it stands when planted (captured-data.ts; m above y = 0). */
  readonly restHeights: Float64Array;
  readonly hips: number;
  /**
   * Left/right joint pairs whose horizontal lines give the body's facing, as [left, right, ...]: the
   * thighs, then the first left/right pair of the upper body (clavicles or shoulders) where the
   * names show one.
   */
  readonly facingPairs: Int32Array;
}

const rigs = new WeakMap<Database, QualityRig>();

/** The quality rig of `db` (computed on first use: forward kinematics over every frame, then cached). */
export function qualityRig(db: Database): QualityRig {
  let rig = rigs.get(db);
  if (!rig) {
    const source = poseSource(db);
    rig = source === db ? computeQualityRig(db) : qualityRig(source);
    rigs.set(db, rig);
  }
  return rig;
}

export function computeQualityRig(db: Database): QualityRig {
  const r = db.roles, all = [r.leftToe, r.rightToe, r.leftFoot, r.rightFoot], rest = capturedData(db).restHeights;
  const kept = [0, 1, 2, 3].filter((k) => all[k] >= 0);
  return { feet: Int32Array.from(kept, (k) => all[k]), restHeights: Float64Array.from(kept, (k) => rest[k]), hips: r.hips, facingPairs: facingPairs(db) };
}

/** [left thigh, right thigh, left shoulder, right shoulder] (the shoulders where the names show them). */
function facingPairs(db: Database): Int32Array {
  const parents = db.skeleton.parents, hips = db.roles.hips;
  const thigh = (foot: number): number => { let j = foot; while (j >= 0 && parents[j] !== hips) j = parents[j]; return j; };
  const out = [thigh(db.roles.leftFoot), thigh(db.roles.rightFoot)];
  if (out[0] < 0 || out[1] < 0 || out[0] === out[1]) out.length = 0;
  const upper = upperBodyRig(db).subtree;
  const partner = mirrorJointMap(db.skeleton.names), info = jointNameInfo(db.skeleton.names);
  const depth = (j: number) => { let d = 0; for (let p = parents[j]; p >= 0; p = parents[p]) d++; return d; };
  let best = -1;
  for (const j of upper) {
    if (info[j].side !== 'left' || partner[j] === j || !upper.includes(partner[j])) continue;
    if (best < 0 || depth(j) < depth(best)) best = j;
  }
  if (best >= 0) out.push(best, partner[best]);
  return Int32Array.from(out);
}

/**
 * The body's facing (yaw, radians, atan2(x, z) as everywhere in the engine) from world joint
 * positions: the horizontal left-to-right lines of the facing pairs added up, turned a quarter to
 * the front (facing +Z, the left side is +X). NaN when the rig has no pair or the lines are vertical.
 */
export function bodyFacing(rig: QualityRig, wp: Float64Array): number {
  const p = rig.facingPairs;
  let lx = 0, lz = 0;
  for (let i = 0; i + 1 < p.length; i += 2) {
    lx += wp[3 * p[i]] - wp[3 * p[i + 1]];
    lz += wp[3 * p[i] + 2] - wp[3 * p[i + 1] + 2];
  }
  if (lx * lx + lz * lz < 1e-12) return Number.NaN;
  // forward = left × up = (−lz, 0, lx)
  return Math.atan2(-lz, lx);
}
