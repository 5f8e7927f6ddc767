import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../../src/database/database.js';
import {
  DatabaseFormatError,
  MMDB_FORMAT_VERSION,
  _setTypedArrayByteCopy,
  checkDatabaseConsistency,
  decodeDatabase,
  encodeDatabase,
  inspectDatabase,
  type DatabaseFormatErrorCode,
} from '../../src/database/mmdb/mmdb.js';
import { DatabaseFileError, readDatabaseFile, writeDatabaseFile } from '../../src/database/mmdb/mmdb-node.js';
import { crc32 } from '../../src/util/crc32.js';
import { buildDatabase, type SourceMotion } from '../../src/database/build.js';
import {
  FIELD_TYPE, HEADER, SECTION_HEADER, buildFile, decodeError, encodeError, encodeTampered, expectCode, expectSameDatabase,
  field, pad8, parseFile, sameTyped, textField, withSection,
} from './mmdb-craft.js';
import { cloneDatabase, makeRandomDatabase, seededRandom } from '../helpers/random-database.js';

// ---------------------------------------------------------------------------------------------

const small = makeRandomDatabase(1, { frames: 24, joints: 4, clips: 3, tags: 3, mirrored: true });
const medium = makeRandomDatabase(2, { frames: 300, joints: 9, clips: 7, tags: 5, mirrored: true });
const smallBytes = encodeDatabase(small);
const mediumBytes = encodeDatabase(medium);

