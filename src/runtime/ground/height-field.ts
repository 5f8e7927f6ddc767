/**
 * A height field: heights on a regular grid over the x-z plane, bilinear between samples, with the
 * normal of that bilinear surface. Built from an array (a file, an engine's terrain export) or
 * sampled from a function (procedural terrain), checked on the way in.
 *
 * Layout: `columns` samples along x and `rows` along z, `spacing` metres apart; sample (i, j) is at
 * x = originX + i·spacing, z = originZ + j·spacing and is heights[j·columns + i] (rows of constant
 * z, x fastest). Beyond the grid, `edges` decides: 'clamp' continues the border heights outwards
 * (level ground at the edge's height), 'repeat' tiles the grid with period columns·spacing by
 * rows·spacing (sample `columns` is sample 0 again, so a tile made periodic joins seamlessly).
 */
import type { Ground } from './ground.js';

export type HeightFieldEdges = 'clamp' | 'repeat';

/** Where the grid lies and what happens beyond it. */
export interface HeightFieldLayout {
  /** Samples along x and along z (at least 2 each). */
  columns: number;
  rows: number;
  /** Metres between neighbouring samples. */
  spacing: number;
  /** World position of sample (0, 0) (default 0, 0). */
  originX?: number;
  originZ?: number;
  /** Beyond the grid: 'clamp' (default) or 'repeat'. */
  edges?: HeightFieldEdges;
}

/** A height field as plain data (structured-cloneable: workers receive it; files hold it). */
export interface HeightFieldSpec extends Required<HeightFieldLayout> {
  heights: Float32Array;
}

/** What a height field may hold: bounds that keep a mistake (units, garbage) from becoming a silent wrong terrain. */
export const HEIGHT_FIELD_LIMITS = {
  /** Samples per side and in all (2^24 float32 heights: 64 MB). */
  maxSide: 65_536,
  maxSamples: 16_777_216,
  /** Spacing (m): 1 mm to 1 km. */
  minSpacing: 1e-3,
  maxSpacing: 1e3,
  /** Largest |height| and |origin| (m). */
  maxAbsHeight: 1e5,
  maxAbsOrigin: 1e7,
  /**
   * Steepest rise between neighbouring samples, over their spacing (1000: 89.94°, a riser of 1 m
   * over 1 mm). A height field is a surface: steeper than this it is a wall, whose normal the
   * runtime cannot use (sampleGround wants an upward component; 1e5 m over 1 mm gave a normal
   * with y ≈ 5e-9, refused only at the step a character first stood there).
   */
  maxSlope: 1000,
} as const;

/** A value as a message says what it got: 4, NaN, the string "4", null, an array. */
function got(v: unknown): string {
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v)}`;
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v} (${String(v)})`;
}

/** A height field that cannot be built: the message names the field or sample at fault. */
export class HeightFieldError extends RangeError {
  override readonly name = 'HeightFieldError';
}

/** The layout with its defaults, or a HeightFieldError naming the first field out of range. */
export function checkHeightFieldLayout(layout: HeightFieldLayout): Required<HeightFieldLayout> {
  if (layout === null || typeof layout !== 'object') throw new HeightFieldError('height field: the layout must be an object {columns, rows, spacing, originX?, originZ?, edges?}');
  const L = HEIGHT_FIELD_LIMITS;
  const side = (name: 'columns' | 'rows') => {
    const v = layout[name];
    if (!(Number.isInteger(v) && v >= 2 && v <= L.maxSide)) throw new HeightFieldError(`height field: ${name} must be an integer in [2, ${L.maxSide}], got ${got(v)}`);
    return v;
  };
  const columns = side('columns'), rows = side('rows');
  if (columns * rows > L.maxSamples) throw new HeightFieldError(`height field: ${columns} x ${rows} = ${columns * rows} samples, more than the ${L.maxSamples} a height field may hold`);
  const spacing = layout.spacing;
  if (!(typeof spacing === 'number' && spacing >= L.minSpacing && spacing <= L.maxSpacing)) {
    throw new HeightFieldError(`height field: spacing must be a number of metres in [${L.minSpacing}, ${L.maxSpacing}], got ${got(spacing)}`);
  }
  const origin = (name: 'originX' | 'originZ') => {
    const v = layout[name] ?? 0;
    if (!(typeof v === 'number' && Math.abs(v) <= L.maxAbsOrigin)) throw new HeightFieldError(`height field: ${name} must be a finite number of metres within ±${L.maxAbsOrigin}, got ${got(v)}`);
    return v;
  };
  const edges = layout.edges ?? 'clamp';
  if (edges !== 'clamp' && edges !== 'repeat') throw new HeightFieldError(`height field: edges must be 'clamp' or 'repeat', got ${typeof edges === 'string' ? edges : got(edges)}`);
  return { columns, rows, spacing, originX: origin('originX'), originZ: origin('originZ'), edges };
}

