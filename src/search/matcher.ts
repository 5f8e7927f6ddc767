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
 * beats `bestCost`. A search whose allowed set is empty throws EmptyCandidateSetError; a query whose
 * float32 cost overflows at every allowed frame throws RangeError (see query.ts).
 *
 * Where the rest lives: options and their ranges (options.ts), staging queries, ranges and requests
 * into kernel memory and reading results (wasm/staging.ts), query normalisation (query.ts), the upload
 * and index builds (upload.ts, indexes/aabb.ts, indexes/kdtree.ts), the memory layout (wasm/memory-layout.ts),
 * the kernels (kernels-js/kernels.ts, assembly/).
 *
 * No allocation per query: queries, ranges and requests are staged in preallocated kernel memory
 * and results can be written into a caller-owned object.
 */
import { frameClipTable } from '../database/frame-clips.js';
import type { Database } from '../database/database.js';
import { createJsKernels } from './kernels-js/kernels.js';
import {
  Heap, type SearchKernels, type DatabaseRegions, type SlotRegions, type SlotShape, type CompactShape,
  planSlot, reserve, slotShapeFor, u8RowBytes, f16RowBytes, NO_COMPACT, CTX_ROWS, CTX_STRIDE,
} from './wasm/memory-layout.js';
import {
  resolveMatcherOptions, checkBestCost, integerOption, BATCH_SEARCH_OPTION_KEYS,
  type Backend, type MatcherOptions, type SearchOptions, type BatchSearchOptions, type ResolvedMatcherOptions,
} from './options.js';
import { writeQueryRows } from './query.js';
import { refuseUnknownCallOptions } from '../util/option-keys.js';
import { describeArgument, requireOptionsObject } from '../util/arguments.js';
import type { SearchResult, BatchResult } from './results.js';
import { requireSearchableDatabase, checkSearchStructure } from './searchable.js';
import { CallScratch, SearchStaging, STAGING, type HasStaging, type SearchStats } from './wasm/staging.js';
import { uploadDatabase, now, type Reservation } from './upload.js';
import type { CompactBuildStats } from './indexes/compact.js';
import { compileSearchModule, createSearchMemory, instantiateKernels, isSharedMemory, simdSupported } from './wasm/load.js';

export type { FrameRange } from './ranges.js';
export type { SearchMethod, Backend, MatcherOptions, SearchOptions, BatchSearchOptions, CompactFormat } from './options.js';
export type { SearchStats } from './wasm/staging.js';
export { EmptyCandidateSetError, type SearchResult, type BatchResult } from './results.js';

/** What another thread needs to search a database loaded in shared memory (Matcher.shareSlot). */
export interface SharedMatcherHandle {
  backend: Backend;
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
  regions: DatabaseRegions;
  slot: SlotRegions;
  kdNodes: number;
  kdLeafSize: number;
  compact: CompactShape;
}

/** The compact copies and the clustered index of a loaded database (BuildStats.compact). */
export interface CompactInfo {
  /** Bytes per row of the 8-bit and half-precision copies (0 when not built). */
  u8RowBytes: number;
  f16RowBytes: number;
  /** Largest certified row error (Euclidean, normalised units) of each copy. */
  u8ErrorMax: number;
  f16ErrorMax: number;
  /** Clusters and sub-clusters built (0: no clustered index), Lloyd iterations, the sample they ran on, largest radius. */
  clusters: number;
  subClusters: number;
  clusterIterations: number;
  clusterSample: number;
  clusterRadiusMax: number;
  /** Milliseconds building the 8-bit copies (frame, leaf and cluster order), 16-bit boxes, half rows, clusters. */
  u8Ms: number;
  box16Ms: number;
  f16Ms: number;
  clusterMs: number;
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
  compact: CompactInfo;
}

function compactInfo(shape: CompactShape, stride: number, s: CompactBuildStats | null): CompactInfo {
  return {
    u8RowBytes: shape.u8 ? u8RowBytes(stride) : 0,
    f16RowBytes: shape.f16 ? f16RowBytes(stride) : 0,
    u8ErrorMax: s?.u8ErrorMax ?? 0,
    f16ErrorMax: s?.f16ErrorMax ?? 0,
    clusters: s?.clusters?.count ?? 0,
    subClusters: s?.clusters?.subClusters ?? 0,
    clusterIterations: s?.clusters?.iterations ?? 0,
    clusterSample: s?.clusters?.sample ?? 0,
    clusterRadiusMax: s?.clusters?.radiusMax ?? 0,
    u8Ms: s?.u8Ms ?? 0,
    box16Ms: s?.box16Ms ?? 0,
    f16Ms: s?.f16Ms ?? 0,
    clusterMs: s?.clusterMs ?? 0,
  };
}

