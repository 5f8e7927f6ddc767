/**
 * The clustered index (assembly/cluster.ts searches it): two levels of k-means over the normalised
 * candidate rows, seeded and deterministic (float64 JavaScript, the project's mulberry32), so every
 * backend builds the same index.
 *
 * Coarse level: about sqrt(rows) clusters. Fine level: each cluster split again by k-means into
 * sub-clusters of about SUB_SIZE rows. Rows are stored sub-cluster by sub-cluster, each sub-cluster's
 * rows sorted by their distance to its centre (ascending, ties by frame). Per cluster and per
 * sub-cluster: the float32 centre (the mean of its rows), a radius (the float64 maximum of its rows'
 * exact distances to that float32 centre, rounded up to float32), the OR / AND of the rows' tag bits;
 * per cluster also its box. Per row: its distance to its sub-cluster's centre as the nearest float32
 * (the kernels allow 2^-21 of slack for that rounding).
 *
 * k-means: Lloyd's iterations on a random sample (clusters: 32 rows per centre, at least 4096;
 * sub-clusters: 8 rows per centre),
 * then every row to its nearest centre and the centres to their rows' means. Nearest-centre queries
 * use the triangle inequality: each centre keeps its nearest other centres sorted by distance, and a
 * row starts from a good guess (its previous assignment, or the previous row's centre: consecutive
 * frames are close), scanning the guess's neighbours only while they could be nearer. Assignments
 * only affect speed: radii are measured against the final centres.
 */
import { createRandom } from '../../util/prng.js';
import { encodeHalf, decodeHalf } from '../codecs/half.js';

/** Rows per sub-cluster the fine level aims at. */
export const SUB_SIZE = 32;

/** One level of the index: groups of consecutive entries of the level below. */
export interface ClusterLevel {
  count: number;
  /** count x stride float32 centres (padding 0). */
  centres: Float32Array;
  /** Per group: >= the exact distance of every row below it to its float32 centre. */
  radius: Float32Array;
  radiusMax: number;
  /** Per group: first entry below (sub-cluster for clusters, row for sub-clusters); count + 1 entries. */
  start: Int32Array;
  tagOr: Uint32Array;
  tagAnd: Uint32Array;
}

export interface ClusterIndex {
  clusters: ClusterLevel;
  subs: ClusterLevel;
  /** Per cluster: min[stride] then max[stride] of its rows (float32). */
  boxes: Float32Array;
  /**
   * Sub-cluster centres as half-precision patterns (count x stride): the kernels read these (one
   * cache line a centre); subs.centres holds exactly their decoded values, which every radius and
   * row distance is measured from.
   */
  subHalves: Uint16Array;
  /** Candidate frames, sub-cluster by sub-cluster, by distance to their sub-cluster's centre. */
  order: Int32Array;
  /** Per `order` entry: its distance to its sub-cluster's centre (nearest float32). */
  rowRadius: Float32Array;
  /** The most sub-clusters one cluster has (the kernels' scratch holds them). */
  maxSubs: number;
  /** Lloyd iterations run on the coarse level and the sample they ran on. */
  iterations: number;
  sample: number;
}

export interface ClusterOptions {
  /** Clusters wanted (at most the candidate count). */
  count: number;
  seed: number;
  /** Lloyd iterations (default 8 for clusters, 4 for sub-clusters). */
  iterations?: number;
}

/** Nearest other centres each centre remembers. */
const NEIGHBOURS = 256;

/** Default cluster count for `rows` candidate rows: about sqrt(rows), measured in docs/search.md. */
export function defaultClusterCount(rows: number): number {
  return Math.min(4096, Math.max(1, Math.round(Math.sqrt(rows))));
}

