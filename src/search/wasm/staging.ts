/**
 * Staging a search in kernel memory and reading its results back: the part of a search that both
 * Matcher (on the calling thread) and MatcherPool (for its workers) perform.
 *
 * A call is staged in three steps: `prepareCall` resolves what all of its queries share (method,
 * tag masks, bias, allowed ranges) into a CallScratch; `stageQuery` / `stageChunk` write queries,
 * best costs, ranges and the request struct into a thread slot; the kernel runs; `collectMiss` /
 * `collectChunk` read the results and turn "nothing found" into the right error when no frame was
 * allowed or every cost overflowed. Nothing here allocates per query.
 *
 * Matcher owns one SearchStaging per loaded database and hands it to MatcherPool through
 * `stagingOf` (an internal key, not part of the package's API).
 */
import type { Database } from '../../database/database.js';
import {
  type Heap, type SearchKernels, type DatabaseRegions, type SlotRegions,
  maxRanges, METHOD_BRUTE, METHOD_EARLY, METHOD_AABB, METHOD_KDTREE, METHOD_BRUTE_U8, METHOD_BRUTE_F16, METHOD_AABB_U8,
  METHOD_KDTREE_U8, METHOD_CLUSTER, METHOD_CLUSTER_U8, COARSE_SHIFT, FINE_SHIFT,
  REQ_RANGES, REQ_RANGE_COUNT, REQ_RANGE_TABLE, REQ_REQUIRE, REQ_EXCLUDE, REQ_BIAS, REQ_BIAS_COARSE,
  REQ_BIAS_FINE, REQ_BIAS_NODE, REQ_STACK, REQ_STACK_CAP, REQ_PROBES, REQ_BIAS_MIN, REQ_QCODE, REQ_SCRATCH,
  REQ_SCRATCH_CAP, REQ_STAT_BOUNDED, REQ_STAT_RESCORED, REQ_STAT_GROUPS, REQ_SIZE,
} from './memory-layout.js';
import {
  checkBestCost, checkNormalizedFlag, probesOption, METHOD_NEEDS,
  type SearchMethod, type SearchOptions, type BatchSearchOptions,
} from '../options.js';
import { costOverflowError, writeQueryRows } from '../query.js';
import { normalizeRanges, subtractRanges } from '../ranges.js';
import { EmptyCandidateSetError, type BatchResult } from '../results.js';

const METHOD_CODES: Record<SearchMethod, number> = {
  brute: METHOD_BRUTE,
  early: METHOD_EARLY,
  window: METHOD_BRUTE,
  aabb: METHOD_AABB,
  kdtree: METHOD_KDTREE,
  'brute-u8': METHOD_BRUTE_U8,
  'brute-f16': METHOD_BRUTE_F16,
  'aabb-u8': METHOD_AABB_U8,
  'kdtree-u8': METHOD_KDTREE_U8,
  cluster: METHOD_CLUSTER,
  'cluster-u8': METHOD_CLUSTER_U8,
};

/**
 * What the compact and clustered methods did in a call (summed over its queries): rows whose
 * compact bound (or, for 'cluster', float32 cost) was computed, rows re-scored in float32, and
 * clusters (or KD leaves, or box-pruning blocks) searched. Zero for the float32 methods.
 */
export interface SearchStats {
  bounded: number;
  rescored: number;
  groups: number;
}

/**
 * Staging state of one call in progress: request parameters shared by its queries and range
 * scratch. A Matcher has one for its own calls and a MatcherPool its own, so a direct search made
 * while a pool batch is awaiting its workers cannot corrupt the batch. Reused: no allocation.
 */
export class CallScratch {
  method = 0;
  require = 0;
  exclude = 0;
  probes = 0;
  /** Smallest bias of the call (0 without one): the compact methods' thresholds use it. */
  biasMin = 0;
  bias = 0;
  biasCoarse = 0;
  biasFine = 0;
  biasNode = 0;
  /** Allowed ranges before per-query exclusions (pairs in baseRanges). */
  baseCount = 0;
  baseRanges: Int32Array = new Int32Array(0);
  excluded: Int32Array = new Int32Array(0);
  perQuery: Int32Array = new Int32Array(0);

  /** Makes room for normalising a list of `listLength` ranges over `rows` frames. */
  ensure(listLength: number, rows: number): void {
    const need = 2 * Math.max(listLength, maxRanges(rows)) + 2;
    if (this.baseRanges.length >= need) return;
    const grow = (a: Int32Array): Int32Array => {
      const b = new Int32Array(need);
      b.set(a);
      return b;
    };
    this.baseRanges = grow(this.baseRanges);
    this.excluded = grow(this.excluded);
    this.perQuery = grow(this.perQuery);
  }
}