export class Matcher implements HasStaging {
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
  /** What the compact and clustered methods did in the last search / searchBatch call (zero for the others). */
  readonly lastStats: SearchStats = { bounded: 0, rescored: 0, groups: 0 };

  /** The loaded tree's leaf size, for the statistics (each load uses options.kdLeafSize). */
  private kdLeafSize: number;
  private readonly batchCapacity: number;
  private readonly options: ResolvedMatcherOptions;
  private staging!: SearchStaging;
  private kdNodes = 0;
  private compact: CompactShape = NO_COMPACT;
  private readonly reservation: Reservation = { base: -1, bytes: 0 };
  private clipOf: Int32Array = new Int32Array(0);
  private readonly scratch = new CallScratch();
  /** The last search options object whose keys were checked (a crowd passes the same one every time). */
  private checkedOptions: object | null = null;
  private qView: Float32Array | null = null;
  private qViewGen = -1;
  private qViewLen = 0;

  private constructor(backend: Backend, memory: WebAssembly.Memory, kernels: SearchKernels, module: WebAssembly.Module | undefined, options: ResolvedMatcherOptions) {
    this.backend = backend;
    this.memory = memory;
    this.kernels = kernels;
    this.wasmModule = module;
    this.heap = new Heap(memory);
    this.options = options;
    this.kdLeafSize = options.kdLeafSize;
    this.batchCapacity = options.batchCapacity;
  }

  static async create(db: Database, opts: MatcherOptions = {}): Promise<Matcher> {
    const resolved = resolveMatcherOptions(opts);
    const wanted = resolved.backend;
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
    const m = new Matcher(backend, memory, kernels, module, resolved);
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
    const shape = this.slotShape(integerOption('batchCapacity', batchCapacity, this.batchCapacity));
    const slot = planSlot(reserve(this.memory, planSlot(0, shape).end, this.kernels.heapBase()), shape);
    this.heap.ensure(slot.end);
    return { backend: this.backend, module: this.wasmModule, memory: this.memory, regions: this.regions, slot, kdNodes: this.kdNodes, kdLeafSize: this.kdLeafSize, compact: this.compact };
  }

  /**
   * A Matcher over a database another thread already loaded into shared memory (see shareSlot):
   * nothing is uploaded or rebuilt; searches run in the handle's own slot. `db` must be the same
   * database (its normalisation, tags and clips are read on this side).
   */
  static async attach(db: Database, handle: SharedMatcherHandle): Promise<Matcher> {
    // The loading thread checked the values; the shapes are what this side indexes by.
    checkSearchStructure(db);
    const kernels = await instantiateKernels(handle.module, handle.memory);
    const options = resolveMatcherOptions({ kdLeafSize: handle.kdLeafSize, batchCapacity: handle.slot.batchCapacity });
    const m = new Matcher(handle.backend, handle.memory, kernels, handle.module, options);
    if (db.frameCount !== m.heap.i32[(handle.regions.ctx + CTX_ROWS) >> 2] || db.stride !== m.heap.i32[(handle.regions.ctx + CTX_STRIDE) >> 2]) {
      throw new RangeError('Matcher.attach: the database does not match the one loaded in shared memory');
    }
    m.heap.ensure(handle.slot.end);
    m.bind(db, handle.regions, handle.slot, handle.kdNodes, handle.compact);
    m.buildStats = {
      backend: m.backend, aabbMs: 0, kdtreeMs: 0, loadMs: 0, kdNodes: handle.kdNodes, kdDepth: 0, kdLeafSize: m.kdLeafSize,
      bytes: handle.slot.end - handle.slot.req, compact: compactInfo(handle.compact, db.stride, null),
    };
    return m;
  }

  /** Frames in the loaded database. */
  get frameCount(): number {
    return this.staging.rows;
  }

  /** For MatcherPool (src/search only): the staging of the loaded database. */
  get [STAGING](): SearchStaging {
    return this.staging;
  }

