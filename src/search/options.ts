/**
 * Every option the search accepts, with its valid range. Construction options (Matcher, MatcherPool)
 * are checked once, in full; per-search options are checked where they are read (wasm/staging.ts), with
 * checks that cost nothing when the value is good.
 */
import type { WasmSource } from './wasm/load.js';
import type { FrameRange } from './ranges.js';
import { refuseUnknownOptions, type OptionKeys } from '../util/option-keys.js';

export type SearchMethod =
  | 'brute' | 'early' | 'window' | 'aabb' | 'kdtree'
  | 'brute-u8' | 'brute-f16' | 'aabb-u8' | 'kdtree-u8' | 'cluster' | 'cluster-u8';
export type Backend = 'wasm-simd' | 'wasm-scalar' | 'js';
/** Compact copies of the feature matrix (docs/search.md, "Compact storage"). */
export type CompactFormat = 'u8' | 'f16';

export const SEARCH_METHODS: readonly SearchMethod[] = [
  'brute', 'early', 'window', 'aabb', 'kdtree', 'brute-u8', 'brute-f16', 'aabb-u8', 'kdtree-u8', 'cluster', 'cluster-u8',
];
export const COMPACT_FORMATS: readonly CompactFormat[] = ['u8', 'f16'];

/** What each method needs besides the float32 rows, boxes and KD-tree every matcher has. */
export const METHOD_NEEDS: Record<SearchMethod, { compact?: CompactFormat; clusters?: boolean }> = {
  brute: {},
  early: {},
  window: {},
  aabb: {},
  kdtree: {},
  'brute-u8': { compact: 'u8' },
  'brute-f16': { compact: 'f16' },
  'aabb-u8': { compact: 'u8' },
  'kdtree-u8': { compact: 'u8' },
  cluster: { clusters: true },
  'cluster-u8': { compact: 'u8', clusters: true },
};

/**
 * The Matcher options the methods need: the compact copies and the clustered index are built only
 * when a method asks for them (they cost memory and load time).
 */
export function matcherOptionsFor(methods: readonly SearchMethod[]): { compact: CompactFormat[]; clusters: boolean } {
  const compact = new Set<CompactFormat>();
  let clusters = false;
  for (const m of methods) {
    const need = METHOD_NEEDS[m];
    if (need.compact) compact.add(need.compact);
    if (need.clusters) clusters = true;
  }
  return { compact: [...compact], clusters };
}

/** The clustered methods (the ones `probes` applies to). */
export function isClusterMethod(m: SearchMethod): boolean {
  return m === 'cluster' || m === 'cluster-u8';
}
export const BACKENDS: ReadonlyArray<Backend | 'auto'> = ['auto', 'wasm-simd', 'wasm-scalar', 'js'];

/** Inclusive [min, max] of each integer option. */
export const OPTION_RANGES = {
  /** Rows per KD-tree leaf: 1 is a full binary tree, large values approach brute force. */
  kdLeafSize: [1, 65536],
  /** Queries per kernel call (searchBatch splits larger batches). */
  batchCapacity: [1, 65536],
  workerBatchCapacity: [1, 65536],
  /** Worker threads of a MatcherPool (0: the calling thread answers everything). */
  threads: [0, 64],
  /** Pages (64 KiB) of a pool's shared memory: a WebAssembly memory has at most 65536 (4 GiB). */
  maximumPages: [1, 65536],
  /** Clusters of the clustered index (at most the candidate count are built; the build's cost grows with the square). */
  clusters: [1, 4096],
  /** Seed of the clustered index's k-means. */
  clusterSeed: [0, 4294967295],
  /** Clusters an approximate clustered search visits. */
  probes: [1, 2147483647],
} as const satisfies Record<string, readonly [number, number]>;

export type IntegerOption = keyof typeof OPTION_RANGES;

/** Seed of the clustered index's k-means when none is given ("mmcl"). */
export const DEFAULT_CLUSTER_SEED = 0x6d6d636c;
export const DEFAULT_BATCH_CAPACITY = 256;
export const DEFAULT_WORKER_BATCH_CAPACITY = 1024;

