import type { Database } from '../database/database.js';
import { CONTACT_LEFT, CONTACT_RIGHT } from '../database/database.js';
import { quatInvMultiply, quatInvRotateVec3 } from '../math/quat.js';
import { solveTwoBoneIk, createTwoBoneIkScratch } from '../math/two-bone-ik.js';

export interface FootIKOptions {
  /** Release a locked foot when the animated foot drifts further than this (m). */
  unlockDistance: number;
  /** Half-life of the target offset that blends IK in and out (s). */
  blendHalfLife: number;
  /** Largest lowering of the hips (m) so that a locked foot stays within the leg's reach (0 = off). */
  maxHipsDrop: number;
}

// 0.3 m rather than the usual 0.2: measured on the scripted scenarios, 0.2 releases feet during
// sharp turns and strafes that are still in contact (1.3 cm/s skate), 0.3 keeps them (0.4 cm/s).
export const DEFAULT_FOOT_IK_OPTIONS: FootIKOptions = { unlockDistance: 0.3, blendHalfLife: 0.05, maxHipsDrop: 0.12 };

/** What FootIK needs from the controller: the output pose it may edit, and its world transforms. */
export interface FootIKHost {
  readonly frame: number;
  readonly rotations: Float64Array;
  readonly worldPositions: Float64Array;
  readonly worldRotations: Float64Array;
  readonly translations: Float64Array;
  readonly rootRotation: Float64Array;
  /** Recomputes one joint's world transform from its parent's. */
  updateWorldJoint(j: number): void;
  computeWorldPose(): void;
}

interface Leg {
  hip: number;
  knee: number;
  foot: number;
  bit: number;
  locked: boolean;
  lock: Float64Array;
  /** Target = desired (lock or animated foot) + offset; the offset decays, making IK blend in/out smoothly. */
  offset: Float64Array;
  offsetVel: Float64Array;
  target: Float64Array;
  /** Joints below the foot (toes, end joints), parents first: moved along after a solve. */
  below: Int32Array;
}

/**
 * Foot locking with two-bone IK: a foot is locked where it is when its contact starts and released
 * when the contact ends or the animated foot drifts too far; switches between "follow the lock"
 * and "follow the animation" carry a decaying offset so that the foot never pops.
 */
export class FootIK {
  readonly legs: Leg[];
  private readonly opts: FootIKOptions;
  private readonly scratch = createTwoBoneIkScratch();
  private readonly footWorldRot = new Float64Array(4);

  constructor(private readonly db: Database, options: FootIKOptions) {
    this.opts = options;
    if (!(options.unlockDistance > 0 && options.blendHalfLife > 0)) throw new RangeError('foot IK options must be positive');
    const parents = db.skeleton.parents;
    const leg = (foot: number, bit: number): Leg => {
      const knee = parents[foot], hip = knee >= 0 ? parents[knee] : -1;
      if (knee < 0 || hip < 0) throw new RangeError(`foot IK needs a hip and a knee above the foot "${db.skeleton.names[foot]}"`);
      const below: number[] = [];
      for (let j = foot + 1; j < parents.length; j++) if (parents[j] === foot || below.includes(parents[j])) below.push(j);
      return {
        hip, knee, foot, bit, locked: false,
        lock: new Float64Array(3), offset: new Float64Array(3), offsetVel: new Float64Array(3), target: new Float64Array(3),
        below: Int32Array.from(below),
      };
    };
    this.legs = [leg(db.roles.leftFoot, CONTACT_LEFT), leg(db.roles.rightFoot, CONTACT_RIGHT)];
    this.hipsSubtree = subtree(parents, db.roles.hips);
  }

  /** The hips and every joint below them (parents-first order). */
  private readonly hipsSubtree: Int32Array;

  reset(worldPositions: Float64Array): void {
    this.hipsDrop = 0;
    this.hipsDropVel = 0;
    for (const l of this.legs) {
      l.locked = false;
      l.offset.fill(0); l.offsetVel.fill(0);
      for (let k = 0; k < 3; k++) l.lock[k] = l.target[k] = worldPositions[3 * l.foot + k];
    }
  }

