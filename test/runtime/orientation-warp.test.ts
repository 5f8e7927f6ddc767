/**
 * Orientation warping: a request the data has no motion for (a sidestep from data without
 * sidesteps) is answered with the nearest motion the data has, the legs facing so that it travels
 * the requested way and the upper body turning towards the requested facing.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { travelCoverage, nearestCoveredTravel, travelBin, TRAVEL_BINS } from '../../src/runtime/controller/travel-coverage.js';
import { upperBodyRig } from '../../src/runtime/controller/upper-body-twist.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import type { PoseSearchPort } from '../../src/runtime/search-port.js';
import type { Database } from '../../src/database/database.js';
import { quatYaw } from '../../src/math/quat.js';
import { makeRootTrackDatabase } from '../helpers/root-track-db.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

const deg = Math.PI / 180;
let builtin: Database;
beforeAll(() => { builtin = builtinDatabase(); });

/** A database whose only motion is a forward walk (a 1.2 m/s loop): it cannot sidestep. */
function forwardOnly(): Database {
  return makeRootTrackDatabase([{ z: Array.from({ length: 30 }, (_, k) => 0.04 * k), loop: true }], 30);
}

/**
 * A standing clip (60 frames at 30 fps) with a short sideways drift: 8 frames moving +X at 1.2 m/s,
 * less than the half second of travel that counts as motion going that way.
 */
function driftClip(): { x: number[]; z: number[] } {
  const x: number[] = [];
  for (let k = 0, p = 0; k < 60; k++) { if (k > 4 && k <= 12) p += 0.04; x.push(p); }
  return { x, z: x.map(() => 0) };
}

/** forwardOnly plus `copies` takes of driftClip (a set holding the same take several times). */
function forwardWithDrifts(copies: number): Database {
  return makeRootTrackDatabase([{ z: Array.from({ length: 30 }, (_, k) => 0.04 * k), loop: true }, ...Array.from({ length: copies }, driftClip)], 30);
}

const keepPlaying: PoseSearchPort = { searchPose(_r, out) { out.frame = -1; out.cost = Infinity; } };

describe('travel coverage', () => {
  it('finds the directions the data travels in: the built-in data sidesteps and walks backwards, a forward walk only goes forward', () => {
    const b = travelCoverage(builtin);
    const coveredNear = (a: number) => [-15, -5, 5, 15].some((d) => b.covered[travelBin((a + d) * deg)] === 1);
    // Its strafes travel at about 75 degrees to the hips' facing, its backward walks at 180.
    for (const a of [0, 75, -75, 180]) expect(coveredNear(a), `${a} degrees`).toBe(true);
    const f = travelCoverage(forwardOnly());
    expect(f.covered[travelBin(0)]).toBe(1);
    expect(f.covered.reduce((n, x) => n + x, 0)).toBe(1);
    expect(f.frames.reduce((n, x) => n + x, 0)).toBeGreaterThan(0);
    expect(travelCoverage(builtin)).toBe(b); // once per database
  });

  it('counts travel within one clip: a drift repeated in several takes covers no direction, and copies of a take change nothing', () => {
    const one = travelCoverage(forwardWithDrifts(1)), three = travelCoverage(forwardWithDrifts(3));
    const side = travelBin(90 * deg);
    // Three takes hold more than half a second of sideways travel between them (what a sum over the
    // database counted as covered), each take a quarter of a second of it.
    expect(three.frames[side]).toBeGreaterThanOrEqual(15);
    expect(three.clipFrames[side]).toBeLessThan(15);
    expect(three.covered[side]).toBe(0);
    expect([...three.covered]).toEqual([...one.covered]);
    expect([...three.covered]).toEqual([...travelCoverage(forwardOnly()).covered]);
  });

  it('answers a covered angle with itself and an uncovered one with the nearest covered edge', () => {
    const f = travelCoverage(forwardOnly());
    expect(nearestCoveredTravel(f, 3 * deg)).toBe(3 * deg);
    const side = nearestCoveredTravel(f, 90 * deg);
    expect(side).toBeGreaterThan(0);
    expect(side).toBeLessThanOrEqual((360 / TRAVEL_BINS) * deg + 1e-12);
    expect(nearestCoveredTravel(f, -90 * deg)).toBeLessThanOrEqual(0);
    expect(nearestCoveredTravel(f, -90 * deg)).toBeGreaterThan(-1e-12 - 360 / TRAVEL_BINS * deg);
  });
});

describe('orientation warping through the controller', () => {
  it('a sidestep request on forward-only data travels the requested way, the upper body turned towards the requested facing', () => {
    // clampMoves 'simulation': the character moves by its animation only, so where it gets to is
    // what the chosen motion does (the default clamp would drag a non-warped character sideways).
    const run = (orientationWarp: number, db = forwardOnly()) => {
      const c = new MotionMatchingController(db, { footIK: false, orientationWarp, startFrame: 0, clampMoves: 'simulation' });
      const input = createInput();
      input.velocityX = 1.2; input.velocityZ = 0; input.facing = 0; // travel +X, face +Z
      for (let s = 0; s < 120; s++) c.update(1 / 30, input, keepPlaying);
      return c;
    };
    const warped = run(Math.PI / 3), plain = run(0);
    // Warped: the legs face about +X and the character travels +X; the chest turns back towards +Z.
    expect(warped.rootPosition[0]).toBeGreaterThan(2.5);
    expect(Math.abs(warped.rootPosition[2])).toBeLessThan(1);
    const rig = upperBodyRig(warped.db);
    const top = rig.chain[rig.chain.length - 1];
    const legs = quatYaw(warped.rootRotation, 0), chest = quatYaw(warped.worldRotations, 4 * top);
    expect(legs).toBeGreaterThan(60 * deg);
    expect(legs - chest).toBeGreaterThan(50 * deg); // turned by about orientationWarp (60 degrees)
    expect(legs - chest).toBeLessThan(60 * deg + 1e-6);
    // Not warped: facing +Z as asked, the forward walk cannot go sideways.
    expect(Math.abs(quatYaw(plain.rootRotation, 0))).toBeLessThan(45 * deg);
    expect(plain.rootPosition[0]).toBeLessThan(warped.rootPosition[0] - 1);
    // The same data with three takes of a brief sideways drift: still warped, the same way.
    const drifts = run(Math.PI / 3, forwardWithDrifts(3));
    expect(drifts.rootPosition[0]).toBeGreaterThan(2.5);
    expect(quatYaw(drifts.rootRotation, 0)).toBeGreaterThan(60 * deg);
  });

  it('changes nothing for requests the data covers: with and without warping, a forward walk facing forward is bit-identical', () => {
    const run = (orientationWarp: number) => {
      const c = new MotionMatchingController(builtin, { orientationWarp });
      const input = createInput();
      input.velocityZ = 1.3; input.facing = 0.1;
      for (let s = 0; s < 60; s++) c.update(1 / 30, input, keepPlaying);
      return [...c.rootPosition, ...c.rotations];
    };
    expect(run(Math.PI / 3)).toEqual(run(0));
  });
});
