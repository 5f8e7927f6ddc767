/**
 * An independent, deliberately naive reference for search results: filters frame by frame, costs
 * each row with the documented float32 lane order, keeps the first strictly lower cost.
 */
import type { Database } from '../../src/database/database.js';

const fr = Math.fround;

export interface OracleOptions {
  ranges?: ReadonlyArray<readonly [number, number]>;
  excludeRanges?: ReadonlyArray<readonly [number, number]>;
  requireBits?: number;
  excludeBits?: number;
  bias?: Float32Array | null;
  bestCost?: number;
}

/** Documented cost: lane l sums dims l, l+4, ...; lanes combine as (l0 + l2) + (l1 + l3). */
export function laneCost(q: Float32Array, f: Float32Array, row: number, stride: number): number {
  const lanes = [0, 0, 0, 0];
  for (let j = 0; j < stride; j++) {
    const d = fr(q[j] - f[row * stride + j]);
    lanes[j & 3] = fr(lanes[j & 3] + fr(d * d));
  }
  return fr(fr(lanes[0] + lanes[2]) + fr(lanes[1] + lanes[3]));
}

export function allowedFrame(db: Database, i: number, o: OracleOptions): boolean {
  if (!db.candidates[i]) return false;
  const t = db.tagBits[i];
  const req = o.requireBits ?? 0;
  if (((t & req) >>> 0) !== req >>> 0) return false;
  if ((t & (o.excludeBits ?? 0)) !== 0) return false;
  if (o.ranges && !o.ranges.some(([s, e]) => i >= s && i < e)) return false;
  if (o.excludeRanges && o.excludeRanges.some(([s, e]) => i >= s && i < e)) return false;
  return true;
}

/** Best (frame, cost) for a normalised, padded query; frame -1 when nothing beats bestCost. */
export function oracleSearch(db: Database, q: Float32Array, o: OracleOptions = {}): { frame: number; cost: number; allowed: number } {
  let best = fr(o.bestCost ?? Infinity);
  let frame = -1;
  let allowed = 0;
  for (let i = 0; i < db.frameCount; i++) {
    if (!allowedFrame(db, i, o)) continue;
    allowed++;
    let c = laneCost(q, db.features, i, db.stride);
    if (o.bias) c = fr(c + o.bias[i]);
    if (c < best) {
      best = c;
      frame = i;
    }
  }
  return { frame, cost: best, allowed };
}
