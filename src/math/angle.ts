/** Angles in radians. */

const TWO_PI = 2 * Math.PI;

/**
 * `a` wrapped to (−π, π]: the short way round, as a turn over one step or the gap between two
 * headings must be. a − 2π·round(a / 2π), with −π (where round() breaks the tie downwards) mapped
 * to π so that the range is half-open on one side only.
 */
export function wrapAngle(a: number): number {
  const r = a - TWO_PI * Math.round(a / TWO_PI);
  return r === -Math.PI ? Math.PI : r;
}
