/**
 * Host-owned layout of the search kernels' linear memory: the region planners (planDatabase,
 * planSlot), the struct offsets the kernels read, the per-memory bump allocator and the Heap views.
 *
 * The kernels (assembly/) never allocate: the host reserves every region once per database, grows
 * the memory before writing, and re-derives its typed-array views after growth (growth detaches a
 * non-shared `memory.buffer`, and a shared one gets a new, longer buffer object).
 *
 * A database's regions: the float32 rows, candidate flags and tags; box-pruning bounds; the KD-tree
 * (leaf-order rows, nodes, boxes); the persistent bias and its minima. With `compact: ['u8']` also
 * the 8-bit codec (U8P_* struct, multipliers, offsets), 8-bit rows in frame and KD-leaf order
 * (u8RowBytes each: codes, then the row's error bound), the KD records (fine-unit boxes), the 16-bit
 * box codec (BOX16_*) and 16-bit boxes of the box-pruning blocks; with 'f16' half-precision rows (f16RowBytes each);
 * with clusters the CL_* struct, centres, radii and info of clusters and sub-clusters, cluster
 * boxes, and the rows in cluster order (frames, distances to their sub-cluster's centre, 8-bit
 * and float32 rows). Regions not built are 0 in the context struct. A thread slot adds, besides its
 * request, queries, results, ranges, per-call bias and KD stack, the query's i16 codes and the
 * clusters' visit scratch. docs/search.md ("Memory layout", "Compact storage") draws all of it.
 *
 * Struct offsets below mirror assembly/layout.ts; test/search/search-memory.test.ts checks they agree.
 */

export const METHOD_BRUTE = 0;
export const METHOD_EARLY = 1;
export const METHOD_AABB = 2;
export const METHOD_KDTREE = 3;
/** Brute force over the 8-bit copy (certified lower bounds, float32 re-scoring). */
export const METHOD_BRUTE_U8 = 4;
/** Brute force over the half-precision copy. */
export const METHOD_BRUTE_F16 = 5;
/** Box pruning with 16-bit box codes over the 8-bit copy. */
export const METHOD_AABB_U8 = 6;
/** KD-tree with fine-unit boxes and 8-bit leaf rows. */
export const METHOD_KDTREE_U8 = 7;
/** Clustered search over float32 rows in cluster order. */
export const METHOD_CLUSTER = 8;
/** Clustered search over 8-bit rows in cluster order. */
export const METHOD_CLUSTER_U8 = 9;

export const CTX_FEAT = 0;
export const CTX_ROWS = 4;
export const CTX_STRIDE = 8;
export const CTX_MASK = 12;
export const CTX_TAGS = 16;
export const CTX_COARSE_BOUNDS = 20;
export const CTX_FINE_BOUNDS = 24;
export const CTX_COARSE_INFO = 28;
export const CTX_FINE_INFO = 32;
export const CTX_KD_FEAT = 36;
export const CTX_KD_ORIG = 40;
export const CTX_KD_NODES = 44;
export const CTX_KD_BOXES = 48;
export const CTX_KD_NODE_COUNT = 52;
export const CTX_KD_ROWS = 56;
export const CTX_U8 = 60;
export const CTX_U8_PARAMS = 64;
export const CTX_U8_ROW_BYTES = 68;
export const CTX_F16 = 72;
export const CTX_F16_ROW_BYTES = 76;
export const CTX_F16_EMAX = 80;
export const CTX_KD_U8 = 84;
export const CTX_KD_REC = 88;
export const CTX_BOX16 = 92;
export const CTX_COARSE_BOX16 = 96;
export const CTX_FINE_BOX16 = 100;
export const CTX_CLUSTERS = 104;
export const CTX_KD_REC_BYTES = 108;
export const CTX_SIZE = 128;

export const REQ_RANGES = 0;
export const REQ_RANGE_COUNT = 4;
export const REQ_RANGE_TABLE = 8;
export const REQ_REQUIRE = 12;
export const REQ_EXCLUDE = 16;
export const REQ_BIAS = 20;
export const REQ_BIAS_COARSE = 24;
export const REQ_BIAS_FINE = 28;
export const REQ_BIAS_NODE = 32;
export const REQ_STACK = 36;
export const REQ_STACK_CAP = 40;
export const REQ_PROBES = 44;
export const REQ_BIAS_MIN = 48;
export const REQ_QCODE = 52;
export const REQ_SCRATCH = 56;
export const REQ_SCRATCH_CAP = 60;
export const REQ_STAT_BOUNDED = 64;
export const REQ_STAT_RESCORED = 72;
export const REQ_STAT_GROUPS = 80;
export const REQ_SINK = 88;
export const REQ_KDS = 96;
export const REQ_SIZE = 128;

