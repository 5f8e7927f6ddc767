/**
 * The motion matching controller: one character's step from input to pose. The parts live beside
 * it — options (controller/options.ts), the state block layout (controller/state.ts), the simulated
 * trajectory's step (controller/simulation.ts), the query (controller/query.ts, its layout in
 * controller/trajectory-layout.ts), database poses (controller/frame-pose.ts), playback and crossfade
 * layers (controller/playback.ts), a transition's offsets (controller/transition-offsets.ts), the
 * pose's schedule under levels of detail (controller/pose-schedule.ts), the root's move
 * (controller/root-adjustment.ts), inertialization (inertialization/decay.ts), foot locking and IK
 * (foot-ik/foot-ik.ts), orientation warping (controller/orientation-warp.ts) — and this file strings
 * them together.
 */
import type { Database } from '../../database/database.js';
import { CONTACT_LEFT, CONTACT_RIGHT } from '../../features/contacts.js';
import { databaseRuntime, type DatabaseRuntime } from '../database-runtime.js';
import type { PoseSearchPort, PoseSearchRequest, PoseSearchResult } from '../search-port.js';
import { quatFromYaw } from '../../math/quat.js';
import { composeJoint, posedForwardKinematics } from '../../anim/forward-kinematics.js';
import { InertializationDecay } from '../inertialization/decay.js';
import { FootIK, FOOT_IK_STATE_SIZE } from '../foot-ik/foot-ik.js';
import { capturedData } from '../captured-data.js';
import { type ControllerInput, type ControllerLevel, type ControllerOptions, type ControllerOptionsInput, resolveControllerOptions } from './options.js';
import {
  ROOT_POS, ROOT_ROT, SIM_POS, SIM_VEL, SIM_ACC, SIM_ROT, SIM_ANGVEL, DESIRED_ROT,
  ROOT_VEL_OFFSET, LAYER_FRACTION, LAYER_WEIGHT, LAYER_FRAME, FRAME_FRACTION,
  LAST_COST, LAST_SEARCH_COST, PLAY_RATE, SEARCH_TIMER, LAST_DESIRED_VX, LAST_DESIRED_VZ,
  LAST_DESIRED_FACING, STEP_DT, ADJUST_DT, ADJUST_CAP, ADJUST_CAP_RISE, COUNT_STEPS, COUNT_SEARCHES, COUNT_TRANSITIONS,
  COUNT_SECONDS, RESULT_COST, DESIRED_ROT_YAW, SINCE_TRANSITION, UPPER_TWIST_TARGET, UPPER_TWIST, UPPER_TWIST_VEL, STATE_SIZE, blockSize, CounterView, type ControllerCounters,
  COUNT_LOCAL_SEARCHES, LOD_POSE_EVERY, LOD_POSE_COUNT, LOD_POSE_DT, LOD_FULL_INTERVAL, LOD_LOCAL_FRAMES, SINCE_SEARCH, SINCE_FULL_SEARCH, POSE_SECONDS, LOD_UNSEEN, LOD_POSE_HELD, IK_WEIGHT, IK_WEIGHT_VEL, LOD_DRAIN, STAND_REQUEST, STAND_HOLD, HOLD_RATE, HOLD_RATE_VEL, WARP_RATE, WARP_RATE_VEL,
} from './state.js';
import { trajectoryLayout, type TrajectoryLayout } from './trajectory-layout.js';
import { poseScratch, sampleFramePose, blendLayerPoses, type Pose64 } from './frame-pose.js';
import { advancePlayback, pushLayer } from './playback.js';
import { moveRoot } from './root-adjustment.js';
import { placeOnGround } from './root-height.js';
import { turnUpperBody } from './orientation-warp.js';
import { stepSimulation } from './simulation.js';
import { OverlayLayer, type OverlayPlayOptions, type OverlaySource } from '../overlay/overlay.js';
import { STAND_REQUEST_SPEED, standingFrames } from './standing.js';
import { stepBlendWeight, savePose, blendFromSaved } from './level-blend.js';
import { describeArgument } from '../../util/arguments.js';
import { buildQuery, predictForQuery, predictTrajectory, searchCanLand } from './query.js';
import { decayRootVelocityOffset, drainingOffsets, endDrain, startTransitionOffsets } from './transition-offsets.js';
import { schedulePose } from './pose-schedule.js';

export { createInput, DEFAULT_CONTROLLER_OPTIONS, type ControllerInput, type ControllerOptions, type ControllerOptionsInput } from './options.js';
export type { ControllerCounters } from './state.js';

// Temporaries of one call (never held across calls): shared by every controller of a thread, so a
// crowd's steps keep them in cache.
const ROOT_STEP = new Float64Array(4);
/** The inertialization step's dt and half-life (Inertializer.applyWith). */
const INERT_ARGS = new Float64Array(2);
/** prepare()'s dt on its way to prepareStep() (not the state: a refused dt must leave the state as it was). */
const PREPARE_DT = new Float64Array(1);