export function buildClusters(
  features: Float32Array, rows: number, stride: number, dims: number,
  candidates: Uint8Array, tagBits: Uint32Array, opts: ClusterOptions,
): ClusterIndex {
  let m = 0;
  for (let i = 0; i < rows; i++) if (candidates[i] !== 0) m++;
  const frames = new Int32Array(m);
  for (let i = 0, n = 0; i < rows; i++) if (candidates[i] !== 0) frames[n++] = i;
  const rand = createRandom(opts.seed);
  const coarse = kMeans(features, stride, dims, frames, Math.min(opts.count, m), rand, opts.iterations ?? 8);

  // Frames grouped by cluster, then each cluster split into sub-clusters.
  const byCluster = groupBy(frames, coarse.owner, coarse.centres.length / dims);
  const order = new Int32Array(m);
  const rowDist = new Float64Array(m);
  const subCentres: number[] = [];
  const subOwnerCount: number[] = [];
  let at = 0;
  let maxSubs = 0;
  for (const members of byCluster.groups) {
    if (members.length === 0) continue;
    let used = 0;
    for (const rowsOfSub of splitRows(features, stride, dims, members, rand)) {
      used++;
      const centre = meanOf(features, stride, dims, rowsOfSub);
      for (let d = 0; d < dims; d++) subCentres.push(centre[d]);
      subOwnerCount.push(rowsOfSub.length);
      for (const f of rowsOfSub) order[at++] = f;
    }
    subOwnerCount.push(-used); // marks the end of a cluster's sub-clusters
    maxSubs = Math.max(maxSubs, used);
  }

  // Sub-cluster level: float32 centres, rows sorted by distance to them, radii.
  const subCount = subOwnerCount.filter((n) => n > 0).length;
  const subs = emptyLevel(subCount, stride);
  const subHalves = new Uint16Array(subCount * stride);
  const rowRadius = new Float32Array(m);
  let row = 0;
  let sub = 0;
  const clusterSubStart: number[] = [0];
  for (const n of subOwnerCount) {
    if (n < 0) {
      clusterSubStart.push(sub);
      continue;
    }
    // The centre is the nearest half-precision point to the mean: any point serves, and this one the
    // kernels read in 64 bytes.
    for (let d = 0; d < stride; d++) {
      const h = encodeHalf(d < dims ? Math.fround(subCentres[sub * dims + d]) : 0);
      subHalves[sub * stride + d] = h;
      subs.centres[sub * stride + d] = decodeHalf(h);
    }
    subs.start[sub] = row;
    for (let i = row; i < row + n; i++) rowDist[i] = exactDistance(features, order[i] * stride, subs.centres, sub * stride, stride);
    sortByDistance(order, rowDist, row, row + n);
    summarize(subs, sub, order, row, row + n, rowDist, tagBits);
    for (let i = row; i < row + n; i++) rowRadius[i] = rowDist[i];
    row += n;
    sub++;
  }
  subs.start[subCount] = row;

  // Cluster level: the coarse centres of the non-empty clusters, radii over all their rows, boxes.
  const count = clusterSubStart.length - 1;
  const clusters = emptyLevel(count, stride);
  const boxes = new Float32Array(count * 2 * stride);
  let c = 0;
  byCluster.groups.forEach((members, a) => {
    if (members.length === 0) return;
    for (let d = 0; d < dims; d++) clusters.centres[c * stride + d] = coarse.centres[a * dims + d];
    clusters.start[c] = clusterSubStart[c];
    const first = subs.start[clusterSubStart[c]];
    const last = subs.start[clusterSubStart[c + 1]];
    for (let i = first; i < last; i++) rowDist[i] = exactDistance(features, order[i] * stride, clusters.centres, c * stride, stride);
    summarize(clusters, c, order, first, last, rowDist, tagBits);
    boxOf(features, stride, dims, order, first, last, boxes, c * 2 * stride);
    c++;
  });
  clusters.start[count] = subCount;
  return { clusters, subs, subHalves, boxes, order, rowRadius, maxSubs, iterations: coarse.iterations, sample: coarse.sample };
}