export const U8P_INV_U = 0;
export const U8P_U = 8;
export const U8P_EMAX = 16;
export const U8P_M = 24;
export const U8P_CHUNKS = 28;
export const U8P_W = 32;
export const U8P_LO = 36;
export const U8P_DIM = 40;
export const U8P_SIZE = 64;

export const BOX16_STEP = 0;
export const BOX16_LO = 4;
export const BOX16_SIZE = 16;

export const CL_COUNT = 0;
export const CL_CENTRES = 4;
export const CL_RADIUS = 8;
export const CL_INFO = 12;
export const CL_ORIG = 16;
export const CL_ROW_RADIUS = 20;
export const CL_U8 = 24;
export const CL_F32 = 28;
export const CL_RADIUS_MAX = 32;
export const CL_BOX16 = 36;
export const CL_SUB_COUNT = 40;
export const CL_SUB_CENTRES = 44;
export const CL_SUB_RADIUS = 48;
export const CL_SUB_INFO = 52;
export const CL_MAX_SUBS = 56;
export const CL_SIZE = 64;

export const CLUSTER_START = 0;
export const CLUSTER_COUNT = 4;
export const CLUSTER_TAG_OR = 8;
export const CLUSTER_TAG_AND = 12;
export const CLUSTER_INFO_SIZE = 16;

export const COARSE_SHIFT = 6;
export const FINE_SHIFT = 4;
export const COARSE_BLOCK = 1 << COARSE_SHIFT;
export const FINE_BLOCK = 1 << FINE_SHIFT;

export const BLOCK_COUNT = 0;
export const BLOCK_TAG_OR = 4;
export const BLOCK_TAG_AND = 8;
export const BLOCK_INFO_SIZE = 16;

export const NODE_DIM = 0;
export const NODE_SPLIT = 4;
export const NODE_RIGHT = 8;
export const NODE_START = 12;
export const NODE_COUNT = 16;
export const NODE_TAG_OR = 20;
export const NODE_TAG_AND = 24;
export const NODE_MIN_ORIG = 28;
export const NODE_SIZE = 32;
/** i32 fields per node, for Int32Array-built trees. */
export const NODE_INTS = NODE_SIZE >> 2;

/**
 * KdRecord (kdtree-u8): one per record node (the root and, below each record node, the inner nodes
 * two levels down, or one level down through a leaf child), CTX_KD_REC_BYTES apart (512 for 28
 * floats: eight cache lines). Layout: [box 0..3: fine-unit i16 low[stride], high[stride], code order]
 * [slot 0..3: SLOT_*] (codecs/u8.ts, encodeFineBox).
 * A record holds up to four subtrees of its node: each child, or both children of an inner child.
 */
export const KD_RECORD_LEVELS = 2;
export const KD_SLOTS = 1 << KD_RECORD_LEVELS;
export const SLOT_NODE = 0; // the subtree's node (tags, per-node bias)
export const SLOT_MIN_ORIG = 4;
export const SLOT_START = 8; // a leaf's first leaf-order row, or an inner node's record
export const SLOT_COUNT = 12; // a leaf's rows; SLOT_INNER or SLOT_EMPTY
export const SLOT_SIZE = 16;
export const SLOT_INNER = -1;
export const SLOT_EMPTY = -2;

/** Bytes of one fine-unit box of a KdRecord: `stride` i16 low bounds, then `stride` high bounds. */
export function kdBoxBytes(stride: number): number {
  return 4 * stride;
}

/** Bytes of one KdRecord: four fine-unit boxes and four slots, padded to whole cache lines. */
export function kdRecordBytes(stride: number): number {
  return alignUp(KD_SLOTS * (kdBoxBytes(stride) + SLOT_SIZE), 64);
}

export const RESULT_SIZE = 8;

export const PAGE_BYTES = 65536;
/** Region alignment: a cache line, which also satisfies v128 loads. */
export const REGION_ALIGN = 64;

export function alignUp(x: number, a: number = REGION_ALIGN): number {
  return Math.ceil(x / a) * a;
}

