/**
 * Approximate search (opt-in, never the default): the normalised features are projected onto their
 * first principal components, a KD-tree over the projection yields the k nearest candidates, and
 * those are re-ranked with the exact cost. Fast on large databases because the tree works in few
 * dimensions; approximate because the true nearest row may not be among the k. Use `measureRecall`
 * to know how often it agrees with brute force before relying on it.
 */
import type { Database } from '../database/database.js';
import { sqDistBetween } from './kernels-js/row-cost.js';

export interface ApproximateOptions {
  /** Principal components kept (default 8). */
  components?: number;
  /** Candidates re-ranked with the exact cost (default 32). */
  candidates?: number;
  /** Rows per KD-tree leaf (default 16). */
  leafSize?: number;
}

export interface ApproximateResult {
  frame: number;
  cost: number;
  /** Always true: results of this class are approximate by construction. */
  approximate: true;
}

/** Eigen-decomposition of a symmetric n x n matrix (row-major) by cyclic Jacobi rotations. */
export function symmetricEigen(a: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  const m = Float64Array.from(a);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += m[p * n + q] * m[p * n + q];
    if (off < 1e-22) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = m[p * n + q];
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (m[q * n + q] - m[p * n + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1), s = t * c;
        for (let k = 0; k < n; k++) {
          const mkp = m[k * n + p], mkq = m[k * n + q];
          m[k * n + p] = c * mkp - s * mkq;
          m[k * n + q] = s * mkp + c * mkq;
        }
        for (let k = 0; k < n; k++) {
          const mpk = m[p * n + k], mqk = m[q * n + k];
          m[p * n + k] = c * mpk - s * mqk;
          m[q * n + k] = s * mpk + c * mqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p], vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  // Sort by decreasing eigenvalue; vectors become rows.
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => m[y * n + y] - m[x * n + x]);
  const values = new Float64Array(n), vectors = new Float64Array(n * n);
  order.forEach((src, i) => {
    values[i] = m[src * n + src];
    for (let k = 0; k < n; k++) vectors[i * n + k] = v[k * n + src];
  });
  return { values, vectors };
}

export class ApproximateMatcher {
  readonly components: number;
  readonly candidates: number;
  /** Share of the features' variance the kept components explain. */
  readonly explainedVariance: number;
  private readonly db: Database;
  private readonly dims: number;
  private readonly basis: Float64Array; // components x dims
  private readonly centre: Float64Array;
  private readonly rows: Int32Array; // candidate frames in tree order
  private readonly points: Float32Array; // projected rows, tree order
  // Tree: node i has [start, end) of rows, split dim/value, children (-1 for leaves).
  private readonly nodeStart: Int32Array;
  private readonly nodeEnd: Int32Array;
  private readonly nodeDim: Int32Array;
  private readonly nodeSplit: Float64Array;
  private readonly nodeLeft: Int32Array;
  private readonly nodeRight: Int32Array;
  private nodeCount = 0;
  private readonly q = new Float64Array(64);
  private readonly padded: Float32Array;
  private readonly heapDist: Float64Array;
  private readonly heapRow: Int32Array;
  private heapSize = 0;
  private readonly stack = new Int32Array(256);
  private readonly stackDist = new Float64Array(256);

