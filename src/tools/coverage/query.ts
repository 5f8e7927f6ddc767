/**
 * The ideal query of a steady request, and how well a database answers it.
 *
 * The controller builds its query's trajectory part from its simulated trajectory: springs driven
 * by the desired velocity and facing, predicted at the schema's future offsets and expressed in the
 * character's root frame. For a steady request (a speed, a direction of travel relative to facing,
 * a turn rate) this module drives the same springs (math/spring.ts, the controller's half-lives)
 * with the request until they settle, and builds that query for a character standing exactly on
 * its simulated trajectory — the query of a character the data could follow perfectly. Its best
 * cost over the trajectory columns alone says whether the database holds that motion at all,
 * whatever the pose.
 */
import type { Database } from '../../database/database.js';
import { springCharacterPredict, springCharacterUpdate, springRotationPredict, springRotationUpdate } from '../../math/spring.js';
import { quatFromYaw, quatInvRotateVec3, quatRotateVec3 } from '../../math/quat.js';
import { trajectoryLayout } from '../../runtime/controller/trajectory-layout.js';
import type { ControllerOptions } from '../../runtime/controller/options.js';
import type { CoverageCell } from './grid.js';

const DEG = Math.PI / 180;
/** Seconds the springs are driven before the query is built: over ten half-lives of the default 0.27 s. */
export const SETTLE_SECONDS = 3;
const SETTLE_DT = 1 / 60;

/** The input of a steady request at time t (s) for a character that started facing yaw 0. */
export function steadyInput(cell: Pick<CoverageCell, 'speed' | 'direction' | 'turnRate'>, t: number, out: { velocityX: number; velocityZ: number; facing: number }): void {
  const facing = cell.turnRate * DEG * t;
  const heading = facing + cell.direction * DEG;
  out.velocityX = cell.speed * Math.sin(heading);
  out.velocityZ = cell.speed * Math.cos(heading);
  out.facing = facing;
}

/**
 * The raw (un-normalised) query row of the steady request, trajectory columns only (the others are
 * 0): positions and facing directions at the schema's offsets in the root frame of a character on
 * its simulated trajectory, after the springs settled.
 */
export function idealTrajectoryQuery(db: Database, cell: Pick<CoverageCell, 'speed' | 'direction' | 'turnRate'>, options: Pick<ControllerOptions, 'trajectoryHalfLife' | 'facingHalfLife'>, out = new Float32Array(db.stride)): Float32Array {
  const layout = trajectoryLayout(db);
  const pos = new Float64Array(3), vel = new Float64Array(3), acc = new Float64Array(3);
  const rot = quatFromYaw(new Float64Array(4), 0, 0), angVel = new Float64Array(3);
  const desiredVel = new Float64Array(3), desiredRot = new Float64Array(4);
  const input = { velocityX: 0, velocityZ: 0, facing: 0 };
  // Start in the request's own steady motion so the springs only settle the turn's lag.
  steadyInput(cell, 0, input);
  vel[0] = input.velocityX; vel[2] = input.velocityZ;
  const steps = Math.round(SETTLE_SECONDS / SETTLE_DT);
  for (let s = 1; s <= steps; s++) {
    steadyInput(cell, s * SETTLE_DT, input);
    desiredVel[0] = input.velocityX; desiredVel[1] = 0; desiredVel[2] = input.velocityZ;
    quatFromYaw(desiredRot, 0, input.facing);
    springCharacterUpdate(pos, 0, vel, 0, acc, 0, desiredVel, 0, options.trajectoryHalfLife, SETTLE_DT, 3);
    springRotationUpdate(rot, 0, angVel, 0, desiredRot, 0, options.facingHalfLife, SETTLE_DT);
  }
  const times = Float64Array.from(layout.times);
  const T = times.length;
  const futurePos = new Float64Array(3 * T), futureRot = new Float64Array(4 * T);
  springCharacterPredict(futurePos, null, null, pos, 0, vel, 0, acc, 0, desiredVel, 0, options.trajectoryHalfLife, times, T, 3);
  springRotationPredict(futureRot, null, rot, 0, angVel, 0, desiredRot, 0, options.facingHalfLife, times, T);
  out.fill(0);
  const v = new Float64Array(3), r = new Float64Array(3);
  for (const g of layout.positions) {
    for (let k = 0; k < g.count; k++) {
      const t = 3 * (g.first + k);
      v[0] = futurePos[t] - pos[0]; v[1] = 0; v[2] = futurePos[t + 2] - pos[2];
      quatInvRotateVec3(r, 0, rot, 0, v, 0);
      out[g.col + 2 * k] = r[0]; out[g.col + 2 * k + 1] = r[2];
    }
  }
  for (const g of layout.directions) {
    for (let k = 0; k < g.count; k++) {
      v[0] = 0; v[1] = 0; v[2] = 1;
      quatRotateVec3(r, 0, futureRot, 4 * (g.first + k), v, 0);
      quatInvRotateVec3(v, 0, rot, 0, r, 0);
      out[g.col + 2 * k] = v[0]; out[g.col + 2 * k + 1] = v[2];
    }
  }
  return out;
}