/** Rounds a figure for a message: 2e+8, 200000, 0.001. */
function figure(x: number): string {
  return String(Number(x.toPrecision(6)));
}

/**
 * Throws unless every two neighbouring samples (along x and along z; across the seam too when the
 * grid repeats) differ by at most maxSlope·spacing: the message names the pair and the slope.
 */
function checkSlopes(heights: ArrayLike<number>, l: Required<HeightFieldLayout>): void {
  const C = l.columns, R = l.rows, most = HEIGHT_FIELD_LIMITS.maxSlope * l.spacing, wrap = l.edges === 'repeat';
  const fail = (a: number, b: number, where: string): never => {
    const rise = Math.abs(heights[a] - heights[b]);
    throw new HeightFieldError(`height field: the slope between ${where} is ${figure(rise / l.spacing)} (a rise of ${figure(rise)} m over ${l.spacing} m); at most ${HEIGHT_FIELD_LIMITS.maxSlope} (a rise of ${figure(most)} m between neighbours): steeper is a wall, which a height field cannot hold`);
  };
  for (let j = 0; j < R; j++) {
    for (let i = 0; i < C; i++) {
      const k = j * C + i, h = heights[k];
      const right = i + 1 < C ? k + 1 : wrap ? j * C : -1;
      const below = j + 1 < R ? k + C : wrap ? i : -1;
      if (right >= 0 && !(Math.abs(heights[right] - h) <= most)) fail(k, right, `column ${i} and column ${(i + 1) % C} of row ${j}`);
      if (below >= 0 && !(Math.abs(heights[below] - h) <= most)) fail(k, below, `row ${j} and row ${(j + 1) % R} of column ${i}`);
    }
  }
}

function checkHeight(v: number, i: number, j: number): void {
  if (!(Math.abs(v) <= HEIGHT_FIELD_LIMITS.maxAbsHeight)) {
    throw new HeightFieldError(`height field: the height at column ${i}, row ${j} must be a finite number of metres within ±${HEIGHT_FIELD_LIMITS.maxAbsHeight}, got ${v}`);
  }
}

export class HeightField implements Ground {
  readonly columns: number;
  readonly rows: number;
  readonly spacing: number;
  readonly originX: number;
  readonly originZ: number;
  readonly edges: HeightFieldEdges;
  /** rows·columns heights (m), row by row (constant z), x fastest. */
  readonly heights: Float32Array;
  private readonly inv: number;
  private readonly repeat: boolean;

  private constructor(layout: Required<HeightFieldLayout>, heights: Float32Array) {
    this.columns = layout.columns; this.rows = layout.rows; this.spacing = layout.spacing;
    this.originX = layout.originX; this.originZ = layout.originZ; this.edges = layout.edges;
    this.heights = heights;
    this.inv = 1 / layout.spacing;
    this.repeat = layout.edges === 'repeat';
  }

