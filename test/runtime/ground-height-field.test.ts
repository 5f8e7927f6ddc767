/**
 * The ground model (runtime/ground/): height fields (bilinear heights and the normal of that
 * surface, edges clamped or repeated, checked inputs), grounds from plain functions, and the one
 * call the runtime makes (sampleGround: normalised normals, clear errors for unusable answers).
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { HeightField, HeightFieldError, HEIGHT_FIELD_LIMITS } from '../../src/runtime/ground/height-field.js';
import { flatGround, groundFromFunctions, sampleGround, validateGround } from '../../src/runtime/ground/ground.js';
import { MotionMatchingController } from '../../src/runtime/controller/controller.js';

const out = new Float64Array(4);
const at = (x: number, z: number, y = 0) => new Float64Array([x, y, z]);

/** A plane y = a + b·x + c·z sampled on a grid. */
function plane(a: number, b: number, c: number, edges: 'clamp' | 'repeat' = 'clamp') {
  return HeightField.fromFunction((x, z) => a + b * x + c * z, { columns: 9, rows: 7, spacing: 0.5, originX: -1, originZ: 2, edges });
}

describe('HeightField', () => {
  it('is bilinear: exact at the samples, and a sampled plane is the plane everywhere inside, with its normal', () => {
    const f = plane(0.25, 0.3, -0.2);
    fc.assert(fc.property(fc.double({ min: -1, max: 3, noNaN: true }), fc.double({ min: 2, max: 5, noNaN: true }), (x, z) => {
      expect(f.height(x, z)).toBeCloseTo(0.25 + 0.3 * x - 0.2 * z, 5);
      f.normal(x, z, out, 0);
      const k = 1 / Math.hypot(0.3, 1, 0.2);
      expect(out[0]).toBeCloseTo(-0.3 * k, 5); expect(out[1]).toBeCloseTo(k, 5); expect(out[2]).toBeCloseTo(0.2 * k, 5);
    }));
    for (let j = 0; j < f.rows; j++) for (let i = 0; i < f.columns; i++) {
      expect(f.height(-1 + 0.5 * i, 2 + 0.5 * j)).toBe(f.heights[j * f.columns + i]);
    }
  });

  it('gives the normal of the surface it interpolates: the slope of the heights along x and z', () => {
    const f = HeightField.fromFunction((x, z) => Math.sin(x) * Math.cos(0.7 * z), { columns: 40, rows: 40, spacing: 0.25 });
    fc.assert(fc.property(fc.double({ min: 0.1, max: 9.6, noNaN: true }), fc.double({ min: 0.1, max: 9.6, noNaN: true }), (x, z) => {
      // Inside one cell the bilinear surface is smooth: finite differences there give its slope.
      const d = 1e-5, cx = Math.floor(x / 0.25) * 0.25 + 0.125, cz = Math.floor(z / 0.25) * 0.25 + 0.125;
      const gx = (f.height(cx + d, cz) - f.height(cx - d, cz)) / (2 * d), gz = (f.height(cx, cz + d) - f.height(cx, cz - d)) / (2 * d);
      f.normal(cx, cz, out, 0);
      expect(-out[0] / out[1]).toBeCloseTo(gx, 4);
      expect(-out[2] / out[1]).toBeCloseTo(gz, 4);
      expect(Math.hypot(out[0], out[1], out[2])).toBeCloseTo(1, 12);
    }));
  });

  it("clamps beyond the grid to the border's heights, level across the edge", () => {
    const f = plane(0, 0.5, 0.25);
    expect(f.height(-50, 3)).toBe(f.height(-1, 3));
    expect(f.height(100, 100)).toBe(f.heights[f.heights.length - 1]);
    f.normal(-50, 3, out, 0);
    // Level along x beyond the edge, still sloping along z.
    expect(out[0]).toBe(-0); expect(out[2]).toBeLessThan(0);
    f.normal(-50, 100, out, 0);
    expect([out[0], out[1], out[2]]).toEqual([-0, 1, -0]);
  });

  it('repeats its tile seamlessly with edges "repeat"', () => {
    const f = HeightField.fromFunction((x, z) => Math.sin((2 * Math.PI * x) / 4) + Math.cos((2 * Math.PI * z) / 3), { columns: 16, rows: 12, spacing: 0.25, originX: 1, originZ: -2, edges: 'repeat' });
    fc.assert(fc.property(fc.double({ min: -20, max: 20, noNaN: true }), fc.double({ min: -20, max: 20, noNaN: true }), fc.integer({ min: -5, max: 5 }), fc.integer({ min: -5, max: 5 }), (x, z, a, b) => {
      expect(f.height(x + 4 * a, z + 3 * b)).toBeCloseTo(f.height(x, z), 9);
    }));
    // Across the seam the surface joins: the last sample runs on into the first.
    const left = f.height(1 + 4 - 1e-9, 0), right = f.height(1 + 4 + 1e-9, 0);
    expect(Math.abs(left - right)).toBeLessThan(1e-6);
  });

  it('refuses bad layouts and heights with a message naming the field or sample', () => {
    const bad: Array<[() => unknown, RegExp]> = [
      [() => HeightField.fromArray([1, 2, 3, 4], { columns: 1, rows: 4, spacing: 1 }), /columns must be an integer in \[2, 65536\], got 1/],
      [() => HeightField.fromArray([1, 2, 3, 4], { columns: 2.5, rows: 2, spacing: 1 }), /columns must be an integer/],
      [() => HeightField.fromArray([1, 2, 3, 4], { columns: 2, rows: 2, spacing: 0 }), /spacing must be a number of metres in \[0.001, 1000\], got 0/],
      [() => HeightField.fromArray([1, 2, 3, 4], { columns: 2, rows: 2, spacing: Number.NaN }), /spacing .* got NaN/],
      [() => HeightField.fromArray([1, 2, 3, 4], { columns: 2, rows: 2, spacing: 1, originX: Infinity }), /originX must be a finite number/],
      [() => HeightField.fromArray([1, 2, 3, 4], { columns: 2, rows: 2, spacing: 1, edges: 'wrap' as never }), /edges must be 'clamp' or 'repeat', got wrap/],
      [() => HeightField.fromArray([1, 2, 3], { columns: 2, rows: 2, spacing: 1 }), /3 heights given, columns x rows = 2 x 2 needs 4/],
      [() => HeightField.fromArray([1, 2, Number.NaN, 4], { columns: 2, rows: 2, spacing: 1 }), /height at column 0, row 1 must be a finite number .* got NaN/],
      [() => HeightField.fromArray([1, 2, 3, 1e9], { columns: 2, rows: 2, spacing: 1 }), /column 1, row 1 .* within ±100000/],
      [() => HeightField.fromArray(['1', 2, 3, 4] as never, { columns: 2, rows: 2, spacing: 1 }), /column 0, row 0 must be a number, got string/],
      [() => HeightField.fromFunction((x) => (x > 0.5 ? Number.NaN : 0), { columns: 3, rows: 2, spacing: 0.5 }), /returned NaN at \(1, 0\) \(column 2, row 0\)/],
      [() => HeightField.fromArray([], { columns: 8192, rows: 8192, spacing: 1 }), new RegExp(`more than the ${HEIGHT_FIELD_LIMITS.maxSamples}`)],
    ];
    for (const [fn, message] of bad) {
      expect(fn).toThrow(HeightFieldError);
      expect(fn).toThrow(message);
    }
  });

  it('travels as plain data and back unchanged (what simulation workers receive)', () => {
    const f = plane(1, 0.1, 0.2, 'repeat');
    const copy = HeightField.fromSpec(structuredClone(f.toSpec()));
    for (let k = 0; k < 50; k++) {
      const x = -3 + 0.37 * k, z = 1 + 0.29 * k;
      expect(copy.height(x, z)).toBe(f.height(x, z));
    }
  });
});

