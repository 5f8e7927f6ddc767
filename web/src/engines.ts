/**
 * Two ways to step the crowd each frame; the page uses one at a time.
 *
 * - 'batched' (the reference design): the main thread calls prepare() on every character, answers
 *   all wanted searches in ONE batch (MatcherPool: worker threads over one shared
 *   WebAssembly.Memory when the page is cross-origin isolated), then complete() on every
 *   character. Only the search is parallel — and it is a small part of a step.
 * - 'split': the agents are divided among worker threads; each worker runs the whole step for its
 *   share (AI, prepare, its own batched search, complete with inertialization and foot IK) and
 *   sends the poses back for drawing. The main thread steps the player meanwhile. The whole
 *   update is parallel.
 */
import type { Database } from '../../src/database/database.js';
import type { ControllerInput, MotionMatchingController } from '../../src/runtime/controller/controller.js';
import type { Backend, SearchMethod } from '../../src/search/matcher.js';
import { Crowd, crowdRadius, type CrowdOptions, type PoseChunk } from './crowd.js';
import type { AgentWorkerReply, AgentWorkerRequest } from './crowd-worker.js';
import { SearchService, canShareMemory, type SearchConfig } from './search-backend.js';
import type { StepTiming } from './stats.js';
import type { LodView } from '../../src/runtime/lod/view.js';
import { shareDatabase } from '../../src/sim/shared-arrays.js';

export type EngineMode = 'batched' | 'split';

export interface EngineConfig extends SearchConfig {
  mode: EngineMode;
}

export interface CrowdEngine {
  readonly mode: EngineMode;
  readonly db: Database;
  readonly player: MotionMatchingController;
  readonly playerInput: ControllerInput;
  readonly agentCount: number;
  /** Threads stepping the crowd or searching for it (1 = the main thread alone). */
  readonly threads: number;
  readonly backend: Backend;
  /** Batched mode: fraction of recent batches the search workers answered. */
  readonly workerShare: number;
  /** Why fewer threads run than were asked for (null when not). */
  readonly fallbackReason: string | null;
  readonly config: EngineConfig;
  /** Where the camera is on the ground and where it looks (levels of detail); set before step(). */
  readonly camera: LodView;
  setAgentCount(n: number): Promise<void>;
  setOptions(o: CrowdOptions): Promise<void>;
  /** Another backend or worker policy (same mode and threads). */
  setSearch(config: EngineConfig): Promise<void>;
  /** AI, then one engine step for every character. */
  step(dt: number, method: SearchMethod): Promise<StepTiming>;
  /** The agents' world poses after the last step. */
  poses(): readonly PoseChunk[];
  close(): Promise<void>;
}

export async function createEngine(db: Database, config: EngineConfig, options: CrowdOptions, agents: number): Promise<CrowdEngine> {
  if (config.mode === 'split' && config.threads >= 2 && canShareMemory()) return SplitEngine.create(db, config, options, agents);
  return BatchedEngine.create(db, { ...config, mode: 'batched' }, options, agents);
}

// -------------------------------------------------------------------------------------------------

class BatchedEngine implements CrowdEngine {
  readonly mode = 'batched' as const;
  private readonly chunk: PoseChunk = { count: 0, roots: new Float32Array(0), poses: new Float32Array(0), held: new Float32Array(0) };
  private readonly chunks: PoseChunk[] = [this.chunk];

  private constructor(readonly db: Database, private search: SearchService, private readonly crowd: Crowd, public config: EngineConfig) {}

  static async create(db: Database, config: EngineConfig, options: CrowdOptions, agents: number): Promise<BatchedEngine> {
    const search = await SearchService.create(db, config);
    try {
      const crowd = new Crowd(db, options);
      crowd.setAgentCount(agents, search, config.method);
      return new BatchedEngine(db, search, crowd, { ...config, backend: search.backend, threads: search.threads });
    } catch (e) {
      await search.close();
      throw e;
    }
  }

  get player(): MotionMatchingController { return this.crowd.player; }
  get playerInput(): ControllerInput { return this.crowd.playerInput; }
  get agentCount(): number { return this.crowd.agentCount; }
  get threads(): number { return this.search.threads; }
  get backend(): Backend { return this.search.backend; }
  get workerShare(): number { return this.search.workerShare; }
  get fallbackReason(): string | null { return this.search.fallbackReason; }

  async setAgentCount(n: number): Promise<void> {
    this.crowd.setAgentCount(n, this.search, this.config.method);
  }