/** The query columns the trajectory groups fill. */
export function trajectoryColumns(db: Database): Int32Array {
  const layout = trajectoryLayout(db);
  const cols: number[] = [];
  for (const g of [...layout.positions, ...layout.directions]) for (let k = 0; k < 2 * g.count; k++) cols.push(g.col + k);
  return Int32Array.from(cols.sort((a, b) => a - b));
}

/** Frames a coverage search may return: search candidates carrying every required tag and no excluded one. */
export function allowedFrames(db: Database, requireTags: readonly string[] = [], excludeTags: readonly string[] = []): Uint8Array {
  const bit = (t: string): number => {
    const i = db.tagNames.indexOf(t);
    if (i < 0) throw new RangeError(`coverage: tag "${t}" is not in this database (its tags: ${db.tagNames.length ? db.tagNames.join(', ') : 'none'})`);
    return (1 << i) >>> 0;
  };
  let need = 0, avoid = 0;
  for (const t of requireTags) need = (need | bit(t)) >>> 0;
  for (const t of excludeTags) avoid = (avoid | bit(t)) >>> 0;
  const out = new Uint8Array(db.frameCount);
  for (let f = 0; f < db.frameCount; f++) {
    const tags = db.tagBits[f];
    out[f] = db.candidates[f] && ((tags & need) >>> 0) === need && (tags & avoid) === 0 ? 1 : 0;
  }
  return out;
}

export interface TrajectoryMatch {
  /** Best frame (-1 when no frame is allowed) and its cost over the trajectory columns. */
  frame: number;
  cost: number;
  /** Best cost per clip (Infinity for a clip with no allowed frame). */
  clipCosts: Float64Array;
  /** Best frame per clip (-1 when none). */
  clipFrames: Int32Array;
}

/**
 * Brute-force best match of a raw trajectory query over the allowed frames, trajectory columns
 * only (normalised as the database normalises: the cost is in the same units as a search's), with
 * the best frame of every clip. Exact; ties go to the lowest frame.
 */
export function bestTrajectoryMatch(db: Database, rawQuery: Float32Array, columns: Int32Array, allowed: Uint8Array, clipOf: Int32Array): TrajectoryMatch {
  const S = db.stride, F = db.features, C = columns.length;
  const q = new Float64Array(C);
  for (let i = 0; i < C; i++) { const d = columns[i]; q[i] = (rawQuery[d] - db.mean[d]) / db.scale[d]; }
  const clipCosts = new Float64Array(db.clips.length).fill(Infinity);
  const clipFrames = new Int32Array(db.clips.length).fill(-1);
  let best = Infinity, bestFrame = -1;
  for (let f = 0; f < db.frameCount; f++) {
    if (!allowed[f]) continue;
    const row = f * S;
    let c = 0;
    for (let i = 0; i < C; i++) { const e = F[row + columns[i]] - q[i]; c += e * e; }
    const clip = clipOf[f];
    if (c < clipCosts[clip]) { clipCosts[clip] = c; clipFrames[clip] = f; }
    if (c < best) { best = c; bestFrame = f; }
  }
  return { frame: bestFrame, cost: best, clipCosts, clipFrames };
}
