/**
 * The half-precision format of the compact rows (assembly/compact.ts decodes it): IEEE binary16 bit
 * patterns, decoded with integer operations only (sign-extend, shift left 13, keep the sign in bit
 * 31 with & 0x8fffffff, add 112 << 23 to rebias the exponent). That is the binary16 value for every
 * normal half; the two reserved exponents read differently:
 * exponent 0 as 2^-15 (1 + m / 1024) (no subnormals, no zero: 0 is stored as 2^-15, 3e-5 away) and
 * exponent 31 as the finite 2^16 (1 + m / 1024) (no infinities, no NaN). The encoder only produces
 * what this decodes to, and every row stores a certified bound of its error, so the difference
 * costs nothing in exactness.
 */

/** The largest decodable magnitude: 2^16 * (2 - 2^-10). */
export const HALF_MAX = 131008;
/** The smallest decodable magnitude. */
export const HALF_MIN = 2 ** -15;

/** The value the kernels decode from the 16-bit pattern h: sign, 2^(e - 15) (1 + m / 1024) for every exponent e. */
export function halfValue(h: number): number {
  const e = (h >> 10) & 31;
  const m = h & 1023;
  const v = 2 ** (e - 15) * (1 + m / 1024);
  return h & 0x8000 ? -v : v;
}

let table: Float32Array | null = null;

/** halfValue through a table of all 65536 patterns (the JS kernels decode every value of a row). */
export function decodeHalf(h: number): number {
  if (table === null) {
    table = new Float32Array(65536);
    for (let i = 0; i < 65536; i++) table[i] = halfValue(i);
  }
  return table[h];
}

const bits = new Float32Array(1);
const ints = new Uint32Array(bits.buffer);

/**
 * The 16-bit pattern whose decoded value is nearest to the float32 value x (ties: the larger
 * magnitude), from x's bits: exponent rebiased, mantissa rounded to 10 bits with its carry.
 */
export function encodeHalf(x: number): number {
  bits[0] = x;
  const b = ints[0];
  const sign = (b >>> 16) & 0x8000;
  const e = ((b >>> 23) & 255) - 127;
  if (e < -15) return sign; // below 2^-15 (zero and subnormals too): the smallest magnitude is nearest
  if (e > 16) return sign | 0x7fff; // beyond the largest magnitude
  // Rounding the 23-bit mantissa to 10 bits may carry into the exponent: that is the next power of two.
  const h = (((e + 15) << 10) + (((b & 0x7fffff) + 0x1000) >>> 13));
  return sign | Math.min(h, 0x7fff);
}