/** Stages searches against one loaded database (see the module comment). */
export class SearchStaging {
  readonly db: Database;
  readonly regions: DatabaseRegions;
  readonly rows: number;
  readonly dims: number;
  readonly stride: number;
  /** True while a persistent bias (Matcher.setBias) is stored in the database's bias regions. */
  hasStaticBias = false;
  /** The persistent bias's smallest value. */
  private staticBiasMin = 0;
  private readonly tagBit: Map<string, number>;

  constructor(readonly heap: Heap, readonly kernels: SearchKernels, db: Database, regions: DatabaseRegions) {
    this.db = db;
    this.regions = regions;
    this.rows = db.frameCount;
    this.dims = db.dims;
    this.stride = db.stride;
    this.tagBit = new Map(db.tagNames.map((n, i) => [n, i]));
  }

  /** Validates a batch's query array length; returns floats per query. */
  batchWidth(length: number, k: number): number {
    if (!(Number.isSafeInteger(k) && k >= 0)) throw new RangeError(`searchBatch: k must be a non-negative integer, got ${k}`);
    if (k === 0) return this.stride;
    const width = length / k;
    if (width !== this.dims && width !== this.stride) {
      throw new RangeError(`searchBatch: ${length} floats for ${k} queries; expected k * ${this.dims} (dims) or k * ${this.stride} (stride)`);
    }
    return width;
  }

  /**
   * Per-call setup shared by all queries and chunks, into `cs`: tag masks, bias (copied once into
   * `biasSlot` when per-call) and the base allowed ranges. Returns the kernel method code.
   */
  prepareCall(cs: CallScratch, opts: SearchOptions | BatchSearchOptions, biasSlot: SlotRegions): number {
    const method = opts.method ?? 'kdtree';
    const code = Object.hasOwn(METHOD_CODES, method) ? METHOD_CODES[method] : undefined;
    if (code === undefined) throw new RangeError(`unknown search method '${String(method)}'`);
    if (method === 'window' && opts.ranges === undefined) throw new RangeError("method 'window' needs ranges");
    this.checkBuilt(method);
    checkNormalizedFlag(opts.normalized);
    cs.method = code;
    cs.probes = probesOption(opts.probes, method);
    cs.require = this.tagMask(opts.requireTags, 'requireTags');
    cs.exclude = this.tagMask(opts.excludeTags, 'excludeTags');
    this.prepareBias(cs, opts.bias, code, biasSlot);

    cs.ensure(Math.max(opts.ranges?.length ?? 0, opts.excludeRanges?.length ?? 0), this.rows);
    let n: number;
    if (opts.ranges !== undefined) {
      n = normalizeRanges(opts.ranges, this.rows, cs.baseRanges, 'ranges');
    } else {
      cs.baseRanges[0] = 0;
      cs.baseRanges[1] = this.rows;
      n = this.rows > 0 ? 1 : 0;
    }
    if (opts.excludeRanges !== undefined && opts.excludeRanges.length > 0) {
      const nb = normalizeRanges(opts.excludeRanges, this.rows, cs.excluded, 'excludeRanges');
      n = subtractRanges(cs.baseRanges, n, cs.excluded, nb, cs.perQuery);
      for (let j = 0; j < 2 * n; j++) cs.baseRanges[j] = cs.perQuery[j];
    }
    cs.baseCount = n;
    return code;
  }

  /** Stages one query (dims or stride floats) with the call's base ranges into `slot`. */
  stageQuery(cs: CallScratch, slot: SlotRegions, query: ArrayLike<number>, normalized: boolean): void {
    this.checkWidth(query.length, 'query');
    writeQueryRows(query, query.length, 0, 1, this.heap.f32, slot.queries >> 2, this.db, normalized, true);
    this.writeRanges(slot, cs.baseRanges, cs.baseCount);
    this.writeRequest(cs, slot, cs.baseCount, 0);
  }

  /**
   * After a single search found nothing (frame -1): throws EmptyCandidateSetError when no frame was
   * allowed, or the overflow RangeError when bestCost was +Infinity (then every allowed frame's
   * cost overflowed). Otherwise "nothing beat bestCost" is the answer.
   */
  checkMiss(cs: CallScratch, slot: SlotRegions, opts: SearchOptions, bestCost: number, query: ArrayLike<number>): void {
    const first = this.firstAllowedOrThrow(slot, slot.ranges, cs.baseCount, opts);
    if (bestCost === Infinity) throw this.overflowError(slot, 0, first, -1, opts.normalized === true ? undefined : (j) => query[j]);
  }