/** Typed-array views over a memory, re-derived whenever the buffer changes (growth). */
export class Heap {
  readonly memory: WebAssembly.Memory;
  u8!: Uint8Array;
  i16!: Int16Array;
  u16!: Uint16Array;
  i32!: Int32Array;
  u32!: Uint32Array;
  f32!: Float32Array;
  f64!: Float64Array;
  /** Bumped on every re-derivation, so holders of sub-views know to rebuild them. */
  generation = 0;

  constructor(memory: WebAssembly.Memory) {
    this.memory = memory;
    this.derive();
  }

  /** Re-derives the views if the memory grew (possibly through another holder or thread). */
  refresh(): void {
    if (this.u8.byteLength !== this.memory.buffer.byteLength) this.derive();
  }

  /**
   * Grows the memory so that bytes [0, end) exist, then refreshes the views. A memory that cannot
   * grow that far (a shared memory's maximum, the engine's 4 GiB) gets an error with the figures.
   */
  ensure(end: number): void {
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      const pages = Math.ceil((end - have) / PAGE_BYTES);
      try {
        this.memory.grow(pages);
      } catch (e) {
        throw new RangeError(
          `search memory cannot grow from ${formatBytes(have)} to ${formatBytes(end)} (${pages} more pages of 64 KiB): ${(e as Error).message}. ` +
          'A shared memory cannot grow past its maximum (MatcherPool: maximumPages, at most 65536 = 4 GiB); use a smaller database or fewer threads',
        );
      }
    }
    this.refresh();
  }

  private derive(): void {
    const buf = this.memory.buffer;
    this.u8 = new Uint8Array(buf);
    this.i16 = new Int16Array(buf);
    this.u16 = new Uint16Array(buf);
    this.i32 = new Int32Array(buf);
    this.u32 = new Uint32Array(buf);
    this.f32 = new Float32Array(buf);
    this.f64 = new Float64Array(buf);
    this.generation++;
  }
}

/**
 * Bump allocator per memory: several matchers (or a matcher reloading a bigger database) can share
 * one memory without overlapping. Regions are never freed; a reload reuses its reservation when
 * the new database fits.
 */
const arenaTops = new WeakMap<WebAssembly.Memory, number>();

/** Reserves `bytes` above everything reserved before (and above `floor`, the module's heap base). */
export function reserve(memory: WebAssembly.Memory, bytes: number, floor: number): number {
  const base = alignUp(Math.max(arenaTops.get(memory) ?? 0, floor));
  arenaTops.set(memory, base + bytes);
  return base;
}

/** Extends a reservation in place when it is the topmost one; returns false otherwise. */
export function extendReservation(memory: WebAssembly.Memory, base: number, oldBytes: number, newBytes: number): boolean {
  if (arenaTops.get(memory) !== base + oldBytes) return false;
  arenaTops.set(memory, base + newBytes);
  return true;
}

/** Sequential region planner. */
class Planner {
  end: number;
  constructor(base: number) {
    this.end = base;
  }
  take(bytes: number): number {
    const at = alignUp(this.end);
    this.end = at + bytes;
    return at;
  }
  /** A region only when `built`; 0 (no region) otherwise. */
  takeIf(built: boolean, bytes: number): number {
    return built ? this.take(bytes) : 0;
  }
}

/** Which compact copies and indexes a database gets besides the float32 rows (all optional). */
export interface CompactShape {
  /** 8-bit rows in frame order, 8-bit KD leaf rows and records, 16-bit box codes (box-pruning blocks). */
  u8: boolean;
  /** Half-precision rows in frame order. */
  f16: boolean;
  /** Clusters of the clustered index (0: no clustered index), its sub-clusters, the most sub-clusters of one cluster. */
  clusters: number;
  subClusters: number;
  maxSubs: number;
  /** The clustered index keeps float32 rows in cluster order (method 'cluster'). */
  clusterF32: boolean;
  /** The clustered index keeps 8-bit rows in cluster order (method 'cluster-u8'; needs u8). */
  clusterU8: boolean;
}

export const NO_COMPACT: CompactShape = { u8: false, f16: false, clusters: 0, subClusters: 0, maxSubs: 0, clusterF32: false, clusterU8: false };