describe('round trip', () => {
  it.each([
    ['small', small],
    ['medium', medium],
    ['empty (0 frames, 0 clips)', makeRandomDatabase(3, { frames: 0, joints: 1, clips: 0, tags: 0 })],
    ['one frame, 32 tags', makeRandomDatabase(4, { frames: 1, joints: 2, clips: 1, tags: 32 })],
    ['unclipped frames', makeRandomDatabase(5, { frames: 50, joints: 3, clips: 0, tags: 2 })],
  ])('%s: every field survives, bytes are deterministic', (_, db) => {
    const bytes = encodeDatabase(db);
    expect(bytes.length % 8).toBe(0);
    const back = decodeDatabase(bytes, 'rt.mmdb');
    expectSameDatabase(back, db);
    if (db.frameCount <= 50) expect(back).toEqual(db); // and vitest's own deep equality on the small ones
    // typed array kinds preserved (toEqual already compares element types)
    expect(back.rotations).toBeInstanceOf(Float32Array);
    expect(back.skeleton.offsets).toBeInstanceOf(Float64Array);
    expect(back.skeleton.parents).toBeInstanceOf(Int32Array);
    expect(back.tagBits).toBeInstanceOf(Uint32Array);
    expect(back.contacts).toBeInstanceOf(Uint8Array);
    // deterministic: twice the same bytes, and decode -> encode reproduces them
    expect(sameTyped(encodeDatabase(db), bytes)).toBe(true);
    expect(sameTyped(encodeDatabase(back), bytes)).toBe(true);
    expect(sameTyped(encodeDatabase(cloneDatabase(db)), bytes)).toBe(true);
  });

  it('random shapes round trip (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 }),
        fc.integer({ min: 0, max: 80 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 32 }),
        fc.boolean(),
        fc.nat(),
        (seed, frames, joints, tags, mirrored, c) => {
          const clips = frames === 0 ? 0 : c % Math.min(frames + 1, 9);
          const db = makeRandomDatabase(seed, { frames, joints, clips, tags, mirrored });
          const bytes = encodeDatabase(db);
          expectSameDatabase(decodeDatabase(bytes), db);
          expect(sameTyped(encodeDatabase(db), bytes)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('every payload is 8-byte aligned and sections appear in the documented order', () => {
    const info = inspectDatabase(mediumBytes, 'm.mmdb');
    expect(info.version).toBe(MMDB_FORMAT_VERSION);
    expect(info.byteLength).toBe(mediumBytes.length);
    expect(info.sections.map((s) => s.tag)).toEqual(['META', 'SKEL', 'CLIP', 'POSE', 'ROOT', 'CONT', 'CAND', 'TAGS', 'SCHM', 'NORM', 'FRAW', 'FEAT']);
    for (const s of info.sections) expect(s.offset % 8).toBe(0);
    expect(info.frameCount).toBe(300);
    expect(info.jointCount).toBe(9);
    expect(info.stride).toBe(medium.stride);
    const pose = info.sections.find((s) => s.tag === 'POSE')!;
    expect(pose.length).toBe(8 + 300 * 9 * 4 * 4 + 8 + 300 * 9 * 3 * 4); // two typed fields
    // a loader may view float arrays in place (data after the 8-byte field header)
    const view = new Float32Array(mediumBytes.buffer, mediumBytes.byteOffset + pose.offset + 8, 300 * 9 * 4);
    expect(view).toEqual(medium.rotations);
  });

  it('starts with the bytes shown in docs/mmdb-format.md', () => {
    const doc = readFileSync(new URL('../../docs/mmdb-format.md', import.meta.url), 'utf8');
    const dump = doc.slice(doc.indexOf('00000000:'), doc.indexOf('SKEL....@.......') + 16);
    const hex = dump.split('\n').map((l) => l.slice(10, 49).replace(/ /g, '')).join('');
    expect(Buffer.from(smallBytes.subarray(0, 0x80)).toString('hex')).toBe(hex);
  });

  it('accepts an ArrayBuffer, and a Uint8Array at an unaligned offset; does not keep the input', () => {
    expect(decodeDatabase(smallBytes.slice().buffer)).toEqual(small);
    const host = new Uint8Array(smallBytes.length + 3);
    host.set(smallBytes, 3);
    const back = decodeDatabase(host.subarray(3));
    expect(back).toEqual(small);
    host.fill(0);
    expect(back).toEqual(small);
  });

  it('stores the generator string in META (optional, not part of Database)', () => {
    const bytes = encodeDatabase(small, { generator: 'motionmatch 0.1.0 test — ü' });
    expect(inspectDatabase(bytes).generator).toBe('motionmatch 0.1.0 test — ü');
    expect(inspectDatabase(smallBytes).generator).toBe('');
    expect(decodeDatabase(bytes)).toEqual(small);
    expect(bytes).not.toEqual(smallBytes);
  });

  it('the portable DataView path writes and reads the same bytes as the byte-copy path', () => {
    const prev = _setTypedArrayByteCopy(false);
    try {
      const bytes = encodeDatabase(medium);
      expect(sameTyped(bytes, mediumBytes)).toBe(true);
      expectSameDatabase(decodeDatabase(bytes), medium);
    } finally {
      _setTypedArrayByteCopy(prev);
    }
  });

  it('skips unknown lowercase sections and accepts any section order', () => {
    const p = parseFile(smallBytes);
    p.sections.splice(3, 0, { tag: 'xtra', flags: 0, reserved: 0, payload: new Uint8Array([1, 2, 3]) });
    p.sections.reverse();
    const bytes = buildFile(p);
    expect(decodeDatabase(bytes)).toEqual(small);
    expect(inspectDatabase(bytes).sections.find((s) => s.tag === 'xtra')).toMatchObject({ known: false, length: 3 });
  });
});

describe('databases from buildDatabase', () => {
  /** A tiny two-legged skeleton with a procedural walk, so the real builder (FK, root track, features, mirroring) runs. */
  function motion(name: string, frames: number, speed: number): SourceMotion {
    const names = ['Hips', 'Spine', 'LeftUpLeg', 'LeftLeg', 'LeftFoot', 'LeftToeBase', 'RightUpLeg', 'RightLeg', 'RightFoot', 'RightToeBase'];
    const off = [[0, 1, 0], [0, 0.2, 0], [0.1, -0.05, 0], [0, -0.45, 0], [0, -0.45, 0], [0, -0.05, 0.12], [-0.1, -0.05, 0], [0, -0.45, 0], [0, -0.45, 0], [0, -0.05, 0.12]];
    const J = names.length;
    const skeleton = { names, parents: Int32Array.from([-1, 0, 0, 2, 3, 4, 0, 6, 7, 8]), offsets: Float64Array.from(off.flat()), endSiteParents: Int32Array.from([5, 9]), endSiteOffsets: new Float64Array(6) };
    const rotations = new Float64Array(frames * J * 4), translations = new Float64Array(frames * J * 3);
    for (let f = 0; f < frames; f++) {
      for (let j = 0; j < J; j++) {
        const a = (j === 2 ? 0.5 : j === 6 ? -0.5 : 0.1) * Math.sin(f * 0.2 * speed + j);
        const o = (f * J + j) * 4;
        rotations[o] = Math.sin(a / 2);
        rotations[o + 3] = Math.cos(a / 2);
        const t = (f * J + j) * 3;
        translations[t] = off[j][0];
        translations[t + 1] = off[j][1];
        translations[t + 2] = off[j][2] + (j === 0 ? f * 0.02 * speed : 0);
      }
    }
    return { skeleton, clip: { name, source: `${name}.bvh`, fps: 30, frameCount: frames, rotations, translations, loop: false, tags: [name.replace(/\d+$/, '')] } };
  }

  it('a built (and mirrored) database passes the checks and round-trips', () => {
    const db = buildDatabase([motion('walk1', 90, 1), motion('run1', 60, 2)], { mirror: true });
    checkDatabaseConsistency(db, 'built');
    const bytes = encodeDatabase(db);
    expectSameDatabase(decodeDatabase(bytes), db);
    expect(sameTyped(encodeDatabase(db), bytes)).toBe(true);
  });
});

describe('truncation', () => {
  it('every prefix of a small file is refused as truncated', () => {
    for (let n = 0; n < smallBytes.length; n++) {
      const e = decodeError(smallBytes.subarray(0, n));
      if (e.code !== 'truncated') throw new Error(`prefix ${n}: ${e.code}: ${e.message}`);
    }
  });

  it('at every section boundary (section header start, payload start, payload end) of a medium file', () => {
    const info = inspectDatabase(mediumBytes);
    const cuts = new Set<number>([0, 8, 23, HEADER]);
    for (const s of info.sections) {
      for (const c of [s.offset - SECTION_HEADER, s.offset - SECTION_HEADER + 4, s.offset - 1, s.offset, s.offset + s.length - 1, s.offset + s.length]) cuts.add(c);
    }
    cuts.delete(mediumBytes.length);
    for (const n of cuts) {
      const e = expectCode(mediumBytes.subarray(0, n), 'truncated');
      expect(e.message).toContain('truncated');
    }
  });

  it('at random lengths', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: mediumBytes.length - 1 }), (n) => {
        expectCode(mediumBytes.slice(0, n), 'truncated');
      }),
      { numRuns: 1000 },
    );
  });

  it('messages say what is missing', () => {
    expect(decodeError(new Uint8Array(0)).message).toBe('test.mmdb: truncated: the file is 0 bytes, shorter than the 24-byte header');
    expect(decodeError(smallBytes.subarray(0, HEADER)).message).toBe('test.mmdb: truncated: the file ends after 0 of 12 sections');
    const info = inspectDatabase(mediumBytes);
    const pose = info.sections.find((s) => s.tag === 'POSE')!;
    const e = expectCode(mediumBytes.subarray(0, pose.offset + 12000), 'truncated', 'poses');
    expect(e.message).toBe(`test.mmdb: truncated: section 'poses' (POSE) declares ${pose.length.toLocaleString('en-US')} bytes but only 12,000 remain`);
  });
});

