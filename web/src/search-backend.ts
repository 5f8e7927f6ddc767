/**
 * The page's search service: a MatcherPool over the database, with the kernel builds and the pool
 * worker located through URLs that vite resolves and bundles.
 *
 * Cross-origin-isolated pages get a shared WebAssembly.Memory and worker threads that all search
 * one copy of the database; other pages search on the main thread (same results).
 */
import type { Database } from '../../src/database/database.js';
import { MatcherPool } from '../../src/search/pool/pool.js';
import type { Backend, BatchResult, BatchSearchOptions, Matcher, SearchMethod } from '../../src/search/matcher.js';
import { sharedMemorySupported, simdSupported } from '../../src/search/wasm/load.js';
// The pool's worker, bundled as its own module chunk (vite.config.ts: worker.format 'es').
import poolWorkerUrl from '../../src/search/pool/worker.ts?worker&url';
import { kernelUrl } from './kernels.js';

/**
 * With workers: 'auto' sends a batch to the workers only when that is faster than searching it
 * on the main thread (small batches of fast KD-tree queries are cheaper to answer than to post);
 * 'workers' always uses them.
 */
export type WorkerPolicy = 'auto' | 'workers';

export interface SearchConfig {
  backend: Backend;
  method: SearchMethod;
  /** Threads that search: 1 = the main thread alone, n >= 2 = n worker threads. */
  threads: number;
  policy: WorkerPolicy;
}

/**
 * Learns what a batch costs on the main thread (µs per query) and on the workers (a fixed
 * round-trip overhead plus the per-query cost shared among the workers), and picks the cheaper.
 * Every EXPLORE batches it tries the other side so the estimates follow the machine's load.
 */
class BatchRouter {
  private usPerQuery = Number.NaN;
  private overheadMs = Number.NaN;
  private batches = 0;
  private static readonly EXPLORE = 40;
  private static readonly RATE = 0.2;
  /** Fraction of recent batches that went to the workers (for the read-outs). */
  workerShare = 0;

  constructor(private readonly workers: number) {}

  /** True: send this batch of k queries to the workers. */
  useWorkers(k: number): boolean {
    this.batches++;
    if (Number.isNaN(this.usPerQuery)) return false; // learn the main-thread cost first
    if (Number.isNaN(this.overheadMs)) return true; // then the round trip
    const main = (k * this.usPerQuery) / 1000;
    const pooled = this.overheadMs + main / this.workers;
    const choice = pooled < main;
    return this.batches % BatchRouter.EXPLORE === 0 ? !choice : choice;
  }

  record(workers: boolean, k: number, ms: number): void {
    const ewma = (old: number, v: number): number => (Number.isNaN(old) ? v : old + (v - old) * BatchRouter.RATE);
    if (workers) {
      const share = (k * (Number.isNaN(this.usPerQuery) ? 0 : this.usPerQuery)) / 1000 / this.workers;
      this.overheadMs = ewma(this.overheadMs, Math.max(0, ms - share));
    } else if (k > 0) {
      this.usPerQuery = ewma(this.usPerQuery, (1000 * ms) / k);
    }
    this.workerShare += ((workers ? 1 : 0) - this.workerShare) * 0.05;
  }
}

/** Whether this page can run worker threads over one shared memory. */
export function canShareMemory(): boolean {
  return (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true && sharedMemorySupported();
}

/** Sensible defaults for this page and machine. */
export function defaultSearchConfig(): SearchConfig {
  const cores = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 2 : 2;
  return {
    backend: simdSupported() ? 'wasm-simd' : 'wasm-scalar',
    method: 'kdtree',
    threads: canShareMemory() ? Math.max(2, Math.min(4, cores)) : 1,
    policy: 'auto',
  };
}

export class SearchService {
  /** Threads that actually search (1 when workers are unavailable or not asked for). */
  readonly threads: number;
  /** Why the service runs on fewer threads than asked (null when it does not). */
  readonly fallbackReason: string | null;
  private readonly router: BatchRouter;

  private constructor(
    readonly pool: MatcherPool,
    readonly config: SearchConfig,
    fallbackReason: string | null,
  ) {
    this.threads = pool.threads > 0 ? pool.threads : 1;
    this.fallbackReason = fallbackReason;
    this.router = new BatchRouter(Math.max(1, pool.threads));
  }

  /** Fraction of recent batches the workers answered (0 without workers). */
  get workerShare(): number {
    return this.pool.threads === 0 ? 0 : this.router.workerShare;
  }

  static async create(db: Database, config: SearchConfig): Promise<SearchService> {
    if (config.backend === 'wasm-simd' && !simdSupported()) throw new Error('this browser has no WebAssembly SIMD: choose the scalar or JavaScript backend');
    const wantsWorkers = config.threads >= 2;
    let reason: string | null = null;
    if (wantsWorkers && !canShareMemory()) reason = 'the page is not cross-origin isolated (no SharedArrayBuffer): searching on the main thread';
    else if (wantsWorkers && config.backend === 'js') reason = 'the JavaScript backend searches on the main thread';
    // The pool uses a shared memory whenever the platform offers one (even without workers), and
    // a build only links against the matching kind of memory.
    const pool = await MatcherPool.create(db, {
      backend: config.backend,
      wasm: kernelUrl(config.backend, sharedMemorySupported()),
      threads: wantsWorkers && reason === null ? config.threads : 0,
      workerUrl: poolWorkerUrl,
      batchCapacity: 1024,
    });
    return new SearchService(pool, { ...config }, reason);
  }

  get backend(): Backend {
    return this.pool.matcher.backend;
  }

  /** The matcher on the main thread (single searches; batches without workers). */
  get matcher(): Matcher {
    return this.pool.matcher;
  }

  /**
   * Answers k queries. Synchronous on the main thread when there are no workers (no await, no
   * task switch); a promise when the workers answer.
   */
  searchBatch(queries: Float32Array, k: number, opts: BatchSearchOptions, out: BatchResult): BatchResult | Promise<BatchResult> {
    if (this.pool.threads === 0) return this.pool.matcher.searchBatch(queries, k, opts, out);
    const t0 = performance.now();
    if (this.config.policy === 'workers' || this.router.useWorkers(k)) {
      return this.pool.searchBatch(queries, k, opts, out).then((r) => {
        this.router.record(true, k, performance.now() - t0);
        return r;
      });
    }
    const r = this.pool.matcher.searchBatch(queries, k, opts, out);
    this.router.record(false, k, performance.now() - t0);
    return r;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** How the panel names a backend. */
export function backendLabel(b: Backend): string {
  return b === 'wasm-simd' ? 'WASM SIMD' : b === 'wasm-scalar' ? 'WASM scalar' : 'JavaScript';
}
