/**
 * The compact loader's fast paths (float32 views instead of float64 clip copies, mirroring in
 * place, forward kinematics of only the joints the rebuild reads, computed clip by clip into one
 * scratch when the rebuild reads the clip) give, bit for bit, what deriveDatabase computes from
 * float64 copies of the decoded poses with full forward kinematics held for every clip.
 */
import { describe, expect, it } from 'vitest';
import { buildDatabase, deriveDatabase, type WorkClip } from '../../src/database/build.js';
import { builtinSources } from '../../src/database/sources-node.js';
import { decodeDatabase } from '../../src/database/mmdb/mmdb.js';
import { encodeCompactDatabase } from '../../src/database/mmdb/encode-compact.js';
import { clipOfRange } from '../../src/database/compact/mirror-links.js';
import { worldTransformsOfFrames } from '../../src/anim/pose.js';
import { DEFAULT_CONTACT_OPTIONS } from '../../src/features/contacts.js';
import type { Database } from '../../src/database/database.js';

function bits(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/** deriveDatabase over float64 copies of `db`'s poses, every joint's world transforms computed. */
function slowRebuild(db: Database): Database {
  const J = db.skeleton.names.length;
  const work: WorkClip[] = db.clips.map((range) => {
    const clip = clipOfRange(db, range);
    const worldRot = new Float64Array(range.count * J * 4), worldPos = new Float64Array(range.count * J * 3);
    worldTransformsOfFrames(db.skeleton.parents, clip.rotations, clip.translations, range.count, worldRot, worldPos);
    return { clip, mirrored: range.mirrored, sourceFps: range.sourceFps, worldRot, worldPos };
  });
  return deriveDatabase({ skeleton: db.skeleton, roles: db.roles, fps: db.fps, schema: db.schema, contacts: DEFAULT_CONTACT_OPTIONS, work });
}

describe('compact load: the fast rebuild equals the plain one', () => {
  it('on mirrored built-in clips, every derived array bit-identical', () => {
    const db = buildDatabase(builtinSources().slice(0, 6), { mirror: true });
    const loaded = decodeDatabase(encodeCompactDatabase(db).bytes, 'small.mmdb');
    expect(loaded.clips.some((c) => c.mirrored)).toBe(true);
    const slow = slowRebuild(loaded);
    for (const k of ['rootPositions', 'rootRotations', 'contacts', 'candidates', 'rawFeatures', 'features', 'mean', 'scale'] as const) {
      expect(bits(loaded[k]), k).toEqual(bits(slow[k]));
    }
  });
});
