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
import { withSplitBone } from '../helpers/drop-joints.js';
import { gapToPlainRig } from '../helpers/same-motion.js';

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
    const gap = await gapToPlainRig(buildDatabase(splitRig(), {}), buildDatabase(builtinSources(), {}), ['wander'], 4, 240);
    expect(gap.lockedSteps).toBeGreaterThan(500);
    expect(gap.worst).toBeLessThan(1e-6);
  });
});