export interface MatcherOptions {
  /** 'auto' (default): SIMD WASM when the engine supports it, else scalar WASM. */
  backend?: Backend | 'auto';
  /** Memory to place the database in (shared memories enable MatcherPool). Default: a new one, shared when possible. */
  memory?: WebAssembly.Memory;
  /** Where the WASM build comes from (browser: URL / Response / bytes). Node default: build/ in the package. */
  wasm?: WasmSource;
  /** KD-tree leaf size (rows), 1..65536; default from the candidate count (defaultKdLeafSize: 16 up to 65,536 candidates, then larger). */
  kdLeafSize?: number;
  /** Queries per kernel call in searchBatch (larger batches are split), 1..65536, default 256. */
  batchCapacity?: number;
  /**
   * Compact copies of the feature matrix to build (default none): 'u8' (8-bit codes, 32 bytes a row
   * for 27 dims; methods brute-u8, aabb-u8, kdtree-u8, cluster-u8) and 'f16' (half precision, 64
   * bytes a row; brute-f16). Exact: compact rows only decide which rows are re-scored in float32.
   */
  compact?: ReadonlyArray<CompactFormat>;
  /**
   * The clustered index (methods cluster and cluster-u8): true for about sqrt(candidates) k-means
   * clusters (at most 4096), or a cluster count (1..4096; at most the candidate count are built).
   * Default none.
   */
  clusters?: boolean | number;
  /** Seed of the clustered index's k-means (integer, default a fixed constant: the index is deterministic). */
  clusterSeed?: number;
}

/** Every MatcherOptions key (the compiler keeps the table complete). */
const MATCHER_OPTION_KEYS: OptionKeys<MatcherOptions> = { backend: true, memory: true, wasm: true, kdLeafSize: true, batchCapacity: true, compact: true, clusters: true, clusterSeed: true };

export interface PoolOptions extends Omit<MatcherOptions, 'memory'> {
  /** Worker threads, 0..64; default: hardware concurrency (at least 1). 0 runs on the calling thread. */
  threads?: number;
  /** Queries per worker kernel call, 1..65536, default 1024. */
  workerBatchCapacity?: number;
  /** The worker script (compiled pool/worker.js). Default: next to this module, or dist/ when running from sources. */
  workerUrl?: URL | string;
  /** Maximum pages of the shared memory (it cannot grow past this), 1..65536, default 16384 (1 GiB). */
  maximumPages?: number;
  /**
   * The calling thread answers a share of every batch too, while the workers answer theirs (so
   * `threads: 1, callerShare: true` uses two threads). Waking a worker costs tens of microseconds;
   * for fast methods on small batches that is most of a share's work, and doing one share at home
   * hides it.
   */
  callerShare?: boolean;
}

/** Every PoolOptions key: the matcher's (memory too, refused below with its own reason: the pool makes its memory) and the pool's own. */
const POOL_OPTION_KEYS = { ...MATCHER_OPTION_KEYS, ...({ threads: true, workerBatchCapacity: true, workerUrl: true, maximumPages: true, callerShare: true } satisfies OptionKeys<Omit<PoolOptions, keyof MatcherOptions>>) };

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
  /**
   * Clustered methods only: search the `probes` clusters nearest to the query (an approximate
   * answer; measure its recall) instead of every cluster that may hold a better row. When none of
   * them holds an allowed frame below bestCost the search goes on until one is found, so frame -1
   * stays exact. Default: exact.
   */
  probes?: number;
}

/** Every SearchOptions key, and every BatchSearchOptions key (checked per call: a misspelt `normalised: true` searched normalised queries as raw ones). */
const SEARCH_OPTION_KEYS: OptionKeys<SearchOptions> = { method: true, normalized: true, ranges: true, bestCost: true, requireTags: true, excludeTags: true, excludeRanges: true, bias: true, probes: true };
export const BATCH_SEARCH_OPTION_KEYS: OptionKeys<BatchSearchOptions> = { ...SEARCH_OPTION_KEYS, excludeRangesPerQuery: true };

export interface BatchSearchOptions extends Omit<SearchOptions, 'bestCost'> {
  /** One best cost for all queries, or one per query. */
  bestCost?: number | Float32Array;
  /** Per-query excluded ranges (in addition to excludeRanges), e.g. each character's current frame. */
  excludeRangesPerQuery?: ReadonlyArray<ReadonlyArray<FrameRange> | null | undefined>;
}

