/**
 * The runtime view of a database (runtime/database-runtime.ts): poses rebased on the root track,
 * root velocities that integrate back to the root track, and the per-frame clip table.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { databaseRuntime, computeDatabaseRuntime, framePoseAt, movingJoints, rebasedFrame, rootRebasePlan, SOURCE_DATABASE } from '../../src/runtime/database-runtime.js';
import { buildDatabase } from '../../src/database/build.js';
import { loadBvhSources } from '../../src/database/sources-node.js';
import { join } from 'node:path';
import { HAS_MOCAP, MOCAP_DIR } from '../helpers/cli.js';
import { posedForwardKinematics } from '../../src/anim/forward-kinematics.js';
import { forwardKinematics } from '../../src/anim/pose.js';
import { quatRotateVec3, quatYaw } from '../../src/math/quat.js';
import { wrapAngle } from '../../src/math/angle.js';
import type { Database } from '../../src/database/database.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

let db: Database;
beforeAll(() => { db = builtinDatabase(); });

describe('databaseRuntime', () => {
  it('is computed once per database and shared', () => {
    expect(databaseRuntime(db)).toBe(databaseRuntime(db));
    // Object.is, as .not.toBe checks, but without the deep comparison vitest's .not.toBe runs on
    // two distinct objects to word its message (element by element over every array: 17 s here).
    expect(Object.is(computeDatabaseRuntime(db), databaseRuntime(db))).toBe(false);
  });

  it('rebased poses placed at the root track reproduce the original world pose', () => {
    const rt = databaseRuntime(db), J = rt.joints, parents = db.skeleton.parents;
    const wr = new Float64Array(4 * J), wp = new Float64Array(3 * J), rr = new Float64Array(4 * J), rp = new Float64Array(3 * J);
    const t = new Float64Array(3 * J), r = new Float64Array(4 * J);
    let worst = 0;
    for (let f = 0; f < db.frameCount; f += 97) {
      forwardKinematics(parents, db.rotations, f * J * 4, db.translations, f * J * 3, wr, wp);
      framePoseAt(rt, f, r, 0, t, 0);
      posedForwardKinematics(parents, t, r, Float64Array.from(db.rootPositions), 3 * f, Float64Array.from(db.rootRotations), 4 * f, rp, rr);
      for (let i = 0; i < 3 * J; i++) worst = Math.max(worst, Math.abs(rp[i] - wp[i]));
    }
    expect(worst).toBeLessThan(1e-4);
  });

  it('root velocities integrate back to the root track within each clip', () => {
    const rt = databaseRuntime(db);
    const v = new Float64Array(3), w = new Float64Array(3);
    let worstPos = 0, worstYaw = 0;
    for (const c of db.clips) {
      for (let k = 0; k + 1 < c.count; k++) {
        const f = c.start + k;
        // Displacement over one frame = rootRot(f) · (local root velocity / fps).
        v[0] = rt.rootVelocity[3 * f] / rt.fps; v[1] = rt.rootVelocity[3 * f + 1] / rt.fps; v[2] = rt.rootVelocity[3 * f + 2] / rt.fps;
        quatRotateVec3(w, 0, db.rootRotations, 4 * f, v, 0);
        for (let d = 0; d < 3; d++) worstPos = Math.max(worstPos, Math.abs(db.rootPositions[3 * f + 3 + d] - db.rootPositions[3 * f + d] - w[d]));
        const turn = wrapAngle(quatYaw(db.rootRotations, 4 * f + 4) - quatYaw(db.rootRotations, 4 * f));
        worstYaw = Math.max(worstYaw, Math.abs(turn - rt.rootYawRate[f] / rt.fps));
      }
    }
    expect(worstPos).toBeLessThan(1e-5);
    expect(worstYaw).toBeLessThan(1e-5);
  });

  it('maps every frame to its clip and finds the joints whose translation moves', () => {
    const rt = databaseRuntime(db);
    db.clips.forEach((c, i) => {
      expect(rt.clipOf[c.start]).toBe(i);
      expect(rt.clipOf[c.start + c.count - 1]).toBe(i);
    });
    expect(Array.from(rt.movingTranslations)).toContain(db.roles.hips);
    const still = new Float32Array([1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 7]); // 2 frames x 2 joints: joint 1 moves
    expect(Array.from(movingJoints(still, 2, 2))).toEqual([1]);
  });

  // The tables hold the database's pose once (db.rotations / db.translations) plus what the rebase
  // changes, and translation velocities only for the joints that have one: read back, every frame's
  // pose and velocities are those of a whole rebased copy, to the bit (the built-in set, whose rig
  // carries its translation on the hips, and the shared captures, whose files each hold their own
  // rest offsets and whose mirrored halves move joints by a rounding error within a clip).
  it('reads back, frame by frame, the pose and velocities of a whole rebased copy, bit for bit', () => {
    const sets: Array<[string, Database]> = [['built-in', db]];
    if (HAS_MOCAP) sets.push(['core/ mirrored', buildDatabase(loadBvhSources([join(MOCAP_DIR, 'core')]), { mirror: true })]);
    for (const [name, d] of sets) {
      const rt = computeDatabaseRuntime(d), J = rt.joints, plan = rootRebasePlan(d);
      const rootRot = Float64Array.from(d.rootRotations), rootPos = Float64Array.from(d.rootPositions);
      const wantR = new Float64Array(4 * J), wantT = new Float64Array(3 * J), nextR = new Float64Array(4 * J), nextT = new Float64Array(3 * J);
      const gotR = new Float64Array(4 * J), gotT = new Float64Array(3 * J);
      const stored = new Set(rt.velocityJoints);
      let frames = 0, poseMismatch = 0, velocityMismatch = 0, fromDatabase = 0;
      for (const c of d.clips) {
        for (let k = 0; k < c.count; k++) {
          const f = c.start + k;
          rebasedFrame(d, plan, f, rootPos, rootRot, wantR, wantT);
          framePoseAt(rt, f, gotR, 0, gotT, 0);
          for (let i = 0; i < 4 * J; i++) if (gotR[i] !== Math.fround(wantR[i])) poseMismatch++;
          for (let i = 0; i < 3 * J; i++) if (gotT[i] !== Math.fround(wantT[i])) poseMismatch++;
          // Forward differences within the clip (backward on its last frame), as the tables take them.
          const g = c.count === 1 ? f : k === c.count - 1 ? f - 1 : f + 1;
          rebasedFrame(d, plan, g, rootPos, rootRot, nextR, nextT);
          const sign = g < f ? -1 : 1;
          for (let j = 0; j < J; j++) {
            const i = Array.prototype.indexOf.call(rt.velocityJoints, j), n = rt.velocityJoints.length;
            for (let e = 0; e < 3; e++) {
              const want = Math.fround(sign * (nextT[3 * j + e] - wantT[3 * j + e]) * rt.fps);
              const got = stored.has(j) ? rt.velocities[(f * n + i) * 3 + e] : 0;
              if (!Object.is(got + 0, want + 0)) velocityMismatch++;
            }
          }
          frames++;
        }
      }
      for (let j = 0; j < J; j++) if (rt.jointSource[j] === SOURCE_DATABASE) fromDatabase++;
      console.log(`${name}: ${frames} frames, ${fromDatabase} of ${J} joints read from the database's own pose, translation velocities stored for ${rt.velocityJoints.length}`);
      expect(poseMismatch, name).toBe(0);
      expect(velocityMismatch, name).toBe(0);
      expect(fromDatabase, name).toBeGreaterThanOrEqual(J - 2);
    }
  }, 60_000);
});
