/**
 * Plain-JS twins of the compact kernels (assembly/compact.ts, compact-scan.ts, kdtree-compact.ts):
 * the 8-bit code distance, the half-precision row distance, the 16-bit box bound, and brute force,
 * box pruning and the KD-tree over compact data. Same memory layout, same float32 and float64
 * arithmetic in the same order, the same certified thresholds (indexes/compact-bounds.ts), so they return
 * the same frames, bit-identical costs and the same re-scoring counts as the WASM builds. They are
 * the oracle the tests hold the WASM builds to.
 */
import { sqDist } from './row-cost.js';
import { decodeHalf } from '../codecs/half.js';
import { costLimit, limitRadius, codeThreshold, sphereThreshold, fineBoxCostLow } from '../indexes/compact-bounds.js';
import {
  type Heap,
  CTX_FEAT, CTX_ROWS, CTX_STRIDE, CTX_MASK, CTX_TAGS, CTX_U8, CTX_U8_PARAMS, CTX_U8_ROW_BYTES, CTX_F16, CTX_F16_ROW_BYTES,
  CTX_F16_EMAX, CTX_COARSE_BOX16, CTX_FINE_BOX16, CTX_COARSE_INFO, CTX_FINE_INFO, CTX_BOX16, CTX_KD_FEAT, CTX_KD_ORIG,
  CTX_KD_NODES, CTX_KD_NODE_COUNT, CTX_KD_U8, CTX_KD_REC, CTX_KD_REC_BYTES,
  KD_SLOTS, SLOT_NODE, SLOT_MIN_ORIG, SLOT_START, SLOT_COUNT, SLOT_SIZE, SLOT_INNER, SLOT_EMPTY,
  REQ_REQUIRE, REQ_EXCLUDE, REQ_BIAS, REQ_BIAS_MIN, REQ_QCODE, REQ_BIAS_COARSE, REQ_BIAS_FINE, REQ_BIAS_NODE,
  REQ_STACK, REQ_STACK_CAP, REQ_STAT_BOUNDED, REQ_STAT_RESCORED, REQ_STAT_GROUPS,
  U8P_INV_U, U8P_U, U8P_EMAX, U8P_M, U8P_CHUNKS, U8P_W, U8P_LO, U8P_DIM, BOX16_STEP, BOX16_LO,
  COARSE_SHIFT, FINE_SHIFT, BLOCK_COUNT, BLOCK_TAG_OR, BLOCK_TAG_AND, BLOCK_INFO_SIZE,
  NODE_DIM, NODE_START, NODE_COUNT, NODE_TAG_OR, NODE_TAG_AND, NODE_MIN_ORIG, NODE_SIZE,
} from '../wasm/memory-layout.js';

const fr = Math.fround;

/** The 8-bit encoding of the query at byte q into the i16 codes at byte qcode; the certified residual. */
export function encodeQueryU8(h: Heap, ctx: number, q: number, qcode: number): number {
  const { i32, u8, f32, f64, i16 } = h;
  const p = i32[(ctx + CTX_U8_PARAMS) >> 2];
  const stride = i32[(ctx + CTX_STRIDE) >> 2];
  const invU = f64[(p + U8P_INV_U) >> 3];
  const m = i32[(p + U8P_M) >> 2];
  const chunks = i32[(p + U8P_CHUNKS) >> 2];
  const w = i32[(p + U8P_W) >> 2];
  const lo = i32[(p + U8P_LO) >> 2] >> 3;
  const dim = i32[(p + U8P_DIM) >> 2] >> 2;
  let r2 = 0;
  for (let j = 0; j < stride; j++) {
    const x = (f32[(q >> 2) + i32[dim + j]] - f64[lo + j]) * invU;
    const a = 255 * u8[w + j] - m;
    const c = x < a ? a : x > m ? m : x;
    const up = Math.ceil(c);
    const n = up - 0.5 <= c ? up : up - 1; // AssemblyScript's Math.round
    const e = c - n;
    r2 += e * e;
    i16[(qcode >> 1) + j] = n;
  }
  for (let j = stride; j < chunks << 4; j++) i16[(qcode >> 1) + j] = 0;
  return Math.sqrt(r2) * (1 + 2 ** -30) + 2 ** -20;
}

