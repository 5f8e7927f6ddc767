import type { Database } from '../database/database.js';
import type { Matcher, SearchMethod } from '../search/matcher.js';
import { FramePrefetch, touchLines } from '../runtime/crowd/prefetch.js';
import { MotionMatchingController, createInput, type ControllerInput, type ControllerOptions } from '../runtime/controller/controller.js';
import { QualityMeter, QualityStats } from '../runtime/quality/meter.js';
import { CrowdSearchBatch } from '../runtime/crowd/batch.js';
import { LocalSearchBatch } from '../runtime/crowd/local-batch.js';
import { ScriptedDriver, type ScenarioName } from './scenarios.js';
import { digestInit, digestWords, digestHex } from './hash.js';
import { terrainGround, type TerrainSpec } from './terrain/terrain.js';
import { OverlayAgents } from './overlay/agents.js';
import type { OverlaySimulation } from './overlay/schedule.js';
import { locomotionTags, type SearchTags } from './search-tags.js';
import type { OverlayStats } from './overlay/metrics.js';
import { CrowdLod, type LodCounts } from '../runtime/crowd/crowd-lod.js';
import type { LodLevel } from '../runtime/lod/levels.js';
import { STATE_SIZE } from '../runtime/controller/state.js';
import { BUDGET_BLOCK, budgetShare } from '../runtime/lod/search-budget.js';
import { lodCamera, type LodCamera } from './lod/camera.js';
import type { AgentRange } from './worker-split.js';

/** Levels of detail in a simulation (`simulate --lod`, docs/lod.md). */
export interface SimulationLod {
  /** Searches per step for the whole crowd (0: no budget). */
  budget: number;
  /** The level table (default DEFAULT_LOD_LEVELS) and its hysteresis (m, default DEFAULT_LOD_HYSTERESIS). */
  levels?: readonly LodLevel[];
  hysteresis?: number;
}

export interface SimulationConfig {
  agents: number;
  seconds: number;
  hz: number;
  seed: number;
  scenario: ScenarioName;
  method: SearchMethod;
  footIK: boolean;
  /** Agent whose motion is recorded (for BVH export), or -1. */
  recordAgent: number;
  /** Controller options other than the defaults (structured-cloneable values only). */
  controller?: Partial<Omit<ControllerOptions, 'constrain' | 'ground'>>;
  /** Uneven ground the agents walk on (default: flat, y = 0). */
  terrain?: TerrainSpec | null;
  /** Overlays the agents play on a seeded schedule (`simulate --overlay TAG`; src/sim/overlay/agents.ts). */
  overlay?: OverlaySimulation;
  /**
   * Tags the locomotion searches keep to (`--require-tag`, `--exclude-tag`; search-tags.ts). With
   * overlays, the overlay's tag is left out of locomotion unless required.
   */
  tags?: SearchTags | null;
  /** Levels of detail by distance to a seeded camera (lod/camera.ts) and a search budget; absent: full detail. */
  lod?: SimulationLod | null;
}

/** One agent's recorded motion: local pose and root transform per step. */
export interface Recording {
  agent: number;
  steps: number;
  rotations: Float32Array;
  translations: Float32Array;
  /** Root position (3) and rotation (4) per step. */
  root: Float64Array;
}

/** What a group of agents reports (structured-cloneable, so workers can send it back). */
export interface GroupResult {
  /** The group's first agent and how many it holds, in `ranges` (agent order). */
  first: number;
  count: number;
  ranges: AgentRange[];
  /** Per-agent digests (16 hex digits each), in the order of `ranges`. */
  hashes: string[];
  stats: QualityStats;
  /** Per step: search time per query (µs) of the step's batch, NaN when the step had no search. */
  searchUsPerQuery: Float64Array;
  /** Per step: the searches behind searchUsPerQuery (stepSearchTimes combines groups with them). */
  searchesPerStep: Int32Array;
  searches: number;
  /** Of `searches`, the local ones (ControllerOptions.fullSearchInterval, levels of detail). */
  localSearches: number;
  /** Milliseconds in controller work (input, prepare, complete, metrics, hashing) and in searches. */
  controllerMs: number;
  searchMs: number;
  recording: Recording | null;
  /** Overlay figures (null without overlays). */
  overlay: OverlayStats | null;
  /** Levels of detail: what they did and each level's quality (null without --lod). */
  lod: { counts: LodCounts; levelStats: QualityStats[] } | null;
}