  async setOptions(o: CrowdOptions): Promise<void> {
    this.crowd.setOptions(o);
  }

  async setSearch(config: EngineConfig): Promise<void> {
    const search = await SearchService.create(this.db, config);
    const old = this.search;
    this.search = search;
    this.config = { ...config, mode: 'batched', backend: search.backend, threads: search.threads };
    await old.close();
  }

  get camera(): LodView {
    return this.crowd.camera;
  }

  step(dt: number, method: SearchMethod): Promise<StepTiming> {
    this.config.method = method;
    this.crowd.think(dt);
    return this.crowd.step(dt, this.search, method);
  }

  poses(): readonly PoseChunk[] {
    this.crowd.writePoses(this.chunk, true);
    return this.chunks;
  }

  async close(): Promise<void> {
    await this.search.close();
  }
}

// -------------------------------------------------------------------------------------------------

interface Shard {
  worker: Worker;
  count: number;
  chunk: PoseChunk;
  /** The pose buffer when it is here (null while the worker has it). */
  buffer: Float32Array | null;
  waiting: { resolve(r: AgentWorkerReply): void; reject(e: Error): void } | null;
  failure: Error | null;
}

class SplitEngine implements CrowdEngine {
  readonly mode = 'split' as const;
  private total = 0;
  private readonly chunks: PoseChunk[];
  private lastBackend: Backend;

  private constructor(
    readonly db: Database,
    private playerSearch: SearchService,
    private readonly crowd: Crowd,
    private readonly shards: Shard[],
    public config: EngineConfig,
    backend: Backend,
  ) {
    this.chunks = shards.map((s) => s.chunk);
    this.lastBackend = backend;
  }

  static async create(db: Database, config: EngineConfig, options: CrowdOptions, agents: number): Promise<SplitEngine> {
    // The player's searches run on the main thread (one query at a time).
    const playerSearch = await SearchService.create(db, { ...config, threads: 1 });
    const shards: Shard[] = [];
    try {
      const crowd = new Crowd(db, options);
      let backend = playerSearch.backend;
      for (let i = 0; i < config.threads; i++) {
        const worker = new Worker(new URL('./crowd-worker.ts', import.meta.url), { type: 'module', name: `motionmatch-agents-${i}` });
        const shard: Shard = { worker, count: 0, chunk: { count: 0, roots: new Float32Array(0), poses: new Float32Array(0), held: new Float32Array(0) }, buffer: null, waiting: null, failure: null };
        worker.onmessage = (e: MessageEvent<AgentWorkerReply>) => SplitEngine.settle(shard, e.data);
        worker.onerror = (e) => {
          e.preventDefault();
          shard.failure = new Error(`agent worker ${i} failed: ${e.message || 'unknown error'}`);
          shard.waiting?.reject(shard.failure);
          shard.waiting = null;
        };
        shards.push(shard);
      }
      // What the crowd's controllers derived from the poses here goes with the database: each worker
      // deriving it again took most of the switch to this engine (the built-in database, 2 workers:
      // 860 ms). Shared (no copy per worker) where the page may share memory, else copied.
      const shared = shareDatabase(db);
      const replies = await Promise.all(shards.map((s, i) => SplitEngine.call(s, { type: 'init', db: shared.db, rt: shared.rt, captured: shared.captured, backend: config.backend, options, seed: 1000 + i })));
      for (const r of replies) if (r.type === 'ready') backend = r.backend;
      const engine = new SplitEngine(db, playerSearch, crowd, shards, { ...config, backend, mode: 'split' }, backend);
      await engine.setAgentCount(agents);
      return engine;
    } catch (e) {
      for (const s of shards) s.worker.terminate();
      await playerSearch.close();
      throw e;
    }
  }

  private static settle(shard: Shard, msg: AgentWorkerReply): void {
    const w = shard.waiting;
    shard.waiting = null;
    if (!w) return;
    if (msg.type === 'error') w.reject(new Error(`agent worker: ${msg.message}`));
    else w.resolve(msg);
  }

  private static call(shard: Shard, msg: AgentWorkerRequest, transfer: Transferable[] = []): Promise<AgentWorkerReply> {
    if (shard.failure) return Promise.reject(shard.failure);
    if (shard.waiting) return Promise.reject(new Error('internal: agent worker already busy'));
    return new Promise((resolve, reject) => {
      shard.waiting = { resolve, reject };
      shard.worker.postMessage(msg, transfer);
    });
  }