  private decayDt = -1;
  private decayE = 1;

  /** The decay spring of GUIDE §5 on the leg's target offset, with e^(-y dt) cached per dt. */
  private decayOffset(l: Leg, dt: number): void {
    const y = (2 * Math.LN2) / this.opts.blendHalfLife;
    if (dt !== this.decayDt) { this.decayDt = dt; this.decayE = Math.exp(-y * dt); }
    const e = this.decayE, o = l.offset, v = l.offsetVel;
    if (o[0] === 0 && o[1] === 0 && o[2] === 0 && v[0] === 0 && v[1] === 0 && v[2] === 0) return;
    for (let k = 0; k < 3; k++) {
      const j = v[k] + o[k] * y;
      o[k] = e * (o[k] + j * dt);
      v[k] = e * (v[k] - j * y * dt);
    }
  }

  isLocked(i: number): boolean {
    return this.legs[i].locked;
  }

  /** Current lowering of the hips (m) applied to keep locked feet reachable. */
  hipsDrop = 0;
  private hipsDropVel = 0;
  private readonly dropVec = new Float64Array(3);
  private readonly dropLocal = new Float64Array(3);

  /** Updates locks and bends the legs of `host`'s output pose towards the targets. */
  apply(host: FootIKHost, dt: number): void {
    const contacts = this.db.contacts[host.frame];
    const wp = host.worldPositions;
    let needed = 0;
    for (const l of this.legs) {
      const f = 3 * l.foot;
      const contact = (contacts & l.bit) !== 0;
      if (contact && !l.locked) {
        // Plant the foot where it is shown now (animation + any offset still blending out), so that
        // nothing slides once it is down.
        for (let k = 0; k < 3; k++) { l.lock[k] = wp[f + k] + l.offset[k]; l.offset[k] = 0; l.offsetVel[k] = 0; }
        l.locked = true;
      } else if (l.locked) {
        const dx = l.lock[0] - wp[f], dz = l.lock[2] - wp[f + 2];
        const drift = Math.sqrt(dx * dx + dz * dz);
        if (!contact || drift > this.opts.unlockDistance) {
          // Hand over from the lock to the animation without a jump: offset = old target - new desired.
          for (let k = 0; k < 3; k++) l.offset[k] = l.lock[k] + l.offset[k] - wp[f + k];
          l.locked = false;
        }
      }
      this.decayOffset(l, dt);
      for (let k = 0; k < 3; k++) l.target[k] = (l.locked ? l.lock[k] : wp[f + k]) + l.offset[k];
      if (l.locked) needed = Math.max(needed, this.dropToReach(l, wp));
    }
    this.lowerHips(host, needed, dt);
    for (const l of this.legs) {
      const f = 3 * l.foot;
      // A free leg with nothing left to blend out just follows the body (down with the hips too):
      // pulling a swinging, nearly straight leg back to its old height would snap its knee.
      if (!l.locked && l.offset[0] * l.offset[0] + l.offset[1] * l.offset[1] + l.offset[2] * l.offset[2] < 1e-10) continue;
      let error = 0;
      for (let k = 0; k < 3; k++) { const e = l.target[k] - wp[f + k]; error += e * e; }
      // Within 0.05 mm the solve would not show: skip it (most planted frames of clean data).
      if (error < 2.5e-9) continue;
      // Keep the foot's world orientation: remember it, bend the leg, then restore it locally.
      for (let k = 0; k < 4; k++) this.footWorldRot[k] = host.worldRotations[4 * l.foot + k];
      solveTwoBoneIk(host.rotations, host.worldPositions, host.worldRotations, this.db.skeleton.parents, l.hip, l.knee, l.foot, l.target, this.scratch);
      quatInvMultiply(host.rotations, 4 * l.foot, host.worldRotations, 4 * l.knee, this.footWorldRot, 0);
      for (let k = 0; k < 4; k++) host.worldRotations[4 * l.foot + k] = this.footWorldRot[k];
      for (let i = 0; i < l.below.length; i++) host.updateWorldJoint(l.below[i]);
    }
  }