/** Code distance of the coded query (i16 at byte qcode) and the 8-bit row at byte r. */
export function codeDistance(h: Heap, r: number, qcode: number, w: number, chunks: number): number {
  const { u8, i16 } = h;
  const q = qcode >> 1;
  let k = 0;
  for (let j = 0; j < chunks << 4; j++) {
    const d = i16[q + j] - u8[w + j] * u8[r + j];
    k += d * d;
  }
  return k;
}

/** Squared distance from the coded query (i16 at byte qcode) to the fine-unit box at byte box: the exact integer. */
export function fineBoxDistance(h: Heap, box: number, qcode: number, stride: number): number {
  const { i16 } = h;
  const lo = box >> 1, hi = lo + stride, q = qcode >> 1;
  let k = 0;
  for (let j = 0; j < stride; j++) {
    const g = Math.max(i16[lo + j] - i16[q + j], i16[q + j] - i16[hi + j], 0);
    k += g * g;
  }
  return k;
}

/** Float32 squared distance of the query (f32 at byte q) and the half-precision row at byte r. */
export function halfDistance(h: Heap, q: number, r: number, stride: number): number {
  const { f32, u16 } = h;
  const qi = q >> 2;
  const ri = r >> 1;
  let l0 = 0, l1 = 0, l2 = 0, l3 = 0;
  for (let j = 0; j < stride; j += 4) {
    const d0 = fr(f32[qi + j] - decodeHalf(u16[ri + j]));
    const d1 = fr(f32[qi + j + 1] - decodeHalf(u16[ri + j + 1]));
    const d2 = fr(f32[qi + j + 2] - decodeHalf(u16[ri + j + 2]));
    const d3 = fr(f32[qi + j + 3] - decodeHalf(u16[ri + j + 3]));
    l0 = fr(l0 + fr(d0 * d0));
    l1 = fr(l1 + fr(d1 * d1));
    l2 = fr(l2 + fr(d2 * d2));
    l3 = fr(l3 + fr(d3 * d3));
  }
  return fr(fr(l0 + l2) + fr(l1 + l3));
}

function clampGap(q: number, lo: number, hi: number): number {
  const c = q < lo ? lo : q;
  return fr(q - (hi < c ? hi : c));
}

/** Box bound of the 16-bit box at byte `box` (decoded in float32 exactly as the kernels do). */
export function box16Bound(h: Heap, ctx: number, q: number, box: number, stride: number): number {
  const { i32, f32, u16 } = h;
  const p = i32[(ctx + CTX_BOX16) >> 2];
  const step = i32[(p + BOX16_STEP) >> 2] >> 2;
  const lo = i32[(p + BOX16_LO) >> 2] >> 2;
  const qi = q >> 2;
  const b = box >> 1;
  const dec = (c: number, j: number): number => fr(fr(c * f32[step + j]) + f32[lo + j]);
  let l0 = 0, l1 = 0, l2 = 0, l3 = 0;
  for (let j = 0; j < stride; j += 4) {
    const d0 = clampGap(f32[qi + j], dec(u16[b + j], j), dec(u16[b + stride + j], j));
    const d1 = clampGap(f32[qi + j + 1], dec(u16[b + j + 1], j + 1), dec(u16[b + stride + j + 1], j + 1));
    const d2 = clampGap(f32[qi + j + 2], dec(u16[b + j + 2], j + 2), dec(u16[b + stride + j + 2], j + 2));
    const d3 = clampGap(f32[qi + j + 3], dec(u16[b + j + 3], j + 3), dec(u16[b + stride + j + 3], j + 3));
    l0 = fr(l0 + fr(d0 * d0));
    l1 = fr(l1 + fr(d1 * d1));
    l2 = fr(l2 + fr(d2 * d2));
    l3 = fr(l3 + fr(d3 * d3));
  }
  return fr(fr(l0 + l2) + fr(l1 + l3));
}

function tagsPass(t: number, require: number, exclude: number): boolean {
  return ((t & require) >>> 0) === require && (t & exclude) === 0;
}

function writeResult(h: Heap, out: number, index: number, cost: number): number {
  h.i32[out >> 2] = index;
  h.f32[(out >> 2) + 1] = cost;
  return index;
}