  get player(): MotionMatchingController { return this.crowd.player; }
  get playerInput(): ControllerInput { return this.crowd.playerInput; }
  get agentCount(): number { return this.total; }
  get threads(): number { return this.shards.length; }
  get backend(): Backend { return this.lastBackend; }
  get workerShare(): number { return 1; }
  get fallbackReason(): string | null { return null; }

  async setAgentCount(n: number): Promise<void> {
    const T = this.shards.length, radius = crowdRadius(n);
    await Promise.all(this.shards.map((s, i) => {
      s.count = Math.floor(n / T) + (i < n % T ? 1 : 0);
      return SplitEngine.call(s, { type: 'agents', n: s.count, radius, method: this.config.method });
    }));
    this.total = n;
    // Until the next step the old poses are stale: show none rather than wrong ones.
    for (const s of this.shards) s.chunk.count = 0;
  }

  async setOptions(o: CrowdOptions): Promise<void> {
    this.crowd.setOptions(o);
    await Promise.all(this.shards.map((s) => SplitEngine.call(s, { type: 'options', options: o })));
  }

  async setSearch(config: EngineConfig): Promise<void> {
    const playerSearch = await SearchService.create(this.db, { ...config, threads: 1 });
    const replies = await Promise.all(this.shards.map((s) => SplitEngine.call(s, { type: 'backend', backend: config.backend })));
    const old = this.playerSearch;
    this.playerSearch = playerSearch;
    for (const r of replies) if (r.type === 'ready') this.lastBackend = r.backend;
    this.config = { ...config, mode: 'split', backend: this.lastBackend, threads: this.shards.length };
    await old.close();
  }

  get camera(): LodView {
    return this.crowd.camera;
  }

  async step(dt: number, method: SearchMethod): Promise<StepTiming> {
    this.config.method = method;
    const t0 = performance.now();
    const pending = this.shards.map((s) => {
      const buffer = s.buffer;
      s.buffer = null;
      return SplitEngine.call(s, { type: 'step', dt, method, buffer, camera: this.camera }, buffer ? [buffer.buffer] : []);
    });
    // The player steps here while the workers step the agents.
    const own = await this.crowd.step(dt, this.playerSearch, method);
    const replies = await Promise.all(pending);
    const t1 = performance.now();
    const J = this.db.skeleton.names.length, F = J * 7;
    const timing: StepTiming = { prepareMs: own.prepareMs, searchMs: own.searchMs, completeMs: own.completeMs, updateMs: t1 - t0, searches: own.searches };
    let slowest = -1, fastest = Infinity;
    replies.forEach((r, i) => {
      if (r.type !== 'stepped') throw new Error(`internal: agent worker answered ${r.type} to a step`);
      const s = this.shards[i];
      s.buffer = r.buffer;
      s.chunk.count = r.count;
      s.chunk.roots = r.buffer.subarray(0, 3 * r.count);
      s.chunk.poses = r.buffer.subarray(3 * r.count, r.count * (3 + F));
      s.chunk.held = r.buffer.subarray(r.count * (3 + F), r.count * (4 + F));
      timing.searches += r.timing.searches;
      if (r.timing.levels) {
        timing.levels ??= new Array<number>(r.timing.levels.length).fill(0);
        r.timing.levels.forEach((n, l) => { timing.levels![l] += n; });
      }
      if (r.timing.held !== undefined) timing.held = (timing.held ?? 0) + r.timing.held;
      fastest = Math.min(fastest, r.timing.updateMs);
      // The parts of the slowest worker: that is what the frame waited for.
      if (r.timing.updateMs > slowest) {
        slowest = r.timing.updateMs;
        timing.copyMs = r.timing.copyMs;
        timing.prepareMs = own.prepareMs + r.timing.prepareMs;
        timing.searchMs = own.searchMs + r.timing.searchMs;
        timing.completeMs = own.completeMs + r.timing.completeMs;
      }
    });
    timing.workerMs = slowest;
    timing.imbalanceMs = slowest - fastest;
    return timing;
  }

  poses(): readonly PoseChunk[] {
    return this.chunks;
  }

  async close(): Promise<void> {
    for (const s of this.shards) {
      s.worker.terminate();
      s.waiting?.reject(new Error('engine closed'));
      s.waiting = null;
    }
    await this.playerSearch.close();
  }
}
