/**
 * Plain-JS twin of the clustered search (assembly/cluster.ts): the same centre distances, the same
 * heap in the slot's scratch memory, the same visit order, annulus and skips (indexes/compact-bounds.ts),
 * hence the same frame, the same float32 cost and the same statistics on every backend.
 */
import { sqDist } from './row-cost.js';
import { encodeQueryU8, codeDistance, box16Bound, halfDistance } from './compact.js';
import { costLimit, limitRadius, codeThreshold, sphereSkips, distanceLow, distanceHigh, ROW_RADIUS_SLACK } from '../indexes/compact-bounds.js';
import {
  type Heap,
  CTX_STRIDE, CTX_ROWS, CTX_TAGS, CTX_FEAT, CTX_CLUSTERS, CTX_U8_PARAMS, CTX_U8_ROW_BYTES, CTX_F16_ROW_BYTES,
  REQ_REQUIRE, REQ_EXCLUDE, REQ_BIAS, REQ_BIAS_MIN, REQ_PROBES, REQ_QCODE, REQ_SCRATCH,
  REQ_STAT_BOUNDED, REQ_STAT_RESCORED, REQ_STAT_GROUPS,
  CL_COUNT, CL_CENTRES, CL_RADIUS, CL_RADIUS_MAX, CL_INFO, CL_ORIG, CL_ROW_RADIUS, CL_U8, CL_F32, CL_BOX16,
  CL_SUB_CENTRES, CL_SUB_RADIUS, CL_SUB_INFO,
  CLUSTER_START, CLUSTER_COUNT, CLUSTER_TAG_OR, CLUSTER_TAG_AND, CLUSTER_INFO_SIZE,
  U8P_INV_U, U8P_EMAX, U8P_CHUNKS, U8P_W,
} from '../wasm/memory-layout.js';

const fr = Math.fround;

function tagsPass(t: number, require: number, exclude: number): boolean {
  return ((t & require) >>> 0) === require && (t & exclude) === 0;
}

function inRanges(i32: Int32Array, f: number, ranges: number, rangeCount: number): boolean {
  const base = ranges >> 2;
  let lo = 0;
  let hi = rangeCount;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (i32[base + 2 * mid] <= f) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && f < i32[base + 2 * (lo - 1) + 1];
}

/** Entry a before entry b: smaller key, then lower cluster. */
function before(ka: number, ia: number, kb: number, ib: number): boolean {
  return ka < kb || (ka === kb && ia < ib);
}

/** The visit-order heap: (f32 key, i32 cluster) entries at a byte address. */
class ScratchHeap {
  constructor(readonly f32: Float32Array, readonly i32: Int32Array, readonly base: number) {}
  key(i: number): number {
    return this.f32[(this.base >> 2) + 2 * i];
  }
  id(i: number): number {
    return this.i32[(this.base >> 2) + 2 * i + 1];
  }
  set(i: number, key: number, id: number): void {
    this.f32[(this.base >> 2) + 2 * i] = key;
    this.i32[(this.base >> 2) + 2 * i + 1] = id;
  }
  siftDown(n: number, i: number): void {
    const k = this.key(i);
    const id = this.id(i);
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && before(this.key(c + 1), this.id(c + 1), this.key(c), this.id(c))) c++;
      if (!before(this.key(c), this.id(c), k, id)) break;
      this.set(i, this.key(c), this.id(c));
      i = c;
    }
    this.set(i, k, id);
  }
  heapify(n: number): void {
    for (let i = (n >> 1) - 1; i >= 0; i--) this.siftDown(n, i);
  }
  popTo(n: number): void {
    const last = n - 1;
    const k = this.key(0);
    const id = this.id(0);
    this.set(0, this.key(last), this.id(last));
    this.set(last, k, id);
    if (last > 1) this.siftDown(last, 0);
  }
}