/**
 * Fastest desired speed accepted (m/s). No character runs faster; a larger value is a unit mistake
 * (cm/s) or garbage, and would overflow the trajectory springs into Infinity.
 */
export const MAX_DESIRED_SPEED = 100;

/**
 * Motion matching controller: input -> spring trajectory -> query -> search -> playback with
 * inertialization -> root motion (increments, committed once per step after constraints) -> foot IK.
 *
 * update() does everything for one character. A crowd calls prepare() on every character, answers
 * the wanted searches in one batch, then complete() on every character: same result, fewer calls.
 *
 * Output: `rotations` (J*4) and `translations` (J*3) are the local pose with joint 0 relative to the
 * character root; `rootPosition` / `rootRotation` place the root in the world. Translations of
 * joints that never move in the database (DatabaseRuntime.movingTranslations: all but the hips,
 * usually) are written at reset and then left as they are: they are the same in every frame.
 */
export class MotionMatchingController {
  readonly db: Database;
  readonly rt: DatabaseRuntime;
  /** standingFrames(db): 1 where the capture stands (looked up once: a WeakMap get every step cost more than the test). */
  private readonly standingAt: Uint8Array;
  /** Whether the database holds a standing frame (standingAt): a stop is then not held back by the dwell. */
  private readonly canStand: boolean;
  /** The options in force: the ones given, or a level's (setLevel). */
  options: ControllerOptions;
  readonly joints: number;

  // Output pose (after inertialization and IK) and root transform.
  /** The character's state block (fixed-size state at the *_POS/ROT/... offsets, then the pose buffers). */
  private readonly s: Float64Array;
  readonly rotations: Float64Array;
  readonly translations: Float64Array;
  readonly rootPosition: Float64Array;
  readonly rootRotation: Float64Array;
  /** World joint positions of the output pose (J*3), refreshed every step. */
  readonly worldPositions: Float64Array;
  readonly worldRotations: Float64Array;

  // Simulated trajectory (springs), world space.
  readonly simPosition: Float64Array;
  readonly simVelocity: Float64Array;
  readonly simAcceleration: Float64Array;
  readonly simRotation: Float64Array;
  readonly simAngularVelocity: Float64Array;
  /** Predicted future positions (count*3) and rotations (count*4) at `trajectoryTimes`. */
  readonly trajectoryTimes: Float64Array;
  readonly trajectoryPositions: Float64Array;
  readonly trajectoryRotations: Float64Array;

  /** The playing frame (database index) and the fraction towards the next one. */
  frame = 0;
  get frameFraction(): number { return this.s[FRAME_FRACTION]; }
  /** Current cost of the playing frame against the last query (for debug views). */
  get lastCost(): number { return this.s[LAST_COST]; }
  /** Cost of the last search's result (Infinity when nothing beat continuing). */
  get lastSearchCost(): number { return this.s[LAST_SEARCH_COST]; }
  /** True while the character stands held on a standing frame (a stop request that reached one; standing.ts). */
  get standing(): boolean { return this.s[STAND_HOLD] !== 0; }
  /** Current play rate (time warping; 1 when off; 0 held standing). */
  get playRate(): number { return this.s[PLAY_RATE]; }
  /** The frame the last transition went to (-1 before the first). */
  lastTransitionFrame = -1;
  /** Steps, searches and transitions so far, and the seconds stepped (a view of the state block). */
  readonly counters: ControllerCounters;
  /** counters.searches and counters.transitions, read without going through the view object. */
  get searchCount(): number { return this.s[COUNT_SEARCHES]; }
  /** Searches that were local (ControllerOptions.fullSearchInterval, levels of detail), of searchCount. */
  get localSearchCount(): number { return this.s[COUNT_LOCAL_SEARCHES]; }
  get transitionCount(): number { return this.s[COUNT_TRANSITIONS]; }
  /** True during the step in which a transition happened. */
  transitioned = false;

  // Search request (query in normalised units) filled by prepare().
  readonly request: PoseSearchRequest;
  readonly result: PoseSearchResult = { frame: -1, cost: Number.POSITIVE_INFINITY, local: false };
  wantsSearch = false;
  /** Set by prepare() with wantsSearch: the search is forced (sharp input change, clip end, first step): never local. */
  searchForced = false;
  /**
   * Set by prepare() with wantsSearch: a local search is asked for (a window around the playing
   * frame, lod/local-search.ts: ControllerOptions.fullSearchInterval or a level of detail) rather
   * than a full one. A crowd that does not run it (no candidate in the window, or a batch without
   * local searches) clears it before complete(): the search was then a full one.
   */
  searchLocal = false;
  /** The last query's raw (unnormalised) features. */
  readonly rawQuery: Float32Array;