describe('corruption', () => {
  /** Which codes a flip at each byte may produce, from the layout. */
  function expectedCodes(bytes: Uint8Array): Array<DatabaseFormatErrorCode[]> {
    const out: Array<DatabaseFormatErrorCode[]> = new Array(bytes.length);
    out.fill(['bad-magic'], 0, 8);
    out.fill(['crc-mismatch'], 8, HEADER);
    for (const s of inspectDatabase(bytes).sections) {
      const h = s.offset - SECTION_HEADER;
      out.fill(['crc-mismatch'], h, h + 8); // tag, flags
      out.fill(['crc-mismatch', 'truncated'], h + 8, h + 16); // length
      out.fill(['crc-mismatch'], h + 16, h + 20); // CRC
      out.fill(['bad-section'], h + 20, h + 24); // reserved
      out.fill(['crc-mismatch'], s.offset, s.offset + s.length);
      out.fill(['bad-section'], s.offset + s.length, s.offset + pad8(s.length)); // padding
    }
    return out;
  }

  it('a single-bit flip anywhere in a small file is detected (every byte)', () => {
    const codes = expectedCodes(smallBytes);
    for (let i = 0; i < smallBytes.length; i++) {
      for (const bit of [i % 8, (i * 5 + 3) % 8]) {
        const b = smallBytes.slice();
        b[i] ^= 1 << bit;
        const e = decodeError(b);
        if (!codes[i].includes(e.code)) throw new Error(`byte ${i} bit ${bit}: expected ${codes[i].join('|')}, got ${e.code}: ${e.message}`);
      }
    }
  });

  it('single-bit flips at random positions of a medium file (property)', () => {
    const codes = expectedCodes(mediumBytes);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: mediumBytes.length * 8 - 1 }), (bit) => {
        const b = mediumBytes.slice();
        b[bit >> 3] ^= 1 << (bit & 7);
        const e = decodeError(b);
        expect(codes[bit >> 3]).toContain(e.code);
      }),
      { numRuns: 5000 },
    );
  });

  it('random multi-byte damage is always a DatabaseFormatError', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: smallBytes.length - 1 }), fc.uint8Array({ minLength: 1, maxLength: 64 }), (at, junk) => {
        const b = smallBytes.slice();
        b.set(junk.subarray(0, b.length - at), at);
        fc.pre(!b.every((x, i) => x === smallBytes[i]));
        decodeError(b);
      }),
      { numRuns: 2000 },
    );
  });

  it('names the section and both CRCs', () => {
    const info = inspectDatabase(mediumBytes);
    const feat = info.sections.find((s) => s.tag === 'FEAT')!;
    const b = mediumBytes.slice();
    b[feat.offset + 100] ^= 0x10;
    const e = expectCode(b, 'crc-mismatch', 'features');
    expect(e.message).toMatch(/^test\.mmdb: section 'features' \(FEAT\) CRC mismatch \(stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}\): the file is corrupted$/);
  });

  it('random garbage and other file types are refused as bad magic', () => {
    expectCode(new TextEncoder().encode('{"frames": 10}'), 'bad-magic');
    expectCode(Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 'bad-magic');
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (b) => {
        const e = decodeError(b);
        expect(['bad-magic', 'truncated', 'crc-mismatch']).toContain(e.code);
      }),
      { numRuns: 500 },
    );
  });

  it('recognises text-mode (CRLF <-> LF) damage', () => {
    const lf: number[] = [];
    for (let i = 0; i < smallBytes.length; i++) if (!(smallBytes[i] === 0x0d && smallBytes[i + 1] === 0x0a)) lf.push(smallBytes[i]);
    expect(expectCode(Uint8Array.from(lf), 'bad-magic').message).toContain('CRLF to LF');
    const crlf: number[] = [];
    for (let i = 0; i < smallBytes.length; i++) { if (smallBytes[i] === 0x0a) crlf.push(0x0d); crlf.push(smallBytes[i]); }
    expect(expectCode(Uint8Array.from(crlf), 'bad-magic').message).toContain('LF to CRLF');
  });
});