function addStats(h: Heap, req: number, bounded: number, rescored: number, groups: number): void {
  const f64 = h.f64;
  f64[(req + REQ_STAT_BOUNDED) >> 3] += bounded;
  f64[(req + REQ_STAT_RESCORED) >> 3] += rescored;
  f64[(req + REQ_STAT_GROUPS) >> 3] += groups;
}

/**
 * An index-order scan over compact rows in progress (the twin of compact-scan.ts's globals): rows
 * are bounded, the survivors re-scored, and only a strictly lower float32 cost is accepted.
 */
class OrderedScan {
  readonly feat: number;
  readonly stride: number;
  readonly mask: number;
  readonly tags: number;
  readonly require: number;
  readonly exclude: number;
  readonly filterTags: boolean;
  readonly bias: number;
  readonly minBias: number;
  best: number;
  bestIdx = -1;
  rescored = 0;
  radius: number;
  // 8-bit rows
  rows8 = 0;
  rb8 = 0;
  qcode = 0;
  w = 0;
  chunks = 0;
  invU = 0;
  rho = 0;
  eMax = 0;
  t8 = 0;

  constructor(readonly h: Heap, ctx: number, req: number, readonly q: number, best: number) {
    const { i32, u32, f32 } = h;
    this.feat = i32[(ctx + CTX_FEAT) >> 2] >> 2;
    this.stride = i32[(ctx + CTX_STRIDE) >> 2];
    this.mask = i32[(ctx + CTX_MASK) >> 2];
    this.tags = i32[(ctx + CTX_TAGS) >> 2] >> 2;
    this.require = u32[(req + REQ_REQUIRE) >> 2];
    this.exclude = u32[(req + REQ_EXCLUDE) >> 2];
    this.filterTags = (this.require | this.exclude) !== 0;
    this.bias = i32[(req + REQ_BIAS) >> 2] >> 2;
    this.minBias = this.bias ? f32[(req + REQ_BIAS_MIN) >> 2] : 0;
    this.best = best;
    this.radius = limitRadius(costLimit(best, this.minBias, false), this.stride);
  }

  beginU8(ctx: number, req: number): void {
    const { i32, f64 } = this.h;
    const p = i32[(ctx + CTX_U8_PARAMS) >> 2];
    this.rows8 = i32[(ctx + CTX_U8) >> 2];
    this.rb8 = i32[(ctx + CTX_U8_ROW_BYTES) >> 2];
    this.qcode = i32[(req + REQ_QCODE) >> 2];
    this.w = i32[(p + U8P_W) >> 2];
    this.chunks = i32[(p + U8P_CHUNKS) >> 2];
    this.invU = f64[(p + U8P_INV_U) >> 3];
    this.eMax = f64[(p + U8P_EMAX) >> 3];
    this.rho = encodeQueryU8(this.h, ctx, this.q, this.qcode);
    this.t8 = codeThreshold(this.rho + this.eMax, this.radius * this.invU);
  }

  allowed(i: number): boolean {
    if (this.h.u8[this.mask + i] === 0) return false;
    return !this.filterTags || tagsPass(this.h.u32[this.tags + i], this.require, this.exclude);
  }

  /** Re-scores frame i; true when it became the best. */
  rescore(i: number): boolean {
    this.rescored++;
    const f32 = this.h.f32;
    const d = sqDist(f32, this.q >> 2, this.feat + i * this.stride, this.stride);
    const c = this.bias ? fr(d + f32[this.bias + i]) : d;
    if (c < this.best) {
      this.best = c;
      this.bestIdx = i;
      this.radius = limitRadius(costLimit(c, this.minBias, false), this.stride);
      return true;
    }
    return false;
  }

  /** Frames [s, e) over the 8-bit rows. */
  scanU8(s: number, e: number): void {
    const h = this.h;
    for (let i = s; i < e; i++) {
      const r = this.rows8 + i * this.rb8;
      const k = codeDistance(h, r, this.qcode, this.w, this.chunks);
      if (k >= this.t8) continue;
      if (k >= codeThreshold(this.rho + h.f32[(r + this.stride) >> 2], this.radius * this.invU)) continue;
      if (!this.allowed(i)) continue;
      if (this.rescore(i)) this.t8 = codeThreshold(this.rho + this.eMax, this.radius * this.invU);
    }
  }
}

