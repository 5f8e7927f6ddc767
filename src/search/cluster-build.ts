/**
 * The clustered index (assembly/cluster.ts searches it): k-means over the normalised candidate rows,
 * seeded and deterministic (float64 JavaScript, the project's mulberry32), so every backend builds
 * the same clusters.
 *
 * Lloyd's iterations run on a random sample (32 rows per cluster, at least 4096); then every
 * candidate row is assigned to its nearest centre and the centres become the means of their rows.
 * Nearest-centre queries use the triangle inequality: each centre keeps its nearest other centres
 * sorted by distance, and a row starts from a good guess (its previous assignment, or the previous
 * frame's centre: consecutive frames are close), scanning the guess's neighbours only while they
 * could be nearer. Assignments only affect speed: every radius is measured against the final centre.
 *
 * Per cluster: the centre (float32), its radius (float64 maximum of the members' exact distances to
 * the float32 centre, rounded up to float32) and its rows sorted by that distance (ascending, ties by
 * frame), stored as the nearest float32 for the kernels' annulus test (they allow 2^-21 of slack).
 */
import { createRandom } from '../util/prng.js';

export interface ClusterIndex {
  count: number;
  /** count x stride float32 centres (padding 0). */
  centres: Float32Array;
  /** Per cluster: >= the exact distance of every member to its float32 centre. */
  radius: Float32Array;
  radiusMax: number;
  /** Per cluster: first entry in `order`; count + 1 entries. */
  start: Int32Array;
  /** Candidate frames, cluster-major, by distance to their centre. */
  order: Int32Array;
  /** Per `order` entry: its distance to its centre (nearest float32). */
  rowRadius: Float32Array;
  tagOr: Uint32Array;
  tagAnd: Uint32Array;
  /** Per cluster: min[stride] then max[stride] of its rows (float32). */
  boxes: Float32Array;
  /** Lloyd iterations run and the sample they ran on. */
  iterations: number;
  sample: number;
}

export interface ClusterOptions {
  /** Clusters wanted (at most the candidate count). */
  count: number;
  seed: number;
  /** Lloyd iterations on the sample (default 8). */
  iterations?: number;
}

/** Nearest other centres each centre remembers. */
const NEIGHBOURS = 256;

/** Default cluster count for `rows` candidate rows: about sqrt(rows), measured in docs/search.md. */
export function defaultClusterCount(rows: number): number {
  return Math.max(1, Math.round(Math.sqrt(rows)));
}

