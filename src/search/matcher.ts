/**
 * Matcher: loads a database's normalised features into kernel memory once and answers searches.
 *
 *   const m = await Matcher.create(db);                      // backend 'auto': SIMD WASM if possible
 *   const r = m.search(rawQuery, { method: 'kdtree', bestCost: currentCost, excludeRanges: [[f - 10, f + 10]] });
 *   if (r.frame >= 0) jumpTo(r.clip, r.clipTime);
 *
 * Semantics (every method, every backend): cost = squared Euclidean distance of normalised, padded
 * rows + optional per-frame bias; only candidate frames that pass the tag filter, lie inside
 * `ranges` (default: all) and outside `excludeRanges` are considered; the result is the lowest cost
 * strictly below `bestCost` (default +Infinity), ties to the lowest frame, or frame -1 when nothing
 * beats `bestCost`. A search whose allowed set is empty throws EmptyCandidateSetError.
 *
 * No allocation per query: queries, ranges and requests are staged in preallocated kernel memory
 * and results can be written into a caller-owned object.
 */
import type { Database } from '../database/database.js';
import { buildBlockBounds } from './aabb-build.js';
import { createJsKernels } from './kernels-js.js';
import { buildKdTree, kdNodeCount, DEFAULT_LEAF_SIZE } from './kdtree-build.js';
import {
  Heap, SearchKernels, DatabaseRegions, SlotRegions, SlotShape,
  planDatabase, planSlot, reserve, extendReservation, maxRanges, coarseBlocks, fineBlocks,
  METHOD_BRUTE, METHOD_EARLY, METHOD_AABB, METHOD_KDTREE,
  CTX_FEAT, CTX_ROWS, CTX_STRIDE, CTX_MASK, CTX_TAGS, CTX_COARSE_BOUNDS, CTX_FINE_BOUNDS, CTX_COARSE_INFO,
  CTX_FINE_INFO, CTX_KD_FEAT, CTX_KD_ORIG, CTX_KD_NODES, CTX_KD_BOXES, CTX_KD_NODE_COUNT, CTX_KD_ROWS,
  REQ_RANGES, REQ_RANGE_COUNT, REQ_RANGE_TABLE, REQ_REQUIRE, REQ_EXCLUDE, REQ_BIAS, REQ_BIAS_COARSE,
  REQ_BIAS_FINE, REQ_BIAS_NODE, REQ_STACK, REQ_STACK_CAP, REQ_SIZE, COARSE_SHIFT, FINE_SHIFT, BLOCK_INFO_SIZE,
} from './memory-layout.js';
import { normalizeRanges, subtractRanges, type FrameRange } from './ranges.js';
import { compileSearchModule, createSearchMemory, instantiateKernels, isSharedMemory, simdSupported, type WasmSource } from './wasm.js';

export type { FrameRange } from './ranges.js';

export type SearchMethod = 'brute' | 'early' | 'window' | 'aabb' | 'kdtree';
export type Backend = 'wasm-simd' | 'wasm-scalar' | 'js';

export interface MatcherOptions {
  /** 'auto' (default): SIMD WASM when the engine supports it, else scalar WASM. */
  backend?: Backend | 'auto';
  /** Memory to place the database in (shared memories enable MatcherPool). Default: a new one, shared when possible. */
  memory?: WebAssembly.Memory;
  /** Where the WASM build comes from (browser: URL / Response / bytes). Node default: build/ in the package. */
  wasm?: WasmSource;
  /** KD-tree leaf size (rows). */
  kdLeafSize?: number;
  /** Queries per kernel call in searchBatch (larger batches are split). */
  batchCapacity?: number;
}

export interface SearchOptions {
  /** Default 'kdtree'. 'window' is a brute-force scan of `ranges` (required). */
  method?: SearchMethod;
  /** True when the query is already normalised (db.features space); default false: raw features. */
  normalized?: boolean;
  /** Restrict the search to these frame ranges [start, end) (clamped to the database). */
  ranges?: ReadonlyArray<FrameRange>;
  /** Only return a frame whose cost is strictly below this (e.g. the continuing pose's cost). */
  bestCost?: number;
  /** Frames must carry every one of these tags. */
  requireTags?: ReadonlyArray<string>;
  /** Frames must carry none of these tags. */
  excludeTags?: ReadonlyArray<string>;
  /** Frames never returned (e.g. around the current frame). */
  excludeRanges?: ReadonlyArray<FrameRange>;
  /**
   * Per-frame cost added to each row (may be negative). undefined: the persistent bias set with
   * setBias (if any); null: none; an array: this bias for this call only (copied, O(frames)).
   */
  bias?: Float32Array | null;
}