/** Agents stepped together (prepare, search, complete) before the next ones: their state stays in cache. */
const CHUNK = 128;

export function stepCount(cfg: Pick<SimulationConfig, 'seconds' | 'hz'>): number {
  return Math.round(cfg.seconds * cfg.hz);
}

/** Agents in the warm-up crowd (enough calls for V8 to optimise every step function). */
const WARMUP_AGENTS = 128;

/**
 * Steps a throwaway crowd (up to 128 of the configuration's agents, one simulated second) so that
 * V8 has compiled the step's functions with its optimising compiler before a timed run starts:
 * unwarmed, the first steps run interpreted at 20–30x the steady cost, which is most of a short
 * run's difference from a long one. Results of the timed run do not change (agents share no state;
 * per-thread scratch is overwritten every step). Returns the seconds it took.
 */
export function warmUpSteps(db: Database, matcher: Matcher, cfg: SimulationConfig): number {
  const t0 = performance.now();
  const count = Math.min(cfg.agents, WARMUP_AGENTS);
  const group = new AgentGroup(db, matcher, [[0, count]], { ...cfg, recordAgent: -1 });
  const steps = Math.max(10, Math.round(cfg.hz));
  for (let s = 0; s < steps; s++) group.step();
  return (performance.now() - t0) / 1000;
}

/** A chunk's clock readings (ms): its start, its search's start and end. In an array: numbers passed to a call are heap boxes. */
const TIMES = new Float64Array(3);

/**
 * The agents of a simulation in `ranges` (contiguous runs [first, first + count), in agent order:
 * a thread's blocks, worker-split.ts), stepped in lockstep: each step every agent reads its scripted
 * input and prepares; all wanted searches go to the matcher as one batch; then every agent
 * completes its step. Agents never interact, so results do not depend on how a crowd is split into
 * groups (threads).
 */
export class AgentGroup {
  readonly controllers: MotionMatchingController[] = [];
  private readonly drivers: ScriptedDriver[] = [];
  private readonly inputs: ControllerInput[] = [];
  private readonly meters: QualityMeter[] = [];
  /** Every agent's digest state (two int32 lanes each). */
  private readonly digests: Int32Array;
  /** The state buffer as 32-bit words (what the digests read). */
  private readonly words: Uint32Array;
  /** Word offsets, within an agent's block, of the root transform and of the local pose (both contiguous). */
  private readonly rootWords: [number, number];
  private readonly poseWords: [number, number];
  readonly stats = new QualityStats();
  private readonly batch: CrowdSearchBatch;
  /** Local searches between full ones (ControllerOptions.fullSearchInterval; empty when it is 0). */
  private readonly localBatch: LocalSearchBatch;
  private readonly searchUs: Float64Array;
  private readonly searchCounts: Int32Array;
  private stepSearchUs = 0;
  private readonly storage: Float64Array;
  private readonly agentSize: number;
  private readonly hotSize: number;
  /** What drive() and prepare() read of an agent first: its driver block and the controller's fixed state. */
  private readonly prepareSize: number;
  /** Where an agent's trajectory and query buffers start and end in its block: written by prepare, read by the search, not by the finish (its prefetch skips them). */
  private trajAt = 0;
  private queryEnd = 0;
  /** The database rows each agent's next step reads, touched one agent ahead (runtime/crowd/prefetch.ts). */
  private readonly prefetch: FramePrefetch;
  private stepIndex = 0;
  private searches = 0;
  private controllerMs = 0;
  private searchMs = 0;
  private readonly recording: Recording | null;
  private readonly dt: number;
  private readonly fullHashEvery: number;
  private readonly overlays: OverlayAgents | null;
  private readonly lod: CrowdLod | null;
  private readonly camera: LodCamera;
  /** Values to prefetch of an agent at each level: all it touches, or (pose updated every few steps) its driver and fixed state. */
  private readonly lodPrefetch: Int32Array;
  /** The agents' indices in the simulation, in group order (the ranges one after another). */
  private readonly ids: Int32Array;
  readonly ranges: AgentRange[];
  readonly first: number;
  readonly count: number;
  /** Group index of the recorded agent, or -1. */
  private readonly recordIndex: number;