  /** Where the schema's trajectory groups sit in the query (shared by every controller of the database). */
  private readonly trajectory: TrajectoryLayout;
  private forceSearch = true;

  // Inertialization (per joint, root-relative local space) plus the root's velocity offset.
  private readonly inert: InertializationDecay;
  private readonly playing: Pose64;
  private readonly destination: Pose64;

  // Crossfade layers (frame, fraction, weight, target weight).
  private layerCount = 0;

  /** Foot locking and IK state (locks, targets) for debug views. */
  readonly footIK: FootIK;

  /** The overlay layer over the locomotion (docs/overlays.md), or null. */
  private overlayLayer: OverlayLayer | null = null;

  /**
   * Defaults filled in and validated. Controllers given the returned object share it instead of
   * copying it: a crowd passes one object to every character (one copy in cache, not thousands),
   * and a change to one of its fields applies to all of them.
   */
  static resolveOptions(options: ControllerOptionsInput = {}): ControllerOptions {
    return resolveControllerOptions(options);
  }

  /** Values a controller keeps for `db` (the size of the `storage` block the constructor accepts). */
  static storageSize(db: Database): number {
    const J = db.skeleton.names.length;
    return blockSize(J, InertializationDecay.storageSize(J, databaseRuntime(db).movingTranslations.length), trajectoryLayout(db).times.length, db.stride);
  }

  /**
   * `storage` (optional, at least storageSize(db) values, overwritten) holds the controller's state;
   * a crowd passes consecutive slices of one buffer so that stepping it streams through memory.
   */
  constructor(db: Database, options: ControllerOptionsInput = {}, storage?: Float64Array) {
    if (db === null || typeof db !== 'object' || !(typeof db.frameCount === 'number')) throw new TypeError(`MotionMatchingController: db must be a Database (buildDatabase, readDatabaseFile), got ${describeArgument(db)}`);
    this.db = db;
    this.rt = databaseRuntime(db);
    this.standingAt = standingFrames(db);
    this.canStand = this.standingAt.includes(1);
    this.options = resolveControllerOptions(options);
    const J = (this.joints = db.skeleton.names.length);
    const trajectory = (this.trajectory = trajectoryLayout(db));
    const times = trajectory.times;
    const T = times.length;
    // Every per-step value lives in one block: the small fixed-size state first (at constant
    // offsets, read through `s`), then the pose buffers in the order a step touches them. A crowd of
    // thousands then streams each character's state instead of chasing ~40 scattered allocations
    // (measured: 5,000 agents stepped 1.5x slower than 1,000 before this).
    const moving = this.rt.movingTranslations;
    const inertSize = InertializationDecay.storageSize(J, moving.length);
    const queryDoubles = Math.ceil(db.stride / 2);
    const size = blockSize(J, inertSize, T, db.stride);
    if (storage !== undefined && !(storage instanceof Float64Array && storage.length >= size)) {
      throw new RangeError(`controller storage must be a Float64Array of at least ${size} values`);
    }
    const arena = storage ? storage.subarray(0, size).fill(0) : new Float64Array(size);
    let used = STATE_SIZE;
    const take = (n: number): Float64Array => { const v = arena.subarray(used, used + n); used += n; return v; };
    this.s = arena;
    this.counters = new CounterView(arena);
    this.rootPosition = arena.subarray(ROOT_POS, ROOT_POS + 3);
    this.rootRotation = arena.subarray(ROOT_ROT, ROOT_ROT + 4);
    this.simPosition = arena.subarray(SIM_POS, SIM_POS + 3);
    this.simVelocity = arena.subarray(SIM_VEL, SIM_VEL + 3);
    this.simAcceleration = arena.subarray(SIM_ACC, SIM_ACC + 3);
    this.simRotation = arena.subarray(SIM_ROT, SIM_ROT + 4);
    this.simAngularVelocity = arena.subarray(SIM_ANGVEL, SIM_ANGVEL + 3);
    this.rotations = take(J * 4);
    this.translations = take(J * 3);
    this.worldPositions = take(J * 3);
    this.worldRotations = take(J * 4);
    // Non-moving joints' translations are the same in every frame: written at reset, then kept.
    this.inert = new InertializationDecay(J, { movingJoints: moving, storage: take(inertSize), keepStaticTranslations: true });
    const footState = take(FOOT_IK_STATE_SIZE);
    this.trajectoryTimes = take(T);
    this.trajectoryTimes.set(times);
    this.trajectoryPositions = take(T * 3);
    this.trajectoryRotations = take(T * 4);
    // The query (float32) in the block too: a small typed array of its own is a separate
    // allocation, one more cache miss per search in a crowd.
    const takeFloat32 = (): Float32Array => { const v = take(queryDoubles); return new Float32Array(v.buffer, v.byteOffset, db.stride); };
    this.rawQuery = takeFloat32();
    this.request = { query: takeFloat32(), bestCost: Infinity, excludeStart: 0, excludeEnd: 0, requireTags: null, excludeTags: null, localFrame: -1, localHalfFrames: 0 };
    this.s[ROOT_ROT + 3] = 1; this.s[SIM_ROT + 3] = 1; this.s[DESIRED_ROT + 3] = 1;
    this.s[LAST_SEARCH_COST] = Number.POSITIVE_INFINITY; this.s[PLAY_RATE] = 1; this.s[ADJUST_DT] = -1;
    this.s[ADJUST_CAP_RISE] = capturedData(db).bodyVelocityChangeMax;
    const scratch = poseScratch(J);
    this.playing = scratch.playing;
    this.destination = scratch.destination;
    this.footIK = new FootIK(db, this.options.footIKOptions, footState);
    // Local searches between full ones, as the options ask (a level of detail sets its own: setLevel).
    this.s[LOD_FULL_INTERVAL] = this.options.fullSearchInterval;
    this.s[LOD_LOCAL_FRAMES] = this.options.fullSearchInterval > 0 ? Math.round(this.options.localSearchSeconds * db.fps) : 0;
    this.reset(this.options.startFrame >= 0 ? this.options.startFrame : firstCandidate(db));
  }