export interface BatchSearchOptions extends Omit<SearchOptions, 'bestCost'> {
  /** One best cost for all queries, or one per query. */
  bestCost?: number | Float32Array;
  /** Per-query excluded ranges (in addition to excludeRanges), e.g. each character's current frame. */
  excludeRangesPerQuery?: ReadonlyArray<ReadonlyArray<FrameRange> | null | undefined>;
}

export interface SearchResult {
  /** Database frame, or -1 when nothing beat bestCost. */
  frame: number;
  /** Index into db.clips, or -1. */
  clip: number;
  /** Seconds from the clip's first frame. */
  clipTime: number;
  /** Cost of `frame` (float32), or bestCost when frame is -1. */
  cost: number;
}

export interface BatchResult {
  frames: Int32Array;
  costs: Float32Array;
}

/** What another thread needs to search a database loaded in shared memory (Matcher.shareSlot). */
export interface SharedMatcherHandle {
  backend: Backend;
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
  regions: DatabaseRegions;
  slot: SlotRegions;
  kdNodes: number;
}

export interface BuildStats {
  backend: Backend;
  /** Milliseconds spent building box-pruning bounds (both levels). */
  aabbMs: number;
  /** Milliseconds spent building the KD-tree (including the leaf-order copy). */
  kdtreeMs: number;
  /** Milliseconds for the whole load (validation, upload, builds). */
  loadMs: number;
  kdNodes: number;
  kdDepth: number;
  kdLeafSize: number;
  /** Bytes reserved in kernel memory for the database and the main slot. */
  bytes: number;
}

/** Thrown when no frame at all is allowed (tags, ranges and candidates exclude everything). */
export class EmptyCandidateSetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmptyCandidateSetError';
  }
}

const METHOD_CODES: Record<SearchMethod, number> = {
  brute: METHOD_BRUTE,
  early: METHOD_EARLY,
  window: METHOD_BRUTE,
  aabb: METHOD_AABB,
  kdtree: METHOD_KDTREE,
};

const DEFAULT_BATCH_CAPACITY = 256;

/**
 * Staging state of one call in progress: request parameters shared by its queries and range
 * scratch. A Matcher has one for its own calls and a MatcherPool its own, so a direct search made
 * while a pool batch is awaiting its workers cannot corrupt the batch. Reused: no allocation.
 */
export class CallScratch {
  method = 0;
  require = 0;
  exclude = 0;
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

export class Matcher {
  readonly backend: Backend;
  readonly memory: WebAssembly.Memory;
  readonly kernels: SearchKernels;
  /** The compiled WASM build (undefined for the JS backend); pool workers instantiate it. */
  readonly wasmModule: WebAssembly.Module | undefined;
  readonly heap: Heap;
  db!: Database;
  regions!: DatabaseRegions;
  /** Slot 0 is the calling thread's; MatcherPool adds one per worker. */
  readonly slots: SlotRegions[] = [];
  buildStats!: BuildStats;

  private readonly kdLeafSize: number;
  private readonly batchCapacity: number;
  private rows = 0;
  private dims = 0;
  private stride = 0;
  private kdNodes = 0;
  private reservedBase = -1;
  private reservedBytes = 0;
  private tagBit = new Map<string, number>();
  private clipOf: Int32Array = new Int32Array(0);
  private hasStaticBias = false;
  private readonly scratch = new CallScratch();
  private qView: Float32Array | null = null;
  private qViewGen = -1;
  private qViewLen = 0;

  private constructor(backend: Backend, memory: WebAssembly.Memory, kernels: SearchKernels, module: WebAssembly.Module | undefined, opts: MatcherOptions) {
    this.backend = backend;
    this.memory = memory;
    this.kernels = kernels;
    this.wasmModule = module;
    this.heap = new Heap(memory);
    this.kdLeafSize = opts.kdLeafSize ?? DEFAULT_LEAF_SIZE;
    this.batchCapacity = opts.batchCapacity ?? DEFAULT_BATCH_CAPACITY;
    if (!(this.batchCapacity >= 1 && Number.isInteger(this.batchCapacity))) throw new RangeError(`batchCapacity must be a positive integer, got ${opts.batchCapacity}`);
  }