class ClusterWalk {
  readonly ctx: number;
  readonly boxes: number;
  readonly stride: number;
  readonly feat: number;
  readonly info: number;
  readonly radii: number;
  readonly subCentres: number;
  readonly rb16: number;
  readonly subRadii: number;
  readonly subInfo: number;
  /** The sub-cluster list of the cluster being visited (byte address, after the cluster heap). */
  subList = 0;
  readonly orig: number;
  readonly rowR: number;
  readonly rowsU8: number;
  readonly rowsF32: number;
  readonly tags: number;
  readonly require: number;
  readonly exclude: number;
  readonly filterTags: boolean;
  readonly allFrames: boolean;
  readonly bias: number;
  readonly minBias: number;
  best: number;
  bestIdx = -1;
  radius: number;
  qcode = 0;
  w = 0;
  chunks = 0;
  rb8 = 0;
  invU = 0;
  rho = 0;
  eMax = 0;
  t8 = 0;
  bounded = 0;
  rescored = 0;
  groups = 0;

  constructor(readonly h: Heap, ctx: number, req: number, readonly ranges: number, readonly rangeCount: number, readonly q: number, best: number, u8: boolean) {
    const { i32, u32, f32, f64 } = h;
    const cl = i32[(ctx + CTX_CLUSTERS) >> 2];
    this.ctx = ctx;
    this.boxes = i32[(cl + CL_BOX16) >> 2];
    this.stride = i32[(ctx + CTX_STRIDE) >> 2];
    this.feat = i32[(ctx + CTX_FEAT) >> 2] >> 2;
    this.info = i32[(cl + CL_INFO) >> 2];
    this.radii = i32[(cl + CL_RADIUS) >> 2] >> 2;
    this.subCentres = i32[(cl + CL_SUB_CENTRES) >> 2];
    this.rb16 = i32[(ctx + CTX_F16_ROW_BYTES) >> 2];
    this.subRadii = i32[(cl + CL_SUB_RADIUS) >> 2] >> 2;
    this.subInfo = i32[(cl + CL_SUB_INFO) >> 2];
    this.orig = i32[(cl + CL_ORIG) >> 2] >> 2;
    this.rowR = i32[(cl + CL_ROW_RADIUS) >> 2] >> 2;
    this.rowsU8 = u8 ? i32[(cl + CL_U8) >> 2] : 0;
    this.rowsF32 = u8 ? 0 : i32[(cl + CL_F32) >> 2] >> 2;
    this.tags = i32[(ctx + CTX_TAGS) >> 2] >> 2;
    this.require = u32[(req + REQ_REQUIRE) >> 2];
    this.exclude = u32[(req + REQ_EXCLUDE) >> 2];
    this.filterTags = (this.require | this.exclude) !== 0;
    this.allFrames = rangeCount === 1 && i32[ranges >> 2] <= 0 && i32[(ranges >> 2) + 1] >= i32[(ctx + CTX_ROWS) >> 2];
    this.bias = i32[(req + REQ_BIAS) >> 2] >> 2;
    this.minBias = this.bias ? f32[(req + REQ_BIAS_MIN) >> 2] : 0;
    this.best = best;
    this.radius = limitRadius(costLimit(best, this.minBias, true), this.stride);
    if (u8) {
      const p = i32[(ctx + CTX_U8_PARAMS) >> 2];
      this.qcode = i32[(req + REQ_QCODE) >> 2];
      this.w = i32[(p + U8P_W) >> 2];
      this.chunks = i32[(p + U8P_CHUNKS) >> 2];
      this.rb8 = i32[(ctx + CTX_U8_ROW_BYTES) >> 2];
      this.invU = f64[(p + U8P_INV_U) >> 3];
      this.eMax = f64[(p + U8P_EMAX) >> 3];
      this.rho = encodeQueryU8(h, ctx, q, this.qcode);
      this.t8 = codeThreshold(this.rho + this.eMax, this.radius * this.invU);
    }
  }

  private improve(c: number, f: number): void {
    this.best = c;
    this.bestIdx = f;
    this.radius = limitRadius(costLimit(c, this.minBias, true), this.stride);
    if (this.rowsU8) this.t8 = codeThreshold(this.rho + this.eMax, this.radius * this.invU);
  }

  skips(c: number, d: number): boolean {
    return sphereSkips(d, this.h.f32[this.radii + c], this.radius, this.stride);
  }

