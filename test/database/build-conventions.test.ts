/**
 * Every naming convention builds, mirrored, without --bones: from the skeleton in memory and from
 * a BVH file written and read back.
 */
import { describe, it, expect } from 'vitest';
import { buildDatabase } from '../../src/database/build.js';
import { writeBvh } from '../../src/import/bvh/write.js';
import { parseBvh } from '../../src/import/bvh/bvh.js';
import { RIG_CONVENTIONS, skeletonOfRows, walkClip } from '../features/rig-conventions.js';

/** BVH names cannot hold spaces: the writer puts '_' in their place. */
const asWritten = (name: string | null): string | null => (name === null ? null : name.replace(/\s/g, '_'));

describe('a mirrored build without --bones, for every naming convention', () => {
  for (const c of RIG_CONVENTIONS) {
    it(c.label, () => {
      const s = skeletonOfRows(c.rows);
      const db = buildDatabase([{ skeleton: s, clip: walkClip(s, 'walk') }], { mirror: true });
      const named = Object.fromEntries(Object.entries(db.roles).map(([k, j]) => [k, j >= 0 ? db.skeleton.names[j] : null]));
      expect(named).toEqual(c.expect);
      expect(db.clips.map((r) => r.mirrored)).toEqual([false, true]);
      expect(db.features.every(Number.isFinite)).toBe(true);

      const r = parseBvh(writeBvh(s, walkClip(s, 'walk')), { file: 'walk.bvh' });
      const fromFile = buildDatabase([{ skeleton: r.skeleton, clip: r.clip }], { mirror: true });
      const namedFromFile = Object.fromEntries(Object.entries(fromFile.roles).map(([k, j]) => [k, j >= 0 ? fromFile.skeleton.names[j] : null]));
      expect(namedFromFile).toEqual(Object.fromEntries(Object.entries(c.expect).map(([k, n]) => [k, asWritten(n)])));
    });
  }
});