  static async create(db: Database, opts: MatcherOptions = {}): Promise<Matcher> {
    const wanted = opts.backend ?? 'auto';
    if (!['auto', 'wasm-simd', 'wasm-scalar', 'js'].includes(wanted)) throw new RangeError(`unknown backend '${wanted}'`);
    let backend: Backend;
    let kernels: SearchKernels;
    let module: WebAssembly.Module | undefined;
    let memory = opts.memory;
    if (wanted === 'js' || (wanted === 'auto' && typeof WebAssembly !== 'object')) {
      memory ??= createSearchMemory({ shared: false });
      backend = 'js';
      kernels = createJsKernels(memory);
    } else {
      if (wanted === 'wasm-simd' && !simdSupported()) throw new Error('backend wasm-simd requested but this engine has no WebAssembly SIMD');
      backend = wanted === 'wasm-scalar' || !simdSupported() ? 'wasm-scalar' : 'wasm-simd';
      memory ??= createSearchMemory();
      module = await compileSearchModule({ simd: backend === 'wasm-simd', shared: isSharedMemory(memory) }, opts.wasm);
      kernels = await instantiateKernels(module, memory);
    }
    const m = new Matcher(backend, memory, kernels, module, opts);
    m.load(db);
    return m;
  }

  /**
   * Reserves one more thread slot in this matcher's shared memory and describes the loaded
   * database, so that a Matcher in another thread (Matcher.attach) searches the same copy of the
   * database. Needs a WASM backend on a shared memory. Valid until the next load().
   */
  shareSlot(batchCapacity = this.batchCapacity): SharedMatcherHandle {
    if (!this.wasmModule || !isSharedMemory(this.memory)) throw new Error('shareSlot needs a WASM backend on a shared WebAssembly.Memory');
    const shape = this.slotShape(batchCapacity);
    const slot = planSlot(reserve(this.memory, planSlot(0, shape).end, this.kernels.heapBase()), shape);
    this.heap.ensure(slot.end);
    return { backend: this.backend, module: this.wasmModule, memory: this.memory, regions: this.regions, slot, kdNodes: this.kdNodes };
  }

  /**
   * A Matcher over a database another thread already loaded into shared memory (see shareSlot):
   * nothing is uploaded or rebuilt; searches run in the handle's own slot. `db` must be the same
   * database (its normalisation, tags and clips are read on this side).
   */
  static async attach(db: Database, handle: SharedMatcherHandle): Promise<Matcher> {
    const kernels = await instantiateKernels(handle.module, handle.memory);
    const m = new Matcher(handle.backend, handle.memory, kernels, handle.module, { batchCapacity: handle.slot.batchCapacity });
    if (db.frameCount !== m.heap.i32[(handle.regions.ctx + CTX_ROWS) >> 2] || db.stride !== m.heap.i32[(handle.regions.ctx + CTX_STRIDE) >> 2]) {
      throw new RangeError('Matcher.attach: the database does not match the one loaded in shared memory');
    }
    m.adopt(db, handle.regions, handle.slot, handle.kdNodes);
    return m;
  }

  private adopt(db: Database, regions: DatabaseRegions, slot: SlotRegions, kdNodes: number): void {
    this.heap.ensure(slot.end);
    this.db = db;
    this.regions = regions;
    this.slots.length = 0;
    this.slots.push(slot);
    this.rows = db.frameCount;
    this.dims = db.dims;
    this.stride = db.stride;
    this.kdNodes = kdNodes;
    this.hasStaticBias = false;
    this.qView = null;
    this.tagBit = new Map(db.tagNames.map((n, i) => [n, i]));
    this.clipOf = new Int32Array(this.rows).fill(-1);
    db.clips.forEach((clip, ci) => {
      for (let f = Math.max(0, clip.start); f < Math.min(this.rows, clip.start + clip.count); f++) this.clipOf[f] = ci;
    });
    this.scratch.ensure(0, this.rows);
    this.buildStats = { backend: this.backend, aabbMs: 0, kdtreeMs: 0, loadMs: 0, kdNodes, kdDepth: 0, kdLeafSize: this.kdLeafSize, bytes: slot.end - slot.req };
  }

