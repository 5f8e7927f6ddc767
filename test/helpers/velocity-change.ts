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

/**
 * Every joint's velocity change between consecutive output steps of `dt` seconds (m/s), the largest
 * so far: the quality command's pops over a run. `observe` each step's world positions (3 per joint).
 */
export class JointPops {
  largest = 0;
  private readonly p1: Float64Array;
  private readonly p2: Float64Array;
  private n = 0;
  constructor(joints: number, private readonly dt: number) { this.p1 = new Float64Array(3 * joints); this.p2 = new Float64Array(3 * joints); }
  observe(wp: Float64Array): void {
    if (this.n >= 2) {
      for (let j = 0; j < wp.length; j += 3) {
        let d = 0;
        for (let k = 0; k < 3; k++) { const a = (wp[j + k] - 2 * this.p1[j + k] + this.p2[j + k]) / this.dt; d += a * a; }
        this.largest = Math.max(this.largest, Math.sqrt(d));
      }
    }
    this.p2.set(this.p1); this.p1.set(wp); this.n++;
  }
}