  constructor(readonly db: Database, readonly matcher: Matcher, ranges: readonly AgentRange[], readonly cfg: SimulationConfig) {
    this.ranges = checkRanges(ranges);
    const ids = (this.ids = new Int32Array(this.ranges.reduce((n, r) => n + r[1], 0)));
    let k = 0;
    for (const [f, n] of this.ranges) for (let a = f; a < f + n; a++) ids[k++] = a;
    const count = (this.count = ids.length);
    this.first = ids[0];
    this.dt = 1 / cfg.hz;
    this.fullHashEvery = Math.max(1, Math.round(cfg.hz));
    // Every agent's state (scripted driver, controller, quality meter) in one buffer, in agent order: a step
    // streams through it rather than through two allocations per agent.
    const controllerSize = MotionMatchingController.storageSize(db);
    const predictEvery = Math.max(1, Math.round(0.1 * cfg.hz));
    const driverSize = ScriptedDriver.storageSize;
    const agentSize = driverSize + controllerSize + QualityMeter.storageSize(db.skeleton.names.length, this.dt, predictEvery);
    const storage = (this.storage = new Float64Array(agentSize * count));
    this.agentSize = agentSize;
    // What a step reads of an agent: its driver and controller blocks and the meter's scalars and history (the
    // prediction rings after it are touched a little at a time).
    this.prefetch = new FramePrefetch(db);
    this.prepareSize = driverSize + STATE_SIZE;
    this.hotSize = driverSize + controllerSize + QualityMeter.perStepSize(db.skeleton.names.length);
    const options = MotionMatchingController.resolveOptions({ ...cfg.controller, footIK: cfg.footIK, ...(cfg.terrain ? { ground: terrainGround(cfg.terrain) } : {}) });
    const J = db.skeleton.names.length;
    this.lod = cfg.lod ? new CrowdLod(db, options, count, cfg.method, { levels: cfg.lod.levels, hysteresis: cfg.lod.hysteresis }) : null;
    this.camera = lodCamera(cfg.seed, cfg.agents);
    // An agent whose pose waits for its turn reads only its fixed state and the meter's scalars on
    // most steps: fetching its pose buffers too (7 KB) spends memory bandwidth. Measured, 20,000
    // agents x 3 s on one thread, three alternating pairs: 359-369k agent-steps/s against 327-340k.
    this.lodPrefetch = Int32Array.from(this.lod?.levels ?? [], (l) => (l.poseEvery > 1 ? driverSize + STATE_SIZE : this.hotSize));
    const tags = locomotionTags(db, cfg.tags, cfg.overlay?.tag ?? null);
    for (let i = 0; i < count; i++) {
      const a = ids[i], block = i * agentSize, at = block + driverSize;
      const c = new MotionMatchingController(db, options, storage.subarray(at, at + controllerSize));
      // Spread agents on a grid so that their positions (and digests) differ from the start.
      c.reset(c.frame, 3 * (a % 64), 3 * Math.floor(a / 64), 0);
      this.controllers.push(c);
      const driver = new ScriptedDriver(cfg.scenario, cfg.seed, a, this.dt, storage.subarray(block, block + driverSize));
      driver.searchTags(tags.require, tags.exclude);
      this.drivers.push(driver);
      this.inputs.push(createInput());
      // Trajectory predictions are sampled at the search cadence (0.1 s), as the controller makes them.
      this.meters.push(new QualityMeter(c, this.lod ? this.lod.levelStats[0] : this.stats, this.dt, predictEvery, storage.subarray(at + controllerSize, block + agentSize)));
    }
    this.overlays = cfg.overlay ? new OverlayAgents(db, cfg.overlay, cfg.seed, ids, this.controllers) : null;
    this.digests = new Int32Array(2 * count);
    for (let i = 0; i < count; i++) digestInit(this.digests, 2 * i);
    this.words = new Uint32Array(storage.buffer, storage.byteOffset, 2 * storage.length);
    // Where the hashed arrays sit in an agent's block (the same for every agent): the controller
    // keeps rootPosition + rootRotation, and rotations + translations, next to each other.
    const c0 = this.controllers[0], wordAt = (a: Float64Array) => (a.byteOffset - storage.byteOffset) / 4;
    if (wordAt(c0.rootRotation) !== wordAt(c0.rootPosition) + 6 || wordAt(c0.translations) !== wordAt(c0.rotations) + 8 * J) {
      throw new Error('AgentGroup: the controller state layout is not the one the digest expects');
    }
    this.trajAt = (c0.trajectoryTimes.byteOffset - storage.byteOffset) / 8;
    this.queryEnd = Math.ceil((c0.request.query.byteOffset + c0.request.query.byteLength - storage.byteOffset) / 8);
    // (a layout where they are not one run inside the hot part: the whole hot part is touched)
    if (!(this.trajAt <= this.queryEnd && this.queryEnd <= this.hotSize)) { this.trajAt = this.hotSize; this.queryEnd = this.hotSize; }
    this.rootWords = [wordAt(c0.rootPosition), wordAt(c0.rootPosition) + 14];
    this.poseWords = [wordAt(c0.rotations), wordAt(c0.rotations) + 14 * J];
    this.batch = new CrowdSearchBatch(db.stride, cfg.method, Math.min(count, CHUNK));
    this.localBatch = new LocalSearchBatch(db, Math.min(count, CHUNK));
    const steps = stepCount(cfg);
    this.searchUs = new Float64Array(steps).fill(Number.NaN);
    this.searchCounts = new Int32Array(steps);
    const r = cfg.recordAgent;
    this.recordIndex = r >= 0 ? ids.indexOf(r) : -1;
    this.recording = this.recordIndex >= 0
      ? { agent: r, steps, rotations: new Float32Array(steps * J * 4), translations: new Float32Array(steps * J * 3), root: new Float64Array(steps * 7) }
      : null;
  }

