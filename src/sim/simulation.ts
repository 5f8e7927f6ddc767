import type { Database } from '../database/database.js';
import { Matcher, type Backend } from '../search/matcher.js';
import { createSearchMemory, isSharedMemory, nodePackageRoot, sharedMemorySupported } from '../search/wasm/load.js';
import { QualityStats, type QualityReport } from '../runtime/quality/meter.js';
import { AgentGroup, agentHashesInOrder, stepCount, stepSearchTimes, warmUpSteps, type GroupResult, type Recording, type SimulationConfig } from './agents.js';
import { digestOfAgentHashes } from './hash.js';
import { shareDatabase, type SharedDatabase } from './shared-arrays.js';
import { estimateSimulationMemory, requireSimulationFits } from './memory-node.js';
import { startWorker } from '../util/worker-node.js';
import { IDLE_SECONDS, keepWorkers, takeWorkers } from './worker-pool.js';
import { OverlayStats } from './overlay/metrics.js';
import { checkSearchTags } from './search-tags.js';
import { parseBoneMaskSpec } from '../runtime/overlay/bone-mask.js';
import { overlayIndex } from '../runtime/overlay/search.js';
import { shareTerrain } from './terrain/terrain.js';
import { evenRanges, workerRanges } from './worker-split.js';
import { DEFAULT_CONTROLLER_OPTIONS } from '../runtime/controller/options.js';
import { lodReport, type LodReport } from './lod/report.js';
import { lodCamera } from './lod/camera.js';

export interface SimulationOptions extends SimulationConfig {
  /** Threads doing agent work: 1 runs on the calling thread, N > 1 spawns N workers. */
  workers: number;
  backend: Backend | 'auto';
  /**
   * Step a small throwaway crowd on every thread before timing starts, so that the timed steps run
   * optimised code (see warmUpSteps; its time is reported as warmupSeconds). Default true.
   */
  warmup?: boolean;
  onProgress?: (stepsDone: number, stepsTotal: number) => void;
  /**
   * Step only agents [first, first + count) of the `agents` (one shard of a run split over
   * processes or machines, see src/sim/shard/report.ts); default: all of them. An agent's motion
   * depends only on the seed and its index, so a shard's agents move exactly as in the whole run.
   */
  agentRange?: { first: number; count: number };
  /**
   * A matcher loaded with this database to search with (simulationMatcher makes the one these
   * options need): runs over the same database then share one upload and one set of indexes
   * instead of building their own each (a quality run's scenarios). Default: a new one.
   */
  matcher?: Matcher;
}

export interface SimulationResult {
  agents: number;
  seconds: number;
  hz: number;
  steps: number;
  workers: number;
  scenario: string;
  seed: number;
  method: string;
  backend: string;
  /** Time spent stepping (setup excluded) and agent-steps per second over it. */
  wallSeconds: number;
  /** Database load, matcher and crowd construction, and the warm-up (everything before the first step). */
  setupSeconds: number;
  /** Of setupSeconds: the JIT warm-up (the longest of the threads'); 0 when it was turned off. */
  warmupSeconds: number;
  agentStepsPerSec: number;
  searches: number;
  /** Of `searches`, the local ones (ControllerOptions.fullSearchInterval, levels of detail): windowed scans around the playing frame. */
  localSearches: number;
  searchesPerSec: number;
  /** Search time per query: median and 99th percentile over steps of the step's batch average (µs). */
  searchUsMedian: number;
  searchUsP99: number;
  transitionsPerSec: number;
  footSkateCmPerSec: number;
  /** Mean 1 s trajectory error (cm); the 0.5 s figure is in `quality`. */
  trajectoryErrorCm: number;
  maxTransitionJump: number;
  hash: string;
  quality: ReturnType<QualityStats['report']>;
  /** Share of thread time spent in searches (vs controller work). */
  searchShare: number;
  recording: Recording | null;
  /** With overlays (SimulationConfig.overlay): every thread's overlay figures merged; null without. */
  overlayStats: OverlayStats | null;
  /** Levels of detail (only with o.lod): per-level agent-steps and quality, searches, deferrals. */
  lod?: LodReport;
}

/** What runAgentGroups returns: every group's result (in agent order) and the run's timings. */
export interface AgentGroupsRun {
  groups: GroupResult[];
  steps: number;
  wallSeconds: number;
  setupSeconds: number;
  warmupSeconds: number;
  backend: string;
}