/** Most parts one k-means splits a group into: larger groups are split again (cost O(n log n)). */
const SPLIT_FAN_OUT = 64;

/**
 * The rows split into groups of about SUB_SIZE by k-means: at most SPLIT_FAN_OUT parts at a time,
 * parts still too large split again. A part k-means cannot divide (identical rows) stays whole.
 */
function splitRows(features: Float32Array, stride: number, dims: number, rowsOf: Int32Array, rand: () => number): Int32Array[] {
  const want = Math.ceil(rowsOf.length / SUB_SIZE);
  if (want <= 1) return [rowsOf];
  const parts = Math.min(want, SPLIT_FAN_OUT);
  const km = kMeans(features, stride, dims, rowsOf, parts, rand, 4, 8, 0);
  const groups = groupBy(rowsOf, km.owner, parts).groups.filter((g) => g.length > 0);
  if (parts === want || groups.length === 1) return groups;
  return groups.flatMap((g) => splitRows(features, stride, dims, g, rand));
}

/** The float64 mean of the rows. */
function meanOf(features: Float32Array, stride: number, dims: number, rowsOf: Int32Array): Float64Array {
  const m = new Float64Array(dims);
  for (const f of rowsOf) for (let d = 0; d < dims; d++) m[d] += features[f * stride + d];
  for (let d = 0; d < dims; d++) m[d] /= rowsOf.length;
  return m;
}

function emptyLevel(count: number, stride: number): ClusterLevel {
  return {
    count, centres: new Float32Array(count * stride), radius: new Float32Array(count), radiusMax: 0,
    start: new Int32Array(count + 1), tagOr: new Uint32Array(count), tagAnd: new Uint32Array(count),
  };
}

/** Radius (rounded up to float32) and tag bits of group g over rows [a, b) at distances dist. */
function summarize(level: ClusterLevel, g: number, order: Int32Array, a: number, b: number, dist: Float64Array, tagBits: Uint32Array): void {
  let r = 0;
  let or = 0;
  let and = 0xffffffff;
  for (let i = a; i < b; i++) {
    r = Math.max(r, dist[i]);
    or |= tagBits[order[i]];
    and &= tagBits[order[i]];
  }
  level.radius[g] = roundUp(r * (1 + 2 ** -40));
  level.radiusMax = Math.max(level.radiusMax, level.radius[g]);
  level.tagOr[g] = or >>> 0;
  level.tagAnd[g] = and >>> 0;
}

/** The per-dimension min / max of rows [a, b) into out[at..] (min[stride], then max[stride]). */
function boxOf(features: Float32Array, stride: number, dims: number, order: Int32Array, a: number, b: number, out: Float32Array, at: number): void {
  out.fill(Infinity, at, at + dims);
  out.fill(-Infinity, at + stride, at + stride + dims);
  for (let i = a; i < b; i++) {
    const row = order[i] * stride;
    for (let d = 0; d < dims; d++) {
      const x = features[row + d];
      if (x < out[at + d]) out[at + d] = x;
      if (x > out[at + stride + d]) out[at + stride + d] = x;
    }
  }
}

/** The rows grouped by owner, each group in the rows' order. */
function groupBy(rowsOf: Int32Array, owner: Int32Array, groups: number): { groups: Int32Array[] } {
  const counts = new Int32Array(groups);
  for (let i = 0; i < rowsOf.length; i++) counts[owner[i]]++;
  const out = Array.from({ length: groups }, (_, g) => new Int32Array(counts[g]));
  const fill = new Int32Array(groups);
  for (let i = 0; i < rowsOf.length; i++) out[owner[i]][fill[owner[i]]++] = rowsOf[i];
  return { groups: out };
}

interface KMeansResult {
  /** k x dims float64 centres (the means of their rows; an empty centre keeps its last position). */
  centres: Float64Array;
  /** Per row: its centre. */
  owner: Int32Array;
  iterations: number;
  sample: number;
}