  /**
   * Advances every agent by one step. Agents go through in chunks (prepare, one batched search,
   * complete) so that an agent's state is still in cache when its step completes; agents are
   * independent, so the chunking does not change any result.
   */
  step(): void {
    const searchesBefore = this.searches;
    this.stepSearchUs = 0;
    let start = 0;
    for (const range of this.ranges) {
      const end = start + range[1];
      if (this.lod !== null) {
        // Chunks are the search budget's blocks (agent indices in multiples of BUDGET_BLOCK): a block's
        // decisions then depend on its agents only, however the crowd is split over threads.
        for (let from = start; from < end;) {
          const id = this.ids[from];
          const to = Math.min(end, from + (Math.floor(id / BUDGET_BLOCK) + 1) * BUDGET_BLOCK - id);
          this.stepChunkLod(this.lod, from, to);
          from = to;
        }
      } else {
        for (let from = start; from < end; from += CHUNK) this.stepChunk(from, Math.min(end, from + CHUNK));
      }
      start = end;
    }
    const k = this.searches - searchesBefore;
    if (k > 0) { this.searchUs[this.stepIndex] = this.stepSearchUs / k; this.searchCounts[this.stepIndex] = k; }
    this.record();
    this.stepIndex++;
  }

  private stepChunk(from: number, to: number): void {
    TIMES[0] = performance.now();
    const dt = this.dt, batch = this.batch, local = this.localBatch;
    batch.begin();
    local.begin();
    for (let i = from; i < to; i++) {
      const c = this.controllers[i], input = this.inputs[i];
      // The next agent's driver and controller state (what drive and prepare read), as in the
      // second loop below: a median 0.97x per agent-step at 1,000 agents (step-ab, 22 rounds, 0.92-1.00).
      if (i + 1 < to) touchLines(this.storage, (i + 1) * this.agentSize, this.prepareSize);
      this.drivers[i].drive(c.rootPosition, input);
      if (this.overlays !== null) this.overlays.beforeStep(i, dt);
      if (c.prepare(dt, input) && !(c.searchLocal && local.tryAdd(c, i))) batch.add(c, i);
    }
    TIMES[1] = performance.now();
    const k = batch.count + local.count;
    batch.search(this.matcher);
    if (local.count > 0) local.search(this.matcher);
    TIMES[2] = performance.now();
    let observed = from;
    for (let i = from; i < to; i++) {
      // Bring the next agent's state in while this one is stepped (JavaScript has no prefetch
      // instruction; independent loads do the same). Measured: 8% faster at 5,000 agents. The
      // database rows it plays next too (FramePrefetch): about 3% at 1,000 agents stepped alone,
      // 5-9% when another crowd shares the caches (bench/step-ab.ts --block 30 / 1, 2026-12-07).
      if (i + 1 < to) {
        // (not the trajectory and the query: prepare wrote them and the search has read them; 0.97-0.98x)
        const at = (i + 1) * this.agentSize;
        touchLines(this.storage, at, this.trajAt);
        touchLines(this.storage, at + this.queryEnd, this.hotSize - this.queryEnd);
        this.prefetch.touch(this.controllers[i + 1]);
      }
      if (!local.tryFinish(this.controllers[i], i)) batch.finish(this.controllers[i], i);
      if (i + 1 - observed === OBSERVE_BLOCK) { this.observeChunk(observed, i + 1); observed = i + 1; }
    }
    if (observed < to) this.observeChunk(observed, to);
    this.countStepTimes(k);
  }