  /** Start over at `frame`, at (x, z) on the ground (by default the world origin) facing along `yaw` (+Z), with no offsets. */
  reset(frame: number, x = 0, z = 0, yaw = 0): void {
    if (!(Number.isInteger(frame) && frame >= 0 && frame < this.db.frameCount)) {
      throw new RangeError(`reset: frame must be an integer in [0, ${this.db.frameCount - 1}], got ${frame}`);
    }
    this.frame = frame;
    this.s[FRAME_FRACTION] = 0;
    this.s[ROOT_POS] = x; this.s[ROOT_POS + 1] = 0; this.s[ROOT_POS + 2] = z;
    placeOnGround(this.s, this.options);
    quatFromYaw(this.s, ROOT_ROT, yaw);
    this.simPosition.set(this.rootPosition);
    this.simVelocity.fill(0); this.simAcceleration.fill(0); this.simAngularVelocity.fill(0);
    this.simRotation.set(this.rootRotation);
    this.s[LAST_DESIRED_VX] = 0; this.s[LAST_DESIRED_VZ] = 0; this.s[LAST_DESIRED_FACING] = yaw;
    this.s[DESIRED_ROT_YAW] = Number.NaN; // recomputed by the next prepare()
    this.inert.reset();
    this.overlayLayer?.reset();
    this.s.fill(0, ROOT_VEL_OFFSET, ROOT_VEL_OFFSET + 8);
    this.s[ADJUST_CAP] = Number.POSITIVE_INFINITY;
    this.layerCount = 1; this.s[LAYER_FRAME] = frame; this.s[LAYER_FRACTION] = 0; this.s[LAYER_WEIGHT] = 1;
    this.s[SEARCH_TIMER] = 0;
    this.s[SINCE_TRANSITION] = Number.POSITIVE_INFINITY;
    this.s[UPPER_TWIST_TARGET] = 0; this.s[UPPER_TWIST] = 0; this.s[UPPER_TWIST_VEL] = 0;
    this.s[LOD_POSE_COUNT] = 0; this.s[LOD_POSE_DT] = 0; this.s[LOD_UNSEEN] = 0; this.s[LOD_POSE_HELD] = 0; this.s[SINCE_SEARCH] = 0; this.s[SINCE_FULL_SEARCH] = Number.POSITIVE_INFINITY;
    this.forceSearch = true;
    this.samplePlaying();
    this.rotations.set(this.playing.rotations);
    this.translations.set(this.playing.positions);
    this.computeWorldPose();
    this.footIK.reset(this.worldPositions);
    this.s[IK_WEIGHT] = this.options.footIK ? 1 : 0; this.s[IK_WEIGHT_VEL] = 0; this.s[LOD_DRAIN] = 0;
    this.s[STAND_REQUEST] = 0; this.s[STAND_HOLD] = 0; this.s[HOLD_RATE] = 1; this.s[HOLD_RATE_VEL] = 0;
    this.s[WARP_RATE] = 1; this.s[WARP_RATE_VEL] = 0;
  }

  /** One full step for one character: prepare, search through `search`, complete. */
  update(dt: number, input: ControllerInput, search: PoseSearchPort): void {
    if (search === null || typeof search !== 'object' || typeof search.searchPose !== 'function') throw new TypeError(`update: search must be a PoseSearchPort (new MatcherSearchPort(matcher)), got ${describeArgument(search)}`);
    if (this.prepare(dt, input)) {
      this.result.local = false;
      search.searchPose(this.request, this.result);
      // (a port that answered with a full search says so: the next full one is not due then)
      if (!this.result.local) this.searchLocal = false;
    } else { this.result.frame = -1; this.result.cost = Infinity; }
    this.complete(this.result.frame, this.result.cost);
  }