  /**
   * Stages queries [from, from + n) of a batch of k into `slot` (queries, best costs, ranges and the
   * per-query range table, request) and returns n <= to - from, limited by the slot's batch and
   * range capacity.
   */
  stageChunk(cs: CallScratch, slot: SlotRegions, queries: ArrayLike<number>, width: number, k: number, from: number, to: number, opts: BatchSearchOptions): number {
    let n = Math.min(to - from, slot.batchCapacity);
    const perQuery = opts.excludeRangesPerQuery;
    let rangeCount = cs.baseCount;
    let table = 0;
    if (perQuery !== undefined) {
      if (perQuery.length !== k) throw new RangeError(`excludeRangesPerQuery has ${perQuery.length} entries for ${k} queries`);
      const i32 = this.heap.i32;
      const t = slot.rangeTable >> 2;
      let used = 0;
      for (let i = 0; i < n; i++) {
        const ex = perQuery[from + i];
        let cnt: number;
        let src = cs.baseRanges;
        if (ex && ex.length > 0) {
          cs.ensure(ex.length, this.rows);
          const nb = normalizeRanges(ex, this.rows, cs.excluded, 'excludeRangesPerQuery', from + i);
          cnt = subtractRanges(cs.baseRanges, cs.baseCount, cs.excluded, nb, cs.perQuery);
          src = cs.perQuery;
        } else {
          cnt = cs.baseCount;
        }
        if (used + cnt > slot.rangeCapacity) {
          n = i; // i >= 1: a single query's list always fits
          break;
        }
        const dst = (slot.ranges >> 2) + 2 * used;
        for (let j = 0; j < 2 * cnt; j++) i32[dst + j] = src[j];
        i32[t + 2 * i] = used;
        i32[t + 2 * i + 1] = cnt;
        used += cnt;
      }
      table = slot.rangeTable;
      rangeCount = used;
    } else {
      this.writeRanges(slot, cs.baseRanges, rangeCount);
    }
    writeQueryRows(queries, width, from, n, this.heap.f32, slot.queries >> 2, this.db, opts.normalized === true, false);
    const bc = opts.bestCost ?? Infinity;
    const f32 = this.heap.f32;
    const b = slot.bestCosts >> 2;
    if (typeof bc === 'number') {
      checkBestCost(bc);
      f32.fill(bc, b, b + n);
    } else {
      if (!(bc instanceof Float32Array)) throw new TypeError('bestCost must be a number or a Float32Array (one per query)');
      if (bc.length !== k) throw new RangeError(`bestCost has ${bc.length} entries for ${k} queries`);
      for (let i = 0; i < n; i++) {
        const c = bc[from + i];
        if (c !== c) throw new RangeError(`bestCost[${from + i}] is NaN`);
        f32[b + i] = c;
      }
    }
    this.writeRequest(cs, slot, rangeCount, table);
    return n;
  }

  /**
   * Copies a staged chunk's results into `out`. A query that found nothing gets the same checks as
   * checkMiss: an empty candidate set or (with bestCost +Infinity) an overflowing cost throws.
   * `queries` / `width` are the batch as passed to stageChunk (for the error message).
   */
  collectChunk(slot: SlotRegions, from: number, n: number, opts: BatchSearchOptions, out: BatchResult, queries: ArrayLike<number>, width: number): void {
    this.heap.refresh();
    const { i32, f32 } = this.heap;
    const r = slot.results >> 2;
    const table = i32[(slot.req + REQ_RANGE_TABLE) >> 2];
    let sharedFirst = -1;
    for (let i = 0; i < n; i++) {
      const frame = i32[r + 2 * i];
      out.frames[from + i] = frame;
      out.costs[from + i] = f32[r + 2 * i + 1];
      if (frame >= 0) continue;
      let first: number;
      if (table) {
        const at = (table >> 2) + 2 * i;
        first = this.firstAllowedOrThrow(slot, slot.ranges + i32[at] * 8, i32[at + 1], opts, from + i);
      } else {
        if (sharedFirst < 0) sharedFirst = this.firstAllowedOrThrow(slot, slot.ranges, i32[(slot.req + REQ_RANGE_COUNT) >> 2], opts);
        first = sharedFirst;
      }
      if (f32[(slot.bestCosts >> 2) + i] === Infinity) {
        const q = from + i;
        throw this.overflowError(slot, i, first, q, opts.normalized === true ? undefined : (j) => queries[q * width + j]);
      }
    }
  }