/** Runs a crowd of scripted agents against a database; deterministic for a given seed, any worker count. */
export async function runSimulation(db: Database, o: SimulationOptions): Promise<SimulationResult> {
  const run = await runAgentGroups(db, o);
  return summarize(o, run.groups, run.steps, run.wallSeconds, run.setupSeconds, run.warmupSeconds, run.backend);
}

/** Steps the agents of `o` (all, or o.agentRange) and returns the groups' raw results, not summarised. */
export async function runAgentGroups(db: Database, o: SimulationOptions): Promise<AgentGroupsRun> {
  validate(o);
  const t0 = performance.now();
  const steps = stepCount(o);
  const { first, count } = o.agentRange ?? { first: 0, count: o.agents };
  requireSimulationFits(estimateSimulationMemory(db, count, steps, o.hz, o.workers, o.recordAgent >= 0), count);
  const parallel = runsInWorkers(o);
  const matcher = o.matcher ?? await simulationMatcher(db, o);
  if (matcher.db !== db) throw new RangeError('runSimulation: the matcher given was loaded with another database');
  if (parallel && (matcher.wasmModule === undefined || !isSharedMemory(matcher.memory))) {
    throw new RangeError(`runSimulation: with ${o.workers} workers the matcher given must search shared memory with a WASM backend (simulationMatcher(db, { workers, backend }) makes one)`);
  }
  let groups: GroupResult[];
  let tStart: number;
  let warmupSeconds = 0;
  if (!parallel) {
    if (o.warmup !== false) warmupSeconds = warmUpSteps(db, matcher, o);
    const group = new AgentGroup(db, matcher, [[first, count]], o);
    tStart = performance.now();
    for (let s = 0; s < steps; s++) {
      group.step();
      o.onProgress?.(s + 1, steps);
    }
    groups = [group.result()];
  } else {
    ({ groups, tStart, warmupSeconds } = await runInWorkers(db, matcher, o, steps, first, count));
  }
  const tEnd = performance.now();
  groups.sort((a, b) => a.first - b.first);
  return { groups, steps, wallSeconds: (tEnd - tStart) / 1000, setupSeconds: (tStart - t0) / 1000, warmupSeconds, backend: matcher.backend };
}

/** Whether a simulation with these options steps its agents in worker threads; a RangeError when it asks for workers it cannot have. */
function runsInWorkers(o: Pick<SimulationOptions, 'workers' | 'backend'>): boolean {
  const parallel = o.workers > 1 && o.backend !== 'js' && sharedMemorySupported();
  if (o.workers > 1 && !parallel) throw new RangeError(`--workers ${o.workers} needs a WASM backend and SharedArrayBuffer`);
  return parallel;
}

/**
 * The matcher a simulation of `db` with these options searches with: the backend asked for, on
 * shared memory when worker threads search it too. Give it to several runs (SimulationOptions.matcher).
 */
export async function simulationMatcher(db: Database, o: Pick<SimulationOptions, 'workers' | 'backend'>): Promise<Matcher> {
  return Matcher.create(db, { backend: o.backend, memory: runsInWorkers(o) ? createSearchMemory({ shared: true }) : undefined });
}

