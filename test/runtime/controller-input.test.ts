/**
 * Hostile input to the controller: a refused input leaves the state exactly as it was, so a
 * character that was given garbage once keeps working with sane input afterwards.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import fc from 'fast-check';
import type { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { MotionMatchingController, createInput, MAX_DESIRED_SPEED } from '../../src/runtime/controller/controller.js';
import { resolveControllerOptions } from '../../src/runtime/controller/options.js';
import type { Database } from '../../src/database/database.js';
import { builtinSearch } from '../helpers/builtin-search.js';

let db: Database;
let port: MatcherSearchPort;
beforeAll(async () => {
  ({ db, port } = await builtinSearch());
});

/** Steps `c` with a gentle walk for n steps. */
function walk(c: MotionMatchingController, n: number): void {
  const input = createInput();
  for (let i = 0; i < n; i++) {
    input.velocityX = Math.sin(i / 20); input.velocityZ = 1.2;
    c.update(1 / 30, input, port);
  }
}

/** Everything a controller keeps: its state block (through the arrays it exposes) and its frame. */
function snapshot(c: MotionMatchingController): number[] {
  return [c.frame, c.frameFraction, ...c.rootPosition, ...c.rootRotation, ...c.simPosition, ...c.simVelocity, ...c.rotations, ...c.translations, c.counters.steps];
}

describe('controller input validation', () => {
  it('refuses a huge finite desired velocity without poisoning the state, then steps on as if it never came', () => {
    const a = new MotionMatchingController(db), b = new MotionMatchingController(db);
    walk(a, 40); walk(b, 40);
    const before = snapshot(a);
    const bad = createInput();
    for (const v of [1e100, -1e100, MAX_DESIRED_SPEED * 1.01, 1e308, Number.MAX_VALUE]) {
      bad.velocityX = v; bad.velocityZ = 0;
      expect(() => a.update(1 / 30, bad, port)).toThrow(/desired velocity must be finite and at most 100 m\/s/);
      bad.velocityX = 0; bad.velocityZ = v;
      expect(() => a.prepare(1 / 30, bad)).toThrow(RangeError);
    }
    expect(snapshot(a)).toEqual(before);
    walk(a, 60); walk(b, 60);
    expect(snapshot(a)).toEqual(snapshot(b));
    expect(snapshot(a).every(Number.isFinite)).toBe(true);
  });

  it('refuses NaN and infinite velocity, infinite facing and bad dt; accepts NaN facing', () => {
    const c = new MotionMatchingController(db);
    const input = createInput();
    for (const [vx, vz, facing, dt] of [[NaN, 0, NaN, 1 / 30], [0, Infinity, NaN, 1 / 30], [0, 1, Infinity, 1 / 30], [0, 1, NaN, -1], [0, 1, NaN, NaN], [0, 1, NaN, 2]]) {
      input.velocityX = vx; input.velocityZ = vz; input.facing = facing;
      expect(() => c.update(dt, input, port)).toThrow(RangeError);
    }
    input.velocityX = 0; input.velocityZ = 1; input.facing = NaN;
    expect(() => c.update(1 / 30, input, port)).not.toThrow();
  });

  it('complete() takes -1 or a frame of the database, nothing else', () => {
    const c = new MotionMatchingController(db);
    const input = createInput();
    input.velocityZ = 1;
    for (const frame of [1.5, db.frameCount, -2, NaN, Infinity]) {
      c.prepare(1 / 30, input);
      const before = snapshot(c);
      expect(() => c.complete(frame, 0)).toThrow(/frame must be -1 \(no result\) or an integer/);
      expect(snapshot(c)).toEqual(before);
    }
    c.prepare(1 / 30, input);
    expect(() => c.complete(-1, Infinity)).not.toThrow();
  });

  it('any finite input within the bounds keeps every output finite (property)', () => {
    const c = new MotionMatchingController(db);
    const input = createInput();
    fc.assert(fc.property(
      fc.array(fc.tuple(fc.double({ min: -MAX_DESIRED_SPEED / 1.5, max: MAX_DESIRED_SPEED / 1.5, noNaN: true }), fc.double({ min: -MAX_DESIRED_SPEED / 1.5, max: MAX_DESIRED_SPEED / 1.5, noNaN: true }), fc.oneof(fc.constant(NaN), fc.double({ min: -1e6, max: 1e6, noNaN: true })), fc.double({ min: 0, max: 0.2, noNaN: true })), { minLength: 1, maxLength: 30 }),
      (steps) => {
        for (const [vx, vz, facing, dt] of steps) {
          input.velocityX = vx; input.velocityZ = vz; input.facing = facing;
          c.update(dt, input, port);
        }
        return snapshot(c).every(Number.isFinite) && Array.from(c.worldPositions).every(Number.isFinite);
      },
    ), { numRuns: 40, seed: 7 });
  });

  it('options out of range are refused with the option named', () => {
    for (const [k, v] of [['searchInterval', 0], ['trajectoryHalfLife', -1], ['continuingBias', NaN], ['clampDistance', Infinity], ['blendMode', 'nope'], ['timeWarpMin', 2]] as const) {
      expect(() => resolveControllerOptions({ [k]: v } as never)).toThrow(new RegExp(k === 'timeWarpMin' ? 'time warp' : k));
    }
  });
});