  /**
   * First half of a step: advance the simulated trajectory and decide whether to search. When it
   * returns true, `request` holds the query and its bounds; answer it and pass the result to
   * complete().
   */
  prepare(dt: number, input: ControllerInput): boolean {
    // An inlined wrapper: dt reaches prepareStep through an array (a number argument of a call that
    // is not inlined is a 16-byte heap box; a crowd prepares every agent every step).
    PREPARE_DT[0] = dt;
    return this.prepareStep(input);
  }

  private prepareStep(input: ControllerInput): boolean {
    const dt = PREPARE_DT[0];
    if (!(Number.isFinite(dt) && dt >= 0 && dt <= 1)) throw new RangeError(`update: dt must be in [0, 1] seconds, got ${dt}`);
    // Every check before the first write: a refused input leaves the state as it was.
    if (input === null || typeof input !== 'object') throw new TypeError(`update: input must be a ControllerInput (createInput()), got ${describeArgument(input)}`);
    const vx = input.velocityX, vz = input.velocityZ;
    if (!(Math.abs(vx) <= MAX_DESIRED_SPEED && Math.abs(vz) <= MAX_DESIRED_SPEED && vx * vx + vz * vz <= MAX_DESIRED_SPEED * MAX_DESIRED_SPEED)) {
      throw new RangeError(`update: desired velocity must be finite and at most ${MAX_DESIRED_SPEED} m/s (metres per second), got (${vx}, ${vz})`);
    }
    if (!Number.isNaN(input.facing) && !Number.isFinite(input.facing)) throw new RangeError(`update: facing must be finite or NaN, got ${input.facing}`);
    this.s[STEP_DT] = dt;
    const o = this.options;
    if (stepSimulation(this.s, this.db, o, input)) this.forceSearch = true;
    this.s[SEARCH_TIMER] -= dt;
    const clip = this.db.clips[this.rt.clipOf[this.frame]];
    // Continuing is possible while the clip can play until the next regular search (a looping clip
    // always can). Frames near a clip's end are not landing targets (db.candidates), but a clip that
    // was landed on plays through them at its own, real continuing cost: treating them as dead ends
    // forced a transition on the very next step after landing on the last candidate frame, where
    // extrapolated futures make frames attractive for queries nothing in the data matches, and chained
    // such one-step transitions (measured on real captures: 25-76% of all transitions).
    const framesLeft = clip.loop ? Infinity : clip.start + clip.count - 1 - this.frame - this.s[FRAME_FRACTION];
    const atEnd = framesLeft < Math.max(1, o.searchInterval * this.db.fps * this.s[PLAY_RATE]);
    // (a tolerance: three 1/30 s steps must use up a 0.1 s interval despite rounding)
    // The dwell keeps locomotion from switching back and forth between near matches; it does not
    // hold back a stop (the input asks to stand) where the data holds standing frames: data without
    // clips that stop reaches one through a chain of slower frames, and one transition per dwell
    // left the feet stepping into the standing frame's stance a second after the request
    // (docs/quality.md, "Stops on captures at 24 fps"). The relative gain still decides each
    // transition. Data with nothing to stand on (a set of walks and runs) keeps the dwell:
    // searching through it there only switched between walks (transitions 3.4 → 4.7 a second).
    const dwelling = this.s[SINCE_TRANSITION] < o.minDwell - 1e-6 && !(this.canStand && vx * vx + vz * vz < STAND_REQUEST_SPEED * STAND_REQUEST_SPEED);
    // Held on a standing frame, nothing is searched for until the input changes.
    this.wantsSearch = this.forceSearch || (this.s[STAND_HOLD] === 0 && ((this.s[SEARCH_TIMER] <= 1e-6 && !dwelling) || atEnd));
    if (!this.wantsSearch) return false;
    this.searchForced = this.forceSearch || atEnd;
    // Local between full searches (fullSearchInterval, levels of detail; LOD_FULL_INTERVAL is 0
    // without them). Tag filters need the whole database: a window may hold no allowed frame.
    this.searchLocal = !this.searchForced && this.s[SINCE_FULL_SEARCH] < this.s[LOD_FULL_INTERVAL] - 1e-6 && input.requireTags === null && input.excludeTags === null;
    this.request.localFrame = this.searchLocal ? this.frame : -1;
    this.request.localHalfFrames = this.s[LOD_LOCAL_FRAMES];
    predictForQuery(this, this.s, this.trajectory);
    buildQuery(this, this.s, this.trajectory, input, clip.start, clip.start + clip.count, atEnd);
    if (!searchCanLand(this.db, this.request)) { this.wantsSearch = false; return false; }
    return true;
  }