  /** stepChunk with levels of detail: levels chosen, the budget applied, full and local searches. */
  private stepChunkLod(lod: CrowdLod, from: number, to: number): void {
    TIMES[0] = performance.now();
    const dt = this.dt, cx = this.camera.x, cz = this.camera.z;
    lod.beginBlock();
    for (let i = from; i < to; i++) {
      const c = this.controllers[i], input = this.inputs[i];
      this.drivers[i].drive(c.rootPosition, input);
      if (this.overlays !== null) this.overlays.beforeStep(i, dt);
      const dx = c.rootPosition[0] - cx, dz = c.rootPosition[2] - cz;
      const l = lod.choose(c, i, Math.sqrt(dx * dx + dz * dz));
      const stats = lod.levelStats[l];
      if (this.meters[i].stats !== stats) this.meters[i].stats = stats;
      if (c.prepare(dt, input)) lod.due(c, i);
    }
    const budget = this.cfg.lod!.budget;
    if (budget > 0) {
      const start = Math.floor(this.ids[from] / BUDGET_BLOCK) * BUDGET_BLOCK;
      lod.schedule(this.controllers, budgetShare(budget, this.cfg.agents, start, Math.min(this.cfg.agents, start + BUDGET_BLOCK), this.stepIndex));
    } else {
      lod.schedule(this.controllers, Infinity);
    }
    TIMES[1] = performance.now();
    // A Matcher answers at once (only a MatcherPool returns a promise).
    const k = lod.search(this.matcher) as number;
    TIMES[2] = performance.now();
    let observed = from;
    for (let i = from; i < to; i++) {
      if (i + 1 < to) {
        const next = lod.level[i + 1];
        touchLines(this.storage, (i + 1) * this.agentSize, this.lodPrefetch[next]);
        // (a level that updates the pose every few steps reads its frame's rows on few of them)
        if (this.lodPrefetch[next] === this.hotSize) this.prefetch.touch(this.controllers[i + 1]);
      }
      lod.finish(this.controllers[i], i);
      if (i + 1 - observed === OBSERVE_BLOCK) { this.observeChunk(observed, i + 1); observed = i + 1; }
    }
    if (observed < to) this.observeChunk(observed, to);
    this.countStepTimes(k);
  }

  /**
   * After a block of a chunk's agents (OBSERVE_BLOCK) have stepped: each one's quality meter,
   * overlay bookkeeping and digest, in agent order (the same order, and so the same sums, as when
   * each followed its own agent's step). In a pass of their own the meter's code runs many times in
   * a row rather than once between two controller steps: a crowd step 2-4% faster (`simulate
   * --agents 1000`, paired runs, 2026-12-07; docs/simulation.md), results identical to the bit. Run
   * after every 16 agents rather than after the chunk's 128, their state (8 KB each) is still in
   * the caches: another 0.95x (`step-ab --block 30`, 10 rounds; 8 or 32 agents measured alike).
   */
  private observeChunk(from: number, to: number): void {
    const dt = this.dt;
    for (let i = from; i < to; i++) {
      this.meters[i].observe(this.inputs[i], dt);
      if (this.overlays !== null) this.overlays.afterStep(i, dt);
      this.hashStep(i);
    }
  }

  /** A chunk's times (TIMES: start, search start, search end; now: the end); k searches. */
  private countStepTimes(k: number): void {
    const t0 = TIMES[0], t1 = TIMES[1], t2 = TIMES[2], t3 = performance.now();
    this.stepSearchUs += (t2 - t1) * 1000;
    this.searches += k;
    this.controllerMs += (t1 - t0) + (t3 - t2);
    this.searchMs += t2 - t1;
  }

  /** The step's root transform, and every fullHashEvery steps the local pose, into agent i's digest. */
  private hashStep(i: number): void {
    const base = 2 * i * this.agentSize;
    digestWords(this.digests, 2 * i, this.words, base + this.rootWords[0], base + this.rootWords[1]);
    if ((this.stepIndex + 1) % this.fullHashEvery === 0) this.hashPose(i);
  }

  /** Agent i's local pose (rotations, then translations) into its digest. */
  private hashPose(i: number): void {
    const base = 2 * i * this.agentSize;
    digestWords(this.digests, 2 * i, this.words, base + this.poseWords[0], base + this.poseWords[1]);
  }