export interface DatabaseShape {
  rows: number;
  stride: number;
  /** Candidate rows in the KD-tree (and in the clustered index). */
  kdRows: number;
  kdNodes: number;
  /** KdRecords of the 8-bit KD walk (kdRecordCount); used only with compact u8. */
  kdRecords: number;
  /** Compact copies and indexes; absent = none. */
  compact?: CompactShape;
}

/** Where one database's static data lives. Regions that were not built are 0. */
export interface DatabaseRegions {
  ctx: number;
  features: number;
  mask: number;
  tags: number;
  coarseBounds: number;
  fineBounds: number;
  coarseInfo: number;
  fineInfo: number;
  kdFeatures: number;
  kdOrig: number;
  kdNodes: number;
  kdBoxes: number;
  /** Persistent bias (Matcher.setBias) and its block / node minima. */
  bias: number;
  biasCoarse: number;
  biasFine: number;
  biasNode: number;
  /** 8-bit codec: U8P_* struct, per-byte multipliers (u8RowBytes), per-dim offsets (f64). */
  u8Params: number;
  u8W: number;
  u8Lo: number;
  u8Dim: number;
  /** 8-bit rows in frame order (u8RowBytes each). */
  u8Rows: number;
  /** Half-precision rows in frame order (f16RowBytes each). */
  f16Rows: number;
  /** 16-bit box codec: BOX16_* struct, per-dim step and offset (f32). */
  box16Params: number;
  box16Step: number;
  box16Lo: number;
  /** 8-bit rows in KD leaf order. */
  kdU8: number;
  /** Per record node: a KdRecord (fine-unit boxes and slots of up to four subtrees). */
  kdRec: number;
  coarseBox16: number;
  fineBox16: number;
  /** Clustered index: CL_* struct; clusters and sub-clusters (centres, radii, info); cluster boxes; rows. */
  clusters: number;
  clusterCentres: number;
  clusterRadius: number;
  clusterInfo: number;
  subCentres: number;
  subRadius: number;
  subInfo: number;
  clusterOrig: number;
  clusterRowRadius: number;
  clusterU8: number;
  clusterF32: number;
  clusterBox16: number;
  end: number;
}

export function coarseBlocks(rows: number): number {
  return Math.ceil(rows / COARSE_BLOCK);
}

export function fineBlocks(rows: number): number {
  return Math.ceil(rows / FINE_BLOCK);
}

/**
 * Bytes of one 8-bit row: `stride` codes, then the row's error bound (f32), padded to whole v128
 * loads (32 bytes for 27 or 28 dims). The kernels read the row in 16-byte chunks; the error bound
 * and padding bytes have multiplier 0, so they never enter the code distance.
 */
export function u8RowBytes(stride: number): number {
  return alignUp(stride + 4, 16);
}

/** Bytes of one half-precision row: `stride` halves, the row's error bound (f32), padding (64 bytes for 28). */
export function f16RowBytes(stride: number): number {
  return alignUp(2 * stride + 4, 16);
}

/** Bytes of one 16-bit box: `stride` low codes then `stride` high codes. */
export function box16Bytes(stride: number): number {
  return 4 * stride;
}

