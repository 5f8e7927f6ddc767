/**
 * Forward kinematics of some joints only (src/anim/pose.ts: jointsAbove, forwardKinematicsOf), as
 * the captured data's pass over every frame uses it: the joints placed get exactly the numbers of
 * the whole skeleton's pass, the others are not written.
 */
import { describe, expect, it } from 'vitest';
import { forwardKinematics, forwardKinematicsOf, jointsAbove } from '../../src/anim/pose.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

describe('forward kinematics of the joints above some targets', () => {
  it('lists each target and every joint above it, parents first, skipping joints a rig lacks', () => {
    // 0 - 1 - 2 - 3, 1 - 4 - 5, 0 - 6
    const parents = Int32Array.from([-1, 0, 1, 2, 1, 4, 0]);
    expect(Array.from(jointsAbove(parents, [3]))).toEqual([0, 1, 2, 3]);
    expect(Array.from(jointsAbove(parents, [5, -1, 6]))).toEqual([0, 1, 4, 5, 6]);
    expect(Array.from(jointsAbove(parents, []))).toEqual([]);
  });

  it('gives the placed joints the whole pass\'s numbers bit for bit and leaves the others alone', () => {
    const db = builtinDatabase(), parents = db.skeleton.parents, J = parents.length, r = db.roles;
    const placed = jointsAbove(parents, [r.leftToe, r.rightFoot, r.hips]);
    expect(placed.length).toBeLessThan(J);
    const rot = new Float64Array(4 * J), pos = new Float64Array(3 * J);
    const wr = new Float64Array(4 * J), wp = new Float64Array(3 * J), pr = new Float64Array(4 * J), pp = new Float64Array(3 * J);
    for (let f = 0; f < db.frameCount; f += 101) {
      for (let i = 0; i < 4 * J; i++) rot[i] = db.rotations[f * 4 * J + i];
      for (let i = 0; i < 3 * J; i++) pos[i] = db.translations[f * 3 * J + i];
      forwardKinematics(parents, rot, 0, pos, 0, wr, wp);
      pr.fill(Number.NaN); pp.fill(Number.NaN);
      forwardKinematicsOf(parents, placed, rot, 0, pos, 0, pr, pp);
      for (let j = 0; j < J; j++) {
        const on = placed.includes(j);
        for (let k = 0; k < 3; k++) expect(Object.is(pp[3 * j + k], on ? wp[3 * j + k] : Number.NaN), `frame ${f} joint ${j}`).toBe(true);
        for (let k = 0; k < 4; k++) expect(Object.is(pr[4 * j + k], on ? wr[4 * j + k] : Number.NaN), `frame ${f} joint ${j}`).toBe(true);
      }
    }
  });
});
