/**
 * Float32 files decoded into views of the bytes read (DecodeOptions.viewsOfBytes, as
 * readDatabaseFile decodes its own bytes): the same database as the copying decode, no array
 * copied where the file aligns it, copies where it does not or where the host needs the portable
 * path, and the bytes left unchanged.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { _setTypedArrayByteCopy, decodeDatabase, encodeDatabase } from '../../src/database/mmdb/mmdb.js';
import { readDatabaseFile } from '../../src/database/mmdb/mmdb-node.js';
import { makeRandomDatabase } from '../helpers/random-database.js';
import { tempDir } from '../helpers/cli.js';

const dir = tempDir('mm-views-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const db = makeRandomDatabase(7, { frames: 120, joints: 5, clips: 3, tags: 2 });
const bytes = encodeDatabase(db);
const ARRAYS = ['rotations', 'translations', 'rootPositions', 'rootRotations', 'features', 'rawFeatures', 'mean', 'scale', 'contacts', 'candidates', 'tagBits'] as const;

describe('a float32 file decoded into views of its bytes', () => {
  it('is the database the copying decode gives, its arrays views of the bytes, the bytes unchanged', () => {
    const own = bytes.slice();
    const viewed = decodeDatabase(own, 'views.mmdb', { viewsOfBytes: true });
    expect(viewed).toEqual(decodeDatabase(bytes, 'copies.mmdb'));
    for (const k of ARRAYS) expect(viewed[k].buffer, k).toBe(own.buffer);
    expect(Buffer.from(own).equals(Buffer.from(bytes))).toBe(true);
    // Without the option nothing points into the bytes.
    const copied = decodeDatabase(own, 'copies.mmdb');
    for (const k of ARRAYS) expect(copied[k].buffer, k).not.toBe(own.buffer);
  });

  it('copies what the bytes do not align, and everything on the portable (big-endian) path', () => {
    // The same file one byte into a buffer: no 4-byte field is aligned there.
    const shifted = new Uint8Array(bytes.length + 1).subarray(1);
    shifted.set(bytes);
    const a = decodeDatabase(shifted, 'shifted.mmdb', { viewsOfBytes: true });
    expect(a).toEqual(decodeDatabase(bytes));
    expect(a.features.buffer).not.toBe(shifted.buffer);
    expect(a.contacts.buffer).toBe(shifted.buffer); // (bytes are aligned anywhere)
    const prev = _setTypedArrayByteCopy(false);
    try {
      const own = bytes.slice();
      const b = decodeDatabase(own, 'portable.mmdb', { viewsOfBytes: true });
      expect(b).toEqual(decodeDatabase(bytes));
      for (const k of ARRAYS) if (k !== 'contacts' && k !== 'candidates') expect(b[k].buffer, k).not.toBe(own.buffer);
    } finally {
      _setTypedArrayByteCopy(prev);
    }
  });

  it('is what readDatabaseFile returns', () => {
    const file = join(dir, 'db.mmdb');
    writeFileSync(file, bytes);
    const read = readDatabaseFile(file);
    expect(read).toEqual(decodeDatabase(bytes));
    expect(read.features.buffer).toBe(read.rotations.buffer);
  });
});