  /** Frames in the loaded database. */
  get frameCount(): number {
    return this.rows;
  }

  /**
   * Loads (or replaces) the database: validates it, reserves memory (reusing this matcher's
   * reservation when it fits), uploads features, candidates and tags, and builds the box-pruning
   * and KD-tree structures. The persistent bias is cleared.
   */
  load(db: Database): void {
    const t0 = now();
    validateDatabase(db);
    const rows = db.frameCount;
    const stride = db.stride;
    let kdRows = 0;
    for (let i = 0; i < rows; i++) if (db.candidates[i] !== 0) kdRows++;
    const kdNodes = kdNodeCount(kdRows, this.kdLeafSize);
    const shape = { rows, stride, kdRows, kdNodes };

    // Plan relative to 0 to learn the size, then place it.
    const dbBytes = planDatabase(0, shape).end;
    const slotShape = this.slotShapeFor(rows, stride, kdNodes, kdRows);
    const slotBytes = planSlot(0, slotShape).end;
    const total = dbBytes + slotBytes;
    const floor = this.kernels.heapBase();
    if (this.reservedBase < 0) {
      this.reservedBase = reserve(this.memory, total, floor);
      this.reservedBytes = total;
    } else if (total > this.reservedBytes) {
      if (extendReservation(this.memory, this.reservedBase, this.reservedBytes, total)) this.reservedBytes = total;
      else {
        this.reservedBase = reserve(this.memory, total, floor);
        this.reservedBytes = total;
      }
    }
    const regions = planDatabase(this.reservedBase, shape);
    const slot = planSlot(regions.end, slotShape);
    this.heap.ensure(slot.end);
    this.db = db;
    this.regions = regions;
    this.slots.length = 0;
    this.slots.push(slot);
    this.rows = rows;
    this.dims = db.dims;
    this.stride = stride;
    this.kdNodes = kdNodes;
    this.hasStaticBias = false;
    this.qView = null;

    const h = this.heap;
    h.f32.set(db.features.subarray(0, rows * stride), regions.features >> 2);
    h.u8.set(db.candidates.subarray(0, rows), regions.mask);
    h.u32.set(db.tagBits.subarray(0, rows), regions.tags >> 2);

    const tA = now();
    const cb = coarseBlocks(rows);
    const fb = fineBlocks(rows);
    buildBlockBounds(db.features, rows, stride, db.candidates, db.tagBits, COARSE_SHIFT,
      h.f32.subarray(regions.coarseBounds >> 2, (regions.coarseBounds >> 2) + cb * 2 * stride),
      h.i32.subarray(regions.coarseInfo >> 2, (regions.coarseInfo >> 2) + cb * (BLOCK_INFO_SIZE >> 2)));
    buildBlockBounds(db.features, rows, stride, db.candidates, db.tagBits, FINE_SHIFT,
      h.f32.subarray(regions.fineBounds >> 2, (regions.fineBounds >> 2) + fb * 2 * stride),
      h.i32.subarray(regions.fineInfo >> 2, (regions.fineInfo >> 2) + fb * (BLOCK_INFO_SIZE >> 2)));
    const tK = now();
    const tree = buildKdTree(db.features, rows, stride, db.dims, db.candidates, db.tagBits, this.kdLeafSize);
    if (tree.nodeCount !== kdNodes) throw new Error(`internal: kd node count ${tree.nodeCount} != planned ${kdNodes}`);
    h.i32.set(tree.order, regions.kdOrig >> 2);
    h.i32.set(tree.nodes, regions.kdNodes >> 2);
    h.f32.set(tree.boxes, regions.kdBoxes >> 2);
    const kdFeat = regions.kdFeatures >> 2;
    for (let k = 0; k < tree.order.length; k++) {
      const src = tree.order[k] * stride;
      const dst = kdFeat + k * stride;
      for (let j = 0; j < stride; j++) h.f32[dst + j] = db.features[src + j];
    }
    if (tree.depth + 2 > slotShape.stackCapacity) throw new Error(`internal: kd depth ${tree.depth} exceeds the traversal stack`);
    const tEnd = now();

    const c = regions.ctx >> 2;
    const i32 = h.i32;
    i32.fill(0, c, c + 16);
    i32[c + (CTX_FEAT >> 2)] = regions.features;
    i32[c + (CTX_ROWS >> 2)] = rows;
    i32[c + (CTX_STRIDE >> 2)] = stride;
    i32[c + (CTX_MASK >> 2)] = regions.mask;
    i32[c + (CTX_TAGS >> 2)] = regions.tags;
    i32[c + (CTX_COARSE_BOUNDS >> 2)] = regions.coarseBounds;
    i32[c + (CTX_FINE_BOUNDS >> 2)] = regions.fineBounds;
    i32[c + (CTX_COARSE_INFO >> 2)] = regions.coarseInfo;
    i32[c + (CTX_FINE_INFO >> 2)] = regions.fineInfo;
    i32[c + (CTX_KD_FEAT >> 2)] = regions.kdFeatures;
    i32[c + (CTX_KD_ORIG >> 2)] = regions.kdOrig;
    i32[c + (CTX_KD_NODES >> 2)] = regions.kdNodes;
    i32[c + (CTX_KD_BOXES >> 2)] = regions.kdBoxes;
    i32[c + (CTX_KD_NODE_COUNT >> 2)] = kdNodes;
    i32[c + (CTX_KD_ROWS >> 2)] = kdRows;

    this.tagBit = new Map(db.tagNames.map((n, i) => [n, i]));
    this.clipOf = new Int32Array(rows).fill(-1);
    db.clips.forEach((clip, ci) => {
      for (let f = Math.max(0, clip.start); f < Math.min(rows, clip.start + clip.count); f++) this.clipOf[f] = ci;
    });
    this.scratch.ensure(0, rows);

    this.buildStats = {
      backend: this.backend,
      aabbMs: tK - tA,
      kdtreeMs: tEnd - tK,
      loadMs: tEnd - t0,
      kdNodes,
      kdDepth: tree.depth,
      kdLeafSize: this.kdLeafSize,
      bytes: slot.end - regions.ctx,
    };
  }