  /**
   * Loads (or replaces) the database: validates it, reserves memory (reusing this matcher's
   * reservation when it fits), uploads features, candidates and tags, and builds the box-pruning
   * and KD-tree structures. The persistent bias is cleared.
   */
  load(db: Database): void {
    const t0 = now();
    requireSearchableDatabase(db);
    const up = uploadDatabase(this.heap, this.kernels.heapBase(), db, this.options, this.reservation);
    this.bind(db, up.regions, up.slot, up.kdNodes, up.compact);
    this.kdLeafSize = up.kdLeafSize;
    this.buildStats = {
      backend: this.backend,
      aabbMs: up.aabbMs,
      kdtreeMs: up.kdtreeMs,
      loadMs: now() - t0,
      kdNodes: up.kdNodes,
      kdDepth: up.kdDepth,
      kdLeafSize: this.kdLeafSize,
      bytes: up.slot.end - up.regions.ctx,
      compact: compactInfo(up.compact, db.stride, up.compactStats),
    };
  }

  /** Makes `db` (already in memory at `regions`) the searched database, with `slot` as slot 0. */
  private bind(db: Database, regions: DatabaseRegions, slot: SlotRegions, kdNodes: number, compact: CompactShape): void {
    this.db = db;
    this.regions = regions;
    this.slots.length = 0;
    this.slots.push(slot);
    this.kdNodes = kdNodes;
    this.compact = compact;
    this.qView = null;
    this.staging = new SearchStaging(this.heap, this.kernels, db, regions);
    this.clipOf = frameClipTable(db);
    this.scratch.ensure(0, db.frameCount);
  }

  /** Shape of one thread slot for the loaded database (MatcherPool sizes worker slots with it). */
  slotShape(batchCapacity = this.batchCapacity): SlotShape {
    return slotShapeFor(this.staging.rows, this.staging.stride, this.kdNodes, batchCapacity, this.compact);
  }

  /**
   * Sets (or clears, with null) a per-frame bias applied to every search that does not pass its
   * own `bias`. Stored once with its block and node minima, so tree searches stay fast.
   */
  setBias(bias: Float32Array | null): void {
    this.staging.setStaticBias(bias);
  }

  /** (raw - mean) / scale into out (stride floats, padding 0). Accepts dims or stride floats. */
  normalizeQuery(raw: ArrayLike<number>, out: Float32Array = new Float32Array(this.staging.stride)): Float32Array {
    requireQueryArray(raw, 'matcher.normalizeQuery', this.staging);
    if (!(out instanceof Float32Array)) throw new TypeError(`matcher.normalizeQuery: out must be a Float32Array, got ${describeArgument(out)}`);
    const st = this.staging;
    if (out.length < st.stride) throw new RangeError(`normalizeQuery: out needs ${st.stride} floats, has ${out.length}`);
    st.checkWidth(raw.length, 'query');
    writeQueryRows(raw, raw.length, 0, 1, out, 0, this.db, false, true);
    return out;
  }

  /**
   * Zero-copy query input: a view of the kernel's query slot (count consecutive padded rows). Fill
   * it and pass it to search / searchBatch. Views go stale when memory grows: ask again after
   * loading another database.
   */
  queryView(count = 1): Float32Array {
    if (!(Number.isInteger(count) && count >= 1 && count <= this.slots[0].batchCapacity)) throw new RangeError(`queryView: count must be an integer in [1, ${this.slots[0].batchCapacity}], got ${count}`);
    this.heap.refresh();
    if (this.qView === null || this.qViewGen !== this.heap.generation || this.qViewLen !== count) {
      this.qView = new Float32Array(this.memory.buffer, this.slots[0].queries, count * this.staging.stride);
      this.qViewGen = this.heap.generation;
      this.qViewLen = count;
    }
    return this.qView;
  }

  /** Frame -> clip index (-1 when the frame belongs to no clip). */
  clipOfFrame(frame: number): number {
    return frame >= 0 && frame < this.staging.rows ? this.clipOf[frame] : -1;
  }

