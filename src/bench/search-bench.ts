/**
 * The search benchmark behind `motionmatch bench`: for every database x sigma x backend x method it
 * times single queries through Matcher.search (one measurement per query, after warm-up), checks
 * every result against the JS brute-force reference, and times batches (Matcher.searchBatch on
 * the calling thread, MatcherPool with N workers) with tinybench.
 *
 * Slow combinations (JS brute force on 650k rows is ~50 ms a query) are bounded by a time budget
 * per table row: a row stops once it has spent `rowSeconds` (after at least MIN_QUERIES queries)
 * and says so. The reference has its own, larger budget.
 */
import type { Database } from '../database/database.js';
import { Matcher, type Backend, type FrameRange, type SearchMethod, type SearchOptions, type SearchResult } from '../search/matcher.js';
import { MatcherPool } from '../search/pool/pool.js';
import { SEARCH_METHODS, METHOD_NEEDS, matcherOptionsFor } from '../search/options.js';
import { BenchSetLoader, loadDatabaseSet, type BenchSet, type BenchSetName } from './datasets.js';
import { machineInfo, type ApproximateRow, type BatchRow, type BenchReport, type BenchRow, type BuildInfo } from './report.js';

export const ALL_METHODS: readonly SearchMethod[] = SEARCH_METHODS;

/** Probe counts of the approximate clustered rows (clusters searched per query). */
export const DEFAULT_PROBES: readonly number[] = [1, 4, 16];
export const ALL_BACKENDS: readonly Backend[] = ['js', 'wasm-scalar', 'wasm-simd'];

export interface BenchConfig {
  /** Sets to run (ignored when dbFile is given). */
  sets: BenchSetName[];
  /** Benchmark this .mmdb file instead of the sets. */
  dbFile?: string;
  /** Folder of real BVH files (resolved), or null when absent. */
  mocapDir: string | null;
  queries: number;
  noise: number[];
  methods: SearchMethod[];
  backends: Backend[];
  /** Methods timed in batch mode. */
  batchMethods: SearchMethod[];
  /** Probe counts of the approximate clustered rows (empty: none; they need a clustered method in `methods`). */
  probes: number[];
  /** MatcherPool worker counts for the batch rows (searchBatch on the calling thread is always timed). */
  threads: number[];
  /** Time budget per single-query row (seconds). */
  rowSeconds: number;
  /** Time budget of the JS brute-force reference per set and sigma (seconds). */
  refSeconds: number;
  /** tinybench time budget per batch task (seconds). */
  batchSeconds: number;
  seed: number;
  quick: boolean;
}

export interface BenchHooks {
  /** Called as work proceeds (e.g. a progress bar). */
  progress?: (done: number, total: number, label: string) => void;
  /** Messages worth showing the user (skipped sets, fallbacks). */
  log?: (message: string) => void;
}

/** Every row times at least this many queries (or all of them when fewer were asked for). */
export const MIN_QUERIES = 20;
/** Relative cost tolerance when comparing with the reference (costs are normally bit-identical). */
export const COST_TOLERANCE = 1e-5;

// ---------------------------------------------------------------------------------------------
// Queries

/** The project's seeded generator (mulberry32) and normal samples, re-exported for the bench modules. */
import { createRandom as seededRandom, gaussian } from '../util/prng.js';
import { ApproximateMatcher, type ApproximateResult } from '../search/approximate.js';

/** The approximate rows' settings (opt-in mode; exact rows never use it). */
const APPROX_COMPONENTS = 8;
const APPROX_CANDIDATES = 32;
export { seededRandom, gaussian };

