/**
 * The crowd: the player's controller (index 0) and the agents' controllers, stepped together.
 *
 * One step = prepare() on every character, one batched search for every character that wants one
 * (MatcherPool: worker threads over a shared memory when the page is cross-origin isolated), then
 * complete() on every character (playback, inertialization, root motion, foot IK). Only this is
 * timed as "engine update"; input, AI and drawing are not.
 */
import type { Database } from '../../src/database/database.js';
import { MotionMatchingController, createInput, type ControllerInput } from '../../src/runtime/controller/controller.js';
import { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import type { Matcher, SearchMethod } from '../../src/search/matcher.js';
import { CrowdSearchBatch, type BatchSearcher as BatchAnswerer } from '../../src/runtime/crowd/batch.js';
import { LocalSearchBatch } from '../../src/runtime/crowd/local-batch.js';
import { FramePrefetch } from '../../src/runtime/crowd/prefetch.js';
import { locomotionTags, searchTagsOn, type LocomotionTags, type SearchTags } from '../../src/sim/search-tags.js';
import { ScriptedDriver } from '../../src/sim/scenarios.js';
import type { ControllerSettings } from '../../src/sim/settings/options-file.js';
import type { StepTiming } from './stats.js';
import { flatGround, type Ground } from '../../src/runtime/ground/ground.js';
import { terrainGround, type TerrainSpec } from '../../src/sim/terrain/terrain.js';

/** The level ground y = 0 a crowd goes back to after a terrain. */
const LEVEL_GROUND = flatGround(0);
import { WAVE_TAG, syncCrowdOverlays, type CrowdOverlays, type CrowdOverlaySettings } from './overlay-crowd.js';
import { CrowdLod } from '../../src/runtime/crowd/crowd-lod.js';
import { DEFAULT_LOD_LEVELS } from '../../src/runtime/lod/levels.js';
import { UNSEEN_STEP_EVERY, checkUnseenStepEvery, inLodView, restsUnseen, revealsPerStep, seeAll, type LodView } from '../../src/runtime/lod/view.js';
import type { ControllerOptions } from '../../src/runtime/controller/options.js';

/** What a crowd needs from a search backend: batches, and one matcher for single searches. */
export interface BatchSearcher extends BatchAnswerer {
  readonly matcher: Matcher;
}

/**
 * World poses of many agents in flat float arrays, for drawing: per agent its root position
 * (3 floats in `roots`) and its joints (J * 3 positions then J * 4 rotations in `poses`), and
 * whether that pose is one held while the agent was out of view (`held`, 1: stale, not to be
 * drawn; levels of detail).
 */
export interface PoseChunk {
  count: number;
  roots: Float32Array;
  poses: Float32Array;
  held: Float32Array;
}

/** Floats per agent in PoseChunk.poses. */
export function poseFloats(joints: number): number {
  return joints * 7;
}

export interface CrowdOptions {
  footIK: boolean;
  inertialization: boolean;
  /** Controller options other than the defaults (a settings file's, `demo --options FILE`). */
  controller?: ControllerSettings;
  /** Uneven ground for every character (src/sim/terrain/terrain.ts); null or absent: flat. */
  terrain?: TerrainSpec | null;
  /** The agents' overlays (waves on a seeded schedule, web/src/overlay-crowd.ts), or null. */
  overlay?: CrowdOverlaySettings | null;
  /** Levels of detail by distance to the camera (docs/lod.md); the player is always at full detail. */
  lod?: boolean;
  /**
   * With levels: at most this many agent searches per agent-second (each step's share is the rate
   * times the agents and dt); the most urgent run, the others wait. Null or absent: no budget.
   */
  searchBudget?: number | null;
  /**
   * With levels: an agent out of view steps only every this many steps (1: every step; default
   * UNSEEN_STEP_EVERY, 4), with the time gathered meanwhile (runtime/lod/view.ts restsUnseen).
   */
  unseenStepEvery?: number;
  /**
   * Tags the locomotion searches of every character keep to (`demo --require-tag/--exclude-tag`);
   * names the database lacks are left out. Frames tagged for the wave (WAVE_TAG) are left out of
   * locomotion unless required (a standing character idled on a bow).
   */
  tags?: SearchTags | null;
}

/** Radius of the disc the agents wander in, for a crowd of n (about 8 m² each, at least 8 m). */
export function crowdRadius(n: number): number {
  return Math.max(8, 1.6 * Math.sqrt(n));
}

export class Crowd {
  /** With a player: index 0 is the player and 1.. are agents; without, all are agents. */
  readonly characters: MotionMatchingController[] = [];
  readonly inputs: ControllerInput[] = [];
  /** The agents' scripted drivers (the simulation's 'crowd' scenario), one per agent. */
  readonly drivers: ScriptedDriver[] = [];
  private readonly seed: number;
  readonly options: CrowdOptions;

  /** Batch staging, grown with the crowd and reused every frame. */
  private readonly batch: CrowdSearchBatch;
  private readonly localBatch: LocalSearchBatch;
  /** The database rows each character's next step reads, touched one character ahead. */
  private readonly prefetch: FramePrefetch;
  /** Every frame a search may return (new agents start on a random one). */
  private readonly candidateFrames: Int32Array;
  /** Index of the first agent in `characters` (1 with a player, else 0). */
  readonly first: number;
  /** Whether the crowd has walked on a terrain (flat ground is then a level ground, see ground()). */
  private hadTerrain = false;
  /** The agents' overlays, once asked for. */
  overlays: CrowdOverlays | null = null;
  /** The locomotion searches' tag filters in force (applySearchTags). */
  private locomotion: LocomotionTags = { require: null, exclude: null };
  /** Levels of detail (options.lod), made for the current crowd size; null when off. */
  private lod: CrowdLod | null = null;
  /**
   * Where the camera is (x, z on the ground) and where it looks: the levels' distances are measured
   * from it, and far agents outside its view hold their pose (MotionMatchingController.unseen).
   */
  readonly camera: LodView = seeAll();
  /** Characters at each level after the last step (empty without levels). */
  readonly levelCounts: number[] = [];
  /** The fraction of a search the budget carries from one step to the next. */
  private budgetCarry = 0;
  /** False after the crowd changed (agents added or removed, options): writePoses then copies every pose. */
  private posesValid = false;
  /** Steps since writePoses last ran: its chunk holds the last step's poses only when it ran after every step. */
  private stepsSinceWrite = 0;
  /** Steps taken (staggers the steps of unseen agents). */
  private stepIndex = 0;
  /**
   * Per character: 1 when think() let it rest this step (unseen, out of view, not its turn:
   * runtime/lod/view.ts restsUnseen), and the seconds it has not stepped yet (its next step takes them).
   */
  private resting = new Uint8Array(0);
  private gathered = new Float64Array(0);

  constructor(readonly db: Database, options: CrowdOptions, seed = 1, withPlayer = true) {
    checkUnseenStepEvery(options.unseenStepEvery);
    this.options = { ...options };
    this.seed = seed;
    this.batch = new CrowdSearchBatch(db.stride, 'kdtree');
    this.localBatch = new LocalSearchBatch(db);
    this.prefetch = new FramePrefetch(db);
    const candidates: number[] = [];
    for (let f = 0; f < db.frameCount; f++) if (db.candidates[f]) candidates.push(f);
    if (candidates.length === 0) throw new Error('the database has no search candidates (every clip is shorter than the end margin)');
    this.candidateFrames = Int32Array.from(candidates);
    this.first = withPlayer ? 1 : 0;
    // The player, standing at the origin facing +Z.
    if (withPlayer) this.add(this.makeController(), createInput());
    this.applySearchTags();
    this.overlays = syncCrowdOverlays(null, this.options.overlay, db, seed, []);
  }

  /** The filters every character's locomotion searches keep to now (options.tags on this database, the wave tag left out). */
  get searchTags(): LocomotionTags {
    return this.locomotion;
  }

  /** options.tags onto the player's input and every agent's driver (which puts them on its input each step). */
  private applySearchTags(): void {
    const t = (this.locomotion = locomotionTags(this.db, searchTagsOn(this.db, this.options.tags).tags, this.db.tagNames.includes(WAVE_TAG) ? WAVE_TAG : null));
    for (const d of this.drivers) d.searchTags(t.require, t.exclude);
    for (const input of this.inputs) { input.requireTags = t.require; input.excludeTags = t.exclude; }
  }

  get player(): MotionMatchingController {
    if (this.first === 0) throw new Error('this crowd has no player');
    return this.characters[0];
  }

  get playerInput(): ControllerInput {
    return this.inputs[0];
  }

  get agentCount(): number {
    return this.characters.length - this.first;
  }

  /**
   * Grows or shrinks the crowd to n agents. New agents appear at seeded random places in the
   * crowd's disc, on a random frame, and take one warm-up step of random length so that their
   * search timers are staggered (a crowd created in one frame would otherwise search in step).
   */
  setAgentCount(n: number, search: BatchSearcher, method: SearchMethod, radius = crowdRadius(n)): void {
    if (!(Number.isInteger(n) && n >= 0)) throw new RangeError(`agent count must be a non-negative integer, got ${n}`);
    for (const d of this.drivers) d.radius = radius;
    while (this.agentCount > n) {
      this.posesValid = false;
      this.characters.pop();
      this.inputs.pop();
      if (this.overlays && this.overlays.count > this.agentCount) this.overlays.removeLast();
    }
    if (this.agentCount === n) return;
    this.posesValid = false;
    const port = new MatcherSearchPort(search.matcher, method);
    while (this.agentCount < n) {
      const i = this.agentCount; // driver slot of the new agent
      const c = this.makeController();
      const input = createInput();
      input.requireTags = this.locomotion.require; input.excludeTags = this.locomotion.exclude;
      if (i === this.drivers.length) this.drivers.push(new ScriptedDriver('crowd', this.seed, i, 1 / 60));
      const b = this.drivers[i];
      b.searchTags(this.locomotion.require, this.locomotion.exclude);
      b.radius = radius;
      // Uniform in the disc, outside a small clearing around the origin where the player starts.
      const r = Math.sqrt(0.02 + 0.98 * b.random()) * radius;
      const a = b.random() * 2 * Math.PI;
      const yaw = (b.random() - 0.5) * 2 * Math.PI;
      const frame = this.candidateFrames[Math.floor(b.random() * this.candidateFrames.length)];
      c.reset(frame, r * Math.sin(a), r * Math.cos(a), yaw);
      b.restart(yaw);
      c.update(0, input, port);
      c.update(b.random() * c.options.searchInterval, input, port);
      this.add(c, input);
      this.overlays?.add(c, i);
    }
    this.syncLod(false);
  }

  /** Applies foot IK / inertialization switches and the terrain to every character. */
  setOptions(options: Partial<CrowdOptions>): void {
    checkUnseenStepEvery(options.unseenStepEvery);
    Object.assign(this.options, options);
    this.applySearchTags();
    const ground = this.ground();
    for (const c of this.characters) {
      c.options.footIK = this.options.footIK;
      c.options.inertialization = this.options.inertialization;
      c.options.ground = ground;
    }
    this.overlays = syncCrowdOverlays(this.overlays, this.options.overlay, this.db, this.seed, this.characters.slice(this.first));
    this.syncLod(true);
    this.posesValid = false;
  }

  /**
   * Makes the levels match the options and the crowd's size: a new CrowdLod (every character's
   * level chosen afresh at the next step) when turned on, resized or `rebuild` (new options); every
   * character back at full detail when turned off.
   */
  private syncLod(rebuild: boolean): void {
    const n = this.characters.length;
    if (!this.options.lod) {
      if (this.lod) {
        const base = this.lodBase();
        for (const c of this.characters) { c.setLevel(base, DEFAULT_LOD_LEVELS[0]); c.unseen = false; }
        this.lod = null;
        this.levelCounts.length = 0;
      }
      return;
    }
    if (this.lod && !rebuild && this.lod.level.length === n) return;
    this.lod = new CrowdLod(this.db, this.lodBase(), n, 'kdtree');
  }

  /** The options of full detail, one object shared by every character at level 0. */
  private lodBase(): ControllerOptions {
    return MotionMatchingController.resolveOptions({ ...this.options.controller, footIK: this.options.footIK, inertialization: this.options.inertialization, ground: this.ground() });
  }

  /**
   * The characters' ground: the terrain's, or none. Once there was a terrain, flat ground is a level
   * ground rather than none, so that characters walk down onto it instead of their feet staying
   * planted where the terrain had them.
   */
  private ground(): Ground | null {
    const spec = this.options.terrain ?? null;
    if (spec) this.hadTerrain = true;
    return spec ? terrainGround(spec) : this.hadTerrain ? LEVEL_GROUND : null;
  }

  /**
   * The agents' AI (not part of the timed engine update). With levels of detail, an agent that was
   * unseen at its last step and is still out of the camera's view rests on three steps of four
   * (restsUnseen): neither its AI nor its controller steps, and its next step takes the time
   * gathered. Call before every step().
   */
  think(dt: number): void {
    this.overlays?.tick(dt);
    const n = this.characters.length, first = this.first, view = this.camera, lod = this.lod !== null;
    if (this.resting.length < n) this.growRest(n);
    const resting = this.resting, gathered = this.gathered, step = this.stepIndex, every = this.options.unseenStepEvery ?? UNSEEN_STEP_EVERY;
    for (let k = first; k < n; k++) {
      const c = this.characters[k], p = c.rootPosition;
      if (lod && c.unseen && restsUnseen(step, k, gathered[k], dt, every) && !inLodView(view, p[0], p[2])) {
        resting[k] = 1;
        gathered[k] += dt;
        continue;
      }
      const d = this.drivers[k - first];
      d.stepSeconds = dt + gathered[k];
      d.drive(p, this.inputs[k]);
    }
  }

  private growRest(n: number): void {
    const resting = new Uint8Array(Math.max(n, 2 * this.resting.length)), gathered = new Float64Array(resting.length);
    resting.set(this.resting); gathered.set(this.gathered);
    this.resting = resting; this.gathered = gathered;
  }

  /** One engine step for every character; resolves with its timings. */
  async step(dt: number, search: BatchSearcher, method: SearchMethod): Promise<StepTiming> {
    this.stepsSinceWrite++;
    this.stepIndex++;
    if (this.resting.length < this.characters.length) this.growRest(this.characters.length);
    if (this.lod) return this.stepLod(this.lod, dt, search, method);
    const chars = this.characters, inputs = this.inputs, n = chars.length, batch = this.batch, local = this.localBatch;
    const t0 = performance.now();
    batch.begin();
    local.begin();
    const gathered = this.gathered;
    for (let i = 0; i < n; i++) {
      // (time an agent gathered resting, before the levels were switched off)
      const stepDt = dt + gathered[i];
      gathered[i] = 0;
      this.resting[i] = 0;
      // (local between full searches when the settings ask for it: controller option fullSearchInterval)
      if (chars[i].prepare(stepDt, inputs[i]) && !(chars[i].searchLocal && local.tryAdd(chars[i], i))) batch.add(chars[i], i);
    }
    const t1 = performance.now();
    batch.method = method;
    const pending = batch.search(search);
    if (pending instanceof Promise) await pending;
    if (local.count > 0) { const l = local.search(search); if (l instanceof Promise) await l; }
    const t2 = performance.now();
    const prefetch = this.prefetch;
    for (let i = 0; i < n; i++) {
      // The database rows the next character plays, brought in while this one steps (runtime/crowd/prefetch.ts).
      if (i + 1 < n) prefetch.touch(chars[i + 1]);
      if (!local.tryFinish(chars[i], i)) batch.finish(chars[i], i);
    }
    const t3 = performance.now();
    return { prepareMs: t1 - t0, searchMs: t2 - t1, completeMs: t3 - t2, updateMs: t3 - t0, searches: batch.count + local.count };
  }

  /**
   * step() with levels of detail: each character's level from its distance to the camera, full and
   * local searches. With a search budget the agents' searches are capped (the most urgent run, the
   * others wait a step: runtime/lod/search-budget.ts); the player then steps first, on its own, and never waits.
   */
  private async stepLod(lod: CrowdLod, dt: number, search: BatchSearcher, method: SearchMethod): Promise<StepTiming> {
    const n = this.characters.length, first = this.first;
    const t: StepTiming = { prepareMs: 0, searchMs: 0, completeMs: 0, updateMs: 0, searches: 0, levels: this.levelCounts, held: 0 };
    const t0 = performance.now();
    lod.method = method;
    const budget = this.searchShare(dt);
    if (budget === Infinity || first === 0) {
      await this.stepLodBlock(lod, dt, search, 0, n, budget, t);
    } else {
      await this.stepLodBlock(lod, dt, search, 0, first, Infinity, t);
      await this.stepLodBlock(lod, dt, search, first, n, budget, t);
    }
    t.updateMs = performance.now() - t0;
    lod.countLevels(this.levelCounts);
    // Agents only (the player is not counted at level 0).
    if (first > 0 && n > 0) this.levelCounts[lod.level[0]]--;
    return t;
  }

  /**
   * The agents' searches this step under the search budget (searches per agent-second times the
   * agents and dt, the fraction carried to the next step, so the steps' shares add up to the rate);
   * Infinity without a budget.
   */
  private searchShare(dt: number): number {
    const rate = this.options.searchBudget ?? null;
    if (rate === null) return Infinity;
    const want = rate * this.agentCount * dt + this.budgetCarry;
    const share = Math.floor(want);
    this.budgetCarry = want - share;
    return share;
  }

  /** Characters [from, to) through prepare, at most `share` searches, complete; adds to `t`. */
  private async stepLodBlock(lod: CrowdLod, dt: number, search: BatchSearcher, from: number, to: number, share: number, t: StepTiming): Promise<void> {
    const view = this.camera, chars = this.characters, inputs = this.inputs, cx = view.x, cz = view.z;
    const t0 = performance.now();
    let held = 0, reveals = revealsPerStep(this.agentCount, lod.levels);
    const resting = this.resting, gathered = this.gathered;
    lod.beginBlock();
    for (let i = from; i < to; i++) {
      // Resting (think()): unseen and held, its level and pose as they were.
      if (resting[i] !== 0) { held++; continue; }
      const stepDt = dt + gathered[i];
      gathered[i] = 0;
      const c = chars[i], x = c.rootPosition[0], z = c.rootPosition[2], dx = x - cx, dz = z - cz;
      // The player (index 0 of a crowd with one) is what the camera follows: always full detail.
      const level = lod.choose(c, i, i < this.first ? 0 : Math.sqrt(dx * dx + dz * dz));
      // Agents beyond level 0 (15 m) outside the view hold their pose: nobody sees it. One seen
      // again catches up this step unless this step's reveals are used up (a quick turn of the
      // camera): it then stays held, and undrawn, a step longer (never at level 0).
      let unseen = level > 0 && !inLodView(view, x, z);
      if (!unseen && c.poseHeld && level > 0) { if (reveals > 0) reveals--; else unseen = true; }
      c.unseen = unseen;
      if (unseen) held++;
      if (c.prepare(stepDt, inputs[i])) lod.due(c, i);
    }
    lod.schedule(chars, share);
    const t1 = performance.now();
    const pending = lod.search(search);
    const searches = pending instanceof Promise ? await pending : pending;
    const t2 = performance.now();
    for (let i = from; i < to; i++) {
      if (resting[i] !== 0) resting[i] = 0;
      else lod.finish(chars[i], i);
    }
    const t3 = performance.now();
    t.prepareMs += t1 - t0; t.searchMs += t2 - t1; t.completeMs += t3 - t2;
    t.searches += searches;
    t.held = (t.held ?? 0) + held;
  }

  /**
   * Copies the agents' roots and world poses into `chunk` (grown as needed); returns it. With
   * `reuse`, a chunk that already holds this crowd's poses of the last step (same count, not grown)
   * keeps the poses of agents whose pose waited in that step (levels of detail): only their roots
   * are copied.
   */
  writePoses(chunk: PoseChunk, reuse = false): PoseChunk {
    const n = this.agentCount, J = this.db.skeleton.names.length, F = poseFloats(J);
    // (The batched engine writes only when the crowd is drawn: after steps without a write, the
    // chunk misses the poses updated in them.)
    let keep = reuse && this.posesValid && this.stepsSinceWrite <= 1 && chunk.count === n && this.lod !== null;
    if (chunk.roots.length < 3 * n) { chunk.roots = new Float32Array(3 * Math.max(n, 16)); keep = false; }
    if (chunk.poses.length < F * n) { chunk.poses = new Float32Array(F * Math.max(n, 16)); keep = false; }
    if (chunk.held.length < n) { chunk.held = new Float32Array(Math.max(n, 16)); keep = false; }
    const roots = chunk.roots, poses = chunk.poses, held = chunk.held;
    for (let a = 0; a < n; a++) {
      const c = this.characters[a + this.first];
      roots[3 * a] = c.rootPosition[0]; roots[3 * a + 1] = c.rootPosition[1]; roots[3 * a + 2] = c.rootPosition[2];
      held[a] = c.poseHeld ? 1 : 0;
      // A pose that waited (poseSeconds 0 in a step that moved on) is what the chunk already holds.
      if (keep && c.poseSeconds === 0 && c.stepSeconds > 0) continue;
      // A held pose is not drawn (held[a]): no copy until it is updated.
      if (c.poseHeld) continue;
      poses.set(c.worldPositions, F * a);
      poses.set(c.worldRotations, F * a + 3 * J);
    }
    this.posesValid = true;
    this.stepsSinceWrite = 0;
    chunk.count = n;
    return chunk;
  }

  private makeController(): MotionMatchingController {
    return new MotionMatchingController(this.db, { ...this.options.controller, footIK: this.options.footIK, inertialization: this.options.inertialization, ground: this.ground() });
  }

  private add(c: MotionMatchingController, input: ControllerInput): void {
    const k = this.characters.length;
    // (a slot a removed agent rested in starts afresh)
    if (k < this.resting.length) { this.resting[k] = 0; this.gathered[k] = 0; }
    this.characters.push(c);
    this.inputs.push(input);
  }
}
