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

/** The value the kernels decode from the 16-bit pattern h (its float32 value, exact in float64). */
export function decodeHalf(h: number): number {
  const e = (h >> 10) & 31;
  const m = h & 1023;
  const v = 2 ** (e - 15) * (1 + m / 1024);
  return h & 0x8000 ? -v : v;
}

/** The pattern of sign, exponent (0..31) and mantissa (0..1023). */
function pack(negative: boolean, e: number, m: number): number {
  return (negative ? 0x8000 : 0) | (e << 10) | m;
}

/** The largest decodable magnitude <= a (a >= HALF_MIN), as (exponent, mantissa). */
function floorMagnitude(a: number): number {
  if (a >= HALF_MAX) return pack(false, 31, 1023);
  let e = Math.floor(Math.log2(a));
  // log2 may be off by one next to a power of two: settle it exactly.
  while (2 ** e > a) e--;
  while (2 ** (e + 1) <= a) e++;
  const m = Math.floor((a / 2 ** e - 1) * 1024);
  return pack(false, e + 15, m);
}

/** The 16-bit pattern whose decoded value is nearest to x (ties: the smaller magnitude). */
export function encodeHalf(x: number): number {
  const negative = x < 0;
  const a = Math.abs(x);
  if (a <= HALF_MIN) return pack(negative, 0, 0);
  const lo = floorMagnitude(a);
  if (lo === pack(false, 31, 1023)) return lo | (negative ? 0x8000 : 0);
  const hi = lo + 1; // the next magnitude (mantissa 1023 + 1 carries into the exponent)
  const pick = a - decodeHalf(lo) <= decodeHalf(hi) - a ? lo : hi;
  return pick | (negative ? 0x8000 : 0);
}