/** FNV-1a of a string mixed with a number: per-set, per-sigma seeds that do not depend on order. */
export function mixSeed(seed: number, label: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** Bytes a method reads per row it looks at: its compact row, else the float32 row. */
export function bytesPerRow(m: Matcher, method: SearchMethod): number {
  const need = METHOD_NEEDS[method];
  const c = m.buildStats.compact;
  if (need.compact === 'u8') return c.u8RowBytes;
  if (need.compact === 'f16') return c.f16RowBytes;
  return m.db.stride * 4;
}

/** Frames that a search may return (db.candidates). */
export function candidateFrames(db: Database): Int32Array {
  let n = 0;
  for (let i = 0; i < db.frameCount; i++) if (db.candidates[i]) n++;
  const out = new Int32Array(n);
  n = 0;
  for (let i = 0; i < db.frameCount; i++) if (db.candidates[i]) out[n++] = i;
  return out;
}

/**
 * n normalised queries (n x stride floats, padding 0): random candidate rows of db.features plus
 * N(0, sigma^2) noise on every meaningful dimension. Returns the queries and their source frames.
 */
export function makeQueries(db: Database, n: number, sigma: number, rand: () => number): { queries: Float32Array; sources: Int32Array } {
  const cand = candidateFrames(db);
  if (cand.length === 0) throw new Error('the database has no candidate frames to draw queries from');
  const { dims, stride, features } = db;
  const queries = new Float32Array(n * stride);
  const sources = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const i = cand[Math.min(cand.length - 1, Math.floor(rand() * cand.length))];
    sources[k] = i;
    for (let j = 0; j < dims; j++) queries[k * stride + j] = features[i * stride + j] + (sigma > 0 ? sigma * gaussian(rand) : 0);
  }
  return { queries, sources };
}

/**
 * The maximal runs of candidate frames, as [start, end) ranges: the `window` rows search them.
 * Together they hold every candidate, so a window search over them must equal brute force; the
 * row shows what walking a range list (one range per clip) costs.
 */
