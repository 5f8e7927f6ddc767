/**
 * MatcherPool: spreads a batch of queries over worker threads that share one
 * WebAssembly.Memory({shared: true}) holding the database once.
 *
 * The main thread owns the layout: it stages each worker's queries, ranges and request into that
 * worker's own slot, posts the slot's addresses, and reads the results back when the worker
 * replies. Workers only run the batch kernel. Without SharedArrayBuffer (or with the JS backend,
 * or threads: 0) the pool runs everything on the calling thread with the same results.
 *
 *   const pool = await MatcherPool.create(db, { threads: 4 });
 *   const res = await pool.searchBatch(queries, k, { method: 'kdtree' });
 *   await pool.close();
 */
import type { Database } from '../../database/database.js';
import { Matcher, clearStats, type BatchSearchOptions, type BatchResult, type SearchStats } from '../matcher.js';
import { planSlot, reserve, formatBytes, type SlotRegions } from '../wasm/memory-layout.js';
import { resolvePoolOptions, DEFAULT_WORKER_BATCH_CAPACITY, BATCH_SEARCH_OPTION_KEYS, type PoolOptions } from '../options.js';
import { refuseUnknownCallOptions } from '../../util/option-keys.js';
import { estimatePoolMemory, checkPoolMemory } from './budget.js';
import { checkSearchStructure } from '../searchable.js';
import { CallScratch, STAGING, type SearchStaging } from '../wasm/staging.js';
import { createSearchMemory, nodePackageRoot, sharedMemorySupported } from '../wasm/load.js';
import type { InitMessage, RunMessage, WorkerReply } from './worker.js';
import { startWorker } from '../../util/worker-node.js';

export type { PoolOptions } from '../options.js';

/** A thread behind a minimal interface (Node worker_threads or a browser Worker). */
interface ThreadHandle {
  post(msg: InitMessage | RunMessage): void;
  onReply(fn: (msg: WorkerReply) => void): void;
  onFailure(fn: (err: Error) => void): void;
  /** Node: keep the process alive only while a batch waits on this thread. */
  hold(on: boolean): void;
  terminate(): Promise<void>;
}

interface Lane {
  thread: ThreadHandle;
  slot: SlotRegions;
  pending: Map<number, { resolve(): void; reject(e: Error): void }>;
}

export class MatcherPool {
  readonly matcher: Matcher;
  /** Worker threads actually running (0 = single-threaded fallback). */
  readonly threads: number;
  private readonly lanes: Lane[];
  /** The pool's own staging state and per-call bias region (not the matcher's). */
  private readonly scratch = new CallScratch();
  private biasSlot: SlotRegions | null = null;
  private nextId = 1;
  private busy = false;
  /** The last batch options object whose keys were checked (callers pass the same one every time). */
  private checkedOptions: object | null = null;
  /** What the compact and clustered methods did in the last batch, over every share. */
  readonly lastStats: SearchStats = { bounded: 0, rescored: 0, groups: 0 };

  private readonly callerShare: boolean;

  private constructor(matcher: Matcher, lanes: Lane[], callerShare: boolean) {
    this.matcher = matcher;
    this.lanes = lanes;
    this.threads = lanes.length;
    this.callerShare = callerShare && lanes.length > 0;
  }