  /** Heights given as numbers (copied; rounded to float32), rows·columns of them in the layout's order. */
  static fromArray(heights: ArrayLike<number>, layout: HeightFieldLayout): HeightField {
    const l = checkHeightFieldLayout(layout);
    const n = l.columns * l.rows;
    if (heights === null || typeof heights !== 'object' || typeof heights.length !== 'number') throw new HeightFieldError('height field: heights must be an array of numbers');
    if (heights.length !== n) throw new HeightFieldError(`height field: ${heights.length} heights given, columns x rows = ${l.columns} x ${l.rows} needs ${n}`);
    const out = new Float32Array(n);
    for (let k = 0; k < n; k++) {
      const v = heights[k];
      if (typeof v !== 'number') throw new HeightFieldError(`height field: the height at column ${k % l.columns}, row ${Math.floor(k / l.columns)} must be a number, got ${typeof v} (${v === null || typeof v !== 'object' ? JSON.stringify(v) ?? String(v) : Array.isArray(v) ? 'an array' : 'an object'})`);
      checkHeight(v, k % l.columns, Math.floor(k / l.columns));
      out[k] = v;
    }
    checkSlopes(out, l);
    return new HeightField(l, out);
  }

  /** Samples `height(x, z)` at every grid point of the layout. */
  static fromFunction(height: (x: number, z: number) => number, layout: HeightFieldLayout): HeightField {
    if (typeof height !== 'function') throw new HeightFieldError('height field: fromFunction needs a function (x, z) => height');
    const l = checkHeightFieldLayout(layout);
    const out = new Float32Array(l.columns * l.rows);
    for (let j = 0; j < l.rows; j++) {
      for (let i = 0; i < l.columns; i++) {
        const x = l.originX + i * l.spacing, z = l.originZ + j * l.spacing, v = height(x, z);
        if (!(typeof v === 'number' && Math.abs(v) <= HEIGHT_FIELD_LIMITS.maxAbsHeight)) {
          throw new HeightFieldError(`height field: the function returned ${String(v)} at (${x}, ${z}) (column ${i}, row ${j}); heights must be finite numbers of metres within ±${HEIGHT_FIELD_LIMITS.maxAbsHeight}`);
        }
        out[j * l.columns + i] = v;
      }
    }
    checkSlopes(out, l);
    return new HeightField(l, out);
  }

  /** A height field from its plain-data form (checked like fromArray; the heights are not copied). */
  static fromSpec(spec: HeightFieldSpec): HeightField {
    const l = checkHeightFieldLayout(spec);
    if (!(spec.heights instanceof Float32Array)) throw new HeightFieldError('height field: heights must be a Float32Array');
    if (spec.heights.length !== l.columns * l.rows) throw new HeightFieldError(`height field: ${spec.heights.length} heights given, columns x rows = ${l.columns} x ${l.rows} needs ${l.columns * l.rows}`);
    for (let k = 0; k < spec.heights.length; k++) checkHeight(spec.heights[k], k % l.columns, Math.floor(k / l.columns));
    checkSlopes(spec.heights, l);
    return new HeightField(l, spec.heights);
  }

  /** The plain-data form (shares the heights). */
  toSpec(): HeightFieldSpec {
    return { columns: this.columns, rows: this.rows, spacing: this.spacing, originX: this.originX, originZ: this.originZ, edges: this.edges, heights: this.heights };
  }

  /** Lowest and highest sample (m). */
  heightRange(): [number, number] {
    let lo = Infinity, hi = -Infinity;
    for (let k = 0; k < this.heights.length; k++) { const v = this.heights[k]; if (v < lo) lo = v; if (v > hi) hi = v; }
    return [lo, hi];
  }

  /** Bilinear height at (x, z). */
  height(x: number, z: number): number {
    this.locate(x, z);
    const h = this.heights, a = CELL[0], b = CELL[1], c = CELL[2], d = CELL[3], fx = CELL[4], fz = CELL[5];
    // = lerp(lerp(h00, h10, fx), lerp(h01, h11, fx), fz)
    return (1 - fz) * ((1 - fx) * h[a] + fx * h[b]) + fz * ((1 - fx) * h[c] + fx * h[d]);
  }