export function planDatabase(base: number, s: DatabaseShape): DatabaseRegions {
  const p = new Planner(base);
  const c = s.compact ?? NO_COMPACT;
  const row = s.stride * 4;
  const cb = coarseBlocks(s.rows);
  const fb = fineBlocks(s.rows);
  const rb8 = u8RowBytes(s.stride);
  const b16 = box16Bytes(s.stride);
  const k = c.clusters;
  const ctx = p.take(CTX_SIZE);
  const features = p.take(s.rows * row);
  const mask = p.take(s.rows);
  const tags = p.take(s.rows * 4);
  const coarseBounds = p.take(cb * 2 * row);
  const fineBounds = p.take(fb * 2 * row);
  const coarseInfo = p.take(cb * BLOCK_INFO_SIZE);
  const fineInfo = p.take(fb * BLOCK_INFO_SIZE);
  const kdFeatures = p.take(s.kdRows * row);
  const kdOrig = p.take(s.kdRows * 4);
  const kdNodes = p.take(s.kdNodes * NODE_SIZE);
  const kdBoxes = p.take(s.kdNodes * 2 * row);
  const bias = p.take(s.rows * 4);
  const biasCoarse = p.take(cb * 4);
  const biasFine = p.take(fb * 4);
  const biasNode = p.take(s.kdNodes * 4);
  const u8 = c.u8 || c.clusterU8;
  const u8Params = p.takeIf(u8, U8P_SIZE);
  const u8W = p.takeIf(u8, rb8);
  const u8Lo = p.takeIf(u8, 8 * s.stride);
  const u8Dim = p.takeIf(u8, 4 * s.stride);
  const u8Rows = p.takeIf(c.u8, s.rows * rb8);
  const f16Rows = p.takeIf(c.f16, s.rows * f16RowBytes(s.stride));
  // The 16-bit box codec serves the KD-tree and box pruning over 8-bit rows and the cluster boxes.
  const box16 = c.u8 || k > 0;
  const box16Params = p.takeIf(box16, BOX16_SIZE);
  const box16Step = p.takeIf(box16, 4 * s.stride);
  const box16Lo = p.takeIf(box16, 4 * s.stride);
  const kdU8 = p.takeIf(c.u8, s.kdRows * rb8);
  const kdRec = p.takeIf(c.u8, s.kdRecords * kdRecordBytes(s.stride));
  const coarseBox16 = p.takeIf(c.u8, cb * b16);
  const fineBox16 = p.takeIf(c.u8, fb * b16);
  const hasClusters = k > 0;
  const clusters = p.takeIf(hasClusters, CL_SIZE);
  const clusterCentres = p.takeIf(hasClusters, k * row);
  const clusterRadius = p.takeIf(hasClusters, k * 4);
  const clusterInfo = p.takeIf(hasClusters, k * CLUSTER_INFO_SIZE);
  const subCentres = p.takeIf(hasClusters, c.subClusters * f16RowBytes(s.stride));
  const subRadius = p.takeIf(hasClusters, c.subClusters * 4);
  const subInfo = p.takeIf(hasClusters, c.subClusters * CLUSTER_INFO_SIZE);
  const clusterOrig = p.takeIf(hasClusters, s.kdRows * 4);
  const clusterRowRadius = p.takeIf(hasClusters, s.kdRows * 4);
  const clusterU8 = p.takeIf(hasClusters && c.clusterU8, s.kdRows * rb8);
  const clusterF32 = p.takeIf(hasClusters && c.clusterF32, s.kdRows * row);
  const clusterBox16 = p.takeIf(hasClusters, k * b16);
  return {
    ctx, features, mask, tags, coarseBounds, fineBounds, coarseInfo, fineInfo,
    kdFeatures, kdOrig, kdNodes, kdBoxes, bias, biasCoarse, biasFine, biasNode,
    u8Params, u8W, u8Lo, u8Dim, u8Rows, f16Rows, box16Params, box16Step, box16Lo, kdU8, kdRec, coarseBox16, fineBox16,
    clusters, clusterCentres, clusterRadius, clusterInfo, subCentres, subRadius, subInfo, clusterOrig, clusterRowRadius, clusterU8, clusterF32, clusterBox16,
    end: alignUp(p.end),
  };
}

export interface SlotShape extends DatabaseShape {
  /** Queries per kernel call. */
  batchCapacity: number;
  /** Range pairs per kernel call. */
  rangeCapacity: number;
  /** KD traversal stack entries. */
  stackCapacity: number;
}

/**
 * One thread's scratch: its request struct, query and result slots, ranges and per-call bias, and
 * the per-query scratch of the compact and clustered methods (the query's 8-bit codes, the visit
 * order of the clusters). Concurrent searches (pool workers) each use their own slot.
 */
export interface SlotRegions {
  req: number;
  queries: number;
  results: number;
  bestCosts: number;
  ranges: number;
  rangeTable: number;
  bias: number;
  biasCoarse: number;
  biasFine: number;
  biasNode: number;
  stack: number;
  /** The query in 16-bit code units (one i16 per byte of an 8-bit row); 0 without the 8-bit codec. */
  qcode: number;
  /** Cluster visit lists: (f32 key, i32 index) per cluster, then per sub-cluster of one cluster; 0 without clusters. */
  scratch: number;
  end: number;
  batchCapacity: number;
  rangeCapacity: number;
  stackCapacity: number;
  scratchCapacity: number;
}