  /**
   * Fills trajectoryPositions / trajectoryRotations with the simulated trajectory at every one of
   * the schema's offsets. prepare() computes only what its query reads, and only when it searches;
   * debug views call this every frame.
   */
  predictTrajectory(): void {
    predictTrajectory(this, this.s);
  }

  /**
   * Puts off the search prepare() asked for (a crowd's search budget): this step completes without
   * one, and the next prepare() asks again (the regular timer stays expired, a forced search stays
   * forced), so the character's query age keeps growing until it is served.
   */
  deferSearch(): void {
    this.wantsSearch = false;
  }

  /** Seconds since this character's last search (the search budget's urgency). */
  get searchAge(): number { return this.s[SINCE_SEARCH]; }

  /** Horizontal distance (m) between the character and its simulated trajectory: how far it has strayed. */
  get trajectoryDeviation(): number {
    const dx = this.s[SIM_POS] - this.s[ROOT_POS], dz = this.s[SIM_POS + 2] - this.s[ROOT_POS + 2];
    return Math.sqrt(dx * dx + dz * dz);
  }

  /**
   * The search budget's urgency figures into age[k] (searchAge in units of the search interval) and
   * deviation[k] (trajectoryDeviation): written to arrays, because numbers returned from calls V8
   * does not inline (these getters, in a crowd's loop) are boxed, one allocation each per step.
   */
  urgencyInto(age: Float64Array, deviation: Float64Array, k: number): void {
    const s = this.s;
    age[k] = s[SINCE_SEARCH] / this.options.searchInterval;
    const dx = s[SIM_POS] - s[ROOT_POS], dz = s[SIM_POS + 2] - s[ROOT_POS + 2];
    deviation[k] = Math.sqrt(dx * dx + dz * dz);
  }

  /**
   * Seconds the pose moved on by in the last step: the step's dt, or (a level updating the pose every
   * few steps) the time gathered since its last update, and 0 in a step where it waited. The quality
   * meter measures the pose's motion over these intervals.
   */
  get poseSeconds(): number { return this.s[POSE_SECONDS]; }

  /**
   * Whether the character is out of view (levels of detail; default false). An unseen character's
   * pose (inertialization, forward kinematics, foot IK) waits, however long, until it is seen again,
   * and is then updated at its next step with all the time gathered meanwhile, foot IK starting from
   * the fresh pose; playback, root motion, the trajectory and searches step as always, so the
   * character is where it would be. The application says who is unseen: the browser crowd marks
   * agents beyond level 0 outside the camera's view (lod/view.ts), so level 0 is never affected.
   */
  get unseen(): boolean { return this.s[LOD_UNSEEN] !== 0; }
  set unseen(v: boolean) { this.s[LOD_UNSEEN] = v ? 1 : 0; }

  /** True while the pose (local and world) is older than the step: it waited while the character was unseen. */
  get poseHeld(): boolean { return this.s[LOD_POSE_HELD] !== 0; }

  /** Half-width (frames) of a local search's window around the playing frame (this level's). */
  get localSearchFrames(): number { return this.s[LOD_LOCAL_FRAMES]; }

  /**
   * Switches to a level of detail (runtime/lod/levels.ts): `options` are the level's controller options
   * (lod/levels.ts levelOptions: shared by every character at that level), `level` its pose rate and
   * search pattern. Nothing cuts (docs/lod.md, "Level changes"): foot IK fades in or out (from
   * the current pose when it was fully off: no stale locks), the offsets of the last transition go on
   * under the new half-life, and switched off they drain until the next transition cuts.
   */
  setLevel(options: ControllerOptions, level: ControllerLevel): void {
    const old = this.options, S = this.s;
    this.options = options;
    // Nothing shown yet: start at the level. Else foot IK fades in or out (completeStep), from a
    // fresh state when it was fully off.
    if (S[COUNT_STEPS] === 0) { S[IK_WEIGHT] = options.footIK ? 1 : 0; S[IK_WEIGHT_VEL] = 0; }
    if (options.footIK && !old.footIK && S[IK_WEIGHT] === 0) this.footIK.reset(this.worldPositions);
    // The last transition's offsets go on decaying, under the new half-life from where they are;
    // with inertialization switched off they drain (a transition at that level cuts).
    this.inert.rebase(old.inertializationHalfLife, options.inertializationHalfLife);
    if (old.inertialization && !options.inertialization) S[LOD_DRAIN] = 1;
    this.s[LOD_POSE_EVERY] = level.poseEvery > 1 ? level.poseEvery : 0; // 0: every step, as without levels
    this.s[LOD_FULL_INTERVAL] = level.fullSearchInterval;
    this.s[LOD_LOCAL_FRAMES] = Math.round(level.localSeconds * this.db.fps);
  }

