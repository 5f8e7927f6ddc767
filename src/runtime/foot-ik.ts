import type { Database } from '../database/database.js';
import { CONTACT_LEFT, CONTACT_RIGHT } from '../database/database.js';
import { quatInvMultiply } from '../math/quat.js';
import { solveTwoBoneIk, createTwoBoneIkScratch } from '../math/two-bone-ik.js';

export interface FootIKOptions {
  /** Release a locked foot when the animated foot drifts further than this (m). */
  unlockDistance: number;
  /** Half-life of the target offset that blends IK in and out (s). */
  blendHalfLife: number;
}

// 0.3 m rather than the usual 0.2: measured on the scripted scenarios, 0.2 releases feet during
// sharp turns and strafes that are still in contact (1.3 cm/s skate), 0.3 keeps them (0.4 cm/s).
export const DEFAULT_FOOT_IK_OPTIONS: FootIKOptions = { unlockDistance: 0.3, blendHalfLife: 0.05 };

/** What FootIK needs from the controller: the output pose it may edit, and its world transforms. */
export interface FootIKHost {
  readonly frame: number;
  readonly rotations: Float64Array;
  readonly worldPositions: Float64Array;
  readonly worldRotations: Float64Array;
  /** Recomputes one joint's world transform from its parent's. */
  updateWorldJoint(j: number): void;
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
  }

  reset(worldPositions: Float64Array): void {
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

  /** Updates locks and bends the legs of `host`'s output pose towards the targets. */
  apply(host: FootIKHost, dt: number): void {
    const contacts = this.db.contacts[host.frame];
    const wp = host.worldPositions;
    for (const l of this.legs) {
      const f = 3 * l.foot;
      const contact = (contacts & l.bit) !== 0;
      if (contact && !l.locked) {
        // Plant the foot where it is shown now (animation + any offset still blending out), so that
        // nothing slides once it is down.
        for (let k = 0; k < 3; k++) { l.lock[k] = wp[f + k] + l.offset[k]; l.offset[k] = 0; l.offsetVel[k] = 0; }
        l.locked = true;
      } else if (l.locked) {
        const drift = Math.hypot(l.lock[0] - wp[f], l.lock[2] - wp[f + 2]);
        if (!contact || drift > this.opts.unlockDistance) {
          // Hand over from the lock to the animation without a jump: offset = old target - new desired.
          for (let k = 0; k < 3; k++) l.offset[k] = l.lock[k] + l.offset[k] - wp[f + k];
          l.locked = false;
        }
      }
      this.decayOffset(l, dt);
      let error = 0;
      for (let k = 0; k < 3; k++) {
        l.target[k] = (l.locked ? l.lock[k] : wp[f + k]) + l.offset[k];
        const e = l.target[k] - wp[f + k];
        error += e * e;
      }
      if (error < 1e-10) continue;
      // Keep the foot's world orientation: remember it, bend the leg, then restore it locally.
      for (let k = 0; k < 4; k++) this.footWorldRot[k] = host.worldRotations[4 * l.foot + k];
      solveTwoBoneIk(host.rotations, host.worldPositions, host.worldRotations, this.db.skeleton.parents, l.hip, l.knee, l.foot, l.target, this.scratch);
      quatInvMultiply(host.rotations, 4 * l.foot, host.worldRotations, 4 * l.knee, this.footWorldRot, 0);
      for (let k = 0; k < 4; k++) host.worldRotations[4 * l.foot + k] = this.footWorldRot[k];
      for (let i = 0; i < l.below.length; i++) host.updateWorldJoint(l.below[i]);
    }
  }
}