  constructor(db: Database, opts: ApproximateOptions = {}) {
    this.db = db;
    this.dims = db.dims;
    const d = db.dims;
    this.components = Math.min(d, opts.components ?? 8);
    this.candidates = Math.max(1, opts.candidates ?? 32);
    const leaf = Math.max(1, opts.leafSize ?? 16);
    if (!(Number.isInteger(this.components) && this.components >= 1)) throw new RangeError(`components must be a positive integer, got ${opts.components}`);
    const frames: number[] = [];
    for (let f = 0; f < db.frameCount; f++) if (db.candidates[f]) frames.push(f);
    if (frames.length === 0) throw new RangeError('the database has no candidate frames');
    // PCA of the normalised candidate rows.
    const S = db.stride, F = db.features;
    this.centre = new Float64Array(d);
    for (const f of frames) for (let k = 0; k < d; k++) this.centre[k] += F[f * S + k];
    for (let k = 0; k < d; k++) this.centre[k] /= frames.length;
    const cov = new Float64Array(d * d);
    const x = new Float64Array(d);
    for (const f of frames) {
      for (let k = 0; k < d; k++) x[k] = F[f * S + k] - this.centre[k];
      for (let i = 0; i < d; i++) for (let j = i; j < d; j++) cov[i * d + j] += x[i] * x[j];
    }
    for (let i = 0; i < d; i++) for (let j = i; j < d; j++) { cov[i * d + j] /= frames.length; cov[j * d + i] = cov[i * d + j]; }
    const eig = symmetricEigen(cov, d);
    let total = 0, kept = 0;
    for (let i = 0; i < d; i++) { total += Math.max(0, eig.values[i]); if (i < this.components) kept += Math.max(0, eig.values[i]); }
    this.explainedVariance = total > 0 ? kept / total : 1;
    this.basis = eig.vectors.slice(0, this.components * d);
    // Project and build the tree.
    const C = this.components;
    this.rows = Int32Array.from(frames);
    const proj = new Float32Array(frames.length * C);
    frames.forEach((f, i) => this.project(F, f * S, proj, i * C));
    const maxNodes = 2 * Math.ceil(frames.length / leaf) * 2 + 1;
    this.nodeStart = new Int32Array(maxNodes); this.nodeEnd = new Int32Array(maxNodes); this.nodeDim = new Int32Array(maxNodes);
    this.nodeSplit = new Float64Array(maxNodes); this.nodeLeft = new Int32Array(maxNodes); this.nodeRight = new Int32Array(maxNodes);
    const idx = Array.from({ length: frames.length }, (_, i) => i);
    this.buildNode(idx, 0, idx.length, proj, leaf);
    this.points = new Float32Array(frames.length * C);
    const orderedRows = new Int32Array(frames.length);
    idx.forEach((src, i) => { orderedRows[i] = frames[src]; this.points.set(proj.subarray(src * C, src * C + C), i * C); });
    this.rows = orderedRows;
    this.padded = new Float32Array(db.stride);
    this.heapDist = new Float64Array(this.candidates);
    this.heapRow = new Int32Array(this.candidates);
  }

  private project(src: ArrayLike<number>, so: number, out: Float32Array | Float64Array, oo: number): void {
    const d = this.dims;
    for (let c = 0; c < this.components; c++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += (src[so + k] - this.centre[k]) * this.basis[c * d + k];
      out[oo + c] = s;
    }
  }

  private buildNode(idx: number[], start: number, end: number, proj: Float32Array, leaf: number): number {
    const n = this.nodeCount++;
    const C = this.components;
    this.nodeStart[n] = start; this.nodeEnd[n] = end; this.nodeLeft[n] = -1; this.nodeRight[n] = -1;
    if (end - start <= leaf) return n;
    let bestDim = 0, bestSpread = -1;
    for (let c = 0; c < C; c++) {
      let lo = Infinity, hi = -Infinity;
      for (let i = start; i < end; i++) { const v = proj[idx[i] * C + c]; if (v < lo) lo = v; if (v > hi) hi = v; }
      if (hi - lo > bestSpread) { bestSpread = hi - lo; bestDim = c; }
    }
    if (bestSpread <= 0) return n;
    const part = idx.slice(start, end).sort((a, b) => proj[a * C + bestDim] - proj[b * C + bestDim]);
    for (let i = 0; i < part.length; i++) idx[start + i] = part[i];
    const mid = (start + end) >> 1;
    this.nodeDim[n] = bestDim;
    this.nodeSplit[n] = proj[idx[mid] * C + bestDim];
    this.nodeLeft[n] = this.buildNode(idx, start, mid, proj, leaf);
    this.nodeRight[n] = this.buildNode(idx, mid, end, proj, leaf);
    return n;
  }