  /** Second half of a step: transition if `frame` (-1 = none) is worth it, play, move, fix the feet. */
  complete(frame: number, cost: number): void {
    if (frame !== -1 && !(frame >= 0 && frame < this.db.frameCount && (frame | 0) === frame)) {
      throw new RangeError(`complete: frame must be -1 (no result) or an integer in [0, ${this.db.frameCount - 1}], got ${frame}`);
    }
    // An inlined wrapper: the cost (a double) reaches completeStep through the state block, not as
    // an argument, which would be heap-allocated per call in a crowd's loop.
    this.s[RESULT_COST] = cost;
    this.completeStep(frame);
  }

  private completeStep(frame: number): void {
    const o = this.options;
    const dt = this.s[STEP_DT], cost = this.s[RESULT_COST];
    this.transitioned = false;
    if (this.wantsSearch) {
      this.s[COUNT_SEARCHES]++;
      this.s[SEARCH_TIMER] = o.searchInterval;
      this.forceSearch = false;
      this.s[LAST_SEARCH_COST] = cost;
      this.s[SINCE_SEARCH] = 0;
      if (!this.searchLocal) this.s[SINCE_FULL_SEARCH] = 0;
      else this.s[COUNT_LOCAL_SEARCHES]++;
      if (frame >= 0 && frame < this.db.frameCount && cost < this.request.bestCost) this.transition(frame);
    }
    this.wantsSearch = false;
    this.searchLocal = false;
    if (this.s[STAND_REQUEST] !== 0 && this.s[STAND_HOLD] === 0 && this.standingAt[this.frame] !== 0) this.s[STAND_HOLD] = 1;
    const S = this.s;
    this.layerCount = advancePlayback(S, this.rt, o, this.frame, this.layerCount, ROOT_STEP);
    this.frame = S[LAYER_FRAME + this.layerCount - 1] | 0;
    const held = S[LOD_POSE_HELD] !== 0;
    schedulePose(S, held, this.transitioned);
    const poseDt = S[POSE_SECONDS], poseNow = poseDt >= 0;
    const inertial = o.blendMode === 'inertialize' && (o.inertialization || (S[LOD_DRAIN] !== 0 && drainingOffsets(S, this.inert)));
    if (inertial) {
      // dt and half-life in an array: numbers passed to a call V8 does not inline are heap boxes.
      INERT_ARGS[0] = poseDt; INERT_ARGS[1] = o.inertializationHalfLife;
      // (when the pose waits for its turn, nothing)
      if (poseNow) {
        // On a frame exactly (a 30 Hz step on 30 fps data): the database pose copied, nothing interpolated.
        if (this.s[FRAME_FRACTION] === 0) sampleFramePose(this.rt, this.frame, 0, this.playing, false);
        else this.samplePlaying();
        this.inert.applyWith(INERT_ARGS, 0, this.playing.positions, 0, this.playing.rotations, 0, this.translations, this.rotations);
      }
      decayRootVelocityOffset(S, o);
    } else if (poseNow) {
      this.samplePlaying();
      this.translations.set(this.playing.positions);
      this.rotations.set(this.playing.rotations);
    }
    moveRoot(this.s, o, ROOT_STEP, inertial);
    if (poseNow) {
      // The pose's parts read the step's dt from the block: the gathered time while they run.
      S[STEP_DT] = poseDt;
      // The overlay edits the masked joints' local rotations before forward kinematics; foot IK and
      // orientation warping's upper-body turn then act on top of it (docs/overlays.md).
      if (this.overlayLayer !== null) this.overlayLayer.apply(this);
      this.computeWorldPose();
      const ikTarget = o.footIK ? 1 : 0;
      if (S[IK_WEIGHT] !== ikTarget) stepBlendWeight(S, IK_WEIGHT, ikTarget, poseDt);
      if (S[IK_WEIGHT] > 0) {
        // A held pose is stale: foot IK starts from the fresh one (no locks where the feet were).
        if (held) this.footIK.reset(this.worldPositions);
        if (S[IK_WEIGHT] >= 1) this.footIK.applyWith(this, S, STEP_DT, o.ground, o.groundOptions);
        else this.applyFootIKWeighted(poseDt, S[IK_WEIGHT]);
      }
      S[LOD_POSE_HELD] = 0;
      if (o.orientationWarp > 0) turnUpperBody(this, S, o, this.db);
      S[STEP_DT] = dt;
    }
    this.s[SINCE_SEARCH] += dt;
    this.s[SINCE_FULL_SEARCH] += dt;
    S[POSE_SECONDS] = poseNow ? poseDt : 0;
    this.s[COUNT_STEPS]++;
    this.s[COUNT_SECONDS] += dt;
    this.s[SINCE_TRANSITION] = this.transitioned ? dt : this.s[SINCE_TRANSITION] + dt;
  }