describe('header and section table', () => {
  it('refuses other format versions with a clear message', () => {
    // (Version 2 is the compact database: test/database/compact*.test.ts.)
    for (const v of [0, 3, 0xffffffff]) {
      const p = parseFile(smallBytes);
      p.version = v;
      const e = expectCode(buildFile(p), 'unsupported-version');
      expect(e.message).toContain(`format version ${v} is not supported (this build reads version 1, and version 2 for compact databases)`);
    }
    const p = parseFile(smallBytes);
    p.version = 3;
    expect(decodeError(buildFile(p), 'b.mmdb').message.startsWith('b.mmdb: format version 3 is not supported (this build reads version 1, and version 2 for compact databases)')).toBe(true);
  });

  it('refuses unknown header flags', () => {
    const p = parseFile(smallBytes);
    p.flags = 1;
    expectCode(buildFile(p), 'unsupported-version');
  });

  it('refuses trailing garbage', () => {
    for (const extra of [1, 7, 8, 24, 1000]) {
      const b = new Uint8Array(smallBytes.length + extra);
      b.set(smallBytes);
      expect(expectCode(b, 'bad-section').message).toContain(`${extra.toLocaleString('en-US')} bytes of unexpected data after the last of the 12 sections`);
    }
  });

  it('refuses missing, duplicate and unknown uppercase sections', () => {
    let p = parseFile(smallBytes);
    p.sections = p.sections.filter((s) => s.tag !== 'FEAT' && s.tag !== 'ROOT');
    const e = expectCode(buildFile(p), 'missing-section', 'root');
    expect(e.message).toContain("missing required sections 'root' (ROOT), 'features' (FEAT)");

    p = parseFile(smallBytes);
    p.sections.push({ ...p.sections[0] });
    expectCode(buildFile(p), 'duplicate-section', 'meta');

    p = parseFile(smallBytes);
    p.sections.push({ tag: 'XTRA', flags: 0, reserved: 0, payload: new Uint8Array(8) });
    expect(expectCode(buildFile(p), 'bad-section', 'XTRA').message).toContain('newer motionmatch');

    p = parseFile(smallBytes);
    p.sections.push({ tag: 'a\u0000bc', flags: 0, reserved: 0, payload: new Uint8Array(0) });
    expectCode(buildFile(p), 'bad-section');
  });

  it('refuses non-zero section flags, reserved fields and padding even with valid CRCs', () => {
    let p = parseFile(smallBytes);
    p.sections[2].flags = 4;
    expectCode(buildFile(p), 'bad-section', 'clips');
    p = parseFile(smallBytes);
    p.sections[2].reserved = 1;
    expectCode(buildFile(p), 'bad-section', 'clips');
    p = parseFile(smallBytes);
    p.sections.push({ tag: 'pad_', flags: 0, reserved: 0, payload: new Uint8Array(3) });
    expectCode(buildFile(p, 0xaa), 'bad-section', 'pad_');
  });

  it('refuses a section count that disagrees with the sections present', () => {
    const b = smallBytes.slice();
    const dv = new DataView(b.buffer);
    dv.setUint32(12, 11, true);
    dv.setUint32(20, crc32(b, 0, 20), true);
    expectCode(b, 'bad-section'); // the 12th section is then trailing data
    dv.setUint32(12, 13, true);
    dv.setUint32(20, crc32(b, 0, 20), true);
    expectCode(b, 'truncated');
    dv.setUint32(12, 0xffffffff, true);
    dv.setUint32(20, crc32(b, 0, 20), true);
    expectCode(b, 'truncated');
  });

  it('a huge declared section length is truncation, not an allocation', () => {
    const info = inspectDatabase(smallBytes);
    const b = smallBytes.slice();
    const dv = new DataView(b.buffer);
    const h = info.sections[3].offset - SECTION_HEADER;
    dv.setUint32(h + 12, 0xffff, true);
    expectCode(b, 'truncated', 'poses');
  });
});