  /** Throws when `method` needs a compact copy or the clustered index this matcher did not build. */
  private checkBuilt(method: SearchMethod): void {
    const need = METHOD_NEEDS[method];
    const r = this.regions;
    if (need.compact === 'u8' && r.u8Rows === 0) {
      throw new RangeError(`method '${method}' needs the 8-bit copy: create the Matcher with { compact: ['u8'] }`);
    }
    if (need.compact === 'f16' && r.f16Rows === 0) {
      throw new RangeError(`method '${method}' needs the half-precision copy: create the Matcher with { compact: ['f16'] }`);
    }
    if (need.clusters && r.clusters === 0) {
      throw new RangeError(`method '${method}' needs the clustered index: create the Matcher with { clusters: true }`);
    }
  }

  /** Statistics of the last kernel call in `slot` (added into `into`). */
  addStats(slot: SlotRegions, into: SearchStats): void {
    const f64 = this.heap.f64;
    into.bounded += f64[(slot.req + REQ_STAT_BOUNDED) >> 3];
    into.rescored += f64[(slot.req + REQ_STAT_RESCORED) >> 3];
    into.groups += f64[(slot.req + REQ_STAT_GROUPS) >> 3];
  }

  /** Stores a persistent bias (or clears it, null) with its block and node minima. */
  setStaticBias(bias: Float32Array | null): void {
    if (bias === null) {
      this.hasStaticBias = false;
      return;
    }
    this.heap.refresh();
    const r = this.regions;
    this.staticBiasMin = copyBias(bias, this.rows, this.heap.f32, r.bias >> 2, 'setBias');
    this.kernels.blockMinBias(r.bias, this.rows, COARSE_SHIFT, r.biasCoarse);
    this.kernels.blockMinBias(r.bias, this.rows, FINE_SHIFT, r.biasFine);
    this.kernels.kdNodeMinBias(r.ctx, r.bias, r.biasNode);
    this.hasStaticBias = true;
  }

  checkWidth(w: number, label: string): void {
    if (w !== this.dims && w !== this.stride) {
      throw new RangeError(`${label} has ${w} floats; expected ${this.dims} (dims) or ${this.stride} (stride)`);
    }
  }

  private writeRanges(slot: SlotRegions, src: Int32Array, count: number): void {
    const i32 = this.heap.i32;
    const dst = slot.ranges >> 2;
    for (let j = 0; j < 2 * count; j++) i32[dst + j] = src[j];
  }

  private writeRequest(c: CallScratch, slot: SlotRegions, rangeCount: number, table: number): void {
    const i32 = this.heap.i32;
    const q = slot.req >> 2;
    i32.fill(0, q, q + (REQ_SIZE >> 2));
    i32[q + (REQ_RANGES >> 2)] = slot.ranges;
    i32[q + (REQ_RANGE_COUNT >> 2)] = rangeCount;
    i32[q + (REQ_RANGE_TABLE >> 2)] = table;
    i32[q + (REQ_REQUIRE >> 2)] = c.require;
    i32[q + (REQ_EXCLUDE >> 2)] = c.exclude;
    i32[q + (REQ_BIAS >> 2)] = c.bias;
    i32[q + (REQ_BIAS_COARSE >> 2)] = c.biasCoarse;
    i32[q + (REQ_BIAS_FINE >> 2)] = c.biasFine;
    i32[q + (REQ_BIAS_NODE >> 2)] = c.biasNode;
    i32[q + (REQ_STACK >> 2)] = slot.stack;
    i32[q + (REQ_STACK_CAP >> 2)] = slot.stackCapacity;
    i32[q + (REQ_PROBES >> 2)] = c.probes;
    this.heap.f32[q + (REQ_BIAS_MIN >> 2)] = c.biasMin;
    i32[q + (REQ_QCODE >> 2)] = slot.qcode;
    i32[q + (REQ_SCRATCH >> 2)] = slot.scratch;
    i32[q + (REQ_SCRATCH_CAP >> 2)] = slot.scratchCapacity;
  }