export function candidateRuns(db: Database): FrameRange[] {
  const out: FrameRange[] = [];
  let start = -1;
  for (let i = 0; i <= db.frameCount; i++) {
    const c = i < db.frameCount && db.candidates[i] !== 0;
    if (c && start < 0) start = i;
    else if (!c && start >= 0) {
      out.push([start, i]);
      start = -1;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Statistics

/** Median of the first n values (sorted copy). */
export function median(values: ArrayLike<number>, n = values.length): number {
  if (n === 0) return NaN;
  const s = Float64Array.from({ length: n }, (_, i) => values[i]).sort();
  return n % 2 ? s[(n - 1) >> 1] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/** Nearest-rank percentile (p in 0..100) of the first n values. */
export function percentile(values: ArrayLike<number>, p: number, n = values.length): number {
  if (n === 0) return NaN;
  const s = Float64Array.from({ length: n }, (_, i) => values[i]).sort();
  return s[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))];
}

export function costsAgree(cost: number, ref: number): boolean {
  if (cost === ref) return true;
  return Math.abs(cost - ref) <= COST_TOLERANCE * Math.max(Math.abs(ref), Math.abs(cost));
}

// ---------------------------------------------------------------------------------------------
// Single-query timing

interface RowRun {
  count: number;
  capped: boolean;
  timesMs: Float64Array;
  frames: Int32Array;
  costs: Float32Array;
  /** Sums over the timed queries of the compact / clustered statistics (0 for the float32 methods). */
  bounded: number;
  rescored: number;
  groups: number;
}

/** What timeRow needs of a searcher: Matcher.search, and its statistics when it keeps them. */
type Searcher = Pick<Matcher, 'search'> & { lastStats?: Matcher['lastStats'] };

/**
 * Times queries one by one, in order, until all are done or `budgetMs` of wall time is spent
 * (after at least MIN_QUERIES). Warm-up runs a few queries from the end of the list first, so the
 * timed ones do not find their own paths cached.
 */
function timeRow(m: Searcher, views: Float32Array[], opts: SearchOptions, budgetMs: number): RowRun {
  const n = views.length;
  const out: SearchResult = { frame: -1, clip: -1, clipTime: 0, cost: 0 };
  const warmStart = performance.now();
  for (let w = 0; w < Math.min(n, 10); w++) {
    m.search(views[n - 1 - w], opts, out);
    if (w >= 1 && performance.now() - warmStart > 0.1 * budgetMs) break;
  }
  const timesMs = new Float64Array(n);
  const frames = new Int32Array(n);
  const costs = new Float32Array(n);
  const minQueries = Math.min(n, MIN_QUERIES);
  const start = performance.now();
  let bounded = 0;
  let rescored = 0;
  let groups = 0;
  let k = 0;
  for (; k < n; k++) {
    if (k >= minQueries && performance.now() - start >= budgetMs) break;
    const q = views[k];
    const t0 = performance.now();
    m.search(q, opts, out);
    timesMs[k] = performance.now() - t0;
    frames[k] = out.frame;
    costs[k] = out.cost;
    if (m.lastStats) {
      bounded += m.lastStats.bounded;
      rescored += m.lastStats.rescored;
      groups += m.lastStats.groups;
    }
  }
  return { count: k, capped: k < n, timesMs, frames, costs, bounded, rescored, groups };
}

function compare(run: { frames: Int32Array; costs: Float32Array }, count: number, ref: RowRun): { mismatches: number; checked: number; examples: NonNullable<BenchRow['mismatchExamples']> } {
  const checked = Math.min(count, ref.count);
  let mismatches = 0;
  const examples: NonNullable<BenchRow['mismatchExamples']> = [];
  for (let k = 0; k < checked; k++) {
    if (run.frames[k] === ref.frames[k] && costsAgree(run.costs[k], ref.costs[k])) continue;
    mismatches++;
    if (examples.length < 3) examples.push({ query: k, frame: run.frames[k], cost: run.costs[k], refFrame: ref.frames[k], refCost: ref.costs[k] });
  }
  return { mismatches, checked, examples };
}

// ---------------------------------------------------------------------------------------------
// Batch timing (tinybench when installed)

interface BatchTiming {
  medianMs: number;
  calls: number;
  timer: string;
}

type TinybenchModule = typeof import('tinybench');
let tinybench: TinybenchModule | null | undefined;

/** tinybench is a dependency; should it be missing (a bundle that left it out), a plain loop times batches. */
async function loadTinybench(): Promise<TinybenchModule | null> {
  if (tinybench === undefined) {
    try {
      tinybench = await import('tinybench');
    } catch {
      tinybench = null;
    }
  }
  return tinybench;
}

async function timeBatch(name: string, fn: () => void | Promise<void>, isAsync: boolean, seconds: number, minCalls: number): Promise<BatchTiming> {
  const tb = await loadTinybench();
  if (tb) {
    const bench = new tb.Bench({ time: seconds * 1000, iterations: minCalls, warmupIterations: 1, warmupTime: 0, throws: true });
    // Explicit: tinybench's own async detection calls fn once without awaiting it.
    bench.add(name, fn, { async: isAsync });
    await bench.run();
    const r = bench.tasks[0].result;
    if (r.state !== 'completed') throw new Error(`tinybench task ${name} ended in state ${r.state}`);
    return { medianMs: r.latency.p50, calls: r.latency.samplesCount, timer: 'tinybench' };
  }
  await fn();
  const times: number[] = [];
  const start = performance.now();
  while (times.length < minCalls || performance.now() - start < seconds * 1000) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return { medianMs: median(times), calls: times.length, timer: 'builtin' };
}

// ---------------------------------------------------------------------------------------------
// The run

/** Work units of one set, for the progress bar. */
function stepsPerSet(c: BenchConfig): number {
  const rows = c.methods.length * c.backends.length + (c.methods.includes('brute') && c.backends.includes('js') ? 0 : 1);
  // per sigma: the single-query rows, the approximate rows, and per batch method searchBatch + each
  // pool (plus a pool+caller for every count of 2 or more)
  const pools = c.threads.length + c.threads.filter((t) => t >= 2).length;
  const probeRows = c.methods.some((m) => m === 'cluster' || m === 'cluster-u8') ? c.probes.length : 0;
  return 1 + c.noise.length * (rows + 1 + probeRows + c.batchMethods.length * (1 + pools));
}

export async function runBench(config: BenchConfig, hooks: BenchHooks = {}): Promise<BenchReport> {
  const t0 = performance.now();
  const log = hooks.log ?? (() => {});
  const report: BenchReport = {
    machine: machineInfo(),
    config: {
      sets: config.dbFile ? [] : [...config.sets],
      db: config.dbFile ?? null,
      mocap: config.mocapDir,
      queries: config.queries,
      noise: [...config.noise],
      methods: [...config.methods],
      backends: [...config.backends],
      batchMethods: [...config.batchMethods],
      probes: [...config.probes],
      threads: [...config.threads],
      rowSeconds: config.rowSeconds,
      refSeconds: config.refSeconds,
      batchSeconds: config.batchSeconds,
      seed: config.seed,
      quick: config.quick,
    },
    rows: [],
    batch: [],
    approximate: [],
    build: {},
    skipped: [],
    notes: [],
    seconds: 0,
  };

  const plan: Array<{ name: string; load: (p?: (d: number, t: number, l: string) => void) => BenchSet }> = [];
  if (config.dbFile) {
    const file = config.dbFile;
    plan.push({ name: file, load: () => loadDatabaseSet(file) });
  } else {
    const loader = new BenchSetLoader(config.mocapDir);
    for (const name of config.sets) {
      const why = loader.unavailable(name);
      if (why) {
        report.skipped.push({ set: name, reason: why });
        log(why);
        continue;
      }
      plan.push({ name, load: (p) => loader.load(name, p) });
    }
  }

  const perSet = stepsPerSet(config);
  const total = plan.length * perSet;
  let done = 0;
  let current = '';
  const steps: Steps = {
    begin(label) {
      current = label;
      hooks.progress?.(done, total, label);
    },
    end() {
      done++;
      hooks.progress?.(done, total, current);
    },
  };

  let anyCapped = false;
  let refCapped = false;
  let poolFailure: string | null = null;
  for (const entry of plan) {
    steps.begin(`building ${entry.name}`);
    const set = entry.load((d, t) => hooks.progress?.(done + d / t, total, `building ${entry.name}`));
    steps.end();
    const r = await benchSet(set, config, steps, log);
    anyCapped ||= r.capped;
    refCapped ||= r.refCapped;
    poolFailure ??= r.poolFailure;
    report.rows.push(...r.rows);
    report.batch.push(...r.batch);
    report.approximate.push(...r.approximate);
    report.build[set.name] = r.build;
  }

  report.notes.push(
    'Reference: the JS brute-force row (ref) of each set and sigma; "× JS brute" is its median over the row\'s median; ' +
    `mismatches/checked counts results whose frame differs from the reference or whose cost differs by more than 1e-5 relative, over the queries both ran.`,
  );
  if (report.rows.some((r) => r.rescoredShare !== undefined)) {
    report.notes.push(
      'Compact and clustered rows: bytes/row is what the method reads per row it looks at (its 8-bit or half-precision row, else the float32 row); ' +
      're-scored = rows whose certified compact bound could not rule them out, re-costed in float32 (per query, and as a share of the rows looked at).',
    );
  }
  if (config.methods.includes('window')) {
    report.notes.push('window: brute force over a range list with one range per clip (its candidate frames); the ranges hold every candidate, so the answer must equal brute force.');
  }
  if (anyCapped) {
    report.notes.push(
      `* the row stopped when its time budget (${config.rowSeconds} s per row, ${config.refSeconds} s for the reference) ran out, after at least ${MIN_QUERIES} queries; ` +
      'its statistics cover the queries shown (the first ones of the same list).',
    );
  }
  if (refCapped) report.notes.push('The reference covered fewer queries than some rows: those rows are checked on the reference\'s queries only.');
  if (report.batch.length) {
    const timer = report.batch[0].timer === 'tinybench' ? 'tinybench (median call latency)' : 'a plain loop (tinybench not installed)';
    report.notes.push(`Batch rows: one call answers the whole query list; timed with ${timer}; queries/s = batch size / median ms per call. searchBatch runs on the calling thread; pool = MatcherPool worker threads sharing one WebAssembly memory.`);
  }
  if (poolFailure) report.notes.push(`MatcherPool rows missing: ${poolFailure}`);
  report.seconds = (performance.now() - t0) / 1000;
  return report;
}

/** Progress: begin(label) when a unit of work starts, end() when it is done. */
interface Steps {
  begin(label: string): void;
  end(): void;
}

interface SetResult {
  rows: BenchRow[];
  batch: BatchRow[];
  approximate: ApproximateRow[];
  build: BuildInfo;
  capped: boolean;
  refCapped: boolean;
  poolFailure: string | null;
}

async function benchSet(set: BenchSet, c: BenchConfig, steps: Steps, log: (m: string) => void): Promise<SetResult> {
  const db = set.db;
  const matchers = new Map<Backend, Matcher>();
  const extra = matcherOptionsFor([...c.methods, ...c.batchMethods]);
  const js = c.backends.includes('js') ? await Matcher.create(db, { backend: 'js', ...extra }) : null;
  // The reference is the plain float32 brute force: it needs none of the compact data.
  const ref = js ?? await Matcher.create(db, { backend: 'js' });
  if (js) matchers.set('js', js);
  for (const b of c.backends) if (!matchers.has(b)) matchers.set(b, await Matcher.create(db, { backend: b, ...extra }));
  const stats = [...matchers.values()].map((m) => m.buildStats);
  const build: BuildInfo = {
    description: set.description,
    frames: db.frameCount,
    clips: db.clips.length,
    candidates: candidateFrames(db).length,
    dims: db.dims,
    stride: db.stride,
    databaseMs: set.buildMs,
    aabbMs: Math.min(...stats.map((s) => s.aabbMs)),
    kdtreeMs: Math.min(...stats.map((s) => s.kdtreeMs)),
    kdNodes: stats[0].kdNodes,
    kdDepth: stats[0].kdDepth,
    compact: stats[0].compact,
  };

  // Batch: the best WASM build on the calling thread, and a pool per worker count.
  const batchMatcher = c.batchMethods.length === 0 ? null
    : matchers.get('wasm-simd') ?? matchers.get('wasm-scalar') ?? await Matcher.create(db, { backend: 'auto', ...extra });
  // 'pool' rows: t worker threads; 'pool+caller' rows: t - 1 workers plus the calling thread (t threads in all).
  const pools: Array<{ threads: number; pool: MatcherPool; mode: BatchRow['mode'] }> = [];
  let poolFailure: string | null = null;
  if (c.batchMethods.length > 0) {
    for (const t of c.threads) {
      try {
        const pool = await MatcherPool.create(db, { threads: t, ...extra });
        if (pool.threads !== t) {
          poolFailure ??= `MatcherPool ran on the calling thread instead of ${t} worker(s) (no SharedArrayBuffer?)`;
          await pool.close();
          continue;
        }
        pools.push({ threads: t, pool, mode: 'pool' });
        if (t >= 2) {
          const mixed = await MatcherPool.create(db, { threads: t - 1, callerShare: true, ...extra });
          if (mixed.threads === t - 1) pools.push({ threads: t, pool: mixed, mode: 'pool+caller' });
          else await mixed.close();
        }
      } catch (e) {
        poolFailure ??= `MatcherPool with ${t} thread(s) failed: ${(e as Error).message}`;
      }
    }
    if (poolFailure) log(poolFailure);
  }

  const rows: BenchRow[] = [];
  const batch: BatchRow[] = [];
  const approximate: ApproximateRow[] = [];
  const tApprox = performance.now();
  const approx = new ApproximateMatcher(db, { components: APPROX_COMPONENTS, candidates: APPROX_CANDIDATES });
  const approxBuildMs = performance.now() - tApprox;
  const approxResult: ApproximateResult = { frame: -1, cost: 0, approximate: true };
  // timeRow's interface over the approximate searcher (options do not apply: it always searches all candidates).
  const approxSearcher = {
    search(q: Float32Array, _o: SearchOptions, out: SearchResult): SearchResult {
      approx.search(q, approxResult);
      out.frame = approxResult.frame;
      out.cost = approxResult.cost;
      return out;
    },
  };
  const windowRanges = candidateRuns(db);
  let capped = false;
  let refCapped = false;
  try {
    for (const sigma of c.noise) {
      const rand = seededRandom(mixSeed(c.seed, `${set.name}/${sigma}`));
      const { queries } = makeQueries(db, c.queries, sigma, rand);
      const views = Array.from({ length: c.queries }, (_, k) => queries.subarray(k * db.stride, (k + 1) * db.stride));

      steps.begin(`${set.name} sigma ${sigma}: js brute (reference)`);
      const refRun = timeRow(ref, views, { method: 'brute', normalized: true }, c.refSeconds * 1000);
      const refMedian = median(refRun.timesMs, refRun.count) * 1000;
      const makeRow = (backend: Backend, method: SearchMethod, run: RowRun, isRef: boolean, m: Matcher): BenchRow => {
        const med = median(run.timesMs, run.count) * 1000;
        const cmp = compare(run, run.count, refRun);
        capped ||= run.capped;
        if (run.count > refRun.count) refCapped = true;
        const row: BenchRow = {
          set: set.name, method, backend, frames: db.frameCount, dims: db.dims, sigma,
          queries: run.count, capped: run.capped,
          medianUs: med,
          p99Us: percentile(run.timesMs, 99, run.count) * 1000,
          meanUs: (run.timesMs.subarray(0, run.count).reduce((a, b) => a + b, 0) / run.count) * 1000,
          minUs: percentile(run.timesMs, 0, run.count) * 1000,
          speedupVsJsBrute: refMedian / med,
          mismatches: cmp.mismatches,
          checked: cmp.checked,
          reference: isRef,
          bytesPerRow: bytesPerRow(m, method),
        };
        if (run.bounded > 0) {
          row.rowsPerQuery = run.bounded / run.count;
          row.rescoredPerQuery = run.rescored / run.count;
          row.rescoredShare = run.rescored / run.bounded;
          row.groupsPerQuery = run.groups / run.count;
        }
        if (cmp.examples.length) row.mismatchExamples = cmp.examples;
        return row;
      };

      rows.push(makeRow('js', 'brute', refRun, true, ref));
      steps.end();
      for (const method of c.methods) {
        for (const backend of c.backends) {
          if (backend === 'js' && method === 'brute') continue; // the reference row
          const opts: SearchOptions = { method, normalized: true };
          if (method === 'window') opts.ranges = windowRanges;
          steps.begin(`${set.name} sigma ${sigma}: ${backend} ${method}`);
          const run = timeRow(matchers.get(backend)!, views, opts, c.rowSeconds * 1000);
          rows.push(makeRow(backend, method, run, false, matchers.get(backend)!));
          steps.end();
        }
      }

      steps.begin(`${set.name} sigma ${sigma}: approximate`);
      const aRun = timeRow(approxSearcher, views, {}, c.rowSeconds * 1000);
      const aCmp = compare(aRun, aRun.count, refRun);
      const aMed = median(aRun.timesMs, aRun.count) * 1000;
      approximate.push({
        set: set.name, frames: db.frameCount, sigma, method: 'pca-kdtree', backend: 'js',
        settings: `${approx.components} components, ${approx.candidates} candidates, variance kept ${approx.explainedVariance.toFixed(3)}`,
        components: approx.components, candidates: approx.candidates,
        explainedVariance: approx.explainedVariance, queries: aRun.count, medianUs: aMed,
        p99Us: percentile(aRun.timesMs, 99, aRun.count) * 1000, speedupVsJsBrute: refMedian / aMed,
        recallAt1: aCmp.checked ? 1 - aCmp.mismatches / aCmp.checked : 1, checked: aCmp.checked, buildMs: approxBuildMs,
      });
      steps.end();

      // The clustered methods' approximate mode: the `probes` nearest clusters only.
      const clusterMethod = c.methods.find((m) => m === 'cluster-u8') ?? c.methods.find((m) => m === 'cluster');
      const probeMatcher = matchers.get('wasm-simd') ?? matchers.get('wasm-scalar') ?? matchers.get('js');
      for (const probes of clusterMethod && probeMatcher ? c.probes : []) {
        steps.begin(`${set.name} sigma ${sigma}: ${clusterMethod} probes ${probes}`);
        const pRun = timeRow(probeMatcher!, views, { method: clusterMethod!, normalized: true, probes }, c.rowSeconds * 1000);
        const pCmp = compare(pRun, pRun.count, refRun);
        const pMed = median(pRun.timesMs, pRun.count) * 1000;
        approximate.push({
          set: set.name, frames: db.frameCount, sigma, method: clusterMethod!, backend: probeMatcher!.backend,
          settings: `probes ${probes} of ${probeMatcher!.buildStats.compact.clusters} clusters`, probes,
          queries: pRun.count, medianUs: pMed, p99Us: percentile(pRun.timesMs, 99, pRun.count) * 1000,
          speedupVsJsBrute: refMedian / pMed, recallAt1: pCmp.checked ? 1 - pCmp.mismatches / pCmp.checked : 1, checked: pCmp.checked,
          buildMs: probeMatcher!.buildStats.compact.clusterMs,
        });
        steps.end();
      }

      for (const method of c.batchMethods) {
        if (!batchMatcher) break;
        const opts = { method, normalized: true, ranges: method === 'window' ? windowRanges : undefined };
        const k = c.queries;
        const out = { frames: new Int32Array(k), costs: new Float32Array(k) };
        const minCalls = c.quick ? 1 : 2;
        const record = (mode: BatchRow['mode'], threads: number, backend: string, t: BatchTiming): void => {
          const cmp = compare(out, k, refRun);
          batch.push({
            set: set.name, method, backend, frames: db.frameCount, sigma, mode, threads, batchSize: k,
            calls: t.calls, medianBatchMs: t.medianMs, queriesPerSecond: k / (t.medianMs / 1000), timer: t.timer,
            mismatches: cmp.mismatches, checked: cmp.checked,
          });
        };
        steps.begin(`${set.name} sigma ${sigma}: searchBatch ${method}`);
        batchMatcher.searchBatch(queries, k, opts, out);
        const single = await timeBatch(`searchBatch ${method}`, () => { batchMatcher.searchBatch(queries, k, opts, out); }, false, c.batchSeconds, minCalls);
        record('searchBatch', 1, batchMatcher.backend, single);
        steps.end();
        for (const { threads, pool, mode } of pools) {
          steps.begin(`${set.name} sigma ${sigma}: ${mode}(${threads}) ${method}`);
          out.frames.fill(-2);
          await pool.searchBatch(queries, k, opts, out);
          const t = await timeBatch(`${mode}(${threads}) ${method}`, async () => { await pool.searchBatch(queries, k, opts, out); }, true, c.batchSeconds, minCalls);
          record(mode, threads, pool.matcher.backend, t);
          steps.end();
        }
        for (let i = pools.filter((p) => p.mode === 'pool').length; i < c.threads.length; i++) {
          steps.begin('pool unavailable');
          steps.end();
        }
      }
    }
  } finally {
    await Promise.all(pools.map((p) => p.pool.close()));
  }
  return { rows, batch, approximate, build, capped, refCapped, poolFailure };
}