describe('consistent CRCs, inconsistent contents', () => {
  const db = small;
  const N = db.frameCount, S = db.stride;

  const cases: Array<[string, (d: Database) => void, DatabaseFormatErrorCode, string, RegExp?]> = [
    ['clip range beyond N', (d) => { d.clips[d.clips.length - 1].count += 5; }, 'inconsistent', 'clips', /covers frames \[\d+, 29\) but the database has 24 frames/],
    ['overlapping clips', (d) => { d.clips[1].start -= 1; d.clips[1].count += 1; }, 'inconsistent', 'clips', /before the previous clip ends/],
    ['empty clip', (d) => { d.clips[1].count = 0; }, 'inconsistent', 'clips'],
    ['unknown clip tag', (d) => { d.clips[0].tags.push('nope'); }, 'inconsistent', 'clips'],
    ['NaN in features', (d) => { d.features[3 * S + 5] = NaN; }, 'not-finite', 'features', /value at frame 3, column 5 is NaN/],
    ['Infinity in raw features', (d) => { d.rawFeatures[7] = Infinity; }, 'not-finite', 'rawFeatures'],
    ['features that are not (raw - mean) / scale', (d) => { d.features[2 * S + 1] += 0.5; }, 'inconsistent', 'features'],
    ['non-zero feature padding', (d) => { d.features[S - 1] = 1; }, 'inconsistent', 'features'],
    ['NaN in mean', (d) => { d.mean[0] = NaN; }, 'not-finite', 'normalisation'],
    ['zero scale', (d) => { d.scale[2] = 0; }, 'inconsistent', 'normalisation', /scale of column 2 is 0, expected > 0/],
    ['negative scale', (d) => { d.scale[2] = -1; }, 'inconsistent', 'normalisation'],
    ['padding scale not 1', (d) => { d.scale[S - 1] = 2; }, 'inconsistent', 'normalisation'],
    ['stride mismatch', (d) => { d.stride = 32; }, 'inconsistent', 'meta', /stride is 32, expected 28/],
    ['dims mismatch', (d) => { d.dims = 26; }, 'inconsistent', 'meta', /dims is 26 but the schema has 27 dimensions/],
    ['feature array of the wrong length', (d) => { d.features = d.features.slice(0, N * S - 4); }, 'inconsistent', 'features'],
    ['contacts array of the wrong length', (d) => { d.contacts = d.contacts.slice(1); }, 'inconsistent', 'contacts'],
    ['rotations array of the wrong length', (d) => { d.rotations = d.rotations.slice(0, -4); }, 'inconsistent', 'poses'],
    ['NaN in rotations', (d) => { d.rotations[9] = NaN; }, 'not-finite', 'poses'],
    ['non-unit quaternion', (d) => { for (let k = 0; k < 4; k++) d.rotations[4 + k] *= 1.1; }, 'inconsistent', 'poses', /frame 0, joint 1 is not unit length/],
    ['Infinity in translations', (d) => { d.translations[0] = -Infinity; }, 'not-finite', 'poses'],
    ['zero root rotation', (d) => { d.rootRotations.fill(0, 8, 12); }, 'inconsistent', 'root'],
    ['NaN root position', (d) => { d.rootPositions[4] = NaN; }, 'not-finite', 'root'],
    ['contact value 4', (d) => { d.contacts[2] = 4; }, 'inconsistent', 'contacts'],
    ['candidate value 2', (d) => { d.candidates[2] = 2; }, 'inconsistent', 'candidates'],
    ['tag bit for a missing tag', (d) => { d.tagBits[5] |= 1 << 3; }, 'inconsistent', 'tags', /frame 5 has tag bits .* but only 3 tags exist/],
    ['duplicate tag names', (d) => { d.tagNames[1] = d.tagNames[0]; d.clips.forEach((c) => { c.tags = []; }); d.tagBits.fill(0); }, 'inconsistent', 'tags'],
    ['parents not parents-first', (d) => { (d.skeleton.parents as Int32Array)[1] = 3; }, 'inconsistent', 'skeleton'],
    ['two roots', (d) => { (d.skeleton.parents as Int32Array)[2] = -1; }, 'inconsistent', 'skeleton'],
    ['duplicate joint names', (d) => { (d.skeleton.names as string[])[2] = d.skeleton.names[1]; }, 'inconsistent', 'skeleton'],
    ['NaN skeleton offset', (d) => { (d.skeleton.offsets as Float64Array)[4] = NaN; }, 'not-finite', 'skeleton'],
    ['end site on a missing joint', (d) => { (d.skeleton.endSiteParents as Int32Array)[0] = 99; }, 'inconsistent', 'skeleton'],
    ['role out of range', (d) => { d.roles.leftToe = 4; }, 'inconsistent', 'skeleton'],
    ['role used by the schema is absent', (d) => { d.roles.leftFoot = -1; }, 'inconsistent', 'schema'],
    ['schema with an unknown kind', (d) => { (d.schema.groups[0] as { kind: string }).kind = 'boneAcceleration'; }, 'inconsistent', 'schema'],
    ['schema bone that is no joint', (d) => { d.schema.groups[0].bones = ['leftFoot', 'NoSuchBone']; }, 'inconsistent', 'schema'],
    ['zero fps', (d) => { d.fps = 0; }, 'inconsistent', 'meta'],
    ['NaN fps', (d) => { d.fps = NaN; }, 'not-finite', 'meta'],
  ];

  it.each(cases)('%s', (_, tamper, code, section, message) => {
    const bytes = encodeTampered(db, tamper);
    const e = expectCode(bytes, code, section);
    if (message) expect(e.message).toMatch(message);
    // the encoder refuses the same database up front
    const t = cloneDatabase(db);
    tamper(t);
    const ee = encodeError(t);
    expect(ee.code).toBe(code);
    expect(ee.section).toBe(section);
    expect(() => checkDatabaseConsistency(t, 'x')).toThrow(DatabaseFormatError);
  });

  it('META counts that disagree with the other sections', () => {
    // META payload: f64 field fps (data at 8), u32 field counts (data at 24: frames, joints, end
    // sites, clips, tags, dims, stride), utf8 field generator (header at 56).
    const meta = (off: number, v: number): Uint8Array => withSection(smallBytes, 'META', (_, dv) => { dv.setUint32(off, v, true); });
    expect(parseFile(smallBytes).sections[0].payload.length).toBe(64);
    expectCode(meta(24, N + 1), 'inconsistent', 'poses'); // frames: the first frame-sized section disagrees
    expectCode(meta(28, 5), 'inconsistent', 'skeleton'); // joints
    expectCode(meta(28, 0), 'inconsistent', 'meta');
    expectCode(meta(32, 3), 'inconsistent', 'skeleton'); // end sites
    expectCode(meta(36, 2), 'inconsistent', 'clips');
    expectCode(meta(40, 2), 'inconsistent', 'tags');
    expectCode(meta(40, 33), 'inconsistent', 'meta');
    expectCode(meta(44, 25), 'inconsistent', 'meta'); // dims (stride 28 still ok) vs schema
    expectCode(meta(48, 24), 'inconsistent', 'meta'); // stride
    expectCode(meta(52, 1), 'bad-section', 'meta'); // padding after the counts
    expectCode(meta(24, 0xffffffff), 'inconsistent', 'poses'); // 4 billion frames: sizes disagree, nothing is allocated
    expectCode(meta(20, FIELD_TYPE.i32), 'bad-section', 'meta'); // counts field with the wrong type
    expectCode(meta(16, 32), 'inconsistent', 'meta'); // 8 counts instead of 7
    expectCode(meta(16, 1000), 'bad-section', 'meta'); // counts field longer than the section
    const fpsNaN = withSection(smallBytes, 'META', (_, dv) => { dv.setFloat64(8, NaN, true); });
    expectCode(fpsNaN, 'not-finite', 'meta');
  });

  it('malformed JSON, bad UTF-8 and wrong JSON shapes', () => {
    expectCode(withSection(smallBytes, 'CLIP', () => textField('[{"name": ')), 'bad-section', 'clips');
    expectCode(withSection(smallBytes, 'CLIP', () => textField('{}')), 'bad-section', 'clips');
    expectCode(withSection(smallBytes, 'CLIP', () => textField('null')), 'bad-section', 'clips');
    const clipJson = (mut: (c: Record<string, unknown>[]) => void): Uint8Array =>
      withSection(smallBytes, 'CLIP', (payload, dv) => {
        const text = new TextDecoder().decode(payload.subarray(8, 8 + dv.getUint32(0, true)));
        const clips = JSON.parse(text) as Record<string, unknown>[];
        mut(clips);
        return textField(JSON.stringify(clips));
      });
    expectCode(clipJson((c) => { c[0].extra = 1; }), 'bad-section', 'clips');
    expectCode(clipJson((c) => { delete c[0].loop; }), 'bad-section', 'clips');
    expectCode(clipJson((c) => { c[0].loop = 'yes'; }), 'bad-section', 'clips');
    expectCode(clipJson((c) => { c[0].start = 0.5; }), 'inconsistent', 'clips');
    expectCode(clipJson((c) => { c[0].tags = [1]; }), 'bad-section', 'clips');
    expectCode(clipJson((c) => { c.pop(); }), 'inconsistent', 'clips');

    const badUtf8 = textField('["ab"]');
    badUtf8[10] = 0xff;
    const tagsPayload = new Uint8Array(badUtf8.length + 8 + pad8(4 * small.frameCount));
    tagsPayload.set(badUtf8);
    tagsPayload.set(field('u32', new Uint8Array(4 * small.frameCount)), badUtf8.length);
    expect(expectCode(withSection(smallBytes, 'TAGS', () => tagsPayload), 'bad-section', 'tags').message).toContain("field 'names' is not valid UTF-8");
    expectCode(withSection(smallBytes, 'SCHM', () => textField('[1, 2]')), 'bad-section', 'schema');
    expectCode(withSection(smallBytes, 'SCHM', () => textField('{"groups": 3}')), 'inconsistent', 'schema');
    // a text field whose length prefix runs past the section
    expectCode(withSection(smallBytes, 'SCHM', () => { const t = textField('{}'); new DataView(t.buffer).setUint32(0, 1e6, true); return t; }), 'bad-section', 'schema');
    // a JSON field where a float array belongs
    expectCode(withSection(smallBytes, 'NORM', () => textField('[1, 2, 3]')), 'bad-section', 'normalisation');
  });

  it('payloads of the wrong size', () => {
    expectCode(withSection(smallBytes, 'FEAT', (p) => p.slice(0, p.length - 8)), 'bad-section', 'features'); // field runs past the section
    expectCode(withSection(smallBytes, 'FEAT', (p) => { const q = new Uint8Array(p.length + 8); q.set(p); return q; }), 'inconsistent', 'features');
    expectCode(withSection(smallBytes, 'CONT', (p) => p.slice(0, 3)), 'inconsistent', 'contacts');
    expectCode(withSection(smallBytes, 'CONT', () => new Uint8Array(0)), 'inconsistent', 'contacts');
    expectCode(withSection(smallBytes, 'META', () => new Uint8Array(0)), 'inconsistent', 'meta');
    expectCode(withSection(smallBytes, 'CONT', (p) => { const q = p.slice(); new DataView(q.buffer).setUint32(0, 23, true); q[8 + 23] = 0; return q; }), 'inconsistent', 'contacts');
    expectCode(withSection(smallBytes, 'CONT', (p) => { const q = p.slice(); new DataView(q.buffer).setUint32(0, 23, true); q[8 + 23] = 1; return q; }), 'bad-section', 'contacts'); // non-zero padding
    const fiveBytes = withSection(smallBytes, 'FEAT', (p) => { const q = p.slice(); new DataView(q.buffer).setUint32(0, 5, true); q.fill(0, 8 + 5, 16); return q; });
    expect(expectCode(fiveBytes, 'inconsistent', 'features').message).toContain("field 'features' has 5 bytes (not a whole number of f32 values), expected 672");
  });
});