  static async create(db: Database, opts: PoolOptions = {}): Promise<MatcherPool> {
    const o = resolvePoolOptions(opts, await defaultThreads());
    checkSearchStructure(db); // what the estimate reads; Matcher.create checks the rest
    const parallel = o.threads > 0 && o.backend !== 'js' && sharedMemorySupported();
    if (parallel) {
      const budget = await memoryBudget();
      checkPoolMemory(estimatePoolMemory(db, o), budget.bytes, budget.label);
    }
    const memory = parallel ? createSearchMemory({ shared: true, maximumPages: o.maximumPages }) : undefined;
    const matcher = await Matcher.create(db, {
      backend: o.backend, wasm: opts.wasm, kdLeafSize: o.kdLeafSize || undefined, batchCapacity: o.batchCapacity, memory,
      compact: opts.compact, clusters: opts.clusters, clusterSeed: opts.clusterSeed,
    });
    if (!parallel || matcher.wasmModule === undefined) return new MatcherPool(matcher, [], false);

    const wanted = o.threads;
    const source: WorkerSource = opts.workerUrl ?? (!isNode() && defaultBrowserWorker ? defaultBrowserWorker : await defaultWorkerUrl());
    const shape = matcher.slotShape(o.workerBatchCapacity);
    const bytes = planSlot(0, shape).end;
    const lanes: Lane[] = [];
    try {
      for (let i = 0; i < wanted; i++) {
        const slot = planSlot(reserve(matcher.memory, bytes, matcher.kernels.heapBase()), shape);
        matcher.heap.ensure(slot.end);
        const thread = spawn(source);
        lanes.push({ thread, slot, pending: new Map() });
        thread.hold(true);
        await initThread(thread, matcher.wasmModule, matcher.memory);
        thread.hold(false);
      }
    } catch (e) {
      await Promise.all(lanes.map((l) => l.thread.terminate()));
      throw e;
    }
    for (const lane of lanes) {
      lane.thread.onReply((m) => settle(lane, m));
      lane.thread.onFailure((err) => {
        for (const p of lane.pending.values()) p.reject(err);
        lane.pending.clear();
      });
    }
    return new MatcherPool(matcher, lanes, o.callerShare);
  }

  /**
   * Same results as matcher.searchBatch, computed by the workers (contiguous shares of the batch).
   * One batch at a time per pool: the staging regions belong to it until the promise settles, which
   * it does only once every share has finished (even when one of them failed).
   */
  async searchBatch(queries: ArrayLike<number> & { length: number }, k: number, opts: BatchSearchOptions = {}, out?: BatchResult): Promise<BatchResult> {
    if (this.lanes.length === 0) {
      const r = this.matcher.searchBatch(queries, k, opts, out);
      Object.assign(this.lastStats, this.matcher.lastStats);
      return r;
    }
    if (this.busy) throw new Error('MatcherPool.searchBatch: a batch is already running on this pool');
    if (opts !== this.checkedOptions) { refuseUnknownCallOptions(opts, BATCH_SEARCH_OPTION_KEYS, 'searchBatch option '); this.checkedOptions = opts; }
    const st = this.staging();
    const width = st.batchWidth(queries.length, k);
    const res = out ?? { frames: new Int32Array(k), costs: new Float32Array(k) };
    if (res.frames.length < k || res.costs.length < k) throw new RangeError(`searchBatch: out arrays need ${k} entries`);
    if (k === 0) return res;
    this.busy = true;
    for (const lane of this.lanes) lane.thread.hold(true);
    try {
      st.heap.refresh();
      const method = st.prepareCall(this.scratch, opts, this.reserveBiasSlot());
      clearStats(this.lastStats);
      const first = this.callerShare ? 1 : 0;
      const share = Math.ceil(k / (this.lanes.length + first));
      // Workers are staged and woken first (runShare posts before its first await), then the
      // calling thread answers share 0 while they work.
      const pending = this.lanes.map((lane, i) => this.runShare(st, lane, method, queries, width, k, Math.min(k, (i + first) * share), Math.min(k, (i + first + 1) * share), opts, res));
      let localError: unknown;
      try {
        if (first) this.runLocalShare(st, method, queries, width, k, 0, Math.min(k, share), opts, res);
      } catch (e) {
        localError = e;
      }
      // Wait for every share before releasing the slots, then report the first failure.
      const settled = await Promise.allSettled(pending);
      if (localError !== undefined) throw localError;
      for (const s of settled) if (s.status === 'rejected') throw s.reason;
    } finally {
      for (const lane of this.lanes) lane.thread.hold(false);
      this.busy = false;
    }
    return res;
  }

