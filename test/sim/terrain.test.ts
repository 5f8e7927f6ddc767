/**
 * Procedural terrains (sim/terrain/terrain.ts) and height field files (sim/terrain/file.ts): the hills'
 * steepest slope is 30°, the steps' risers 10-25 cm, both seeded and tiled; files round-trip in
 * both forms and every broken file is a one-line error naming it, never a crash.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { HILLS_MAX_SLOPE, STEP_MAX_RISE, STEP_MIN_RISE, describeTerrain, hillsField, maxSlope, stepsField, terrainGround, terrainName, terrainReport } from '../../src/sim/terrain/terrain.js';
import { HEIGHT_FIELD_HEADER_BYTES, heightFieldToBinary, heightFieldToJson, parseHeightFieldFile } from '../../src/sim/terrain/file.js';
import { HeightField, HeightFieldError } from '../../src/runtime/ground/height-field.js';
import { expectSameNumbers, expectDifferentNumbers } from '../helpers/same-numbers.js';

const text = (s: string) => new TextEncoder().encode(s);

describe('procedural terrains', () => {
  it('hills: seeded, tiled, and their steepest slope is exactly 30°', () => {
    const a = hillsField(1), b = hillsField(1), c = hillsField(2);
    expectSameNumbers(a.heights, b.heights, 'hills seed 1');
    expectDifferentNumbers(a.heights, c.heights, 'hills seeds 1 and 2');
    for (const f of [a, c]) {
      expect(Math.atan(maxSlope(f))).toBeCloseTo(HILLS_MAX_SLOPE, 5);
      const [lo, hi] = f.heightRange();
      expect(hi - lo).toBeGreaterThan(1); // hills, not a ripple
      expect(f.edges).toBe('repeat');
    }
    // Seamless: no seam where the tile repeats.
    const period = a.columns * a.spacing;
    for (let k = 0; k < 20; k++) expect(a.height(period - 1e-7, 0.3 * k)).toBeCloseTo(a.height(1e-7, 0.3 * k), 5);
  });

  it('steps: treads at levels between risers of 10 to 25 cm, seeded and tiled', () => {
    for (const seed of [1, 7]) {
      const f = stepsField(seed), C = f.columns, h = f.heights;
      const risers = new Set<number>();
      let treads = 0;
      for (let j = 0; j < f.rows; j++) {
        for (let i = 0; i < C; i++) {
          // Each sample and its neighbours along x and z (across the seam too).
          for (const n of [j * C + ((i + 1) % C), ((j + 1) % f.rows) * C + i]) {
            const d = Math.abs(h[n] - h[j * C + i]);
            if (d === 0) treads++;
            else {
              expect(d).toBeGreaterThanOrEqual(STEP_MIN_RISE - 1e-6);
              expect(d).toBeLessThanOrEqual(STEP_MAX_RISE + 1e-6);
              risers.add(Math.round(d * 1e4));
            }
          }
        }
      }
      expect(risers.size).toBeGreaterThan(1); // riser heights vary
      expect(treads / (2 * C * f.rows)).toBeGreaterThan(0.8); // mostly treads
    }
    expectSameNumbers(stepsField(1).heights, stepsField(1).heights, 'steps seed 1');
  });

  it('becomes a ground once per description, and describes itself', () => {
    const spec = { kind: 'hills' as const, seed: 4 };
    expect(terrainGround(spec)).toBe(terrainGround(spec));
    expect(describeTerrain(spec)).toBe('hills (seed 4)');
    expect(terrainName(spec)).toBe('hills');
    expect(terrainReport(spec)).toEqual({ kind: 'hills', seed: 4 });
    const field = HeightField.fromArray([0, 1, 2, 3], { columns: 2, rows: 2, spacing: 0.5 }).toSpec();
    const file = { kind: 'field' as const, name: 'yard.json', field };
    expect(terrainGround(file).height(0.25, 0.25)).toBeCloseTo(1.5, 6);
    expect(describeTerrain(file)).toBe('yard.json (2 x 2 samples, 0.5 m apart)');
    expect(terrainReport(file)).toMatchObject({ kind: 'file', file: 'yard.json', columns: 2, rows: 2, spacing: 0.5, edges: 'clamp' });
    expect(terrainReport(null)).toBeNull();
    expect(() => terrainGround({ kind: 'lava' } as never)).toThrow(/unknown terrain kind lava/);
  });
});

describe('height field files', () => {
  const field = HeightField.fromFunction((x, z) => 0.1 * x - 0.05 * z * z, { columns: 5, rows: 3, spacing: 0.25, originX: -2, originZ: 7, edges: 'repeat' }).toSpec();

  it('round-trips the JSON and the binary form, and reads rows of heights too', () => {
    for (const bytes of [text(heightFieldToJson(field)), heightFieldToBinary(field)]) {
      const back = parseHeightFieldFile(bytes, 'f');
      expect(back).toEqual(field);
    }
    expect(heightFieldToBinary(field).length).toBe(HEIGHT_FIELD_HEADER_BYTES + 4 * 15);
    const rows = JSON.stringify({ format: 'motionmatch-heightfield', version: 1, columns: 2, rows: 3, spacing: 1, heights: [[0, 1], [2, 3], [4, 5]] });
    const parsed = parseHeightFieldFile(text(rows), 'rows.json');
    expect(Array.from(parsed.heights)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(parsed).toMatchObject({ originX: 0, originZ: 0, edges: 'clamp' });
  });

  it('names the file and what is wrong with it', () => {
    const json = (o: Record<string, unknown>) => text(JSON.stringify({ format: 'motionmatch-heightfield', version: 1, columns: 2, rows: 2, spacing: 1, heights: [0, 0, 0, 0], ...o }));
    const bin = heightFieldToBinary(field);
    const cases: Array<[Uint8Array, RegExp]> = [
      [text(''), /^t: the file is empty/],
      [text('{"format": '), /^t: not valid JSON/],
      [text('[1, 2]'), /^t: a JSON height field is an object/],
      [json({ format: 'heights' }), /^t: format must be "motionmatch-heightfield", got the string "heights"/],
      [json({ version: 2 }), /^t: version must be 1, got 2/],
      [json({ colour: 'green' }), /^t: unknown key "colour"/],
      [json({ columns: 1 }), /^t: columns must be an integer in \[2, 65536\], got 1/],
      [json({ spacing: -1 }), /^t: spacing must be/],
      [json({ heights: [0, 0, 0] }), /^t: 3 heights given, columns x rows = 2 x 2 needs 4/],
      [json({ heights: [0, 0, 0, 'x'] }), /^t: the height at column 1, row 1 must be a number, got string/],
      [json({ heights: [[0, 0], [0]] }), /^t: "heights" row 1 must be a list of 2 numbers/],
      [json({ heights: 'flat' }), /^t: "heights" must be a list of 4 numbers/],
      [new Uint8Array([0xff, 0xfe, 0x00, 0x01]), /^t: neither a JSON height field/],
      [bin.subarray(0, 20), /^t: a binary height field has a 48-byte header; the file has 20 bytes/],
      [bin.subarray(0, bin.length - 4), /^t: 5 x 3 heights need 108 bytes .* the file has 104 \(cut short\?\)/],
      [patch(bin, (v) => v.setUint32(4, 9, true)), /^t: binary height field version 9/],
      [patch(bin, (v) => v.setUint32(40, 7, true)), /^t: edges code 7 at byte 40/],
      [patch(bin, (v) => v.setFloat64(16, Number.NaN, true)), /^t: spacing must be/],
      [patch(bin, (v) => v.setFloat32(HEIGHT_FIELD_HEADER_BYTES + 4 * 6, Number.POSITIVE_INFINITY, true)), /^t: the height at column 1, row 1 must be a finite number/],
      [patch(bin, (v) => v.setUint32(8, 0xffffffff, true)), /^t: columns must be an integer/],
    ];
    for (const [bytes, message] of cases) {
      expect(() => parseHeightFieldFile(bytes, 't')).toThrow(HeightFieldError);
      expect(() => parseHeightFieldFile(bytes, 't')).toThrow(message);
    }
  });

  it('reads any bytes to a height field or a HeightFieldError, never anything else', () => {
    const good = heightFieldToBinary(field);
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), fc.integer({ min: 0, max: good.length - 1 }), fc.integer({ min: 0, max: 255 }), fc.boolean(), (noise, at, value, mutate) => {
      // Either random bytes, or a good file with one byte changed.
      const bytes = mutate ? Uint8Array.from(good) : noise;
      if (mutate) bytes[at] = value;
      try {
        const f = parseHeightFieldFile(bytes, 'fuzz');
        expect(f.heights.length).toBe(f.columns * f.rows);
        for (const h of f.heights) expect(Number.isFinite(h)).toBe(true);
      } catch (e) {
        expect(e).toBeInstanceOf(HeightFieldError);
        expect((e as Error).message.startsWith('fuzz: ')).toBe(true);
      }
    }), { numRuns: 400 });
  });
});

/** A copy of `bytes` changed through a DataView. */
function patch(bytes: Uint8Array, change: (v: DataView) => void): Uint8Array {
  const copy = Uint8Array.from(bytes);
  change(new DataView(copy.buffer));
  return copy;
}