/** Brute force over the 8-bit copy. */
export function bruteU8Search(h: Heap, ctx: number, req: number, ranges: number, rangeCount: number, q: number, best: number, out: number): number {
  const s = new OrderedScan(h, ctx, req, q, best);
  s.beginU8(ctx, req);
  let bounded = 0;
  for (let k = 0; k < rangeCount; k++) {
    const a = h.i32[(ranges >> 2) + 2 * k];
    const b = h.i32[(ranges >> 2) + 2 * k + 1];
    s.scanU8(a, b);
    bounded += b - a;
  }
  addStats(h, req, bounded, s.rescored, 0);
  return writeResult(h, out, s.bestIdx, s.best);
}

/** Brute force over the half-precision copy. */
export function bruteF16Search(h: Heap, ctx: number, req: number, ranges: number, rangeCount: number, q: number, best: number, out: number): number {
  const s = new OrderedScan(h, ctx, req, q, best);
  const { i32, f32 } = h;
  const rows16 = i32[(ctx + CTX_F16) >> 2];
  const rb16 = i32[(ctx + CTX_F16_ROW_BYTES) >> 2];
  const eMax = f32[(ctx + CTX_F16_EMAX) >> 2];
  const stride = s.stride;
  let t = sphereThreshold(eMax, s.radius, stride);
  let bounded = 0;
  for (let k = 0; k < rangeCount; k++) {
    const a = i32[(ranges >> 2) + 2 * k];
    const b = i32[(ranges >> 2) + 2 * k + 1];
    for (let i = a; i < b; i++) {
      const r = rows16 + i * rb16;
      const d = halfDistance(h, q, r, stride);
      if (d >= t) continue; // false for a NaN threshold: nothing is skipped
      if (d >= sphereThreshold(f32[(r + 2 * stride) >> 2], s.radius, stride)) continue;
      if (!s.allowed(i)) continue;
      if (s.rescore(i)) t = sphereThreshold(eMax, s.radius, stride);
    }
    bounded += b - a;
  }
  addStats(h, req, bounded, s.rescored, 0);
  return writeResult(h, out, s.bestIdx, s.best);
}

function blockMayMatch(h: Heap, info: number, require: number, exclude: number): boolean {
  if (h.i32[(info + BLOCK_COUNT) >> 2] === 0) return false;
  return ((h.u32[(info + BLOCK_TAG_OR) >> 2] & require) >>> 0) === require && (h.u32[(info + BLOCK_TAG_AND) >> 2] & exclude) === 0;
}