describe('grounds and the runtime call', () => {
  it('groundFromFunctions takes the normal given, or central differences of the height', () => {
    const withNormal = groundFromFunctions({ height: (x, z) => 2 + 0.5 * x + 0 * z, normal: (_x, _z, n) => { n[0] = -0.5; n[1] = 1; n[2] = 0; } });
    const withoutNormal = groundFromFunctions({ height: (x, z) => 2 + 0.5 * x - 0.25 * z });
    sampleGround(withNormal, at(1, 0), 0, out);
    expect(out[0]).toBe(2.5);
    expect(out[1]).toBeCloseTo(-0.5 / Math.hypot(0.5, 1), 12); expect(out[2]).toBeCloseTo(1 / Math.hypot(0.5, 1), 12);
    sampleGround(withoutNormal, at(1, 2), 0, out);
    const k = 1 / Math.hypot(0.5, 1, 0.25);
    expect(out[0]).toBe(2);
    expect(out[1]).toBeCloseTo(-0.5 * k, 9); expect(out[2]).toBeCloseTo(k, 9); expect(out[3]).toBeCloseTo(0.25 * k, 9);
  });

  it('hands the point asked about, with its height, to a ground of the application (a ray cast)', () => {
    const asked: number[][] = [];
    const twoLevels = { sample(p: Float64Array, o: Float64Array) { asked.push(Array.from(p)); o[0] = p[1] > 3 ? 4 : 0; o[1] = 0; o[2] = 1; o[3] = 0; } };
    sampleGround(twoLevels, at(1, 2, 5), 0, out);
    expect(out[0]).toBe(4);
    sampleGround(twoLevels, at(1, 2, 0.5), 0, out);
    expect(out[0]).toBe(0);
    expect(asked).toEqual([[1, 5, 2], [1, 0.5, 2]]);
  });

  it('refuses answers it cannot use, naming the point: no NaN ever reaches a character', () => {
    const nan = groundFromFunctions({ height: () => Number.NaN });
    expect(() => sampleGround(nan, at(3, 4), 0, out)).toThrow(/ground: the height at \(3, 4\) is not a finite number \(got NaN\)/);
    const down = { sample(_p: Float64Array, o: Float64Array) { o[0] = 0; o[1] = 0; o[2] = -1; o[3] = 0; } };
    expect(() => sampleGround(down, at(1, 2), 0, out)).toThrow(/normal at \(1, 2\) must be a finite vector pointing up/);
    const zero = { sample(_p: Float64Array, o: Float64Array) { o[0] = 0; o[1] = 0; o[2] = 0; o[3] = 0; } };
    expect(() => sampleGround(zero, at(1, 2), 0, out)).toThrow(/pointing up/);
    expect(() => flatGround(Number.NaN)).toThrow(/finite/);
    expect(() => groundFromFunctions({} as never)).toThrow(/height\(x, z\)/);
  });

  it('is checked as a controller option, with the other ground options', () => {
    expect(() => validateGround({})).toThrow(/controller option ground must be null .* or an object with sample\(at, out\)/);
    expect(() => MotionMatchingController.resolveOptions({ ground: 42 as never })).toThrow(/controller option ground must be null/);
    expect(() => MotionMatchingController.resolveOptions({ groundOptions: { ...MotionMatchingController.resolveOptions().groundOptions, maxFootTilt: 2 } })).toThrow(/ground option maxFootTilt must be an angle in \[0, π\/2\]/);
    expect(() => MotionMatchingController.resolveOptions({ groundOptions: { ...MotionMatchingController.resolveOptions().groundOptions, rootHalfLife: 0 } })).toThrow(/ground option rootHalfLife must be a finite number > 0/);
    expect(MotionMatchingController.resolveOptions({ ground: flatGround(0) }).ground).not.toBeNull();
  });
});