/**
 * k-means of the given rows (frames): Lloyd's iterations on a random sample, then every row to its
 * nearest centre and the centres to their rows' means.
 */
function kMeans(
  features: Float32Array, stride: number, dims: number, rowsOf: Int32Array, k: number, rand: () => number, iterations: number,
  perCentre = 32, minSample = 4096,
): KMeansResult {
  const m = rowsOf.length;
  if (k <= 0 || m === 0) return { centres: new Float64Array(0), owner: new Int32Array(m), iterations: 0, sample: 0 };
  // A random sample (partial Fisher-Yates over a copy of the rows).
  const pool = Int32Array.from(rowsOf);
  const s = Math.min(m, Math.max(minSample, perCentre * k));
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

  const assign = new Int32Array(s);
  const sums = new Float64Array(k * dims);
  const counts = new Int32Array(k);
  let run = 0;
  if (s > k) {
    for (; run < iterations; run++) {
      const nb = neighbourLists(c, k, dims);
      let changed = 0;
      for (let i = 0; i < s; i++) {
        const a = run === 0 ? nearestByScan(features, sample[i] * stride, dims, c, k) : nearestCentre(features, sample[i] * stride, dims, c, k, nb, assign[i]);
        if (a !== assign[i] || run === 0) changed++;
        assign[i] = a;
      }
      if (run > 0 && changed === 0) break;
      meansOf(features, stride, dims, sample, assign, k, sums, counts, c);
    }
  }
  const nb = neighbourLists(c, k, dims);
  const owner = new Int32Array(m);
  let guess = 0;
  for (let i = 0; i < m; i++) {
    guess = nearestCentre(features, rowsOf[i] * stride, dims, c, k, nb, guess);
    owner[i] = guess;
  }
  meansOf(features, stride, dims, rowsOf, owner, k, sums, counts, c);
  return { centres: c, owner, iterations: run, sample: s };
}

/** Exact (float64) Euclidean distance of a feature row and a float32 centre over `n` floats (the whole padded row). */
function exactDistance(features: Float32Array, row: number, centres: Float32Array, at: number, n: number): number {
  let s = 0;
  for (let d = 0; d < n; d++) {
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
  const width = Math.max(0, Math.min(NEIGHBOURS, k - 1));
  const ids = new Int32Array(k * width);
  const dist = new Float64Array(k * width);
  if (width === 0) return { ids, dist, width };
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
    const sorted = smallestFirst(idx, all, width + 1);
    for (let n = 0; n < width; n++) {
      ids[a * width + n] = sorted[n + 1];
      dist[a * width + n] = all[sorted[n + 1]];
    }
  }
  return { ids, dist, width };
}

/** The `count` indices of the smallest keys, in order (ties by index): a selection, then a sort of those. */
function smallestFirst(idx: Int32Array, key: Float64Array, count: number): Int32Array {
  const a = idx.slice();
  const before = (x: number, y: number): boolean => key[x] < key[y] || (key[x] === key[y] && x < y);
  // Quickselect: a[0 .. count) holds the count smallest (in any order).
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (before(a[i], pivot)) i++;
      while (before(pivot, a[j])) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (count - 1 <= j) hi = j;
    else if (count - 1 >= i) lo = i;
    else break;
  }
  return a.subarray(0, count).sort((x, y) => (before(x, y) ? -1 : before(y, x) ? 1 : 0));
}

/** The nearest centre by a scan of all of them (partial distances abandoned early); ties: the first. */
function nearestByScan(features: Float32Array, row: number, dims: number, c: Float64Array, k: number): number {
  let best = 0;
  let bestD2 = Infinity;
  for (let b = 0; b < k; b++) {
    const s = partialDistance(features, row, c, b * dims, dims, bestD2);
    if (s < bestD2) {
      best = b;
      bestD2 = s;
    }
  }
  return best;
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
  for (let n = 0; n < w; n++) {
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