  /** One query. `out` (optional) is filled and returned to avoid allocating a result. */
  search(query: ArrayLike<number> & { length: number }, opts: SearchOptions = {}, out?: SearchResult): SearchResult {
    requireQueryArray(query, 'matcher.search', this.staging);
    requireOptionsObject(opts, 'matcher.search', 'options');
    // Checked once per options object (a crowd passes the same one with every search); the batch
    // keys pass too, so that one object can serve both calls (search ignores excludeRangesPerQuery).
    if (opts !== this.checkedOptions) { refuseUnknownCallOptions(opts, BATCH_SEARCH_OPTION_KEYS, 'search option '); this.checkedOptions = opts; }
    requireOptionsObject(out, 'matcher.search', 'out');
    this.heap.refresh();
    const st = this.staging;
    const slot = this.slots[0];
    const cs = this.scratch;
    const method = st.prepareCall(cs, opts, slot);
    const bestCost = opts.bestCost ?? Infinity;
    checkBestCost(bestCost);
    st.stageQuery(cs, slot, query, opts.normalized === true);
    const frame = this.kernels.search(method, this.regions.ctx, slot.req, slot.queries, bestCost, slot.results);
    const cost = this.heap.f32[(slot.results >> 2) + 1];
    clearStats(this.lastStats);
    st.addStats(slot, this.lastStats);
    if (frame < 0) st.checkMiss(cs, slot, opts, bestCost, query);
    const res = out ?? { frame: -1, clip: -1, clipTime: 0, cost: 0 };
    this.describe(frame, cost, res);
    return res;
  }

  /**
   * k queries at once (k * stride or k * dims floats). Results go to `out` (allocated when absent).
   * Same semantics as k calls to search.
   */
  searchBatch(queries: ArrayLike<number> & { length: number }, k: number, opts: BatchSearchOptions = {}, out?: BatchResult): BatchResult {
    requireQueryArray(queries, 'matcher.searchBatch', this.staging, true);
    if (typeof k !== 'number') throw new TypeError(`matcher.searchBatch: k must be the number of queries, got ${describeArgument(k)}`);
    requireOptionsObject(opts, 'matcher.searchBatch', 'options');
    if (opts !== this.checkedOptions) { refuseUnknownCallOptions(opts, BATCH_SEARCH_OPTION_KEYS, 'searchBatch option '); this.checkedOptions = opts; }
    requireOptionsObject(out, 'matcher.searchBatch', 'out');
    if (out !== undefined && !(out.frames instanceof Int32Array && out.costs instanceof Float32Array)) throw new TypeError('matcher.searchBatch: out must be { frames: Int32Array, costs: Float32Array }');
    const st = this.staging;
    const width = st.batchWidth(queries.length, k);
    const res = out ?? { frames: new Int32Array(k), costs: new Float32Array(k) };
    if (res.frames.length < k || res.costs.length < k) throw new RangeError(`searchBatch: out arrays need ${k} entries`);
    if (k === 0) return res;
    this.heap.refresh();
    const slot = this.slots[0];
    const cs = this.scratch;
    const method = st.prepareCall(cs, opts, slot);
    clearStats(this.lastStats);
    for (let from = 0; from < k;) {
      const n = st.stageChunk(cs, slot, queries, width, k, from, k, opts);
      this.kernels.searchBatch(method, this.regions.ctx, slot.req, slot.queries, n, slot.bestCosts, slot.results);
      st.addStats(slot, this.lastStats);
      st.collectChunk(slot, from, n, opts, res, queries, width);
      from += n;
    }
    return res;
  }

  private describe(frame: number, cost: number, res: SearchResult): void {
    res.frame = frame;
    res.cost = cost;
    const clip = frame >= 0 ? this.clipOf[frame] : -1;
    res.clip = clip;
    res.clipTime = clip >= 0 ? (frame - this.db.clips[clip].start) / this.db.fps : 0;
  }
}

/** Throws a one-line TypeError unless `query` is an array or typed array of numbers (its width is checked later). */
function requireQueryArray(query: unknown, where: string, shape: { dims: number; stride: number }, batch = false): void {
  if (query instanceof Float32Array || Array.isArray(query)) return;
  if (ArrayBuffer.isView(query) && !(query instanceof DataView) && typeof (query as unknown as { length: unknown }).length === 'number') return;
  const v = shape.dims === shape.stride ? `${shape.dims} values` : `${shape.dims} values (dims) or ${shape.stride} (stride)`;
  throw new TypeError(`${where}: ${batch ? `queries must be a Float32Array of k x ${v}` : `query must be a Float32Array of ${v}`}, got ${describeArgument(query)}`);
}

/** Zeroes a statistics record. */
export function clearStats(s: SearchStats): void {
  s.bounded = 0;
  s.rescored = 0;
  s.groups = 0;
}