/** Box pruning with 16-bit boxes over the 8-bit copy. */
export function aabbU8Search(h: Heap, ctx: number, req: number, ranges: number, rangeCount: number, q: number, best: number, out: number): number {
  const s = new OrderedScan(h, ctx, req, q, best);
  s.beginU8(ctx, req);
  const { i32, f32 } = h;
  const coarseBoxes = i32[(ctx + CTX_COARSE_BOX16) >> 2];
  const fineBoxes = i32[(ctx + CTX_FINE_BOX16) >> 2];
  const coarseInfo = i32[(ctx + CTX_COARSE_INFO) >> 2];
  const fineInfo = i32[(ctx + CTX_FINE_INFO) >> 2];
  const coarseBias = i32[(req + REQ_BIAS_COARSE) >> 2] >> 2;
  const fineBias = i32[(req + REQ_BIAS_FINE) >> 2] >> 2;
  const stride = s.stride;
  const boxBytes = stride * 4;
  let bounded = 0;
  let blocks = 0;
  for (let k = 0; k < rangeCount; k++) {
    const a = i32[(ranges >> 2) + 2 * k];
    const e = i32[(ranges >> 2) + 2 * k + 1];
    if (a >= e) continue;
    const cLast = (e - 1) >> COARSE_SHIFT;
    for (let c = a >> COARSE_SHIFT; c <= cLast; c++) {
      if (!blockMayMatch(h, coarseInfo + c * BLOCK_INFO_SIZE, s.require, s.exclude)) continue;
      let cBound = box16Bound(h, ctx, q, coarseBoxes + c * boxBytes, stride);
      if (s.bias) cBound = fr(cBound + f32[coarseBias + c]);
      if (cBound >= s.best) continue;
      const cs = Math.max(a, c << COARSE_SHIFT);
      const ce = Math.min(e, (c + 1) << COARSE_SHIFT);
      const fLast = (ce - 1) >> FINE_SHIFT;
      for (let f = cs >> FINE_SHIFT; f <= fLast; f++) {
        if (!blockMayMatch(h, fineInfo + f * BLOCK_INFO_SIZE, s.require, s.exclude)) continue;
        let fBound = box16Bound(h, ctx, q, fineBoxes + f * boxBytes, stride);
        if (s.bias) fBound = fr(fBound + f32[fineBias + f]);
        if (fBound >= s.best) continue;
        const fs = Math.max(cs, f << FINE_SHIFT);
        const fe = Math.min(ce, (f + 1) << FINE_SHIFT);
        s.scanU8(fs, fe);
        bounded += fe - fs;
        blocks++;
      }
    }
  }
  addStats(h, req, bounded, s.rescored, blocks);
  return writeResult(h, out, s.bestIdx, s.best);
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

function prunable(bound: number, minOrig: number, best: number, bestIdx: number): boolean {
  return bound > best || (bound === best && minOrig > bestIdx);
}

/** The KD-tree with fine-unit boxes and 8-bit leaf rows: the twin of kdtree-compact.ts (four-subtree records, 32-byte stack entries, same visit order). */
export function kdSearchU8(h: Heap, ctx: number, req: number, ranges: number, rangeCount: number, q: number, best: number, out: number): number {
  const { i32, u32, f32, f64 } = h;
  const nodeCount = i32[(ctx + CTX_KD_NODE_COUNT) >> 2];
  if (nodeCount === 0 || rangeCount <= 0) return writeResult(h, out, -1, best);
  const stride = i32[(ctx + CTX_STRIDE) >> 2];
  const rows = i32[(ctx + CTX_ROWS) >> 2];
  const feat = i32[(ctx + CTX_KD_FEAT) >> 2] >> 2;
  const orig = i32[(ctx + CTX_KD_ORIG) >> 2] >> 2;
  const nodes = i32[(ctx + CTX_KD_NODES) >> 2] >> 2;
  const recs = i32[(ctx + CTX_KD_REC) >> 2];
  const recBytes = i32[(ctx + CTX_KD_REC_BYTES) >> 2];
  const rows8 = i32[(ctx + CTX_KD_U8) >> 2];
  const rb8 = i32[(ctx + CTX_U8_ROW_BYTES) >> 2];
  const p = i32[(ctx + CTX_U8_PARAMS) >> 2];
  const w = i32[(p + U8P_W) >> 2];
  const chunks = i32[(p + U8P_CHUNKS) >> 2];
  const invU = f64[(p + U8P_INV_U) >> 3];
  const eMax = f64[(p + U8P_EMAX) >> 3];
  const u = f64[(p + U8P_U) >> 3];
  const tags = i32[(ctx + CTX_TAGS) >> 2] >> 2;
  const require = u32[(req + REQ_REQUIRE) >> 2];
  const exclude = u32[(req + REQ_EXCLUDE) >> 2];
  const filterTags = (require | exclude) !== 0;
  const bias = i32[(req + REQ_BIAS) >> 2] >> 2;
  const nodeBias = i32[(req + REQ_BIAS_NODE) >> 2] >> 2;
  const minBias = bias ? f32[(req + REQ_BIAS_MIN) >> 2] : 0;
  const stack = i32[(req + REQ_STACK) >> 2] >> 2;
  const stackCap = i32[(req + REQ_STACK_CAP) >> 2];
  const qcode = i32[(req + REQ_QCODE) >> 2];
  const allFrames = rangeCount === 1 && i32[ranges >> 2] <= 0 && i32[(ranges >> 2) + 1] >= rows;
  const nodeInts = NODE_SIZE >> 2;
  const boxBytes = stride * 4;
  const qi = q >> 2;
  const mayMatch = (node: number): boolean => {
    const np = nodes + node * nodeInts;
    return ((u32[np + (NODE_TAG_OR >> 2)] & require) >>> 0) === require && (u32[np + (NODE_TAG_AND >> 2)] & exclude) === 0;
  };
  const push = (sp: number, node: number, bound: number, start: number, count: number, minOrig: number): void => {
    const e = stack + sp * 8;
    i32[e] = node;
    f32[e + 1] = bound;
    i32[e + 2] = start;
    i32[e + 3] = count;
    i32[e + 4] = minOrig;
  };
  // The entries just pushed, smallest bound on top; equal bounds keep their slot order (as in the WASM walk).
  const sortPushed = (base: number, k: number): void => {
    for (let i = base + 1; i < base + k; i++) {
      const e = stack + i * 8;
      const node = i32[e], b = f32[e + 1], start = i32[e + 2], count = i32[e + 3], minOrig = i32[e + 4];
      let j = i;
      while (j > base && f32[stack + (j - 1) * 8 + 1] < b) {
        i32.copyWithin(stack + j * 8, stack + (j - 1) * 8, stack + (j - 1) * 8 + 5);
        j--;
      }
      push(j, node, b, start, count, minOrig); // b came from the float32 slot: stored back unchanged
    }
  };
  const rho = encodeQueryU8(h, ctx, q, qcode);
  let radius = limitRadius(costLimit(best, minBias, true), stride) * invU;
  let t = codeThreshold(rho + eMax, radius);
  let bounded = 0;
  let rescored = 0;
  let leaves = 0;

  let bestIdx = -1;
  let sp = 0;
  if (!filterTags || mayMatch(0)) {
    const leaf = i32[nodes + (NODE_DIM >> 2)] < 0;
    push(0, 0, -Infinity, leaf ? i32[nodes + (NODE_START >> 2)] : 0, leaf ? i32[nodes + (NODE_COUNT >> 2)] : SLOT_INNER, i32[nodes + (NODE_MIN_ORIG >> 2)]);
    sp = 1;
  }
  while (sp > 0) {
    sp--;
    const e = stack + sp * 8;
    const bound = f32[e + 1];
    const count = i32[e + 3];
    if (prunable(bound, i32[e + 4], best, bestIdx)) continue;

    if (count >= 0) {
      const start = i32[e + 2];
      leaves++;
      bounded += count;
      for (let row = start; row < start + count; row++) {
        const r = rows8 + row * rb8;
        const k = codeDistance(h, r, qcode, w, chunks);
        if (k >= t) continue;
        if (k >= codeThreshold(rho + f32[(r + stride) >> 2], radius)) continue;
        const f = i32[orig + row];
        if (filterTags && !tagsPass(u32[tags + f], require, exclude)) continue;
        if (!allFrames && !inRanges(i32, f, ranges, rangeCount)) continue;
        rescored++;
        const d = sqDist(f32, qi, feat + row * stride, stride);
        const c = bias ? fr(d + f32[bias + f]) : d;
        if (c < best || (c === best && f < bestIdx)) {
          best = c;
          bestIdx = f;
          radius = limitRadius(costLimit(best, minBias, true), stride) * invU;
          t = codeThreshold(rho + eMax, radius);
        }
      }
      continue;
    }

    const rec = recs + i32[e + 2] * recBytes;
    const slots = rec + KD_SLOTS * boxBytes;
    if (sp + KD_SLOTS > stackCap) throw new RangeError('kd stack overflow: stack capacity too small for the tree depth');
    const base = sp;
    for (let i = 0; i < KD_SLOTS; i++) {
      const slot = (slots + i * SLOT_SIZE) >> 2;
      const rowsOrInner = i32[slot + (SLOT_COUNT >> 2)];
      if (rowsOrInner === SLOT_EMPTY) break;
      const child = i32[slot + (SLOT_NODE >> 2)];
      let cb = fineBoxCostLow(fineBoxDistance(h, rec + i * boxBytes, qcode, stride), rho, u, stride);
      if (bias) cb = fr(cb + f32[nodeBias + child]);
      const minOrig = i32[slot + (SLOT_MIN_ORIG >> 2)];
      if (prunable(cb, minOrig, best, bestIdx)) continue;
      if (filterTags && !mayMatch(child)) continue;
      push(sp, child, cb, i32[slot + (SLOT_START >> 2)], rowsOrInner, minOrig);
      sp++;
    }
    sortPushed(base, sp - base);
  }
  addStats(h, req, bounded, rescored, leaves);
  return writeResult(h, out, bestIdx, best);
}