  private record(): void {
    const r = this.recording;
    if (!r || this.stepIndex >= r.steps) return;
    const c = this.controllers[this.recordIndex];
    const J = c.joints, s = this.stepIndex;
    r.rotations.set(c.rotations, s * J * 4);
    r.translations.set(c.translations, s * J * 3);
    r.root.set(c.rootPosition, s * 7);
    r.root.set(c.rootRotation, s * 7 + 3);
  }

  /** Steps taken so far. */
  get steps(): number {
    return this.stepIndex;
  }

  result(): GroupResult {
    // The final pose goes into every digest too.
    for (let i = 0; i < this.count; i++) this.hashPose(i);
    // With levels, the meters fed each level's statistics: the group's whole figure is their merge.
    if (this.lod !== null && this.stats.steps === 0) this.stats.merge(this.lod.mergedStats());
    return {
      first: this.first,
      count: this.count,
      ranges: this.ranges.map((r): AgentRange => [r[0], r[1]]),
      hashes: Array.from({ length: this.count }, (_, i) => digestHex(this.digests, 2 * i)),
      stats: this.stats,
      searchUsPerQuery: this.searchUs,
      searchesPerStep: this.searchCounts,
      searches: this.searches,
      localSearches: this.controllers.reduce((n, c) => n + c.localSearchCount, 0),
      controllerMs: this.controllerMs,
      searchMs: this.searchMs,
      recording: this.recording,
      overlay: this.overlays?.stats ?? null,
      lod: this.lod ? { counts: this.lod.counts, levelStats: this.lod.levelStats } : null,
    };
  }
}

/** Agents finished before their quality meters run (observeChunk: in a pass of their own, their state still in the caches). */
const OBSERVE_BLOCK = 16;

/**
 * Per step of a run split into `groups`: the search time per query (µs) over all of them (each
 * group's time per query weighted by its searches in that step); steps without a search are left
 * out. One figure per step however the crowd was split into groups and threads.
 */
export function stepSearchTimes(groups: readonly Pick<GroupResult, 'searchUsPerQuery' | 'searchesPerStep'>[]): number[] {
  const steps = groups.reduce((n, g) => Math.max(n, g.searchesPerStep.length), 0);
  const out: number[] = [];
  for (let s = 0; s < steps; s++) {
    let us = 0, k = 0;
    for (const g of groups) {
      const n = g.searchesPerStep[s] ?? 0;
      if (n > 0) { us += g.searchUsPerQuery[s] * n; k += n; }
    }
    if (k > 0) out.push(us / k);
  }
  return out;
}

/** `ranges` checked (non-empty, each a run of whole agent indices, in increasing order, not overlapping) and copied. */
function checkRanges(ranges: readonly AgentRange[]): AgentRange[] {
  if (ranges.length === 0) throw new RangeError('AgentGroup: no agents (ranges is empty)');
  let next = 0;
  return ranges.map(([first, count]) => {
    if (!(Number.isInteger(first) && Number.isInteger(count) && count >= 1 && first >= next)) {
      throw new RangeError(`AgentGroup: ranges must be [first, count] runs of agents in increasing order, not overlapping; got [${first}, ${count}] after agent ${next - 1}`);
    }
    next = first + count;
    return [first, count];
  });
}

/**
 * The agents' digests of a run's groups in agent order (groups may hold interleaved blocks); they
 * must cover one contiguous run of agents, which is returned too.
 */
export function agentHashesInOrder(groups: readonly Pick<GroupResult, 'ranges' | 'hashes'>[]): { first: number; hashes: string[] } {
  const parts: Array<{ first: number; hashes: string[] }> = [];
  for (const g of groups) {
    let at = 0;
    for (const [first, count] of g.ranges) { parts.push({ first, hashes: g.hashes.slice(at, at + count) }); at += count; }
    if (at !== g.hashes.length) throw new Error(`agent hashes: a group holds ${g.hashes.length} digests for ${at} agents`);
  }
  parts.sort((a, b) => a.first - b.first);
  const hashes: string[] = [];
  for (const p of parts) {
    if (hashes.length > 0 && p.first !== parts[0].first + hashes.length) throw new Error(`agent hashes: the groups do not hold one contiguous run of agents (agent ${p.first} follows ${parts[0].first + hashes.length - 1})`);
    hashes.push(...p.hashes);
  }
  return { first: parts.length > 0 ? parts[0].first : 0, hashes };
}