describe('large database', () => {
  it('40k frames x 22 joints x 27 dims (stride 28): encode + decode', () => {
    let t = performance.now();
    const db = makeRandomDatabase(7, { frames: 40_000, joints: 22, clips: 120, tags: 8, mirrored: true });
    const tMake = performance.now() - t;
    expect(db.stride).toBe(28);
    t = performance.now();
    const bytes = encodeDatabase(db);
    const tEnc = performance.now() - t;
    t = performance.now();
    const back = decodeDatabase(bytes, 'large.mmdb');
    const tDec = performance.now() - t;
    t = performance.now();
    const bytes2 = encodeDatabase(back);
    const tEnc2 = performance.now() - t;
    expect(sameTyped(bytes2, bytes)).toBe(true);
    expectSameDatabase(back, db);
    console.log(
      `[mmdb] large DB: ${(bytes.length / 2 ** 20).toFixed(1)} MiB; make ${tMake.toFixed(0)} ms, ` +
      `encode ${tEnc.toFixed(0)} ms (again ${tEnc2.toFixed(0)} ms), decode ${tDec.toFixed(0)} ms`,
    );
  });
});

describe('node files', () => {
  let dir = '';
  beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'mmdb-test-')); });
  afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

  it('writes atomically and reads back', () => {
    const path = join(dir, 'a.mmdb');
    const n = writeDatabaseFile(path, medium);
    expect(n).toBe(statSync(path).size);
    expect(sameTyped(new Uint8Array(readFileSync(path)), mediumBytes)).toBe(true);
    expectSameDatabase(readDatabaseFile(path), medium);
    // overwrite in place
    expect(writeDatabaseFile(path, small)).toBe(smallBytes.length);
    expect(readDatabaseFile(path)).toEqual(small);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('an inconsistent database is not written and the old file survives', () => {
    const path = join(dir, 'keep.mmdb');
    writeDatabaseFile(path, small);
    const bad = cloneDatabase(small);
    bad.features[0] = NaN;
    expect(() => writeDatabaseFile(path, bad)).toThrow(DatabaseFormatError);
    expect(readDatabaseFile(path)).toEqual(small);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('clear errors for a missing file, a directory, a missing output folder and a corrupt file', () => {
    const missing = join(dir, 'nope.mmdb');
    expect(() => readDatabaseFile(missing)).toThrow(DatabaseFileError);
    expect(() => readDatabaseFile(missing)).toThrow(`cannot read database file '${missing}': no such file`);
    const sub = join(dir, 'sub.mmdb');
    mkdirSync(sub);
    expect(() => readDatabaseFile(sub)).toThrow('is a directory');
    expect(() => writeDatabaseFile(join(dir, 'no', 'such', 'x.mmdb'), small)).toThrow(/does not exist/);
    const corrupt = join(dir, 'corrupt.mmdb');
    const b = smallBytes.slice();
    b[b.length - 20] ^= 1;
    writeFileSync(corrupt, b);
    try {
      readDatabaseFile(corrupt);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(DatabaseFormatError);
      expect((e as DatabaseFormatError).code).toBe('crc-mismatch');
      expect((e as Error).message.startsWith(`${corrupt}: section 'features' (FEAT) CRC mismatch`)).toBe(true);
    }
  });
});

describe('helpers', () => {
  it('makeRandomDatabase is deterministic and valid', () => {
    expect(makeRandomDatabase(9, { frames: 40, joints: 5, clips: 4, tags: 2 })).toEqual(makeRandomDatabase(9, { frames: 40, joints: 5, clips: 4, tags: 2 }));
    const r = seededRandom(1);
    expect(r()).not.toBe(r());
    checkDatabaseConsistency(medium);
  });
});