  /** Unit upward normal of the bilinear surface at (x, z) into out[o..o+2]. */
  normal(x: number, z: number, out: Float64Array, o = 0): void {
    this.locate(x, z);
    this.writeNormal(out, o);
  }

  /** Ground: height into out[0], normal into out[1..3], at (at[0], at[2]). */
  sample(at: Float64Array, out: Float64Array): void {
    this.locate(at[0], at[2]);
    const h = this.heights, a = CELL[0], b = CELL[1], c = CELL[2], d = CELL[3], fx = CELL[4], fz = CELL[5];
    out[0] = (1 - fz) * ((1 - fx) * h[a] + fx * h[b]) + fz * ((1 - fx) * h[c] + fx * h[d]);
    this.writeNormal(out, 1);
  }

  /**
   * The surface y = h(x, z) has the normal (−∂h/∂x, 1, −∂h/∂z); within a cell of the bilinear
   * surface ∂h/∂x = ((1−fz)(h10−h00) + fz(h11−h01)) / spacing, and ∂h/∂z likewise. Clamped beyond
   * the grid, the ground is level across the edge (CELL[6], CELL[7] switch those slopes off).
   */
  private writeNormal(out: Float64Array, o: number): void {
    const h = this.heights, a = CELL[0], b = CELL[1], c = CELL[2], d = CELL[3], fx = CELL[4], fz = CELL[5];
    const gx = CELL[6] * ((1 - fz) * (h[b] - h[a]) + fz * (h[d] - h[c])) * this.inv;
    const gz = CELL[7] * ((1 - fx) * (h[c] - h[a]) + fx * (h[d] - h[b])) * this.inv;
    const k = 1 / Math.sqrt(gx * gx + 1 + gz * gz);
    out[o] = -gx * k; out[o + 1] = k; out[o + 2] = -gz * k;
  }

  /**
   * The cell under (x, z) into CELL: the four sample indices (h00, h10, h01, h11), the fractions
   * across it, and whether the surface slopes along x and z there (0 beyond a clamped edge).
   */
  private locate(x: number, z: number): void {
    const C = this.columns, R = this.rows;
    let u = (x - this.originX) * this.inv, v = (z - this.originZ) * this.inv;
    let i: number, j: number, i1: number, j1: number, sx = 1, sz = 1;
    if (this.repeat) {
      u -= C * Math.floor(u / C); v -= R * Math.floor(v / R);
      i = Math.floor(u); j = Math.floor(v);
      // Rounding can land exactly on the period: that is sample 0 again.
      if (i >= C) { i = 0; u = 0; }
      if (j >= R) { j = 0; v = 0; }
      i1 = i + 1 === C ? 0 : i + 1; j1 = j + 1 === R ? 0 : j + 1;
    } else {
      // (NaN goes to the edge too: the caller's point is garbage, not the grid.)
      if (u < 0 || u !== u) { u = 0; sx = 0; } else if (u > C - 1) { u = C - 1; sx = 0; }
      if (v < 0 || v !== v) { v = 0; sz = 0; } else if (v > R - 1) { v = R - 1; sz = 0; }
      i = Math.min(C - 2, Math.floor(u)); j = Math.min(R - 2, Math.floor(v));
      i1 = i + 1; j1 = j + 1;
    }
    CELL[0] = j * C + i; CELL[1] = j * C + i1; CELL[2] = j1 * C + i; CELL[3] = j1 * C + i1;
    CELL[4] = u - i; CELL[5] = v - j; CELL[6] = sx; CELL[7] = sz;
  }
}

/** locate()'s result, shared by every height field of a thread (read at once by the caller). */
const CELL = new Float64Array(8);
