/**
 * Host-owned layout of the search kernels' linear memory: the region planners (planDatabase,
 * planSlot), the struct offsets the kernels read, the per-memory bump allocator and the Heap views.
 *
 * The kernels (assembly/) never allocate: the host reserves every region once per database, grows
 * the memory before writing, and re-derives its typed-array views after growth (growth detaches a
 * non-shared `memory.buffer`, and a shared one gets a new, longer buffer object).
 *
 * Struct offsets below mirror assembly/layout.ts; test/search/search-memory.test.ts checks they agree.
 */

export const METHOD_BRUTE = 0;
export const METHOD_EARLY = 1;
export const METHOD_AABB = 2;
export const METHOD_KDTREE = 3;

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
export const CTX_SIZE = 64;

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
export const REQ_SIZE = 64;

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
  i32!: Int32Array;
  u32!: Uint32Array;
  f32!: Float32Array;
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
    this.i32 = new Int32Array(buf);
    this.u32 = new Uint32Array(buf);
    this.f32 = new Float32Array(buf);
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
}

export interface DatabaseShape {
  rows: number;
  stride: number;
  /** Candidate rows in the KD-tree. */
  kdRows: number;
  kdNodes: number;
}

/** Where one database's static data lives. */
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
  end: number;
}

export function coarseBlocks(rows: number): number {
  return Math.ceil(rows / COARSE_BLOCK);
}

export function fineBlocks(rows: number): number {
  return Math.ceil(rows / FINE_BLOCK);
}

export function planDatabase(base: number, s: DatabaseShape): DatabaseRegions {
  const p = new Planner(base);
  const row = s.stride * 4;
  const cb = coarseBlocks(s.rows);
  const fb = fineBlocks(s.rows);
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
  return {
    ctx, features, mask, tags, coarseBounds, fineBounds, coarseInfo, fineInfo,
    kdFeatures, kdOrig, kdNodes, kdBoxes, bias, biasCoarse, biasFine, biasNode, end: alignUp(p.end),
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
 * One thread's scratch: its request struct, query and result slots, ranges and per-call bias.
 * Concurrent searches (pool workers) each use their own slot.
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
  end: number;
  batchCapacity: number;
  rangeCapacity: number;
  stackCapacity: number;
}

export function planSlot(base: number, s: SlotShape): SlotRegions {
  const p = new Planner(base);
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
  const stack = p.take(s.stackCapacity * 8);
  return {
    req, queries, results, bestCosts, ranges, rangeTable, bias, biasCoarse, biasFine, biasNode, stack,
    end: alignUp(p.end),
    batchCapacity: s.batchCapacity, rangeCapacity: s.rangeCapacity, stackCapacity: s.stackCapacity,
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
 * level plus the two children just pushed, and halving by count bounds the depth by 31 for any
 * 32-bit row count, so 64 is never exceeded.
 */
export const KD_STACK_CAPACITY = 64;

/** Shape of one thread slot for a database of `rows` x `stride` with `kdNodes` tree nodes. */
export function slotShapeFor(rows: number, stride: number, kdNodes: number, batchCapacity: number): SlotShape {
  return { rows, stride, kdRows: 0, kdNodes, batchCapacity, rangeCapacity: maxRanges(rows), stackCapacity: KD_STACK_CAPACITY };
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
  /** First byte the host may use. */
  heapBase(): number;
}