export function planSlot(base: number, s: SlotShape): SlotRegions {
  const p = new Planner(base);
  const c = s.compact ?? NO_COMPACT;
  const req = p.take(REQ_SIZE);
  const queries = p.take(s.batchCapacity * s.stride * 4);
  const results = p.take(s.batchCapacity * RESULT_SIZE);
  const bestCosts = p.take(s.batchCapacity * 4);
  const ranges = p.take(s.rangeCapacity * 8);
  const rangeTable = p.take(s.batchCapacity * 8);
  const bias = p.take(s.rows * 4);
  const biasCoarse = p.take(coarseBlocks(s.rows) * 4);
  const biasFine = p.take(fineBlocks(s.rows) * 4);
  const biasNode = p.take(s.kdNodes * 4);
  const stack = p.take(s.stackCapacity * KD_STACK_ENTRY);
  const qcode = p.takeIf(c.u8 || c.clusterU8, 2 * u8RowBytes(s.stride));
  const scratch = p.takeIf(c.clusters > 0, (c.clusters + c.maxSubs) * 8);
  return {
    req, queries, results, bestCosts, ranges, rangeTable, bias, biasCoarse, biasFine, biasNode, stack, qcode, scratch,
    end: alignUp(p.end),
    batchCapacity: s.batchCapacity, rangeCapacity: s.rangeCapacity, stackCapacity: s.stackCapacity, scratchCapacity: c.clusters + c.maxSubs,
  };
}

/**
 * The most disjoint, non-adjacent, non-empty ranges [0, rows) can hold, plus one: any normalised
 * range list fits in a slot sized with this.
 */
export function maxRanges(rows: number): number {
  return Math.ceil(rows / 2) + 1;
}

/**
 * KD traversal stack entries per slot. A depth-first walk holds at most one pending sibling per
 * level plus the two children just pushed (the 8-bit walk over records: three per record level plus
 * four, see kdRecordStackNeed), and halving by count bounds the depth by 31 for any 32-bit row
 * count, so 64 is never exceeded.
 */
export const KD_STACK_CAPACITY = 64;

/** Bytes per traversal stack entry: (node, bound) for kdtree; node, bound, rows, lowest frame for kdtree-u8. */
export const KD_STACK_ENTRY = 32;

/** Shape of one thread slot for a database of `rows` x `stride` with `kdNodes` tree nodes. */
export function slotShapeFor(rows: number, stride: number, kdNodes: number, batchCapacity: number, compact: CompactShape = NO_COMPACT): SlotShape {
  return { rows, stride, kdRows: 0, kdNodes, kdRecords: 0, compact, batchCapacity, rangeCapacity: maxRanges(rows), stackCapacity: KD_STACK_CAPACITY };
}

/** "12.5 MiB": byte counts in messages. */
export function formatBytes(n: number): string {
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(2)} GiB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MiB`;
  if (n >= 2 ** 10) return `${(n / 2 ** 10).toFixed(1)} KiB`;
  return `${n} bytes`;
}

/**
 * The kernel ABI: every backend (SIMD WASM, scalar WASM, plain JS) exposes these functions over
 * byte addresses into the same layout. Costs are float32 values; frames are -1 when nothing beat
 * the best cost.
 */
export interface SearchKernels {
  search(method: number, ctx: number, req: number, query: number, bestCost: number, out: number): number;
  searchBatch(method: number, ctx: number, req: number, queries: number, count: number, bestCosts: number, out: number): void;
  firstAllowed(ctx: number, req: number, ranges: number, rangeCount: number): number;
  blockMinBias(bias: number, rows: number, shift: number, out: number): void;
  kdNodeMinBias(ctx: number, bias: number, out: number): void;
  rowCost(a: number, b: number, stride: number): number;
  rowBoxBound(q: number, lo: number, hi: number, stride: number): number;
  /** The query at `q` in 16-bit code units into `qcode`; returns its certified rounding residual. */
  encodeQueryU8(ctx: number, q: number, qcode: number): number;
  /** Sum of squared code differences of the coded query and one 8-bit row. */
  rowCodeDistance(ctx: number, qcode: number, row: number): number;
  /** Float32 squared distance of a query and one half-precision row, in the row cost's lane order. */
  rowHalfDistance(q: number, row: number, stride: number): number;
  /** Squared distances (i32 at `out`) from the coded query to the four fine-unit boxes of a KD record. */
  recordBoxDistances(rec: number, qcode: number, stride: number, out: number): void;
  /** The certified float32 cost lower bound of a fine-unit box at squared code distance `k`. */
  boxCostLow(k: number, rho: number, u: number, stride: number): number;
  /** First byte the host may use. */
  heapBase(): number;
}