  /** Shape of one thread slot for the loaded database (MatcherPool sizes worker slots with it). */
  slotShape(batchCapacity = this.batchCapacity): SlotShape {
    return { ...this.slotShapeFor(this.rows, this.stride, this.kdNodes, 0), batchCapacity };
  }

  private slotShapeFor(rows: number, stride: number, kdNodes: number, kdRows: number): SlotShape {
    return {
      rows, stride, kdRows, kdNodes,
      batchCapacity: this.batchCapacity,
      rangeCapacity: maxRanges(rows),
      // A depth-first walk holds at most one pending sibling per level; 64 covers any depth a
      // count-halving tree reaches in 32-bit memory.
      stackCapacity: 64,
    };
  }

  /**
   * Sets (or clears, with null) a per-frame bias applied to every search that does not pass its
   * own `bias`. Stored once with its block and node minima, so tree searches stay fast.
   */
  setBias(bias: Float32Array | null): void {
    if (bias === null) {
      this.hasStaticBias = false;
      return;
    }
    this.heap.refresh();
    const r = this.regions;
    copyBias(bias, this.rows, this.heap.f32, r.bias >> 2, 'setBias');
    this.kernels.blockMinBias(r.bias, this.rows, COARSE_SHIFT, r.biasCoarse);
    this.kernels.blockMinBias(r.bias, this.rows, FINE_SHIFT, r.biasFine);
    this.kernels.kdNodeMinBias(r.ctx, r.bias, r.biasNode);
    this.hasStaticBias = true;
  }

  /** (raw - mean) / scale into out (stride floats, padding 0). Accepts dims or stride floats. */
  normalizeQuery(raw: ArrayLike<number>, out: Float32Array = new Float32Array(this.stride)): Float32Array {
    if (out.length < this.stride) throw new RangeError(`normalizeQuery: out needs ${this.stride} floats, has ${out.length}`);
    this.checkWidth(raw.length, 'query');
    const { mean, scale } = this.db;
    for (let j = 0; j < this.dims; j++) {
      const v = raw[j];
      if (!Number.isFinite(v)) throw new RangeError(`query[${j}] is ${v}: queries must be finite`);
      out[j] = (v - mean[j]) / scale[j];
    }
    out.fill(0, this.dims, this.stride);
    return out;
  }

