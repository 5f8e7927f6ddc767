/**
 * The pops measure of `motionmatch quality` (runtime/quality/output-measures.ts recordPops) on a
 * single point's positions in a test: the largest change of its velocity between consecutive
 * steps of `dt` seconds (m/s). `p` holds `dims` values per step (1: a height or a distance along a
 * line; 3: x, y, z).
 */
export function largestVelocityChange(p: ArrayLike<number>, dt: number, dims = 1): number {
  let most = 0;
  for (let i = 2 * dims; i < p.length; i += dims) {
    let d = 0;
    for (let k = 0; k < dims; k++) { const a = (p[i + k] - 2 * p[i - dims + k] + p[i - 2 * dims + k]) / dt; d += a * a; }
    most = Math.max(most, Math.sqrt(d));
  }
  return most;
}

/** `x` (one value per step) after the two steps before it of a point at `position` moving at `velocity` (so its first step's change counts). */
export function fromMotion(position: number, velocity: number, dt: number, x: readonly number[]): number[] {
  return [position - velocity * dt, position, ...x];
}
