/**
 * The runtime view of a database (runtime/database-runtime.ts): poses rebased on the root track,
 * root velocities that integrate back to the root track, and the per-frame clip table.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { databaseRuntime, computeDatabaseRuntime, movingJoints } from '../../src/runtime/database-runtime.js';
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
      t.set(rt.translations.subarray(f * J * 3, (f + 1) * J * 3));
      r.set(rt.rotations.subarray(f * J * 4, (f + 1) * J * 4));
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
});