  /**
   * Zero-copy query input: a view of the kernel's query slot (count consecutive padded rows). Fill
   * it and pass it to search / searchBatch. Views go stale when memory grows: ask again after
   * loading another database.
   */
  queryView(count = 1): Float32Array {
    if (!(count >= 1 && count <= this.slots[0].batchCapacity)) throw new RangeError(`queryView: count must be 1..${this.slots[0].batchCapacity}`);
    this.heap.refresh();
    if (this.qView === null || this.qViewGen !== this.heap.generation || this.qViewLen !== count) {
      this.qView = new Float32Array(this.memory.buffer, this.slots[0].queries, count * this.stride);
      this.qViewGen = this.heap.generation;
      this.qViewLen = count;
    }
    return this.qView;
  }

  /** Frame -> clip index (-1 when the frame belongs to no clip). */
  clipOfFrame(frame: number): number {
    return frame >= 0 && frame < this.rows ? this.clipOf[frame] : -1;
  }

  /** One query. `out` (optional) is filled and returned to avoid allocating a result. */
  search(query: ArrayLike<number> & { length: number }, opts: SearchOptions = {}, out?: SearchResult): SearchResult {
    this.heap.refresh();
    const slot = this.slots[0];
    const cs = this.scratch;
    const method = this.prepareCall(cs, opts, slot);
    const bestCost = opts.bestCost ?? Infinity;
    checkBestCost(bestCost);
    this.writeQueries(query, 1, query.length, 0, 1, opts.normalized === true, slot);
    this.writeRanges(slot, cs.baseRanges, cs.baseCount);
    this.writeRequest(cs, slot, cs.baseCount, 0);
    const frame = this.kernels.search(method, this.regions.ctx, slot.req, slot.queries, bestCost, slot.results);
    const cost = this.heap.f32[(slot.results >> 2) + 1];
    if (frame < 0) this.checkNotEmpty(slot, slot.ranges, cs.baseCount, opts);
    const res = out ?? { frame: -1, clip: -1, clipTime: 0, cost: 0 };
    this.describe(frame, cost, res);
    return res;
  }

  /**
   * k queries at once (k * stride or k * dims floats). Results go to `out` (allocated when absent).
   * Same semantics as k calls to search.
   */
  searchBatch(queries: ArrayLike<number> & { length: number }, k: number, opts: BatchSearchOptions = {}, out?: BatchResult): BatchResult {
    const width = this.batchWidth(queries.length, k);
    const res = out ?? { frames: new Int32Array(k), costs: new Float32Array(k) };
    if (res.frames.length < k || res.costs.length < k) throw new RangeError(`searchBatch: out arrays need ${k} entries`);
    if (k === 0) return res;
    this.heap.refresh();
    const slot = this.slots[0];
    const cs = this.scratch;
    const method = this.prepareCall(cs, opts, slot);
    for (let from = 0; from < k;) {
      const n = this.stageChunk(cs, slot, queries, width, k, from, k, opts);
      this.kernels.searchBatch(method, this.regions.ctx, slot.req, slot.queries, n, slot.bestCosts, slot.results);
      this.collectChunk(slot, from, n, opts, res);
      from += n;
    }
    return res;
  }