  private allowed(f: number): boolean {
    if (this.filterTags && !tagsPass(this.h.u32[this.tags + f], this.require, this.exclude)) return false;
    return this.allFrames || inRanges(this.h.i32, f, this.ranges, this.rangeCount);
  }

  /** A row whose 8-bit code distance passed the vector test: its own bound, filters, re-scoring. */
  private u8Row(j: number, k: number): void {
    const { i32, f32 } = this.h;
    const r = this.rowsU8 + j * this.rb8;
    if (k >= codeThreshold(this.rho + f32[(r + this.stride) >> 2], this.radius * this.invU)) return;
    const f = i32[this.orig + j];
    if (!this.allowed(f)) return;
    this.rescored++;
    const dd = sqDist(f32, this.q >> 2, this.feat + f * this.stride, this.stride);
    const cost = this.bias ? fr(dd + f32[this.bias + f]) : dd;
    if (cost < this.best || (cost === this.best && f < this.bestIdx)) this.improve(cost, f);
  }

  private f32Row(j: number): void {
    const { i32, f32 } = this.h;
    const dd = sqDist(f32, this.q >> 2, this.rowsF32 + j * this.stride, this.stride);
    if (!this.bias && dd > this.best) return;
    const f = i32[this.orig + j];
    const cost = this.bias ? fr(dd + f32[this.bias + f]) : dd;
    if (!(cost < this.best || (cost === this.best && f < this.bestIdx))) return;
    if (!this.allowed(f)) return;
    this.improve(cost, f);
  }

  /** Up to four rows from j in direction step; how many it took, or -1 once nothing can beat the best. */
  private group(j: number, step: number, limit: number): number {
    const n = step > 0 ? Math.min(4, limit - j) : Math.min(4, j - limit + 1);
    this.bounded += n;
    for (let i = 0; i < n; i++) {
      const row = j + i * step;
      if (this.rowsU8) {
        const k = codeDistance(this.h, this.rowsU8 + row * this.rb8, this.qcode, this.w, this.chunks);
        if (k < this.t8) this.u8Row(row, k);
      } else {
        this.f32Row(row);
      }
      if (this.radius < 0) return -1;
    }
    return n;
  }