  /** Approximate nearest candidate frame to a normalised query (stride or dims floats). */
  search(query: ArrayLike<number>, out: ApproximateResult = { frame: -1, cost: Infinity, approximate: true }): ApproximateResult {
    if (query.length !== this.db.dims && query.length !== this.db.stride) throw new RangeError(`query has ${query.length} floats; expected ${this.db.dims} or ${this.db.stride}`);
    for (let k = 0; k < this.db.dims; k++) {
      if (!Number.isFinite(query[k])) throw new RangeError(`query[${k}] is ${query[k]}: queries must be finite`);
      this.padded[k] = query[k];
    }
    this.project(query, 0, this.q, 0);
    this.heapSize = 0;
    this.knn();
    // Re-rank the k candidates with the exact kernels' float32 cost (ties to the lowest frame).
    const S = this.db.stride, F = this.db.features;
    let best = -1, bestCost = Infinity;
    for (let i = 0; i < this.heapSize; i++) {
      const f = this.heapRow[i];
      const c = sqDistBetween(this.padded, 0, F, f * S, S);
      if (c < bestCost || (c === bestCost && f < best)) { bestCost = c; best = f; }
    }
    out.frame = best; out.cost = bestCost;
    return out;
  }

  /** k nearest projected rows: depth-first with a bounded max-heap, pruning on the plane distance. */
  private knn(): void {
    const C = this.components, q = this.q, P = this.points;
    let sp = 0;
    this.stack[sp] = 0; this.stackDist[sp++] = 0;
    while (sp > 0) {
      const n = this.stack[--sp];
      // Visit only while the splitting plane could still hold something nearer than the worst kept.
      if (this.heapSize === this.candidates && this.stackDist[sp] >= this.heapDist[0]) continue;
      const left = this.nodeLeft[n];
      if (left < 0) {
        for (let i = this.nodeStart[n]; i < this.nodeEnd[n]; i++) {
          let dist = 0;
          for (let c = 0; c < C; c++) { const e = P[i * C + c] - q[c]; dist += e * e; }
          this.offer(dist, this.rows[i]);
        }
        continue;
      }
      const dim = this.nodeDim[n];
      const diff = q[dim] - this.nodeSplit[n];
      const near = diff < 0 ? left : this.nodeRight[n];
      const far = diff < 0 ? this.nodeRight[n] : left;
      const bound = this.stackDist[sp];
      this.stack[sp] = far; this.stackDist[sp++] = Math.max(bound, diff * diff);
      this.stack[sp] = near; this.stackDist[sp++] = bound;
    }
  }

  private offer(dist: number, row: number): void {
    const H = this.heapDist, R = this.heapRow;
    if (this.heapSize < this.candidates) {
      let i = this.heapSize++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (H[p] >= dist) break;
        H[i] = H[p]; R[i] = R[p]; i = p;
      }
      H[i] = dist; R[i] = row;
      return;
    }
    if (dist >= H[0]) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i, mv = dist;
      if (l < this.heapSize && H[l] > mv) { m = l; mv = H[l]; }
      if (r < this.heapSize && H[r] > mv) { m = r; mv = H[r]; }
      if (m === i) break;
      H[i] = H[m]; R[i] = R[m]; i = m;
    }
    H[i] = dist; R[i] = row;
  }
}

/** recall@1: the share of queries for which approximate search returns brute force's frame. */
export function measureRecall(approx: ApproximateMatcher, exactFrames: ArrayLike<number>, queries: Float32Array, stride: number): number {
  let hits = 0;
  const n = exactFrames.length;
  const res: ApproximateResult = { frame: -1, cost: Infinity, approximate: true };
  for (let i = 0; i < n; i++) {
    approx.search(queries.subarray(i * stride, (i + 1) * stride), res);
    if (res.frame === exactFrames[i]) hits++;
  }
  return n > 0 ? hits / n : 1;
}