  /**
   * Internal (MatcherPool): per-call setup shared by all chunks, into `cs` — tag masks, bias
   * (copied once into `biasSlot` when per-call) and the base allowed ranges. Returns the kernel
   * method code.
   */
  prepareCall(cs: CallScratch, opts: SearchOptions | BatchSearchOptions, biasSlot: SlotRegions): number {
    const method = opts.method ?? 'kdtree';
    const code = METHOD_CODES[method];
    if (code === undefined) throw new RangeError(`unknown search method '${String(method)}'`);
    if (method === 'window' && opts.ranges === undefined) throw new RangeError("method 'window' needs ranges");
    cs.method = code;
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

  /**
   * Internal (MatcherPool): stages queries [from, from + n) of a batch of k into `slot` — queries,
   * best costs, ranges (and the per-query range table) and the request — and returns n <= to - from
   * (limited by the slot's batch and range capacity).
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
    this.writeQueries(queries, k, width, from, n, opts.normalized === true, slot);
    const bc = opts.bestCost ?? Infinity;
    const f32 = this.heap.f32;
    const b = slot.bestCosts >> 2;
    if (typeof bc === 'number') {
      checkBestCost(bc);
      f32.fill(bc, b, b + n);
    } else {
      if (bc.length !== k) throw new RangeError(`bestCost has ${bc.length} entries for ${k} queries`);
      for (let i = 0; i < n; i++) {
        const c = bc[from + i];
        if (c !== c) checkBestCost(c); // NaN: the check throws (only then is a number passed on)
        f32[b + i] = c;
      }
    }
    this.writeRequest(cs, slot, rangeCount, table);
    return n;
  }

  /** Internal (MatcherPool): copies a staged chunk's results into `out`, checking empty candidate sets. */
  collectChunk(slot: SlotRegions, from: number, n: number, opts: BatchSearchOptions, out: BatchResult): void {
    this.heap.refresh();
    const { i32, f32 } = this.heap;
    const r = slot.results >> 2;
    const table = i32[(slot.req + REQ_RANGE_TABLE) >> 2];
    let sharedChecked = false;
    for (let i = 0; i < n; i++) {
      const frame = i32[r + 2 * i];
      out.frames[from + i] = frame;
      out.costs[from + i] = f32[r + 2 * i + 1];
      if (frame >= 0) continue;
      if (table) {
        const first = i32[(table >> 2) + 2 * i];
        this.checkNotEmpty(slot, slot.ranges + first * 8, i32[(table >> 2) + 2 * i + 1], opts, from + i);
      } else if (!sharedChecked) {
        this.checkNotEmpty(slot, slot.ranges, i32[(slot.req + REQ_RANGE_COUNT) >> 2], opts);
        sharedChecked = true;
      }
    }
  }

  /** Internal: validates a batch's query array length; returns floats per query. */
  batchWidth(length: number, k: number): number {
    if (!(Number.isInteger(k) && k >= 0)) throw new RangeError(`searchBatch: k must be a non-negative integer, got ${k}`);
    if (k === 0) return this.stride;
    const width = length / k;
    if (width !== this.dims && width !== this.stride) {
      throw new RangeError(`searchBatch: ${length} floats for ${k} queries; expected k * ${this.dims} (dims) or k * ${this.stride} (stride)`);
    }
    return width;
  }

  private describe(frame: number, cost: number, res: SearchResult): void {
    res.frame = frame;
    res.cost = cost;
    const clip = frame >= 0 ? this.clipOf[frame] : -1;
    res.clip = clip;
    res.clipTime = clip >= 0 ? (frame - this.db.clips[clip].start) / this.db.fps : 0;
  }

  private checkWidth(w: number, label: string): void {
    if (w !== this.dims && w !== this.stride) {
      throw new RangeError(`${label} has ${w} floats; expected ${this.dims} (dims) or ${this.stride} (stride)`);
    }
  }

  /**
   * Writes queries [from, from + n) of `src` (width floats each) into the slot as padded, normalised
   * rows. A query already sitting in the slot (queryView) is normalised in place.
   */
  private writeQueries(src: ArrayLike<number>, k: number, width: number, from: number, n: number, normalized: boolean, slot: SlotRegions): void {
    if (k === 1) this.checkWidth(width, 'query');
    const f32 = this.heap.f32;
    const { mean, scale } = this.db;
    const dims = this.dims;
    const stride = this.stride;
    for (let i = 0; i < n; i++) {
      const s = (from + i) * width;
      const d = (slot.queries >> 2) + i * stride;
      for (let j = 0; j < dims; j++) {
        const v = src[s + j];
        const x = normalized ? v : (v - mean[j]) / scale[j];
        if (!Number.isFinite(x)) {
          throw new RangeError(k === 1 ? `query[${j}] is ${v}: queries must be finite` : `query ${from + i} [${j}] is ${v}: queries must be finite`);
        }
        f32[d + j] = x;
      }
      for (let j = dims; j < stride; j++) f32[d + j] = 0;
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
  }

  private prepareBias(c: CallScratch, bias: Float32Array | null | undefined, method: number, slot: SlotRegions): void {
    if (bias === null || (bias === undefined && !this.hasStaticBias)) {
      c.bias = c.biasCoarse = c.biasFine = c.biasNode = 0;
      return;
    }
    if (bias === undefined) {
      const r = this.regions;
      c.bias = r.bias;
      c.biasCoarse = r.biasCoarse;
      c.biasFine = r.biasFine;
      c.biasNode = r.biasNode;
      return;
    }
    copyBias(bias, this.rows, this.heap.f32, slot.bias >> 2, 'bias');
    c.bias = slot.bias;
    c.biasCoarse = slot.biasCoarse;
    c.biasFine = slot.biasFine;
    c.biasNode = slot.biasNode;
    // Only the pruning methods need the minima.
    if (method === METHOD_AABB) {
      this.kernels.blockMinBias(slot.bias, this.rows, COARSE_SHIFT, slot.biasCoarse);
      this.kernels.blockMinBias(slot.bias, this.rows, FINE_SHIFT, slot.biasFine);
    } else if (method === METHOD_KDTREE) {
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

  private checkNotEmpty(slot: SlotRegions, ranges: number, count: number, opts?: SearchOptions | BatchSearchOptions, query?: number): void {
    if (this.kernels.firstAllowed(this.regions.ctx, slot.req, ranges, count) >= 0) return;
    const parts: string[] = [];
    const o = opts ?? {};
    if (o.requireTags?.length) parts.push(`requireTags [${o.requireTags.join(', ')}]`);
    if (o.excludeTags?.length) parts.push(`excludeTags [${o.excludeTags.join(', ')}]`);
    if (o.ranges) parts.push(`ranges (${o.ranges.length})`);
    if (o.excludeRanges?.length) parts.push(`excludeRanges (${o.excludeRanges.length})`);
    if (query !== undefined) parts.push(`excludeRangesPerQuery[${query}]`);
    throw new EmptyCandidateSetError(
      `no frame can be returned: the candidate set is empty${query !== undefined ? ` for query ${query}` : ''}` +
      `${parts.length ? ` (${parts.join(', ')} leave no candidate frame)` : ' (the database has no candidate frames)'}`,
    );
  }
}

function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

function checkBestCost(c: number): void {
  if (Number.isNaN(c)) throw new RangeError('bestCost is NaN');
}

function copyBias(bias: Float32Array, rows: number, f32: Float32Array, dst: number, label: string): void {
  if (!(bias instanceof Float32Array) || bias.length !== rows) {
    throw new RangeError(`${label}: expected a Float32Array of ${rows} values (one per frame), got ${bias?.length}`);
  }
  for (let i = 0; i < rows; i++) {
    const b = bias[i];
    if (!Number.isFinite(b)) throw new RangeError(`${label}[${i}] is ${b}: bias must be finite`);
    f32[dst + i] = b;
  }
}

/** Throws RangeError when the database's search data is inconsistent. */
export function validateDatabase(db: Database): void {
  const { frameCount: rows, stride, dims } = db;
  if (!Number.isInteger(rows) || rows < 0) throw new RangeError(`database frameCount ${rows} is not a non-negative integer`);
  if (!Number.isInteger(dims) || dims < 1) throw new RangeError(`database dims ${dims} must be >= 1`);
  if (stride % 4 !== 0 || stride < dims || stride - dims > 3) throw new RangeError(`database stride ${stride} must be dims (${dims}) rounded up to a multiple of 4`);
  if (db.features.length !== rows * stride) throw new RangeError(`database features has ${db.features.length} floats, expected ${rows} x ${stride}`);
  if (db.candidates.length !== rows) throw new RangeError(`database candidates has ${db.candidates.length} entries, expected ${rows}`);
  if (db.tagBits.length !== rows) throw new RangeError(`database tagBits has ${db.tagBits.length} entries, expected ${rows}`);
  if (db.tagNames.length > 32) throw new RangeError(`database has ${db.tagNames.length} tags; at most 32 fit the tag bits`);
  if (db.mean.length < stride || db.scale.length < stride) throw new RangeError(`database mean/scale need ${stride} values`);
  for (let j = 0; j < dims; j++) {
    if (!Number.isFinite(db.mean[j])) throw new RangeError(`database mean[${j}] is ${db.mean[j]}`);
    if (!Number.isFinite(db.scale[j]) || db.scale[j] === 0) throw new RangeError(`database scale[${j}] is ${db.scale[j]}`);
  }
  const f = db.features;
  for (let i = 0; i < rows; i++) {
    const r = i * stride;
    for (let j = 0; j < dims; j++) {
      if (!Number.isFinite(f[r + j])) throw new RangeError(`database features[frame ${i}][${j}] is ${f[r + j]}`);
    }
    for (let j = dims; j < stride; j++) {
      if (f[r + j] !== 0) throw new RangeError(`database features[frame ${i}] padding [${j}] is ${f[r + j]}, must be 0`);
    }
  }
}