  /** Loads another database (the workers keep the same memory and module). */
  async load(db: Database): Promise<void> {
    if (this.busy) throw new Error('MatcherPool.load: a batch is running');
    this.matcher.load(db);
    this.biasSlot = null;
    const shape = this.matcher.slotShape(this.lanes[0]?.slot.batchCapacity ?? DEFAULT_WORKER_BATCH_CAPACITY);
    const bytes = planSlot(0, shape).end;
    for (const lane of this.lanes) {
      lane.slot = planSlot(reserve(this.matcher.memory, bytes, this.matcher.kernels.heapBase()), shape);
      this.matcher.heap.ensure(lane.slot.end);
    }
  }

  /** Terminates the workers. */
  async close(): Promise<void> {
    await Promise.all(this.lanes.map((l) => l.thread.terminate()));
    this.lanes.length = 0;
  }

  /** The matcher's staging of the loaded database (it changes on load). */
  private staging(): SearchStaging {
    return this.matcher[STAGING];
  }

  /** A slot whose bias regions hold the pool's per-call bias (workers read it during a batch). */
  private reserveBiasSlot(): SlotRegions {
    if (this.biasSlot === null) {
      const m = this.matcher;
      const shape = m.slotShape(1);
      this.biasSlot = planSlot(reserve(m.memory, planSlot(0, shape).end, m.kernels.heapBase()), shape);
      m.heap.ensure(this.biasSlot.end);
    }
    return this.biasSlot;
  }

  /** The calling thread's share, in the matcher's own slot. */
  private runLocalShare(st: SearchStaging, method: number, queries: ArrayLike<number>, width: number, k: number, from: number, to: number, opts: BatchSearchOptions, res: BatchResult): void {
    const slot = this.matcher.slots[0];
    while (from < to) {
      const n = st.stageChunk(this.scratch, slot, queries, width, k, from, to, opts);
      st.kernels.searchBatch(method, st.regions.ctx, slot.req, slot.queries, n, slot.bestCosts, slot.results);
      st.addStats(slot, this.lastStats);
      st.collectChunk(slot, from, n, opts, res, queries, width);
      from += n;
    }
  }

  private async runShare(st: SearchStaging, lane: Lane, method: number, queries: ArrayLike<number>, width: number, k: number, from: number, to: number, opts: BatchSearchOptions, res: BatchResult): Promise<void> {
    const slot = lane.slot;
    while (from < to) {
      const n = st.stageChunk(this.scratch, slot, queries, width, k, from, to, opts);
      const id = this.nextId++;
      const done = new Promise<void>((resolve, reject) => lane.pending.set(id, { resolve, reject }));
      lane.thread.post({
        type: 'run', id, method, ctx: st.regions.ctx, req: slot.req,
        queries: slot.queries, count: n, bestCosts: slot.bestCosts, out: slot.results,
      });
      await done;
      st.addStats(slot, this.lastStats);
      st.collectChunk(slot, from, n, opts, res, queries, width);
      from += n;
    }
  }
}

function settle(lane: Lane, msg: WorkerReply): void {
  if (msg.type === 'ready') return;
  const p = lane.pending.get(msg.id);
  if (!p) return;
  lane.pending.delete(msg.id);
  if (msg.type === 'done') p.resolve();
  else p.reject(new Error(`pool worker: ${msg.message}`));
}

function isNode(): boolean {
  return typeof process !== 'undefined' && typeof process.versions?.node === 'string';
}

/**
 * Node's built-in modules from the running Node (process.getBuiltinModule, Node 20.16+), not
 * imported: this module is in the browser entry's graph, where an `import('node:…')`, static or
 * dynamic, is what bundlers try to resolve and warn about (wasm/package-files.ts does the same).
 */
function nodeOs(): typeof import('node:os') { return process.getBuiltinModule('node:os'); }

/**
 * What a pool may use: half of the machine's physical memory in Node (the rest belongs to the
 * process's own heap and everything else running); unknown (Infinity) in browsers.
 */
async function memoryBudget(): Promise<{ bytes: number; label: string }> {
  if (!isNode()) return { bytes: Infinity, label: 'the available memory' };
  const total = nodeOs().totalmem();
  return { bytes: total / 2, label: `half of this machine's ${formatBytes(total)} of memory` };
}

async function defaultThreads(): Promise<number> {
  if (isNode()) return Math.max(1, nodeOs().availableParallelism());
  return Math.max(1, typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 1 : 1);
}