  /**
   * Foot IK fading across a level change: the IK as always, then the pose before it blended towards
   * the IK's by `weight` (controller/level-blend.ts), and forward kinematics again.
   */
  private applyFootIKWeighted(dt: number, weight: number): void {
    const o = this.options, J = this.joints;
    savePose(this.rotations, this.translations, J);
    this.footIK.apply(this, dt, o.ground, o.groundOptions);
    blendFromSaved(this.rotations, this.translations, J, weight);
    this.computeWorldPose();
  }

  private transition(frame: number): void {
    const o = this.options;
    this.s[STAND_HOLD] = 0;
    this.s[COUNT_TRANSITIONS]++;
    this.transitioned = true;
    this.lastTransitionFrame = frame;
    if (o.blendMode === 'crossfade') {
      this.layerCount = pushLayer(this.s, this.layerCount, frame);
    } else {
      if (o.inertialization) {
        startTransitionOffsets(this.s, o, this.rt, this.inert, this.playing, this.destination, this.frame, frame, this.layerCount);
      } else {
        // A cut: offsets still draining from a finer level of detail go with it.
        if (this.s[LOD_DRAIN] !== 0) endDrain(this.s, this.inert);
      }
      this.layerCount = 1; this.s[LAYER_WEIGHT] = 1;
    }
    this.frame = frame;
    this.s[FRAME_FRACTION] = 0;
    this.s[LAYER_FRAME + this.layerCount - 1] = frame;
    this.s[LAYER_FRACTION + this.layerCount - 1] = 0;
  }

  /** The playing pose (blend of layers), root-relative, into this.playing. */
  private samplePlaying(): void {
    if (this.layerCount <= 1) sampleFramePose(this.rt, this.s[LAYER_FRAME], this.s[LAYER_FRACTION], this.playing, false);
    else blendLayerPoses(this.rt, this.s, this.layerCount, this.playing, this.destination);
  }

  /** Recomputes joint j's world transform from its parent's (which must be current). */
  updateWorldJoint(j: number): void {
    const p = this.db.skeleton.parents[j];
    const wr = this.worldRotations, wp = this.worldPositions;
    if (p < 0) composeJoint(wp, wr, j, this.s, ROOT_POS, this.s, ROOT_ROT, this.translations, 3 * j, this.rotations, 4 * j);
    else composeJoint(wp, wr, j, wp, 3 * p, wr, 4 * p, this.translations, 3 * j, this.rotations, 4 * j);
  }

  /** World transforms of the output pose (character root * root-relative local pose). */
  computeWorldPose(): void {
    posedForwardKinematics(this.db.skeleton.parents, this.translations, this.rotations, this.s, ROOT_POS, this.s, ROOT_ROT, this.worldPositions, this.worldRotations);
  }

  // ---------------------------------------------------------------------------------------------
  // Overlays (docs/overlays.md)

  /** This step's dt (s): what an overlay layer advances by. */
  get stepSeconds(): number { return this.s[STEP_DT]; }

  /** The overlay layer attached (null when none). */
  get overlay(): OverlayLayer | null { return this.overlayLayer; }

  /**
   * Attaches an overlay layer made for this controller's database (its state then steps with this
   * character), or detaches the current one with null (the pose is the base's from the next step).
   */
  setOverlay(layer: OverlayLayer | null): void {
    if (layer !== null && layer.db !== this.db) throw new RangeError('setOverlay: the overlay layer was made for another database');
    this.overlayLayer = layer;
  }

  /**
   * Plays `source` over the locomotion on the attached layer; without one, attaches a default layer
   * first (override on the upper body, falloff over the spine's first two joints).
   */
  playOverlay(source: OverlaySource, options?: OverlayPlayOptions): OverlayLayer {
    const layer = this.overlayLayer ?? new OverlayLayer(this.db);
    layer.play(source, options);
    this.overlayLayer = layer;
    return layer;
  }

  /** Fades the playing overlay out (fadeOut seconds, default the play's; 0 = at once, inertialized). */
  stopOverlay(fadeOut?: number): void {
    this.overlayLayer?.stop(fadeOut);
  }

  /** Contact bits of the playing frame. */
  get contacts(): number {
    return this.db.contacts[this.frame];
  }

  get leftContact(): boolean { return (this.contacts & CONTACT_LEFT) !== 0; }
  get rightContact(): boolean { return (this.contacts & CONTACT_RIGHT) !== 0; }

  /** Clip index and time (s) of the playing frame. */
  get clipIndex(): number { return this.rt.clipOf[this.frame]; }
  get clipTime(): number { return (this.frame - this.db.clips[this.clipIndex].start + this.s[FRAME_FRACTION]) / this.db.fps; }
}


function firstCandidate(db: Database): number {
  for (let f = 0; f < db.frameCount; f++) if (db.candidates[f]) return f;
  return 0;
}
