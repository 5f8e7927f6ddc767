/**
 * The speed a clip travels at over a stride around each frame: what time warping compares the
 * requested speed with. The root's speed within a stride swings by ±30% in real walks (and from
 * 0.2 to 1.1 m/s in some styled ones): a play rate set from each frame's own speed sped up and
 * slowed down every step, distorting the gait and jerking the joints (pops of 15-20 m/s).
 */
import type { Database } from '../../database/database.js';
import { databaseRuntime } from '../database-runtime.js';

/** The window the speed is averaged over (s): about one stride of a walk. */
export const STRIDE_SECONDS = 1;

const cache = new WeakMap<Database, Float32Array>();

/** Per frame: the mean horizontal root speed (m/s) over STRIDE_SECONDS centred on it, within its clip (cached per database). */
export function strideSpeeds(db: Database): Float32Array {
  let out = cache.get(db);
  if (out) return out;
  const rt = databaseRuntime(db), V = rt.rootVelocity;
  out = new Float32Array(db.frameCount);
  const half = Math.max(1, Math.round(0.5 * STRIDE_SECONDS * db.fps));
  for (const clip of db.clips) {
    // Prefix sums of the per-frame speeds over the clip.
    const sums = new Float64Array(clip.count + 1);
    for (let k = 0; k < clip.count; k++) {
      const f = clip.start + k;
      sums[k + 1] = sums[k] + Math.sqrt(V[3 * f] * V[3 * f] + V[3 * f + 2] * V[3 * f + 2]);
    }
    for (let k = 0; k < clip.count; k++) {
      const a = Math.max(0, k - half), b = Math.min(clip.count, k + half + 1);
      out[clip.start + k] = (sums[b] - sums[a]) / (b - a);
    }
  }
  cache.set(db, out);
  return out;
}