  /** The first row of [start, end) whose distance to the centre is >= key. */
  private firstRowFrom(start: number, end: number, key: number): number {
    const f32 = this.h.f32;
    let lo = start;
    let hi = end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (f32[this.rowR + mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private tagsMayMatch(info: number): boolean {
    const u32 = this.h.u32;
    return !this.filterTags || (((u32[info + (CLUSTER_TAG_OR >> 2)] & this.require) >>> 0) === this.require && (u32[info + (CLUSTER_TAG_AND >> 2)] & this.exclude) === 0);
  }

  /** Sub-cluster s at float32 squared distance d: the annulus walk of cluster.ts visitSub. False once nothing can win. */
  private visitSub(s: number, d: number): boolean {
    const { i32, f32 } = this.h;
    const info = (this.subInfo + s * CLUSTER_INFO_SIZE) >> 2;
    if (!this.tagsMayMatch(info)) return true;
    if (sphereSkips(d, f32[this.subRadii + s], this.radius, this.stride)) return true;
    this.groups++;
    const start = i32[info + (CLUSTER_START >> 2)];
    const end = start + i32[info + (CLUSTER_COUNT >> 2)];
    const dLow = distanceLow(d, this.stride);
    const dHigh = distanceHigh(d, this.stride);
    let up = this.firstRowFrom(start, end, Math.sqrt(d));
    let down = up - 1;
    while (up < end || down >= start) {
      if (up < end) {
        if (f32[this.rowR + up] > (dHigh + this.radius) * (1 + ROW_RADIUS_SLACK)) {
          up = end;
        } else {
          const n = this.group(up, 1, end);
          if (n < 0) return false;
          up += n;
        }
      }
      if (down >= start) {
        if (f32[this.rowR + down] < (dLow - this.radius) * (1 - ROW_RADIUS_SLACK)) {
          down = start - 1;
        } else {
          const n = this.group(down, -1, start);
          if (n < 0) return false;
          down -= n;
        }
      }
    }
    return true;
  }

  /** Cluster c at float32 squared distance d: sphere, box, then its sub-clusters by centre distance. */
  visit(c: number, d: number): void {
    const { i32, f32 } = this.h;
    const info = (this.info + c * CLUSTER_INFO_SIZE) >> 2;
    if (!this.tagsMayMatch(info)) return;
    if (this.skips(c, d)) return;
    let bound = box16Bound(this.h, this.ctx, this.q, this.boxes + c * this.stride * 4, this.stride);
    if (this.bias) bound = fr(bound + this.minBias);
    if (bound > this.best) return;
    const first = i32[info + (CLUSTER_START >> 2)];
    const count = i32[info + (CLUSTER_COUNT >> 2)];
    const list = new ScratchHeap(f32, i32, this.subList);
    let n = 0;
    for (let s = first; s < first + count; s++) {
      const ds = halfDistance(this.h, this.q, this.subCentres + s * this.rb16, this.stride);
      if (sphereSkips(ds, f32[this.subRadii + s], this.radius, this.stride)) continue;
      let i = n;
      while (i > 0 && before(ds, s, list.key(i - 1), list.id(i - 1))) {
        list.set(i, list.key(i - 1), list.id(i - 1));
        i--;
      }
      list.set(i, ds, s);
      n++;
    }
    for (let i = 0; i < n; i++) if (!this.visitSub(list.id(i), list.key(i))) return;
  }

  walk(heap: ScratchHeap, n: number, limit: number, rMax: number): number {
    let taken = 0;
    while (n > 0 && taken < limit) {
      const d = heap.key(0);
      const c = heap.id(0);
      if (sphereSkips(d, rMax, this.radius, this.stride)) return 0;
      heap.popTo(n);
      n--;
      taken++;
      this.visit(c, d);
    }
    return n;
  }
}

/** Clustered search (u8: 8-bit rows, else float32 rows): the twin of cluster.ts clusterSearch. */
export function clusterSearch(h: Heap, ctx: number, req: number, ranges: number, rangeCount: number, q: number, best: number, out: number, u8: boolean): number {
  const { i32, f32, f64 } = h;
  const cl = i32[(ctx + CTX_CLUSTERS) >> 2];
  const k = cl === 0 ? 0 : i32[(cl + CL_COUNT) >> 2];
  const writeResult = (frame: number, cost: number): number => {
    i32[out >> 2] = frame;
    f32[(out >> 2) + 1] = cost;
    return frame;
  };
  if (k === 0 || rangeCount <= 0) return writeResult(-1, best);
  const wk = new ClusterWalk(h, ctx, req, ranges, rangeCount, q, best, u8);
  const heap = new ScratchHeap(f32, i32, i32[(req + REQ_SCRATCH) >> 2]);
  wk.subList = heap.base + k * 8;
  const rMax = f32[(cl + CL_RADIUS_MAX) >> 2];
  const centres = i32[(cl + CL_CENTRES) >> 2] >> 2;
  const stride = wk.stride;
  for (let c = 0; c < k; c++) heap.set(c, sqDist(f32, q >> 2, centres + c * stride, stride), c);

  const probes = i32[(req + REQ_PROBES) >> 2];
  if (probes > 0) {
    heap.heapify(k);
    const n = wk.walk(heap, k, probes, rMax);
    if (wk.bestIdx < 0) wk.walk(heap, n, k, rMax);
  } else {
    let first = 0;
    for (let c = 1; c < k; c++) if (before(heap.key(c), c, heap.key(first), first)) first = c;
    wk.visit(first, heap.key(first));
    let n = 0;
    for (let c = 0; c < k; c++) {
      const d = heap.key(c);
      if (c === first || wk.skips(c, d)) continue;
      heap.set(n, d, c);
      n++;
    }
    heap.heapify(n);
    wk.walk(heap, n, n, rMax);
  }
  f64[(req + REQ_STAT_BOUNDED) >> 3] += wk.bounded;
  f64[(req + REQ_STAT_RESCORED) >> 3] += wk.rescored;
  f64[(req + REQ_STAT_GROUPS) >> 3] += wk.groups;
  return writeResult(wk.bestIdx, wk.best);
}