/** `value` (default `fallback`) as an integer option, or a RangeError naming the option and its range. */
export function integerOption(name: IntegerOption, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const [min, max] = OPTION_RANGES[name];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer in [${min}, ${max}], got ${describe(value)}`);
  }
  return value;
}

export interface ResolvedMatcherOptions {
  backend: Backend | 'auto';
  /** 0: defaultKdLeafSize of the candidate count. */
  kdLeafSize: number;
  batchCapacity: number;
  /** Compact copies to build. */
  compact: { u8: boolean; f16: boolean };
  /** Clusters asked for: 0 none, -1 the default count, else the count. */
  clusters: number;
  clusterSeed: number;
}

/** Checks every Matcher option (before anything is allocated) and fills in the defaults. */
export function resolveMatcherOptions(opts: MatcherOptions, known: object = MATCHER_OPTION_KEYS, what = 'Matcher option '): ResolvedMatcherOptions {
  if (opts === null || typeof opts !== 'object') throw new TypeError(`Matcher options must be an object, got ${describe(opts)}`);
  refuseUnknownOptions(opts, known, what);
  const backend = opts.backend ?? 'auto';
  if (!BACKENDS.includes(backend)) throw new RangeError(`unknown backend '${String(backend)}' (expected ${BACKENDS.join(', ')})`);
  if (opts.memory !== undefined && !(opts.memory instanceof WebAssembly.Memory)) {
    throw new TypeError(`memory must be a WebAssembly.Memory, got ${describe(opts.memory)}`);
  }
  return {
    backend,
    kdLeafSize: opts.kdLeafSize === undefined ? 0 : integerOption('kdLeafSize', opts.kdLeafSize, 0),
    batchCapacity: integerOption('batchCapacity', opts.batchCapacity, DEFAULT_BATCH_CAPACITY),
    compact: compactOption(opts.compact),
    clusters: clustersOption(opts.clusters),
    clusterSeed: integerOption('clusterSeed', opts.clusterSeed, DEFAULT_CLUSTER_SEED),
  };
}

/** The `compact` option: an array of distinct known formats. */
function compactOption(v: unknown): { u8: boolean; f16: boolean } {
  if (v === undefined) return { u8: false, f16: false };
  if (!Array.isArray(v)) throw new TypeError(`compact must be an array of formats (${COMPACT_FORMATS.join(', ')}), got ${describe(v)}`);
  for (const f of v) {
    if (!COMPACT_FORMATS.includes(f as CompactFormat)) throw new RangeError(`compact: unknown format ${describe(f)} (expected ${COMPACT_FORMATS.join(', ')})`);
  }
  return { u8: v.includes('u8'), f16: v.includes('f16') };
}

/** The `clusters` option: false / absent (0), true (-1: the default count) or a count. */
function clustersOption(v: unknown): number {
  if (v === undefined || v === false) return 0;
  if (v === true) return -1;
  return integerOption('clusters', v, 0);
}

/** Checks `probes` for a search with `method`; returns the kernel's value (0: exact). */
export function probesOption(v: unknown, method: SearchMethod): number {
  if (v === undefined) return 0;
  const n = integerOption('probes', v, 0);
  if (!isClusterMethod(method)) throw new RangeError(`probes applies to the clustered methods (cluster, cluster-u8), not '${method}'`);
  return n;
}

export interface ResolvedPoolOptions extends ResolvedMatcherOptions {
  threads: number;
  workerBatchCapacity: number;
  maximumPages: number | undefined;
  callerShare: boolean;
}

/** Checks every MatcherPool option; `defaultThreads` is used when `threads` is absent. */
export function resolvePoolOptions(opts: PoolOptions, defaultThreads: number): ResolvedPoolOptions {
  const base = resolveMatcherOptions(opts, POOL_OPTION_KEYS, 'MatcherPool option ');
  if ((opts as { memory?: unknown }).memory !== undefined) throw new TypeError('MatcherPool creates its own shared memory: the memory option is not accepted');
  if (opts.callerShare !== undefined && typeof opts.callerShare !== 'boolean') throw new TypeError(`callerShare must be a boolean, got ${describe(opts.callerShare)}`);
  return {
    ...base,
    threads: integerOption('threads', opts.threads, Math.min(defaultThreads, OPTION_RANGES.threads[1])),
    workerBatchCapacity: integerOption('workerBatchCapacity', opts.workerBatchCapacity, DEFAULT_WORKER_BATCH_CAPACITY),
    maximumPages: opts.maximumPages === undefined ? undefined : integerOption('maximumPages', opts.maximumPages, 0),
    callerShare: opts.callerShare ?? false,
  };
}

/** Throws unless `c` is a usable best cost (any number but NaN; +Infinity means "no bound"). */
export function checkBestCost(c: number): void {
  if (typeof c !== 'number') throw new TypeError(`bestCost must be a number, got ${describe(c)}`);
  if (c !== c) throw new RangeError('bestCost is NaN');
}

/** Throws unless `normalized` is a boolean or absent (a truthy string must not silently mean false). */
export function checkNormalizedFlag(normalized: unknown): void {
  if (normalized !== undefined && typeof normalized !== 'boolean') throw new TypeError(`normalized must be a boolean, got ${describe(normalized)}`);
}

function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? (v.constructor?.name ?? 'an object') : typeof v;
}
