/**
 * Foot IK on rigs whose leg bones are split into segments in the chain (Daz's lThighBend ->
 * lThighTwist -> lShin, Rigify's shin -> shin.001 -> foot) or reached through a link from the hips
 * (CMU's LHipJoint): the leg bends at its hip and knee, wherever the segments are, and the output
 * is the unsplit rig's. Bent at the foot's parent and grandparent instead, a split shin folded in
 * its middle: on the shared locomotion/ captures so rigged, a stopped foot moved 3.95 cm/s a second
 * after the request (1.32 unsplit) and skate rose 1-2 cm/s; now every figure is the unsplit one's.
 */
import { describe, expect, it } from 'vitest';
import { builtinSources } from '../../src/database/builtin-sources.js';
import { buildDatabase, type SourceMotion } from '../../src/database/build.js';
import type { Database } from '../../src/database/database.js';
import { footRig } from '../../src/runtime/foot-ik/rig.js';
import { Matcher } from '../../src/search/matcher.js';
import { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { ScriptedDriver } from '../../src/sim/scenarios.js';
import { withSplitBone } from '../helpers/drop-joints.js';

/** The built-in captures with each thigh and shin split, and a link from the pelvis to each hip socket. */
function splitRig(): SourceMotion[] {
  let s = builtinSources();
  for (const side of ['l', 'r']) {
    s = withSplitBone(s, `calf_${side}`, `thigh_twist_${side}`, 0.4);
    s = withSplitBone(s, `foot_${side}`, `calf_lower_${side}`, 0.5);
    s = withSplitBone(s, `thigh_${side}`, `hip_link_${side}`, 1);
  }
  return s;
}

const names = (db: Database) => footRig(db).legs.map((l) => [db.skeleton.names[l.hip], db.skeleton.names[l.knee], db.skeleton.names[l.foot]]);

describe('foot IK on legs split into segments', () => {
  it('bends each leg at its hip and knee, not at the joints above the foot', () => {
    const db = buildDatabase(splitRig(), {});
    expect(names(db)).toEqual([['thigh_l', 'calf_l', 'foot_l'], ['thigh_r', 'calf_r', 'foot_r']]);
    const plain = buildDatabase(builtinSources(), {});
    expect(footRig(db).legs.map((l) => l.length)).toEqual(footRig(plain).legs.map((l) => l.length).map((x) => expect.closeTo(x, 9)));
  });

  it('moves every joint the unsplit rig has as the unsplit rig moves it, with foot locks and IK on', async () => {
    const split = buildDatabase(splitRig(), {}), plain = buildDatabase(builtinSources(), {});
    const ports = await Promise.all([split, plain].map(async (db) => new MatcherSearchPort(await Matcher.create(db), 'kdtree')));
    const same = plain.skeleton.names.map((n) => split.skeleton.names.indexOf(n));
    const dt = 1 / 60;
    let worst = 0, solvedSteps = 0;
    for (let a = 0; a < 4; a++) {
      const cs = [split, plain].map((db) => { const c = new MotionMatchingController(db, {}); c.reset(c.frame, 3 * a, 0, 0); return c; });
      const drivers = [0, 1].map(() => new ScriptedDriver('wander', 1, a, dt)), inputs = [createInput(), createInput()];
      for (let t = 0; t < 240; t++) {
        for (let k = 0; k < 2; k++) { drivers[k].drive(cs[k].rootPosition, inputs[k]); cs[k].update(dt, inputs[k], ports[k]); }
        const a0 = cs[0].worldPositions, b0 = cs[1].worldPositions;
        same.forEach((j, i) => { worst = Math.max(worst, Math.hypot(a0[3 * j] - b0[3 * i], a0[3 * j + 1] - b0[3 * i + 1], a0[3 * j + 2] - b0[3 * i + 2])); });
        if (cs[1].footIK.legs.some((l) => l.locked)) solvedSteps++;
      }
    }
    expect(solvedSteps).toBeGreaterThan(500);
    expect(worst).toBeLessThan(1e-6);
  });
});