export function buildClusters(
  features: Float32Array, rows: number, stride: number, dims: number,
  candidates: Uint8Array, tagBits: Uint32Array, opts: ClusterOptions,
): ClusterIndex {
  let m = 0;
  for (let i = 0; i < rows; i++) if (candidates[i] !== 0) m++;
  const frames = new Int32Array(m);
  for (let i = 0, n = 0; i < rows; i++) if (candidates[i] !== 0) frames[n++] = i;
  const k = Math.min(opts.count, m);
  if (k === 0) {
    return {
      count: 0, centres: new Float32Array(0), radius: new Float32Array(0), radiusMax: 0, start: new Int32Array(1), order: frames,
      rowRadius: new Float32Array(0), tagOr: new Uint32Array(0), tagAnd: new Uint32Array(0), boxes: new Float32Array(0), iterations: 0, sample: 0,
    };
  }
  const rand = createRandom(opts.seed);

  // A random sample (partial Fisher-Yates over a copy of the frames).
  const pool = Int32Array.from(frames);
  const s = Math.min(m, Math.max(4096, 32 * k));
  for (let i = 0; i < s; i++) {
    const j = i + Math.floor(rand() * (m - i));
    const t = pool[i];
    pool[i] = pool[j];
    pool[j] = t;
  }
  const sample = pool.subarray(0, s);

  // Initial centres: k distinct sample rows (the sample is already in random order).
  const c = new Float64Array(k * dims);
  for (let a = 0; a < k; a++) for (let d = 0; d < dims; d++) c[a * dims + d] = features[sample[a] * stride + d];

  const iterations = opts.iterations ?? 8;
  const assign = new Int32Array(s);
  const sums = new Float64Array(k * dims);
  const counts = new Int32Array(k);
  let run = 0;
  for (; run < iterations; run++) {
    const nb = neighbourLists(c, k, dims);
    let changed = 0;
    for (let i = 0; i < s; i++) {
      const a = nearestCentre(features, sample[i] * stride, dims, c, k, nb, run === 0 ? i % k : assign[i]);
      if (a !== assign[i] || run === 0) changed++;
      assign[i] = a;
    }
    if (run > 0 && changed === 0) break;
    meansOf(features, stride, dims, sample, assign, k, sums, counts, c);
  }

  // Every candidate to its nearest centre; the centres become their rows' means.
  const nb = neighbourLists(c, k, dims);
  const owner = new Int32Array(m);
  let guess = 0;
  for (let i = 0; i < m; i++) {
    guess = nearestCentre(features, frames[i] * stride, dims, c, k, nb, guess);
    owner[i] = guess;
  }
  meansOf(features, stride, dims, frames, owner, k, sums, counts, c);

  // Drop empty clusters; float32 centres; distances to them.
  const keep = new Int32Array(k).fill(-1);
  let count = 0;
  for (let a = 0; a < k; a++) if (counts[a] > 0) keep[a] = count++;
  const centres = new Float32Array(count * stride);
  for (let a = 0; a < k; a++) {
    if (keep[a] < 0) continue;
    for (let d = 0; d < dims; d++) centres[keep[a] * stride + d] = c[a * dims + d];
  }
  const start = new Int32Array(count + 1);
  for (let i = 0; i < m; i++) start[keep[owner[i]] + 1]++;
  for (let a = 0; a < count; a++) start[a + 1] += start[a];
  const order = new Int32Array(m);
  const dist = new Float64Array(m);
  const fill = start.slice(0, count);
  for (let i = 0; i < m; i++) {
    const a = keep[owner[i]];
    const at = fill[a]++;
    order[at] = frames[i];
    dist[at] = exactDistance(features, frames[i] * stride, centres, a * stride, dims);
  }
  const radius = new Float32Array(count);
  const rowRadius = new Float32Array(m);
  const tagOr = new Uint32Array(count);
  const tagAnd = new Uint32Array(count);
  const boxes = new Float32Array(count * 2 * stride);
  let radiusMax = 0;
  for (let a = 0; a < count; a++) {
    sortByDistance(order, dist, start[a], start[a + 1]);
    let r = 0;
    let or = 0;
    let and = 0xffffffff;
    const lo = a * 2 * stride;
    boxes.fill(Infinity, lo, lo + dims);
    boxes.fill(-Infinity, lo + stride, lo + stride + dims);
    for (let i = start[a]; i < start[a + 1]; i++) {
      r = Math.max(r, dist[i]);
      rowRadius[i] = dist[i];
      or |= tagBits[order[i]];
      and &= tagBits[order[i]];
      const row = order[i] * stride;
      for (let d = 0; d < dims; d++) {
        const x = features[row + d];
        if (x < boxes[lo + d]) boxes[lo + d] = x;
        if (x > boxes[lo + stride + d]) boxes[lo + stride + d] = x;
      }
    }
    radius[a] = roundUp(r * (1 + 2 ** -40));
    radiusMax = Math.max(radiusMax, radius[a]);
    tagOr[a] = or >>> 0;
    tagAnd[a] = and >>> 0;
  }
  return { count, centres, radius, radiusMax, start, order, rowRadius, tagOr, tagAnd, boxes, iterations: run, sample: s };
}

/** Exact (float64) Euclidean distance of a feature row and a float32 centre. */
function exactDistance(features: Float32Array, row: number, centres: Float32Array, at: number, dims: number): number {
  let s = 0;
  for (let d = 0; d < dims; d++) {
    const t = features[row + d] - centres[at + d];
    s += t * t;
  }
  return Math.sqrt(s);
}

/** The smallest float32 >= x (x >= 0, finite). */
function roundUp(x: number): number {
  const f = Math.fround(x);
  if (f >= x) return f;
  const b = new Float32Array([f]);
  new Int32Array(b.buffer)[0]++;
  return b[0];
}