async function runInWorkers(db: Database, matcher: Matcher, o: SimulationOptions, steps: number, firstAgent: number, agentCount: number): Promise<{ groups: GroupResult[]; tStart: number; warmupSeconds: number }> {
  const { Worker } = await import('node:worker_threads');
  const { join } = await import('node:path');
  const { existsSync } = await import('node:fs');
  const { pathToFileURL } = await import('node:url');
  const here = new URL('./worker.js', import.meta.url);
  const script = import.meta.url.endsWith('.ts') ? pathToFileURL(join(await nodePackageRoot(), 'dist', 'src', 'sim', 'worker.js')) : here;
  if (script.protocol === 'file:' && !existsSync(script)) throw new Error(`simulate: ${script.pathname} not found; run \`npm run build\` (workers run the compiled JavaScript)`);
  // Overlay settings that do not fit the database fail here, once, not in every worker.
  if (o.overlay) overlayIndex(db, o.overlay.tag, parseBoneMaskSpec(o.overlay.mask, db));
  checkSearchTags(db, o.tags);
  const shared = sharedDatabase(db);
  // With levels of detail, blocks of agents dealt round robin (worker-split.ts): the costly agents
  // near the camera spread over every thread, and budget blocks stay whole. Without, equal shares.
  const ranges = o.lod ? workerRanges(firstAgent, agentCount, o.workers) : evenRanges(firstAgent, agentCount, o.workers);
  const progress = new Array(ranges.length).fill(0);
  // Threads of earlier runs first (worker-pool.ts): their code is loaded and optimised.
  const workers = takeWorkers(script.href, ranges.length, () => startWorker((execArgv) => new Worker(script, { execArgv })));
  let ok = false;
  try {
    // Terrain and overlay settings are plain data: each worker builds its own ground and overlay
    // layers from them (a height field's heights are shared, not copied per worker).
    const cfg: SimulationConfig = {
      agents: o.agents, seconds: o.seconds, hz: o.hz, seed: o.seed, scenario: o.scenario, method: o.method, footIK: o.footIK, recordAgent: o.recordAgent, controller: o.controller,
      terrain: o.terrain ? shareTerrain(o.terrain) : null, ...(o.overlay ? { overlay: o.overlay } : {}), lod: o.lod, tags: o.tags ?? null,
    };
    const ready = await Promise.all(workers.map((w, i) => request(w, {
      type: 'init', dbId: shared.id, db: shared.db, rt: shared.rt, captured: shared.captured, handle: matcher.shareSlot(ranges[i].reduce((n, r) => n + r[1], 0)), ranges: ranges[i], cfg, warmup: o.warmup !== false,
    }, 'ready')));
    const warmupSeconds = Math.max(...ready.map((m) => m.warmupSeconds as number));
    const tStart = performance.now();
    const results = await Promise.all(workers.map((w, i) => request(w, { type: 'run' }, 'done', (m) => {
      progress[i] = m.steps as number;
      o.onProgress?.(Math.min(...progress), steps);
    }).then((m) => m.result as GroupResult)));
    ok = true;
    return { groups: results, tStart, warmupSeconds };
  } finally {
    if (ok) {
      // (their crowds let go of, so that an idle thread holds no database)
      for (const w of workers) w.postMessage({ type: 'release' });
      keepWorkers(script.href, workers);
      keepSharedCopy();
    } else await Promise.all(workers.map((w) => w.terminate()));
  }
}

interface SharedCopy extends SharedDatabase { source: Database; id: number }
/**
 * The shared copy of the database last run on threads, kept as long as the threads that may take it
 * again (worker-pool.ts): one copy at most, let go of IDLE_SECONDS after the last run that used it.
 */
let lastShared: SharedCopy | null = null;
let sharedCopyCount = 0;
let dropShared: ReturnType<typeof setTimeout> | undefined;

/**
 * `db` and its runtime tables in shared memory (shareDatabase): a run on the database of the run
 * before posts the same buffers, and a thread that has copy `id` already reuses what it derived from it.
 */
function sharedDatabase(db: Database): SharedCopy {
  if (lastShared === null || lastShared.source !== db) lastShared = { source: db, id: ++sharedCopyCount, ...shareDatabase(db) };
  keepSharedCopy();
  return lastShared;
}

function keepSharedCopy(): void {
  clearTimeout(dropShared);
  dropShared = setTimeout(() => { lastShared = null; }, IDLE_SECONDS * 1000);
  dropShared.unref();
}

type Reply = { type: string; [k: string]: unknown };

/** A worker's failure as the main thread's error: its class and message, its stack as the cause's. */
function workerError(m: Reply): Error {
  const cause = new Error(String(m.message ?? m.type));
  if (typeof m.stack === 'string') cause.stack = m.stack;
  const e = m.name === 'RangeError' ? new RangeError(`simulation worker: ${cause.message}`, { cause }) : new Error(`simulation worker: ${cause.message}`, { cause });
  return e;
}

function request(w: import('node:worker_threads').Worker, msg: unknown, until: string, onProgress?: (m: Reply) => void): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: Reply) => {
      if (m.type === 'progress') { onProgress?.(m); return; }
      w.off('message', onMessage);
      w.off('error', onError);
      if (m.type === until) resolve(m);
      else reject(workerError(m));
    };
    const onError = (e: Error) => { w.off('message', onMessage); reject(e); };
    w.on('message', onMessage);
    w.on('error', onError);
    w.postMessage(msg);
  });
}

