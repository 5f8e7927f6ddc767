/**
 * A rig whose legs hang from a pelvis joint beside the spine (Daz Genesis: `hip` holds `pelvis` and
 * `abdomenLower`), under a reference root that only places the clip (much real mocap's
 * `joint_Root`). The feet's deepest common ancestor, the hips role, is then the pelvis, which holds
 * the legs only. Two things read the hips role as the body: the rebase onto the root track
 * (database-runtime.ts), which left the reference root carrying the body while the joint above the
 * pelvis held the asset's world position (inertializing two clips mixed them: 14-16 m/s at the
 * root joint on the shared captures so rigged), and the upper body's turn, which found no spine
 * below the pelvis (strafe facing 15.6° against 12.2). Judged from the output: every joint the
 * plain rig has moves as the plain rig moves it.
 */
import { describe, expect, it } from 'vitest';
import { builtinSources } from '../../src/database/builtin-sources.js';
import { buildDatabase, type SourceMotion } from '../../src/database/build.js';
import { Matcher } from '../../src/search/matcher.js';
import { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { ScriptedDriver } from '../../src/sim/scenarios.js';
import { upperBodyRoot } from '../../src/features/upper-body.js';
import { withLegsPelvis, withSplitBone } from '../helpers/drop-joints.js';

/** The built-in captures under a reference root at the origin, the thighs under a pelvis beside the spine. */
function pelvisRig(): SourceMotion[] {
  return withLegsPelvis(withSplitBone(builtinSources(), 'pelvis', 'reference_root', 0), 'thigh_l', 'thigh_r', 'legs_pelvis');
}

describe('a rig whose legs hang from a pelvis beside the spine', () => {
  it('finds the spine above the pelvis', () => {
    const db = buildDatabase(pelvisRig(), {});
    expect(db.skeleton.names[db.roles.hips]).toBe('legs_pelvis');
    expect(db.skeleton.names[upperBodyRoot(db.skeleton, db.roles)]).toBe('spine_01');
  });

  it('moves every joint the plain rig has as the plain rig moves it, through transitions and strafes', async () => {
    const rigged = buildDatabase(pelvisRig(), {}), plain = buildDatabase(builtinSources(), {});
    const ports = await Promise.all([rigged, plain].map(async (db) => new MatcherSearchPort(await Matcher.create(db), 'kdtree')));
    const same = plain.skeleton.names.map((n) => rigged.skeleton.names.indexOf(n));
    const dt = 1 / 60;
    let worst = 0, transitions = 0;
    for (const scenario of ['wander', 'strafe'] as const) {
      for (let a = 0; a < 3; a++) {
        const cs = [rigged, plain].map((db) => { const c = new MotionMatchingController(db, {}); c.reset(c.frame, 3 * a, 0, 0); return c; });
        const drivers = [0, 1].map(() => new ScriptedDriver(scenario, 1, a, dt)), inputs = [createInput(), createInput()];
        for (let t = 0; t < 240; t++) {
          for (let k = 0; k < 2; k++) { drivers[k].drive(cs[k].rootPosition, inputs[k]); cs[k].update(dt, inputs[k], ports[k]); }
          const p = cs[0].worldPositions, q = cs[1].worldPositions;
          same.forEach((j, i) => { worst = Math.max(worst, Math.hypot(p[3 * j] - q[3 * i], p[3 * j + 1] - q[3 * i + 1], p[3 * j + 2] - q[3 * i + 2])); });
        }
        transitions += cs[1].transitionCount;
      }
    }
    expect(transitions).toBeGreaterThan(20);
    expect(worst).toBeLessThan(1e-6);
  });
});