  private prepareBias(c: CallScratch, bias: Float32Array | null | undefined, method: number, slot: SlotRegions): void {
    if (bias === null || (bias === undefined && !this.hasStaticBias)) {
      c.bias = c.biasCoarse = c.biasFine = c.biasNode = 0;
      c.biasMin = 0;
      return;
    }
    if (bias === undefined) {
      const r = this.regions;
      c.biasMin = this.staticBiasMin;
      c.bias = r.bias;
      c.biasCoarse = r.biasCoarse;
      c.biasFine = r.biasFine;
      c.biasNode = r.biasNode;
      return;
    }
    c.biasMin = copyBias(bias, this.rows, this.heap.f32, slot.bias >> 2, 'bias');
    c.bias = slot.bias;
    c.biasCoarse = slot.biasCoarse;
    c.biasFine = slot.biasFine;
    c.biasNode = slot.biasNode;
    // Only the pruning methods need the minima.
    if (method === METHOD_AABB || method === METHOD_AABB_U8) {
      this.kernels.blockMinBias(slot.bias, this.rows, COARSE_SHIFT, slot.biasCoarse);
      this.kernels.blockMinBias(slot.bias, this.rows, FINE_SHIFT, slot.biasFine);
    } else if (method === METHOD_KDTREE || method === METHOD_KDTREE_U8) {
      this.kernels.kdNodeMinBias(this.regions.ctx, slot.bias, slot.biasNode);
    }
  }

  private tagMask(names: ReadonlyArray<string> | undefined, label: string): number {
    let mask = 0;
    if (names === undefined) return 0;
    for (let i = 0; i < names.length; i++) {
      const bit = this.tagBit.get(names[i]);
      if (bit === undefined) {
        throw new RangeError(`${label}: unknown tag '${names[i]}' (database tags: ${this.db.tagNames.join(', ') || 'none'})`);
      }
      mask |= 1 << bit;
    }
    return mask >>> 0;
  }

  /** The first allowed frame of `ranges` under the slot's request, or EmptyCandidateSetError. */
  private firstAllowedOrThrow(slot: SlotRegions, ranges: number, count: number, opts: SearchOptions | BatchSearchOptions, query?: number): number {
    const first = this.kernels.firstAllowed(this.regions.ctx, slot.req, ranges, count);
    if (first >= 0) return first;
    const parts: string[] = [];
    if (opts.requireTags?.length) parts.push(`requireTags [${opts.requireTags.join(', ')}]`);
    if (opts.excludeTags?.length) parts.push(`excludeTags [${opts.excludeTags.join(', ')}]`);
    if (opts.ranges) parts.push(`ranges (${opts.ranges.length})`);
    if (opts.excludeRanges?.length) parts.push(`excludeRanges (${opts.excludeRanges.length})`);
    if (query !== undefined) parts.push(`excludeRangesPerQuery[${query}]`);
    throw new EmptyCandidateSetError(
      `no frame can be returned: the candidate set is empty${query !== undefined ? ` for query ${query}` : ''}` +
      `${parts.length ? ` (${parts.join(', ')} leave no candidate frame)` : ' (the database has no candidate frames)'}`,
    );
  }

  /** The overflow error for the query in slot position `i` (batch index `index`, -1 for a single search). */
  private overflowError(slot: SlotRegions, i: number, frame: number, index: number, raw: ((dim: number) => number) | undefined): RangeError {
    this.heap.refresh();
    const { i32, f32 } = this.heap;
    const biasAt = i32[(slot.req + REQ_BIAS) >> 2];
    const bias = biasAt ? f32[(biasAt >> 2) + frame] : 0;
    const q = (slot.queries >> 2) + i * this.stride;
    const row = (this.regions.features >> 2) + frame * this.stride;
    return costOverflowError(f32, q, row, this.dims, frame, bias, index, raw);
  }
}

/**
 * Copies a per-frame bias into kernel memory, refusing a wrong length or non-finite values;
 * returns its smallest value (0 for an empty database).
 */
function copyBias(bias: Float32Array, rows: number, f32: Float32Array, dst: number, label: string): number {
  if (!(bias instanceof Float32Array) || bias.length !== rows) {
    throw new RangeError(`${label}: expected a Float32Array of ${rows} values (one per frame), got ${bias?.length}`);
  }
  let min = rows > 0 ? Infinity : 0;
  for (let i = 0; i < rows; i++) {
    const b = bias[i];
    if (!Number.isFinite(b)) throw new RangeError(`${label}[${i}] is ${b}: bias must be finite`);
    f32[dst + i] = b;
    if (b < min) min = b;
  }
  return min;
}

/** Key of a Matcher's staging, for MatcherPool (src/search only; not exported from the package). */
export const STAGING: unique symbol = Symbol('motionmatch.search.staging');

/** Anything that exposes its staging under STAGING (a Matcher). */
export interface HasStaging {
  readonly [STAGING]: SearchStaging;
}