/** A pool worker's script (a URL) or, in a browser, a function that starts one (a bundler-visible `new Worker(new URL(…))`). */
type WorkerSource = URL | string | (() => Worker);

let defaultBrowserWorker: (() => Worker) | undefined;

/**
 * Sets how a pool starts its workers in a browser when PoolOptions.workerUrl is not given. The
 * browser entry (src/browser.ts) sets `() => new Worker(new URL('./search/pool/worker.js',
 * import.meta.url), { type: 'module' })`: written literally like that, Vite and webpack 5 bundle
 * the worker script with its imports into the app.
 */
export function setDefaultPoolWorker(start: (() => Worker) | undefined): void {
  defaultBrowserWorker = start;
}

/**
 * The compiled worker script. From dist/ it sits next to this module; under a TypeScript runner
 * (vitest, sources in src/) a worker thread still needs JavaScript, so use the tsc output in dist/.
 */
const WORKER_FILE = './worker.js';

async function defaultWorkerUrl(): Promise<URL> {
  // Not a literal URL: bundlers copy `new URL('<literal>', import.meta.url)` into an app as an asset,
  // and the demo's bundle shipped this module's worker as raw TypeScript that nothing loads (the
  // browser entry sets its own, setDefaultPoolWorker; the demo passes its worker script:
  // web/src/search-backend.ts).
  const here = new URL(WORKER_FILE, import.meta.url);
  if (!isNode()) {
    throw new Error('MatcherPool: no worker script to start in this browser; pass PoolOptions.workerUrl, or import MatcherPool from the package root (its browser entry starts the packaged worker)');
  }
  if (!import.meta.url.endsWith('.ts')) return here;
  const fs = process.getBuiltinModule('node:fs'), path = process.getBuiltinModule('node:path'), url = process.getBuiltinModule('node:url');
  const file = path.join(await nodePackageRoot(), 'dist', 'src', 'search', 'pool', 'worker.js');
  if (!fs.existsSync(file)) throw new Error(`MatcherPool: ${file} not found; run \`npm run build:ts\` (workers need the compiled JavaScript)`);
  return url.pathToFileURL(file);
}

function spawn(source: WorkerSource): ThreadHandle {
  if (isNode()) {
    if (typeof source === 'function') throw new Error('MatcherPool: in Node, PoolOptions.workerUrl is a URL or a path, not a function');
    const { Worker } = process.getBuiltinModule('node:worker_threads');
    const w = startWorker((execArgv) => new Worker(source, { execArgv }));
    w.unref(); // an idle pool must not keep the process alive
    return {
      hold: (on) => (on ? w.ref() : w.unref()),
      post: (m) => w.postMessage(m),
      onReply: (fn) => w.on('message', fn),
      onFailure: (fn) => {
        w.on('error', fn);
        w.on('exit', (code) => fn(new Error(`pool worker exited with code ${code}`)));
      },
      terminate: async () => {
        await w.terminate();
      },
    };
  }
  const w = typeof source === 'function' ? source() : new Worker(source, { type: 'module' });
  return {
    hold: () => {},
    post: (m) => w.postMessage(m),
    onReply: (fn) => w.addEventListener('message', (e) => fn(e.data as WorkerReply)),
    onFailure: (fn) => w.addEventListener('error', (e) => fn(new Error(`pool worker error: ${e.message || 'the worker script failed to load or threw'}`))),
    terminate: async () => w.terminate(),
  };
}

/** Sends the module and memory and waits for the worker to instantiate them. */
function initThread(thread: ThreadHandle, module: WebAssembly.Module, memory: WebAssembly.Memory): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    thread.onReply((msg) => {
      if (settled) return;
      settled = true;
      if (msg.type === 'ready') resolve();
      else reject(new Error(`pool worker failed to start: ${msg.type === 'error' ? msg.message : msg.type}`));
    });
    thread.onFailure((e) => {
      if (!settled) {
        settled = true;
        reject(e);
      }
    });
    thread.post({ type: 'init', module, memory });
  });
}
