/**
 * Foot locking and two-bone IK (runtime/foot-ik/foot-ik.ts) driven directly: a controller without IK plays
 * the database and a separate FootIK bends its legs, so every claim is checked on FootIK alone.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import type { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { FootIK, DEFAULT_FOOT_IK_OPTIONS, FOOT_IK_STATE_SIZE } from '../../src/runtime/foot-ik/foot-ik.js';
import type { Database } from '../../src/database/database.js';
import { builtinSearch } from '../helpers/builtin-search.js';

let db: Database;
let port: MatcherSearchPort;
beforeAll(async () => {
  ({ db, port } = await builtinSearch());
});

/** Per leg and step: locked or not, the contact point's world position (toe, else ankle), the lock; and the hips drop. */
interface Trace { locked: boolean[][]; foot: number[][][]; lock: number[][][]; drop: number[] }

/** Walks a U-turn course with a no-IK controller and applies a separate FootIK after each step. */
function trace(steps: number, options = DEFAULT_FOOT_IK_OPTIONS): Trace {
  const c = new MotionMatchingController(db, { footIK: false });
  const ik = new FootIK(db, options);
  ik.reset(c.worldPositions);
  const input = createInput();
  const out: Trace = { locked: [[], []], foot: [[], []], lock: [[], []], drop: [] };
  for (let s = 0; s < steps; s++) {
    const h = Math.floor(s / 90) * Math.PI;
    input.velocityX = 1.4 * Math.sin(h); input.velocityZ = 1.4 * Math.cos(h);
    c.update(1 / 30, input, port);
    ik.apply(c, 1 / 30);
    for (let i = 0; i < 2; i++) {
      const leg = ik.legs[i];
      out.locked[i].push(leg.locked);
      out.foot[i].push(Array.from(c.worldPositions.subarray(3 * leg.contact, 3 * leg.contact + 3)));
      out.lock[i].push(Array.from(leg.lock));
    }
    out.drop.push(ik.hipsDrop);
  }
  return out;
}

const dist = (a: number[], b: number[]) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
/** Horizontal distance: a planted foot may settle vertically onto its lock, it must not slide. */
const slide = (a: number[], b: number[]) => Math.hypot(a[0] - b[0], a[2] - b[2]);

describe('FootIK', () => {
  it('holds a locked foot where it was planted for as long as the lock lasts (raising the heel where the leg is short)', () => {
    const t = trace(400);
    let lockedSteps = 0;
    const errors: number[] = [];
    for (let i = 0; i < 2; i++) {
      for (let s = 1; s < t.locked[i].length; s++) {
        // Steps just after a lock starts still blend out the previous offset: compare settled locks.
        if (!(t.locked[i][s] && t.locked[i][s - 1] && t.locked[i][Math.max(0, s - 6)])) continue;
        lockedSteps++;
        errors.push(slide(t.foot[i][s], t.lock[i][s]));
        // Held horizontally; its height is the animation's (a rolling foot rolls).
        expect(slide(t.lock[i][s], t.lock[i][s - 1])).toBe(0);
      }
    }
    errors.sort((a, b) => a - b);
    console.log(`locked foot error: p50 ${errors[errors.length >> 1]}, p95 ${errors[Math.floor(0.95 * errors.length)]}, max ${errors[errors.length - 1]} m over ${lockedSteps} steps`);
    expect(lockedSteps).toBeGreaterThan(100);
    // Exact (to rounding) where the leg reaches the lock; a locked foot beyond the leg's reach (the hips
    // drop at most maxHipsDrop) follows the leg until the lock is released.
    expect(errors[errors.length >> 1]).toBeLessThan(1e-4);
    expect(errors[Math.floor(0.95 * errors.length)]).toBeLessThan(1e-3);
  });

  it('releases without a pop: the foot moves no faster at a release than while swinging', () => {
    const t = trace(400);
    let releases = 0, maxRelease = 0, maxSwing = 0;
    for (let i = 0; i < 2; i++) {
      for (let s = 1; s < t.locked[i].length; s++) {
        const speed = dist(t.foot[i][s], t.foot[i][s - 1]) * 30;
        if (t.locked[i][s - 1] && !t.locked[i][s]) { releases++; maxRelease = Math.max(maxRelease, speed); }
        else if (!t.locked[i][s]) maxSwing = Math.max(maxSwing, speed);
      }
    }
    expect(releases).toBeGreaterThan(10);
    expect(maxRelease).toBeLessThanOrEqual(maxSwing);
  });

  it('lowers the hips by at most maxHipsDrop, and not at all when turned off', () => {
    const limited = trace(300, { ...DEFAULT_FOOT_IK_OPTIONS, maxHipsDrop: 0.02 });
    expect(Math.max(...limited.drop)).toBeLessThanOrEqual(0.02 + 1e-9);
    const off = trace(300, { ...DEFAULT_FOOT_IK_OPTIONS, maxHipsDrop: 0 });
    expect(Math.max(...off.drop)).toBe(0);
  });

  it('refuses bad options and too small storage', () => {
    expect(() => new FootIK(db, { ...DEFAULT_FOOT_IK_OPTIONS, unlockLegLengths: 0 })).toThrow(/unlockLegLengths/);
    expect(() => new FootIK(db, { ...DEFAULT_FOOT_IK_OPTIONS, hipsDropSpeed: NaN })).toThrow(/hipsDropSpeed/);
    expect(() => new FootIK(db, { ...DEFAULT_FOOT_IK_OPTIONS, blendHalfLife: -1 })).toThrow(RangeError);
    expect(() => new FootIK(db, DEFAULT_FOOT_IK_OPTIONS, new Float64Array(FOOT_IK_STATE_SIZE - 1))).toThrow(/storage/);
  });
});
