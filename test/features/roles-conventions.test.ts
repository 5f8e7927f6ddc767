import { describe, it, expect } from 'vitest';
import { findBoneRoles, BoneRoleError } from '../../src/features/roles.js';
import type { Skeleton } from '../../src/anim/skeleton.js';
import { RIG_CONVENTIONS, skeletonOfRows, turnedHalf, type Row } from './rig-conventions.js';

function namedRoles(s: Skeleton): Record<string, string | null> {
  const roles = findBoneRoles(s, {}, 'rig.bvh');
  return Object.fromEntries(Object.entries(roles).map(([k, j]) => [k, j >= 0 ? s.names[j] : null]));
}

describe('bone roles without options, one skeleton per naming convention', () => {
  for (const c of RIG_CONVENTIONS) {
    it(c.label, () => {
      expect(namedRoles(skeletonOfRows(c.rows))).toEqual(c.expect);
    });
  }

  it('every convention still resolves when the rig faces -Z instead of +Z', () => {
    for (const c of RIG_CONVENTIONS) expect(namedRoles(skeletonOfRows(turnedHalf(c.rows))), c.label).toEqual(c.expect);
  });

  it('joints listed in another order (children swapped) resolve to the same names', () => {
    for (const c of RIG_CONVENTIONS) {
      // Move every right-side leg row before the left one, keeping parents first.
      const rows = [...c.rows];
      const order = rows.map((r, i) => ({ r, key: /(^|[^a-z])(r|right)([^a-z]|$)|Right|\.R$|_R$|_r$| R |\.02\d$/.test(r[0]) ? i - 1000 : i }));
      const reordered: Row[] = [];
      const placed = new Set<string>();
      const pending = order.sort((a, b) => a.key - b.key).map((o) => o.r);
      while (pending.length > 0) {
        const k = pending.findIndex((r) => r[1] === null || placed.has(r[1]));
        reordered.push(pending[k]); placed.add(pending[k][0]); pending.splice(k, 1);
      }
      expect(namedRoles(skeletonOfRows(reordered)), c.label).toEqual(c.expect);
    }
  });
});

describe('bone roles: what cannot be resolved says so in one line', () => {
  it('one leg only: the missing foot, the file, a few joints', () => {
    const rows = RIG_CONVENTIONS[1].rows.filter((r) => !/^Right(UpLeg|Leg|Foot|ToeBase|Toe_End)$/.test(r[0]));
    let err: unknown;
    try { findBoneRoles(skeletonOfRows(rows), {}, 'one-leg.bvh'); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(BoneRoleError);
    const msg = (err as Error).message;
    expect(msg).toMatch(/^one-leg\.bvh: cannot find the rightFoot bone by name or by the shape of the skeleton \(joints: Hips, Spine, Spine1, Spine2, Neck, Head, LeftShoulder, LeftArm, \.\.\. and \d+ more\); name the bones explicitly/);
    expect(msg).not.toContain('\n');
  });

  it('two feet on one chain are refused, not returned', () => {
    const rows: Row[] = [['Hips', null, [0, 1, 0]], ['LeftFoot', 'Hips', [0, -0.5, 0]], ['RightFoot', 'LeftFoot', [0, -0.4, 0]]];
    expect(() => findBoneRoles(skeletonOfRows(rows), {}, 'chain.bvh')).toThrow(/^chain\.bvh: the feet LeftFoot and RightFoot lie on one chain/);
  });

  it('overrides still win over names and shape', () => {
    const s = skeletonOfRows(RIG_CONVENTIONS[1].rows);
    const roles = findBoneRoles(s, { leftFoot: 'LeftToeBase', leftToe: 'LeftToe_End' });
    expect(s.names[roles.leftFoot]).toBe('LeftToeBase');
    expect(s.names[roles.leftToe]).toBe('LeftToe_End');
    expect(s.names[roles.hips]).toBe('Hips');
  });
});