  /** How far the hip joint must come down for the leg to reach its target (0 when it can). */
  private dropToReach(l: Leg, wp: Float64Array): number {
    const h = 3 * l.hip, k = 3 * l.knee, f = 3 * l.foot;
    const reach = dist3(wp, k, h) + dist3(wp, f, k) - 0.01;
    const dx = l.target[0] - wp[h], dz = l.target[2] - wp[h + 2], dy = wp[h + 1] - l.target[1];
    const horizontal = dx * dx + dz * dz;
    if (dx * dx + dy * dy + dz * dz <= reach * reach || dy <= 0) return 0;
    // Lowering by d makes the vertical gap dy - d; the leg reaches when (dy - d)^2 + h^2 <= reach^2.
    const allowed = horizontal < reach * reach ? Math.sqrt(reach * reach - horizontal) : 0;
    return Math.max(0, dy - allowed);
  }

  /**
   * Lowers the hips (quickly when more is needed, slowly back) by at most maxHipsDrop and refreshes
   * the world pose, so that planted feet are not dragged once the body moves past their reach.
   */
  private lowerHips(host: FootIKHost, needed: number, dt: number): void {
    const max = this.opts.maxHipsDrop;
    if (max <= 0) return;
    const want = Math.min(max, needed);
    // A critically damped spring (half-life 0.06 s) towards the wanted drop: its velocity stays
    // continuous when the wanted drop jumps, so the body never jerks.
    if (dt > 0) {
      const y = (2 * Math.LN2) / 0.06, e = Math.exp(-y * dt);
      const x = this.hipsDrop - want, j = this.hipsDropVel + x * y;
      this.hipsDrop = want + e * (x + j * dt);
      this.hipsDropVel = e * (this.hipsDropVel - j * y * dt);
    }
    if (this.hipsDrop < 1e-5 && Math.abs(this.hipsDropVel) < 1e-4 && want === 0) { this.hipsDrop = 0; this.hipsDropVel = 0; return; }
    const hips = this.db.roles.hips, parent = this.db.skeleton.parents[hips];
    this.dropVec[0] = 0; this.dropVec[1] = -this.hipsDrop; this.dropVec[2] = 0;
    // The drop is vertical in the world; express it in the hips' parent frame.
    if (parent >= 0) quatInvRotateVec3(this.dropLocal, 0, host.worldRotations, 4 * parent, this.dropVec, 0);
    else quatInvRotateVec3(this.dropLocal, 0, host.rootRotation, 0, this.dropVec, 0);
    for (let k = 0; k < 3; k++) host.translations[3 * hips + k] += this.dropLocal[k];
    // A translation of the hips moves its whole subtree rigidly by the same world vector: shift
    // those world positions rather than redo forward kinematics (rotations are unchanged).
    const wp = host.worldPositions, sub = this.hipsSubtree, dy = this.dropVec[1];
    for (let i = 0; i < sub.length; i++) wp[3 * sub[i] + 1] += dy;
  }
}

function dist3(a: Float64Array, i: number, j: number): number {
  const x = a[i] - a[j], y = a[i + 1] - a[j + 1], z = a[i + 2] - a[j + 2];
  return Math.sqrt(x * x + y * y + z * z);
}

/** `root` and its descendants, for a parents-first hierarchy. */
function subtree(parents: Int32Array, root: number): Int32Array {
  const inside = new Uint8Array(parents.length);
  const out: number[] = [];
  for (let j = 0; j < parents.length; j++) {
    if (j === root || (parents[j] >= 0 && inside[parents[j]])) { inside[j] = 1; out.push(j); }
  }
  return Int32Array.from(out);
}
