/**
 * The checks on a driven character, measured on its own joints (three's world matrices), beside the
 * same measures on the engine's output for the same run:
 * - foot skate (Zhang et al. 2018, as src/runtime/quality/output-measures.ts): horizontal speed x
 *   clamp(2 - 2^(h/H), 0, 1), H = 2.5 cm, h = the joint's height minus its own low height (here:
 *   the 1st percentile of its heights over the run, for the character and the engine alike);
 * - the lowest foot joint (below the floor?);
 * - knees: how far in front of the hip-ankle line, along the character's facing (the worst step);
 * - hips: height against the engine's scaled by the leg ratio (median error);
 * - limbs: angle between the character's and the engine's bone directions (arms, torso), worst step.
 */
import { Vector3, type Object3D } from 'three';
import type { MotionMatchingController } from '../../src/index.js';
import { skateWeight } from '../../src/runtime/quality/output-measures.js';
import type { ThreeRetargeter } from '../../src/three/index.js';

export interface Measures {
  /** Mean skate over every foot-joint step (cm/s). */
  skate: number;
  /** Lowest foot joint height seen (m). */
  lowest: number;
  /** Worst knee offset in front of the hip-ankle line (m; negative = behind). */
  kneeFront: number;
  /** Median |hips height - expected| (m). */
  hipsError: number;
  /** Worst limb direction error (degrees). */
  limbAngle: number;
}

type JointSet = { feet: number[]; legs: number[][]; hips: number; limbs: number[][] };

/** Records positions per step, for the character (three objects) or the engine (controller arrays). */
export class Recorder {
  readonly heights: number[][] = [];
  readonly xz: number[][] = [];
  kneeFront = Infinity;
  lowest = Infinity;
  readonly hipsErr: number[] = [];
  limbAngle = 0;
  private readonly v = new Vector3();

  constructor(private readonly objects: Object3D[] | null, private readonly set: JointSet) {
    for (let k = 0; k < set.feet.length; k++) { this.heights.push([]); this.xz.push([]); }
  }

  private pos(j: number, c: MotionMatchingController): [number, number, number] {
    if (this.objects) { this.objects[j].getWorldPosition(this.v); return [this.v.x, this.v.y, this.v.z]; }
    const w = c.worldPositions; return [w[3 * j], w[3 * j + 1], w[3 * j + 2]];
  }

  record(c: MotionMatchingController, expectedHips: number, engineLimbs: Array<[number, number, number]> | null): Array<[number, number, number]> {
    const s = this.set;
    s.feet.forEach((j, k) => { const p = this.pos(j, c); this.heights[k].push(p[1]); this.xz[k].push(p[0], p[2]); this.lowest = Math.min(this.lowest, p[1]); });
    const yaw = Math.atan2(2 * (c.rootRotation[0] * c.rootRotation[2] + c.rootRotation[3] * c.rootRotation[1]), 1 - 2 * (c.rootRotation[0] ** 2 + c.rootRotation[1] ** 2));
    const fx = Math.sin(yaw), fz = Math.cos(yaw);
    for (const [h, k, a] of s.legs) {
      const H = this.pos(h, c), K = this.pos(k, c), A = this.pos(a, c);
      const u = [A[0] - H[0], A[1] - H[1], A[2] - H[2]], l2 = u[0] ** 2 + u[1] ** 2 + u[2] ** 2;
      const t = ((K[0] - H[0]) * u[0] + (K[1] - H[1]) * u[1] + (K[2] - H[2]) * u[2]) / l2;
      const off = [K[0] - H[0] - t * u[0], K[2] - H[2] - t * u[2]];
      this.kneeFront = Math.min(this.kneeFront, off[0] * fx + off[1] * fz);
    }
    this.hipsErr.push(Math.abs(this.pos(s.hips, c)[1] - expectedHips));
    const dirs = s.limbs.map(([a, b]) => { const A = this.pos(a, c), B = this.pos(b, c); const d = [B[0] - A[0], B[1] - A[1], B[2] - A[2]]; const l = Math.hypot(d[0], d[1], d[2]); return [d[0] / l, d[1] / l, d[2] / l] as [number, number, number]; });
    if (engineLimbs) dirs.forEach((d, i) => { const e = engineLimbs[i]; const dot = Math.max(-1, Math.min(1, d[0] * e[0] + d[1] * e[1] + d[2] * e[2])); this.limbAngle = Math.max(this.limbAngle, (Math.acos(dot) * 180) / Math.PI); });
    return dirs;
  }

  measures(dt: number): Measures {
    let sum = 0, n = 0;
    for (let k = 0; k < this.heights.length; k++) {
      const h = this.heights[k], low = quantile(h, 0.01), xz = this.xz[k];
      for (let i = 1; i < h.length; i++) {
        const speed = (Math.hypot(xz[2 * i] - xz[2 * i - 2], xz[2 * i + 1] - xz[2 * i - 1]) / dt) * 100;
        sum += speed * skateWeight(0.5 * (h[i] + h[i - 1]) - low); n++;
      }
    }
    return { skate: sum / n, lowest: this.lowest, kneeFront: this.kneeFront, hipsError: quantile(this.hipsErr, 0.5), limbAngle: this.limbAngle };
  }
}

export function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round(q * (s.length - 1))))];
}

/** The joints to watch on the character (rig joint indices into retargeter.rig.objects) and the engine's counterparts. */
export function jointSets(r: ThreeRetargeter, db: { roles: Record<string, number>; skeleton: { parents: Int32Array; names: readonly string[] } }): { target: JointSet; engine: JointSet } {
  const t = r.rig.bones.roles;
  const names = db.skeleton.names;
  const engineRole = (role: string): number => {
    const e = r.boneMap.find((m) => m.role === role);
    return e ? names.indexOf(e.source) : -1;
  };
  const feetRoles = ['leftToes', 'rightToes', 'leftFoot', 'rightFoot'].filter((k) => t[k as keyof typeof t] >= 0 && engineRole(k) >= 0);
  const limbRoles: Array<[string, string]> = [['leftUpperArm', 'leftLowerArm'], ['leftLowerArm', 'leftHand'], ['rightUpperArm', 'rightLowerArm'], ['rightLowerArm', 'rightHand'], ['neck', 'head']];
  const limbs = limbRoles.filter(([a, b]) => t[a as keyof typeof t] >= 0 && t[b as keyof typeof t] >= 0 && engineRole(a) >= 0 && engineRole(b) >= 0);
  return {
    target: {
      feet: feetRoles.map((k) => t[k as keyof typeof t]),
      legs: [['leftUpperLeg', 'leftLowerLeg', 'leftFoot'], ['rightUpperLeg', 'rightLowerLeg', 'rightFoot']].map((l) => l.map((k) => t[k as keyof typeof t])),
      hips: t.hips,
      limbs: limbs.map(([a, b]) => [t[a as keyof typeof t], t[b as keyof typeof t]]),
    },
    engine: {
      feet: feetRoles.map(engineRole),
      legs: [['leftUpperLeg', 'leftLowerLeg', 'leftFoot'], ['rightUpperLeg', 'rightLowerLeg', 'rightFoot']].map((l) => l.map(engineRole)),
      hips: engineRole('hips'),
      limbs: limbs.map(([a, b]) => [engineRole(a), engineRole(b)]),
    },
  };
}
