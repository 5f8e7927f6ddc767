/**
 * The ground a character stands on, as the runtime asks about it: its height and upward normal
 * under a point. An application supplies one as a height field (height-field.ts), as two plain
 * functions (groundFromFunctions), or as anything with a `sample` method, e.g. a ray cast into its
 * own scene. Without a ground (the `ground` controller option left null) the character walks on
 * the plane y = 0 exactly as before.
 */

/**
 * What the runtime asks of a ground. `sample(at, out)`: the ground under the point (x, y, z) =
 * at[0..2]: its height into out[0], its unit upward normal into out[1..3]. y is where the runtime
 * expects the ground to be near (the point's current height): a ray cast into a scene with several
 * levels (a bridge over a road) can start a little above it and take the first surface below.
 *
 * Arrays in, arrays out, nothing returned: the runtime queries the ground a few times per character
 * per step, and a number passed to or returned from a call that is not inlined is a heap allocation.
 */
export interface Ground {
  sample(at: Float64Array, out: Float64Array): void;
}

/** The two-function form of a ground (`normal` optional: central differences of `height` when absent). */
export interface GroundFunctions {
  height(x: number, z: number): number;
  /** The unit upward normal at (x, z) into out[0..2] (need not be normalised: the runtime normalises). */
  normal?(x: number, z: number, out: Float64Array): void;
}

/** Horizontal distance (m) of the central differences that give a normal when a ground has no `normal`. */
const NORMAL_STEP = 0.02;
const NORMAL_OUT = new Float64Array(3);

/** A Ground from `height(x, z)` and (optionally) `normal(x, z, out)`, e.g. wrapping an engine's terrain. */
export function groundFromFunctions(fns: GroundFunctions): Ground {
  if (fns === null || typeof fns !== 'object' || typeof fns.height !== 'function') throw new TypeError('groundFromFunctions: needs an object with a height(x, z) function');
  if (fns.normal !== undefined && typeof fns.normal !== 'function') throw new TypeError('groundFromFunctions: normal must be a function (x, z, out) or left out');
  const height = fns.height.bind(fns);
  const normal = fns.normal?.bind(fns);
  return {
    sample(at: Float64Array, out: Float64Array): void {
      const x = at[0], z = at[2];
      out[0] = height(x, z);
      if (normal) {
        normal(x, z, NORMAL_OUT);
        out[1] = NORMAL_OUT[0]; out[2] = NORMAL_OUT[1]; out[3] = NORMAL_OUT[2];
      } else {
        // Central differences: the normal of the surface y = h(x, z) is (−∂h/∂x, 1, −∂h/∂z).
        const d = NORMAL_STEP;
        out[1] = -(height(x + d, z) - height(x - d, z)) / (2 * d);
        out[2] = 1;
        out[3] = -(height(x, z + d) - height(x, z - d)) / (2 * d);
      }
    },
  };
}

/** A level ground at height `y` (what the runtime assumes with no ground). */
export function flatGround(y = 0): Ground {
  if (!Number.isFinite(y)) throw new RangeError(`flatGround: height must be finite, got ${y}`);
  return {
    sample(_at: Float64Array, out: Float64Array): void {
      out[0] = y; out[1] = 0; out[2] = 1; out[3] = 0;
    },
  };
}

/** Scratch for sampleGround's question (x, y, z). */
const AT = new Float64Array(3);

/**
 * Asks `ground` about the point (x, y, z) = p[o..o+2] and leaves the answer in out[0..3] with the
 * normal normalised. An answer that cannot be used (a height or normal that is not finite, a normal
 * that does not point up) is a RangeError naming the point: a broken ground must not turn into
 * characters flying off to NaN.
 */
export function sampleGround(ground: Ground, p: Float64Array, o: number, out: Float64Array): void {
  AT[0] = p[o]; AT[1] = p[o + 1]; AT[2] = p[o + 2];
  ground.sample(AT, out);
  const nx = out[1], ny = out[2], nz = out[3];
  const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (!(Number.isFinite(out[0]) && len > 0 && len < Infinity && ny > 1e-6 * len)) badSample(out, p, o);
  out[1] = nx / len; out[2] = ny / len; out[3] = nz / len;
}

function badSample(out: Float64Array, p: Float64Array, o: number): never {
  const where = `(${p[o]}, ${p[o + 2]})`;
  if (!Number.isFinite(out[0])) throw new RangeError(`ground: the height at ${where} is not a finite number (got ${out[0]})`);
  throw new RangeError(`ground: the normal at ${where} must be a finite vector pointing up (y > 0), got (${out[1]}, ${out[2]}, ${out[3]})`);
}

/** Throws a RangeError unless `g` is a usable Ground (or null). */
export function validateGround(g: unknown, name = 'ground'): void {
  if (g === null) return;
  if (typeof g !== 'object' || typeof (g as Ground).sample !== 'function') {
    throw new RangeError(`controller option ${name} must be null (flat ground at y = 0) or an object with sample(at, out) (a HeightField, groundFromFunctions({ height, normal }), or your own), got ${g === undefined ? 'undefined' : typeof g}`);
  }
}