/** Sorts order[a..b) by dist (ascending), ties by frame; dist moves along. */
function sortByDistance(order: Int32Array, dist: Float64Array, a: number, b: number): void {
  const idx = Array.from({ length: b - a }, (_, i) => a + i);
  idx.sort((x, y) => dist[x] - dist[y] || order[x] - order[y]);
  const o = idx.map((i) => order[i]);
  const d = idx.map((i) => dist[i]);
  for (let i = a; i < b; i++) {
    order[i] = o[i - a];
    dist[i] = d[i - a];
  }
}

/** Recomputes each non-empty centre as the mean of its rows. */
function meansOf(
  features: Float32Array, stride: number, dims: number, rowsOf: Int32Array, assign: Int32Array, k: number,
  sums: Float64Array, counts: Int32Array, c: Float64Array,
): void {
  sums.fill(0);
  counts.fill(0);
  for (let i = 0; i < rowsOf.length; i++) {
    const a = assign[i];
    counts[a]++;
    const r = rowsOf[i] * stride;
    for (let d = 0; d < dims; d++) sums[a * dims + d] += features[r + d];
  }
  for (let a = 0; a < k; a++) {
    if (counts[a] === 0) continue;
    for (let d = 0; d < dims; d++) c[a * dims + d] = sums[a * dims + d] / counts[a];
  }
}

interface Neighbours {
  /** Per centre: up to NEIGHBOURS other centres by distance (ids, then distances). */
  ids: Int32Array;
  dist: Float64Array;
  width: number;
}

/** Each centre's nearest other centres, sorted by distance. */
function neighbourLists(c: Float64Array, k: number, dims: number): Neighbours {
  const width = Math.min(NEIGHBOURS, k - 1);
  const ids = new Int32Array(k * width);
  const dist = new Float64Array(k * width);
  const all = new Float64Array(k);
  const idx = new Int32Array(k);
  for (let a = 0; a < k; a++) {
    for (let b = 0; b < k; b++) {
      let s = 0;
      for (let d = 0; d < dims; d++) {
        const t = c[a * dims + d] - c[b * dims + d];
        s += t * t;
      }
      all[b] = Math.sqrt(s);
      idx[b] = b;
    }
    all[a] = -1; // itself first, then skipped
    const sorted = Array.from(idx).sort((x, y) => all[x] - all[y] || x - y);
    for (let n = 0; n < width; n++) {
      ids[a * width + n] = sorted[n + 1];
      dist[a * width + n] = all[sorted[n + 1]];
    }
  }
  return { ids, dist, width };
}

/** Squared distance of a row and a float64 centre, abandoned (returning a value >= limit) once it reaches limit. */
function partialDistance(features: Float32Array, row: number, c: Float64Array, at: number, dims: number, limit: number): number {
  let s = 0;
  for (let d = 0; d < dims; d++) {
    const t = features[row + d] - c[at + d];
    s += t * t;
    if (s >= limit) return s;
  }
  return s;
}

/**
 * The centre nearest to the row (ties: the first found), starting from `guess`: a centre b can only
 * be nearer than the best so far when |c_guess - c_b| < |row - c_guess| + best distance.
 */
function nearestCentre(features: Float32Array, row: number, dims: number, c: Float64Array, k: number, nb: Neighbours, guess: number): number {
  const d0 = Math.sqrt(partialDistance(features, row, c, guess * dims, dims, Infinity));
  let best = guess;
  let bestD2 = d0 * d0;
  let bestD = d0;
  const w = nb.width;
  let n = 0;
  for (; n < w; n++) {
    if (nb.dist[guess * w + n] >= d0 + bestD) return best;
    const b = nb.ids[guess * w + n];
    const s = partialDistance(features, row, c, b * dims, dims, bestD2);
    if (s < bestD2) {
      best = b;
      bestD2 = s;
      bestD = Math.sqrt(s);
    }
  }
  if (w === k - 1) return best;
  // The remembered neighbours did not settle it: every other centre.
  for (let b = 0; b < k; b++) {
    const s = partialDistance(features, row, c, b * dims, dims, bestD2);
    if (s < bestD2) {
      best = b;
      bestD2 = s;
    }
  }
  return best;
}