function summarize(o: SimulationOptions, groups: GroupResult[], steps: number, wallSeconds: number, setupSeconds: number, warmupSeconds: number, backend: string): SimulationResult {
  const stats = new QualityStats();
  let searches = 0, localSearches = 0, controllerMs = 0, searchMs = 0;
  let recording: Recording | null = null;
  // Overlay counts and jump histograms add up exactly: the same figures for any number of workers.
  const overlayStats = o.overlay ? new OverlayStats() : null;
  for (const g of groups.sort((a, b) => a.first - b.first)) {
    stats.merge(QualityStats.from(g.stats));
    if (overlayStats && g.overlay) overlayStats.merge(g.overlay);
    searches += g.searches;
    localSearches += g.localSearches;
    controllerMs += g.controllerMs;
    searchMs += g.searchMs;
    recording ??= g.recording;
  }
  const samples = stepSearchTimes(groups).sort((a, b) => a - b);
  const q = stats.report();
  const quantile = (p: number) => (samples.length ? samples[Math.min(samples.length - 1, Math.floor(p * samples.length))] : 0);
  return {
    agents: o.agents, seconds: o.seconds, hz: o.hz, steps, workers: o.workers, scenario: o.scenario, seed: o.seed, method: o.method, backend,
    wallSeconds, setupSeconds, warmupSeconds,
    agentStepsPerSec: (groups.reduce((n, g) => n + g.count, 0) * steps) / Math.max(wallSeconds, 1e-9),
    searches,
    localSearches,
    searchesPerSec: searches / Math.max(wallSeconds, 1e-9),
    searchUsMedian: quantile(0.5),
    searchUsP99: quantile(0.99),
    ...headlineFigures(q),
    hash: digestOfAgentHashes(agentHashesInOrder(groups).hashes),
    quality: q,
    searchShare: searchMs / Math.max(searchMs + controllerMs, 1e-9),
    recording,
    overlayStats,
    ...(o.lod ? { lod: lodReport(groups, lodCamera(o.seed, o.agents), o.lod.budget, 1 / o.hz, o.controller?.searchInterval ?? DEFAULT_CONTROLLER_OPTIONS.searchInterval, o.lod.levels, o.lod.hysteresis) } : {}),
  };
}

/** The quality figures a simulation report repeats at its top level (the full report is under `quality`). */
export function headlineFigures(q: QualityReport): Pick<SimulationResult, 'transitionsPerSec' | 'footSkateCmPerSec' | 'trajectoryErrorCm' | 'maxTransitionJump'> {
  return { transitionsPerSec: q.transitionsPerSec, footSkateCmPerSec: q.skateCmPerSec, trajectoryErrorCm: q.trajectoryError1Cm, maxTransitionJump: q.maxTransitionJump };
}

function validate(o: SimulationOptions): void {
  const int = (v: number, name: string, min: number, max: number) => {
    if (!(Number.isInteger(v) && v >= min && v <= max)) throw new RangeError(`${name} must be an integer in [${min}, ${max}], got ${v}`);
  };
  int(o.agents, 'agents', 1, 1_000_000);
  int(o.workers, 'workers', 1, 64);
  int(o.seed, 'seed', -(2 ** 31), 2 ** 32 - 1);
  if (!(Number.isFinite(o.seconds) && o.seconds > 0 && o.seconds <= 86_400)) throw new RangeError(`seconds must be in (0, 86400], got ${o.seconds}`);
  if (!(Number.isFinite(o.hz) && o.hz >= 1 && o.hz <= 1000)) throw new RangeError(`hz must be in [1, 1000], got ${o.hz}`);
  // A run of no step has no figure to report (every quality measure was NaN, printed as such).
  if (stepCount(o) < 1) throw new RangeError(`seconds must make at least one step at ${o.hz} Hz (${(1 / o.hz).toPrecision(3)} s), got ${o.seconds}`);
  if (o.recordAgent >= o.agents) throw new RangeError(`agent ${o.recordAgent} does not exist (agents 0..${o.agents - 1})`);
  if (o.agentRange) {
    const { first, count } = o.agentRange;
    int(first, 'agentRange.first', 0, o.agents - 1);
    int(count, 'agentRange.count', 1, o.agents - first);
    if (o.recordAgent >= 0 && (o.recordAgent < first || o.recordAgent >= first + count)) {
      throw new RangeError(`agent ${o.recordAgent} is not among the agents run (${first}..${first + count - 1})`);
    }
  }
}
