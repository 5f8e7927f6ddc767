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
import { upperBodyRoot } from '../../src/features/upper-body.js';
import { withLegsPelvis, withSplitBone } from '../helpers/drop-joints.js';
import { gapToPlainRig } from '../helpers/same-motion.js';

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
    const gap = await gapToPlainRig(buildDatabase(pelvisRig(), {}), buildDatabase(builtinSources(), {}), ['wander', 'strafe'], 3, 240);
    expect(gap.transitions).toBeGreaterThan(20);
    expect(gap.worst).toBeLessThan(1e-6);
  });
});
