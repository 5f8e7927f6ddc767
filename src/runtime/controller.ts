import type { Database } from '../database/database.js';
import { CONTACT_LEFT, CONTACT_RIGHT } from '../features/contacts.js';
import { databaseRuntime, type DatabaseRuntime } from './database-runtime.js';
import type { PoseSearchPort, PoseSearchRequest, PoseSearchResult } from './search-port.js';
import { decaySpringUpdate, springCharacterUpdate, springCharacterPredict, springRotationUpdate, springRotationPredict } from '../math/spring.js';
import { quatFromYaw, quatYaw, quatInvRotateVec3, quatRotateVec3, quatNormalize, quatMultiply } from '../math/quat.js';
import type { PoseBuffers } from './inertialize.js';
import { InertializationDecay } from './inertialize-decay.js';
import { groupColumns } from '../features/schema.js';
import { FootIK, type FootIKOptions, DEFAULT_FOOT_IK_OPTIONS, FOOT_IK_STATE_SIZE } from './foot-ik.js';

/** What the player or an agent asks for this step. Reuse one object; nothing here is retained. */
export interface ControllerInput {
  /** Desired velocity in world space (m/s), x and z. */
  velocityX: number;
  velocityZ: number;
  /** Desired facing (yaw, radians: atan2(x, z)); NaN = face the direction of travel. */
  facing: number;
  /** Restrict the next searches to frames carrying all of these tags (null = any). */
  requireTags: readonly string[] | null;
  /** Never match frames with any of these tags (null = none). */
  excludeTags: readonly string[] | null;
}

export function createInput(): ControllerInput {
  return { velocityX: 0, velocityZ: 0, facing: Number.NaN, requireTags: null, excludeTags: null };
}

export interface ControllerOptions {
  /** Seconds between regular searches (GUIDE: ~0.1 s). */
  searchInterval: number;
  /** Half-life of the trajectory spring (position) and the facing spring (s). */
  trajectoryHalfLife: number;
  facingHalfLife: number;
  /** Half-life of inertialization offsets (s). */
  inertializationHalfLife: number;
  /** Cost a transition must save over continuing (normalised units). */
  continuingBias: number;
  /** Results within this many seconds of the playing frame in the same clip are not transitions. */
  sameClipWindow: number;
  /** Search at once when the desired velocity changes by more than this (m/s) between steps... */
  sharpVelocityChange: number;
  /** ...or the desired facing by more than this (radians). */
  sharpFacingChange: number;
  /** 'inertialize' switches at once and decays the difference; 'crossfade' blends clips over `crossfadeTime`. */
  blendMode: 'inertialize' | 'crossfade';
  crossfadeTime: number;
  /** Play-rate adjustment towards the desired speed, within [min, max] (1, 1 = off). */
  timeWarpMin: number;
  timeWarpMax: number;
  /** Pull the character towards the simulated trajectory (half-lives, s) and clamp the gap (m, rad). */
  adjustPositionHalfLife: number;
  adjustRotationHalfLife: number;
  /** Largest adjustment as a fraction of the root-motion speed, so a character never slides in place. */
  adjustMaxRatio: number;
  clampDistance: number;
  clampAngle: number;
  /** Foot locking and two-bone IK. */
  footIK: boolean;
  footIKOptions: FootIKOptions;
  /** Apply inertialization (off = hard switches, for comparison). */
  inertialization: boolean;
  /** Collision / boundary hook: adjust the proposed world position in place (x, y, z). */
  constrain: ((position: Float64Array) => void) | null;
  /** Frame to start on (default: the first search candidate). */
  startFrame: number;
}

export const DEFAULT_CONTROLLER_OPTIONS: ControllerOptions = {
  searchInterval: 0.1,
  trajectoryHalfLife: 0.27,
  facingHalfLife: 0.27,
  inertializationHalfLife: 0.1,
  continuingBias: 0.01,
  sameClipWindow: 0.33,
  sharpVelocityChange: 1.0,
  sharpFacingChange: 0.6,
  blendMode: 'inertialize',
  crossfadeTime: 0.2,
  timeWarpMin: 1,
  timeWarpMax: 1,
  adjustPositionHalfLife: 0.1,
  adjustRotationHalfLife: 0.2,
  adjustMaxRatio: 0.5,
  // A loose clamp: measured on sharp U-turns, 0.15 m drags planted feet out of reach (3 cm/s skate),
  // 0.5 m keeps them planted (0.8 cm/s) for 1 cm more trajectory error.
  clampDistance: 0.5,
  clampAngle: 0.5 * Math.PI,
  footIK: true,
  footIKOptions: DEFAULT_FOOT_IK_OPTIONS,
  inertialization: true,
  constrain: null,
  startFrame: -1,
};

const MAX_LAYERS = 4;

// Offsets of the fixed-size state at the start of a controller's block (see the constructor).
const ROOT_POS = 0; // 3: root position (world)
const ROOT_ROT = 3; // 4: root rotation (world)
const SIM_POS = 7; // 3: simulated trajectory (springs), world space
const SIM_VEL = 10;
const SIM_ACC = 13;
const SIM_ROT = 16; // 4
const SIM_ANGVEL = 20;
const DESIRED_VEL = 23; // 3: this step's desired velocity
const DESIRED_ROT = 26; // 4: this step's desired facing
const ROOT_VEL_OFFSET = 30; // 4: root velocity offset after a transition (local vx, vy, vz, yaw rate)
const ROOT_VEL_OFFSET_RATE = 34; // 4: its rate of change
const LAYER_FRACTION = 38; // MAX_LAYERS: crossfade layers' fraction towards the next frame
const LAYER_WEIGHT = LAYER_FRACTION + MAX_LAYERS; // MAX_LAYERS: their weights
// Scalars (numbers kept in the block rather than as object fields, which would each be a separate
// heap box: one more cache miss per field per character in a crowd).
const FRAME_FRACTION = LAYER_WEIGHT + MAX_LAYERS;
const LAST_COST = FRAME_FRACTION + 1;
const LAST_SEARCH_COST = FRAME_FRACTION + 2;
const PLAY_RATE = FRAME_FRACTION + 3;
const SEARCH_TIMER = FRAME_FRACTION + 4;
const LAST_DESIRED_VX = FRAME_FRACTION + 5;
const LAST_DESIRED_VZ = FRAME_FRACTION + 6;
const LAST_DESIRED_FACING = FRAME_FRACTION + 7;
const STEP_DT = FRAME_FRACTION + 8;
const ADJUST_DT = FRAME_FRACTION + 9; // the dt the two adjustment factors below were computed for
const ADJUST_POS_K = FRAME_FRACTION + 10;
const ADJUST_ROT_K = FRAME_FRACTION + 11;
const LAYER_FRAME = FRAME_FRACTION + 12; // MAX_LAYERS: crossfade layers' frames
// Counters (ControllerCounters reads them): in the block, since a separate object per character is
// one more cache miss per step in a crowd.
const COUNT_STEPS = LAYER_FRAME + MAX_LAYERS;
const COUNT_SEARCHES = COUNT_STEPS + 1;
const COUNT_TRANSITIONS = COUNT_STEPS + 2;
const COUNT_SECONDS = COUNT_STEPS + 3;
const RESULT_COST = COUNT_STEPS + 4; // the search result complete() was given
const DESIRED_ROT_YAW = COUNT_STEPS + 5; // the yaw DESIRED_ROT was made from (NaN: none yet)
const STATE_SIZE = COUNT_STEPS + 6;

// Temporaries of one call (never held across calls): shared by every controller of a thread, so a
// crowd's steps keep them in cache.
const SCRATCH_V3 = new Float64Array(3);
const SCRATCH_V3B = new Float64Array(3);
const SCRATCH_Q4 = new Float64Array(4);
const SCRATCH_PROPOSED = new Float64Array(3);
const SCRATCH_ROOTSTEP = new Float64Array(4);
const SCRATCH_LAYERSTEP = new Float64Array(4);
const SCRATCH_LAYERMEAN = new Float64Array(MAX_LAYERS);

/** Counters the quality metrics and apps read. */
export interface ControllerCounters {
  steps: number;
  searches: number;
  transitions: number;
  seconds: number;
}

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
  readonly options: ControllerOptions;
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
  /** Current play rate (time warping; 1 when off). */
  get playRate(): number { return this.s[PLAY_RATE]; }
  /** The frame the last transition went to (-1 before the first). */
  lastTransitionFrame = -1;
  /** Steps, searches and transitions so far, and the seconds stepped (a view of the state block). */
  readonly counters: ControllerCounters;
  /** counters.searches and counters.transitions, read without going through the view object. */
  get searchCount(): number { return this.s[COUNT_SEARCHES]; }
  get transitionCount(): number { return this.s[COUNT_TRANSITIONS]; }
  /** True during the step in which a transition happened. */
  transitioned = false;

  // Search request (query in normalised units) filled by prepare().
  readonly request: PoseSearchRequest;
  readonly result: PoseSearchResult = { frame: -1, cost: Number.POSITIVE_INFINITY };
  wantsSearch = false;
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

  /**
   * Defaults filled in and validated. Controllers given the returned object share it instead of
   * copying it: a crowd passes one object to every character (one copy in cache, not thousands),
   * and a change to one of its fields applies to all of them.
   */
  static resolveOptions(options: Partial<ControllerOptions> = {}): ControllerOptions {
    const resolved = { ...DEFAULT_CONTROLLER_OPTIONS, ...options };
    validateControllerOptions(resolved);
    resolvedOptions.add(resolved);
    return resolved;
  }

  /** Values a controller keeps for `db` (the size of the `storage` block the constructor accepts). */
  static storageSize(db: Database): number {
    const J = db.skeleton.names.length;
    return blockSize(J, InertializationDecay.storageSize(J, databaseRuntime(db).movingTranslations.length), trajectoryOffsetCount(db), db.stride);
  }

  /**
   * `storage` (optional, at least storageSize(db) values, overwritten) holds the controller's state;
   * a crowd passes consecutive slices of one buffer so that stepping it streams through memory.
   */
  constructor(db: Database, options: Partial<ControllerOptions> = {}, storage?: Float64Array) {
    this.db = db;
    this.rt = databaseRuntime(db);
    this.options = resolvedOptions.has(options) ? (options as ControllerOptions) : MotionMatchingController.resolveOptions(options);
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
    this.request = { query: takeFloat32(), bestCost: Infinity, excludeStart: 0, excludeEnd: 0, requireTags: null, excludeTags: null };
    this.s[ROOT_ROT + 3] = 1; this.s[SIM_ROT + 3] = 1; this.s[DESIRED_ROT + 3] = 1;
    this.s[LAST_SEARCH_COST] = Number.POSITIVE_INFINITY; this.s[PLAY_RATE] = 1; this.s[ADJUST_DT] = -1;
    const scratch = poseScratch(J);
    this.playing = scratch.playing;
    this.destination = scratch.destination;
    this.footIK = new FootIK(db, this.options.footIKOptions, footState);
    this.reset(this.options.startFrame >= 0 ? this.options.startFrame : firstCandidate(db));
  }

  /** Start over at `frame`, at the world origin facing +Z, with no offsets. */
  reset(frame: number, x = 0, z = 0, yaw = 0): void {
    if (!(Number.isInteger(frame) && frame >= 0 && frame < this.db.frameCount)) {
      throw new RangeError(`reset: frame must be an integer in [0, ${this.db.frameCount - 1}], got ${frame}`);
    }
    this.frame = frame;
    this.s[FRAME_FRACTION] = 0;
    this.s[ROOT_POS] = x; this.s[ROOT_POS + 1] = 0; this.s[ROOT_POS + 2] = z;
    quatFromYaw(this.s, ROOT_ROT, yaw);
    this.simPosition.set(this.rootPosition);
    this.simVelocity.fill(0); this.simAcceleration.fill(0); this.simAngularVelocity.fill(0);
    this.simRotation.set(this.rootRotation);
    this.s[LAST_DESIRED_VX] = 0; this.s[LAST_DESIRED_VZ] = 0; this.s[LAST_DESIRED_FACING] = yaw;
    this.s[DESIRED_ROT_YAW] = Number.NaN; // recomputed by the next prepare()
    this.inert.reset();
    this.s.fill(0, ROOT_VEL_OFFSET, ROOT_VEL_OFFSET + 8);
    this.layerCount = 1; this.s[LAYER_FRAME] = frame; this.s[LAYER_FRACTION] = 0; this.s[LAYER_WEIGHT] = 1;
    this.s[SEARCH_TIMER] = 0;
    this.forceSearch = true;
    this.samplePlaying();
    this.rotations.set(this.playing.rotations);
    this.translations.set(this.playing.positions);
    this.computeWorldPose();
    this.footIK.reset(this.worldPositions);
  }

  /** One full step for one character: prepare, search through `search`, complete. */
  update(dt: number, input: ControllerInput, search: PoseSearchPort): void {
    if (this.prepare(dt, input)) search.searchPose(this.request, this.result);
    else { this.result.frame = -1; this.result.cost = Infinity; }
    this.complete(this.result.frame, this.result.cost);
  }

  /**
   * First half of a step: advance the simulated trajectory and decide whether to search. When it
   * returns true, `request` holds the query and its bounds; answer it and pass the result to
   * complete().
   */
  prepare(dt: number, input: ControllerInput): boolean {
    if (!(Number.isFinite(dt) && dt >= 0 && dt <= 1)) throw new RangeError(`update: dt must be in [0, 1] seconds, got ${dt}`);
    if (!Number.isFinite(input.velocityX) || !Number.isFinite(input.velocityZ)) {
      throw new RangeError(`update: desired velocity must be finite, got (${input.velocityX}, ${input.velocityZ})`);
    }
    if (!Number.isNaN(input.facing) && !Number.isFinite(input.facing)) throw new RangeError(`update: facing must be finite or NaN, got ${input.facing}`);
    this.s[STEP_DT] = dt;
    const o = this.options;
    const speed = Math.sqrt(input.velocityX * input.velocityX + input.velocityZ * input.velocityZ);
    const facing = Number.isNaN(input.facing) ? (speed > 0.1 ? Math.atan2(input.velocityX, input.velocityZ) : this.s[LAST_DESIRED_FACING]) : input.facing;
    // Sharp input changes trigger a search at once rather than at the next tick.
    const dvx = input.velocityX - this.s[LAST_DESIRED_VX], dvz = input.velocityZ - this.s[LAST_DESIRED_VZ];
    const dv = Math.sqrt(dvx * dvx + dvz * dvz);
    const df = Math.abs(wrapAngle(facing - this.s[LAST_DESIRED_FACING]));
    if (dv > o.sharpVelocityChange || df > o.sharpFacingChange) this.forceSearch = true;
    this.s[LAST_DESIRED_VX] = input.velocityX; this.s[LAST_DESIRED_VZ] = input.velocityZ; this.s[LAST_DESIRED_FACING] = facing;

    // Simulated trajectory: springs towards the desired velocity and facing.
    this.s[DESIRED_VEL] = input.velocityX; this.s[DESIRED_VEL + 1] = 0; this.s[DESIRED_VEL + 2] = input.velocityZ;
    // The desired facing changes only with the input: its quaternion is kept until then.
    if (facing !== this.s[DESIRED_ROT_YAW]) { this.s[DESIRED_ROT_YAW] = facing; quatFromYaw(this.s, DESIRED_ROT, facing); }
    if (dt > 0) {
      springCharacterUpdate(this.s, SIM_POS, this.s, SIM_VEL, this.s, SIM_ACC, this.s, DESIRED_VEL, o.trajectoryHalfLife, dt, 3);
      springRotationUpdate(this.s, SIM_ROT, this.s, SIM_ANGVEL, this.s, DESIRED_ROT, o.facingHalfLife, dt);
    }
    this.s[SEARCH_TIMER] -= dt;
    const clip = this.db.clips[this.rt.clipOf[this.frame]];
    const atEnd = !this.db.candidates[this.frame] || this.frame + 1 >= clip.start + clip.count;
    // (a tolerance: three 1/30 s steps must use up a 0.1 s interval despite rounding)
    this.wantsSearch = this.forceSearch || this.s[SEARCH_TIMER] <= 1e-6 || atEnd;
    if (!this.wantsSearch) return false;
    this.predictForQuery();
    this.buildQuery(input, clip.start, clip.start + clip.count);
    return true;
  }

  /**
   * Fills trajectoryPositions / trajectoryRotations with the simulated trajectory at every one of
   * the schema's offsets. prepare() computes only what its query reads, and only when it searches;
   * debug views call this every frame.
   */
  predictTrajectory(): void {
    const o = this.options, n = this.trajectoryTimes.length;
    springCharacterPredict(this.trajectoryPositions, null, null, this.s, SIM_POS, this.s, SIM_VEL, this.s, SIM_ACC, this.s, DESIRED_VEL, o.trajectoryHalfLife, this.trajectoryTimes, n, 3);
    springRotationPredict(this.trajectoryRotations, null, this.s, SIM_ROT, this.s, SIM_ANGVEL, this.s, DESIRED_ROT, o.facingHalfLife, this.trajectoryTimes, n);
  }

  /**
   * predictTrajectory() for the query alone: positions at the position groups' offsets and
   * rotations at the direction groups' offsets only (the other entries keep older values; debug
   * views call predictTrajectory() for the full arrays).
   */
  private predictForQuery(): void {
    const o = this.options, times = this.trajectoryTimes, S = this.s;
    for (const g of this.trajectory.positions) {
      springCharacterPredict(this.trajectoryPositions, null, null, S, SIM_POS, S, SIM_VEL, S, SIM_ACC, S, DESIRED_VEL, o.trajectoryHalfLife, times, g.count, 3, g.first);
    }
    for (const g of this.trajectory.directions) {
      springRotationPredict(this.trajectoryRotations, null, S, SIM_ROT, S, SIM_ANGVEL, S, DESIRED_ROT, o.facingHalfLife, times, g.count, g.first);
    }
  }

  /** Second half of a step: transition if `frame` (-1 = none) is worth it, play, move, fix the feet. */
  complete(frame: number, cost: number): void {
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
      if (frame >= 0 && frame < this.db.frameCount && cost < this.request.bestCost) this.transition(frame);
    }
    this.wantsSearch = false;
    const rootDelta = this.advancePlayback();
    if (o.inertialization && o.blendMode === 'inertialize') {
      const hl = o.inertializationHalfLife;
      if (this.s[FRAME_FRACTION] === 0) {
        // On a frame exactly (a 30 Hz step on 30 fps data): read the database pose in place.
        const f = this.frame, J = this.joints;
        this.inert.apply(dt, hl, this.rt.translations, f * J * 3, this.rt.rotations, f * J * 4, this.translations, this.rotations);
      } else {
        this.samplePlaying();
        this.inert.apply(dt, hl, this.playing.positions, 0, this.playing.rotations, 0, this.translations, this.rotations);
      }
      this.decayRootVelocityOffset();
    } else {
      this.samplePlaying();
      this.translations.set(this.playing.positions);
      this.rotations.set(this.playing.rotations);
    }
    this.moveRoot(rootDelta);
    this.computeWorldPose();
    if (o.footIK) this.footIK.apply(this, dt);
    this.s[COUNT_STEPS]++;
    this.s[COUNT_SECONDS] += dt;
  }

  /** The decay spring (GUIDE §5) on the root velocity offset of the last transition, over this step. */
  private decayRootVelocityOffset(): void {
    const S = this.s;
    decaySpringUpdate(S, ROOT_VEL_OFFSET, S, ROOT_VEL_OFFSET_RATE, this.options.inertializationHalfLife, S[STEP_DT], 4);
  }

  /** Raw features of the query: the playing frame's pose features and the predicted trajectory. */
  private buildQuery(input: ControllerInput, clipStart: number, clipEnd: number): void {
    const db = this.db, S = db.stride, q = this.rawQuery, f = this.frame;
    // Pose features come from the playing frame (as in Holden's controller): they describe where
    // the feet are now; the trajectory part comes from the simulation.
    for (let d = 0; d < S; d++) q[d] = db.rawFeatures[f * S + d];
    const v = SCRATCH_V3, r = SCRATCH_V3B;
    for (const g of this.trajectory.positions) {
      for (let k = 0; k < g.count; k++) {
        const t = 3 * (g.first + k);
        v[0] = this.trajectoryPositions[t] - this.s[ROOT_POS]; v[1] = 0; v[2] = this.trajectoryPositions[t + 2] - this.s[ROOT_POS + 2];
        quatInvRotateVec3(r, 0, this.s, ROOT_ROT, v, 0);
        q[g.col + 2 * k] = r[0]; q[g.col + 2 * k + 1] = r[2];
      }
    }
    for (const g of this.trajectory.directions) {
      for (let k = 0; k < g.count; k++) {
        v[0] = 0; v[1] = 0; v[2] = 1;
        quatRotateVec3(r, 0, this.trajectoryRotations, 4 * (g.first + k), v, 0);
        quatInvRotateVec3(v, 0, this.s, ROOT_ROT, r, 0);
        q[g.col + 2 * k] = v[0]; q[g.col + 2 * k + 1] = v[2];
      }
    }
    const nq = this.request.query;
    for (let d = 0; d < db.dims; d++) nq[d] = (q[d] - db.mean[d]) / db.scale[d];
    for (let d = db.dims; d < S; d++) nq[d] = 0;
    // Continuing sets the bound a transition must beat. Its cost is the playing frame's own: the
    // query copies that frame's pose features, so every candidate is compared as "the frame to be
    // at now" (judging the next frame instead would favour any lookalike of the current pose).
    let c = 0;
    if (db.candidates[f]) {
      for (let d = 0; d < S; d++) { const e = db.features[f * S + d] - nq[d]; c += e * e; }
      this.s[LAST_COST] = c;
      this.request.bestCost = c - this.options.continuingBias;
    } else {
      this.s[LAST_COST] = Infinity;
      this.request.bestCost = Infinity;
    }
    const w = Math.round(this.options.sameClipWindow * db.fps);
    this.request.excludeStart = Math.max(clipStart, f - w);
    this.request.excludeEnd = Math.min(clipEnd, f + w + 1);
    this.request.requireTags = input.requireTags;
    this.request.excludeTags = input.excludeTags;
  }

  private transition(frame: number): void {
    const o = this.options;
    this.s[COUNT_TRANSITIONS]++;
    this.transitioned = true;
    this.lastTransitionFrame = frame;
    if (o.blendMode === 'crossfade') {
      this.pushLayer(frame);
    } else {
      // Source: the playing pose (the state already holds the offsets shown on top of it).
      this.loadFramePose(frame, 0, this.destination, true);
      if (o.inertialization) {
        // The playing pose's velocities are only needed here (the per-frame path skips them).
        this.loadFramePose(this.s[LAYER_FRAME + this.layerCount - 1], this.s[LAYER_FRACTION + this.layerCount - 1], this.playing, true);
        // Both poses come from the validated database: no finite-value scan per transition.
        this.inert.transition(this.playing, this.destination, o.inertializationHalfLife, false);
        const rt = this.rt, f0 = this.frame, S = this.s, V = ROOT_VEL_OFFSET;
        for (let d = 0; d < 3; d++) S[V + d] = S[V + d] + rt.rootVelocity[3 * f0 + d] - rt.rootVelocity[3 * frame + d];
        S[V + 3] = S[V + 3] + rt.rootYawRate[f0] - rt.rootYawRate[frame];
      }
      this.layerCount = 1; this.s[LAYER_WEIGHT] = 1;
    }
    this.frame = frame;
    this.s[FRAME_FRACTION] = 0;
    this.s[LAYER_FRAME + this.layerCount - 1] = frame;
    this.s[LAYER_FRACTION + this.layerCount - 1] = 0;
  }

  private pushLayer(frame: number): void {
    if (this.layerCount === MAX_LAYERS) {
      // Drop the faintest layer; renormalise the rest.
      let k = 0;
      for (let i = 1; i < this.layerCount; i++) if (this.s[LAYER_WEIGHT + i] < this.s[LAYER_WEIGHT + k]) k = i;
      for (let i = k; i < this.layerCount - 1; i++) {
        this.s[LAYER_FRAME + i] = this.s[LAYER_FRAME + i + 1]; this.s[LAYER_FRACTION + i] = this.s[LAYER_FRACTION + i + 1]; this.s[LAYER_WEIGHT + i] = this.s[LAYER_WEIGHT + i + 1];
      }
      this.layerCount--;
    }
    const i = this.layerCount++;
    this.s[LAYER_FRAME + i] = frame; this.s[LAYER_FRACTION + i] = 0; this.s[LAYER_WEIGHT + i] = 0;
  }

  /**
   * Moves playback on by dt (time-warped) and returns the root-motion increment of the playing
   * clip(s) over that interval, in the root's local frame, in SCRATCH_ROOTSTEP (x, y, z, yaw).
   */

  private advancePlayback(): Float64Array {
    // The step's dt is read from the state, not passed: a number argument would be boxed per call.
    const dt = this.s[STEP_DT];
    const o = this.options, rt = this.rt;
    // Time warping: nudge the play rate towards the desired speed over the clip's own speed.
    if (o.timeWarpMax > o.timeWarpMin || o.timeWarpMin !== 1) {
      const cvx = rt.rootVelocity[3 * this.frame], cvz = rt.rootVelocity[3 * this.frame + 2];
      const clipSpeed = Math.sqrt(cvx * cvx + cvz * cvz);
      const want = Math.sqrt(this.s[DESIRED_VEL] * this.s[DESIRED_VEL] + this.s[DESIRED_VEL + 2] * this.s[DESIRED_VEL + 2]);
      const target = clipSpeed > 0.2 && want > 0.2 ? want / clipSpeed : 1;
      this.s[PLAY_RATE] = Math.min(o.timeWarpMax, Math.max(o.timeWarpMin, target));
    } else {
      this.s[PLAY_RATE] = 1;
    }
    const step = SCRATCH_ROOTSTEP;
    step.fill(0);
    if (o.blendMode === 'crossfade' && this.layerCount > 1) {
      // Each layer advances on its own; root increments are blended as displacements over the same
      // interval with each layer's mean weight across the interval (the root-motion contract).
      const rate = dt / Math.max(o.crossfadeTime, 1e-6);
      const newest = this.layerCount - 1;
      const mean = SCRATCH_LAYERMEAN;
      let total = 0;
      for (let i = 0; i < this.layerCount; i++) {
        const w0 = this.s[LAYER_WEIGHT + i];
        const w1 = i === newest ? Math.min(1, w0 + rate) : Math.max(0, w0 - rate);
        this.s[LAYER_WEIGHT + i] = w1;
        mean[i] = 0.5 * (w0 + w1);
        total += mean[i];
      }
      for (let i = 0; i < this.layerCount; i++) {
        this.advanceLayer(i, SCRATCH_LAYERSTEP);
        const w = total > 0 ? mean[i] / total : 0;
        for (let d = 0; d < 4; d++) step[d] += w * SCRATCH_LAYERSTEP[d];
      }
      // Retire layers that have faded out.
      let k = 0;
      for (let i = 0; i < this.layerCount; i++) {
        if (this.s[LAYER_WEIGHT + i] <= 0 && i !== newest) continue;
        this.s[LAYER_FRAME + k] = this.s[LAYER_FRAME + i]; this.s[LAYER_FRACTION + k] = this.s[LAYER_FRACTION + i]; this.s[LAYER_WEIGHT + k] = this.s[LAYER_WEIGHT + i]; k++;
      }
      this.layerCount = k;
    } else {
      this.layerCount = 1;
      this.s[LAYER_WEIGHT] = 1;
      this.s[LAYER_FRAME] = this.frame; this.s[LAYER_FRACTION] = this.s[FRAME_FRACTION];
      this.advanceLayer(0, step);
    }
    const top = this.layerCount - 1;
    this.frame = this.s[LAYER_FRAME + top] | 0;
    this.s[FRAME_FRACTION] = this.s[LAYER_FRACTION + top];
    return step;
  }

  /**
   * Advances layer i by the step's clip time (dt times the play rate) and writes its root
   * increment (local x, y, z, yaw) to out. The increment integrates the per-frame root velocity
   * piecewise, turning as it goes, so it accumulates across frame boundaries and loop wraps
   * instead of differencing positions.
   */
  private advanceLayer(i: number, out: Float64Array): void {
    const seconds = this.s[STEP_DT] * this.s[PLAY_RATE];
    const rt = this.rt, db = this.db;
    let f = this.s[LAYER_FRAME + i] | 0, frac = this.s[LAYER_FRACTION + i];
    let remaining = seconds * rt.fps;
    let x = 0, y = 0, z = 0, yaw = 0;
    while (remaining > 1e-12) {
      const clip = db.clips[rt.clipOf[f]];
      const last = clip.start + clip.count - 1;
      if (f >= last && !clip.loop) { frac = 0; break; } // held on the final frame until a search moves on
      const take = Math.min(remaining, 1 - frac);
      const s = take / rt.fps;
      // Most steps stay within one frame: the turn so far is then 0 (no trigonometry needed).
      const c = yaw === 0 ? 1 : Math.cos(yaw), sn = yaw === 0 ? 0 : Math.sin(yaw);
      const vx = rt.rootVelocity[3 * f], vy = rt.rootVelocity[3 * f + 1], vz = rt.rootVelocity[3 * f + 2];
      x += (c * vx + sn * vz) * s; y += vy * s; z += (-sn * vx + c * vz) * s;
      yaw += rt.rootYawRate[f] * s;
      frac += take;
      remaining -= take;
      if (frac >= 1 - 1e-12) {
        frac = 0;
        f = f >= last ? clip.start : f + 1;
      }
    }
    this.s[LAYER_FRAME + i] = f;
    this.s[LAYER_FRACTION + i] = frac;
    out[0] = x; out[1] = y; out[2] = z; out[3] = yaw;
  }

  /** The playing pose (blend of layers), root-relative, into this.playing. */
  private samplePlaying(): void {
    if (this.layerCount <= 1) {
      this.loadFramePose(this.s[LAYER_FRAME], this.s[LAYER_FRACTION], this.playing, false);
      return;
    }
    let total = 0;
    for (let i = 0; i < this.layerCount; i++) total += this.s[LAYER_WEIGHT + i];
    const P = this.playing, D = this.destination, J = this.joints;
    P.positions.fill(0); P.rotations.fill(0); P.velocities.fill(0); P.angularVelocities.fill(0);
    for (let i = 0; i < this.layerCount; i++) {
      const w = total > 0 ? this.s[LAYER_WEIGHT + i] / total : 1 / this.layerCount;
      this.loadFramePose(this.s[LAYER_FRAME + i], this.s[LAYER_FRACTION + i], D, true);
      for (let j = 0; j < J; j++) {
        // Accumulate quaternions in the first layer's hemisphere, then normalise (nlerp blend).
        const s = i > 0 && dot4(P.rotations, 4 * j, D.rotations, 4 * j) < 0 ? -w : w;
        for (let k = 0; k < 4; k++) P.rotations[4 * j + k] += s * D.rotations[4 * j + k];
        for (let k = 0; k < 3; k++) {
          P.positions[3 * j + k] += w * D.positions[3 * j + k];
          P.velocities[3 * j + k] += w * D.velocities[3 * j + k];
          P.angularVelocities[3 * j + k] += w * D.angularVelocities[3 * j + k];
        }
      }
    }
    for (let j = 0; j < J; j++) quatNormalize(P.rotations, 4 * j, P.rotations, 4 * j);
  }

  /**
   * Root-relative local pose at frame f + fraction (towards the next frame of the same clip), and
   * its velocities when `withVelocities` (only transitions need them).
   */
  private loadFramePose(f: number, fraction: number, out: Pose64, withVelocities: boolean): void {
    const rt = this.rt, J = this.joints;
    const R = rt.rotations, T = rt.translations;
    const or = out.rotations, op = out.positions;
    if (fraction === 0) {
      // On a frame exactly (a 30 Hz step on 30 fps data): a copy.
      const r0 = f * J * 4, p0 = f * J * 3;
      for (let i = 0; i < 4 * J; i++) or[i] = R[r0 + i];
      for (let i = 0; i < 3 * J; i++) op[i] = T[p0 + i];
      if (withVelocities) {
        const V = rt.velocities, W = rt.angularVelocities;
        for (let i = 0; i < 3 * J; i++) { out.velocities[i] = V[p0 + i]; out.angularVelocities[i] = W[p0 + i]; }
      }
      return;
    }
    const clip = this.db.clips[rt.clipOf[f]];
    const g = f + 1 < clip.start + clip.count ? f + 1 : clip.loop ? clip.start : f;
    const a = fraction, b = 1 - fraction;
    for (let j = 0; j < J; j++) {
      const r0 = (f * J + j) * 4, r1 = (g * J + j) * 4;
      // nlerp between neighbouring frames: they are close, so it matches slerp to ~1e-6.
      const s = R[r0] * R[r1] + R[r0 + 1] * R[r1 + 1] + R[r0 + 2] * R[r1 + 2] + R[r0 + 3] * R[r1 + 3] < 0 ? -a : a;
      const x = b * R[r0] + s * R[r1], y = b * R[r0 + 1] + s * R[r1 + 1], z = b * R[r0 + 2] + s * R[r1 + 2], w = b * R[r0 + 3] + s * R[r1 + 3];
      const inv = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
      or[4 * j] = x * inv; or[4 * j + 1] = y * inv; or[4 * j + 2] = z * inv; or[4 * j + 3] = w * inv;
      const p0 = (f * J + j) * 3, p1 = (g * J + j) * 3;
      op[3 * j] = b * T[p0] + a * T[p1]; op[3 * j + 1] = b * T[p0 + 1] + a * T[p1 + 1]; op[3 * j + 2] = b * T[p0 + 2] + a * T[p1 + 2];
    }
    if (!withVelocities) return;
    const V = rt.velocities, W = rt.angularVelocities, ov = out.velocities, ow = out.angularVelocities;
    for (let i = 0; i < 3 * J; i++) {
      const p0 = f * J * 3 + i, p1 = g * J * 3 + i;
      ov[i] = b * V[p0] + a * V[p1];
      ow[i] = b * W[p0] + a * W[p1];
    }
  }

  /**
   * Applies the step's root increment (plus the decaying velocity offset from the last
   * transition), then the constraints, then commits: adjustment towards the simulated trajectory,
   * the collision hook, and the clamp.
   */

  private moveRoot(step: Float64Array): void {
    const dt = this.s[STEP_DT];
    const o = this.options;
    const inertial = o.inertialization && o.blendMode === 'inertialize';
    const v = SCRATCH_V3;
    v[0] = step[0] + (inertial ? this.s[ROOT_VEL_OFFSET] * dt : 0);
    v[1] = 0; // the character stays on the ground plane; vertical root motion lives in the pose
    v[2] = step[2] + (inertial ? this.s[ROOT_VEL_OFFSET + 2] * dt : 0);
    const yawStep = step[3] + (inertial ? this.s[ROOT_VEL_OFFSET + 3] * dt : 0);
    const p = SCRATCH_PROPOSED;
    quatRotateVec3(p, 0, this.s, ROOT_ROT, v, 0);
    p[0] += this.s[ROOT_POS]; p[1] = this.s[ROOT_POS + 1]; p[2] += this.s[ROOT_POS + 2];
    quatFromYaw(SCRATCH_Q4, 0, yawStep);
    quatMultiply(this.s, ROOT_ROT, this.s, ROOT_ROT, SCRATCH_Q4, 0);
    quatNormalize(this.s, ROOT_ROT, this.s, ROOT_ROT);
    const moved = Math.sqrt(v[0] * v[0] + v[2] * v[2]);

    // Adjustment towards the simulation, limited by how far the animation itself moved this step
    // so that a standing character is never dragged (no visible sliding).
    if (dt !== this.s[ADJUST_DT]) {
      this.s[ADJUST_DT] = dt;
      this.s[ADJUST_POS_K] = o.adjustPositionHalfLife > 0 ? 1 - Math.exp(-Math.LN2 * dt / o.adjustPositionHalfLife) : 0;
      this.s[ADJUST_ROT_K] = o.adjustRotationHalfLife > 0 ? 1 - Math.exp(-Math.LN2 * dt / o.adjustRotationHalfLife) : 0;
    }
    if (dt > 0 && o.adjustPositionHalfLife > 0) {
      const k = this.s[ADJUST_POS_K];
      let ax = (this.s[SIM_POS] - p[0]) * k, az = (this.s[SIM_POS + 2] - p[2]) * k;
      const len = Math.sqrt(ax * ax + az * az), cap = o.adjustMaxRatio * moved;
      if (len > cap && len > 0) { ax *= cap / len; az *= cap / len; }
      p[0] += ax; p[2] += az;
    }
    const simYaw = quatYaw(this.s, SIM_ROT);
    // Both rotations are about +Y only: the root's yaw after the turn below is its yaw plus the turn.
    let rootYaw = quatYaw(this.s, ROOT_ROT);
    if (dt > 0 && o.adjustRotationHalfLife > 0) {
      const k = this.s[ADJUST_ROT_K];
      const diff = wrapAngle(simYaw - rootYaw);
      const cap = o.adjustMaxRatio * Math.abs(yawStep) + o.adjustMaxRatio * moved; // turn while moving or turning
      const turn = Math.max(-cap, Math.min(cap, diff * k));
      quatFromYaw(SCRATCH_Q4, 0, turn);
      quatMultiply(this.s, ROOT_ROT, SCRATCH_Q4, 0, this.s, ROOT_ROT);
      rootYaw += turn;
    }
    // Clamp: never let the character fall further than clampDistance / clampAngle behind the simulation.
    const gx = p[0] - this.s[SIM_POS], gz = p[2] - this.s[SIM_POS + 2];
    const gap = Math.sqrt(gx * gx + gz * gz);
    if (gap > o.clampDistance) { p[0] = this.s[SIM_POS] + gx * (o.clampDistance / gap); p[2] = this.s[SIM_POS + 2] + gz * (o.clampDistance / gap); }
    const angGap = wrapAngle(rootYaw - simYaw);
    if (Math.abs(angGap) > o.clampAngle) {
      quatFromYaw(this.s, ROOT_ROT, simYaw + Math.sign(angGap) * o.clampAngle);
    }
    if (o.constrain) o.constrain(p);
    // Commit once, after every constraint.
    this.s[ROOT_POS] = p[0]; this.s[ROOT_POS + 1] = p[1]; this.s[ROOT_POS + 2] = p[2];
  }

  /** Recomputes joint j's world transform from its parent's (which must be current). */
  updateWorldJoint(j: number): void {
    const p = this.db.skeleton.parents[j];
    const wr = this.worldRotations, wp = this.worldPositions;
    if (p < 0) composeJoint(wp, wr, j, this.s, ROOT_POS, this.s, ROOT_ROT, this.translations, this.rotations);
    else composeJoint(wp, wr, j, wp, 3 * p, wr, 4 * p, this.translations, this.rotations);
  }

  /** World transforms of the output pose (character root * root-relative local pose). */
  computeWorldPose(): void {
    const parents = this.db.skeleton.parents, J = this.joints;
    const wr = this.worldRotations, wp = this.worldPositions, t = this.translations, r = this.rotations;
    for (let j = 0; j < J; j++) {
      const p = parents[j];
      if (p < 0) composeJoint(wp, wr, j, this.s, ROOT_POS, this.s, ROOT_ROT, t, r);
      else composeJoint(wp, wr, j, wp, 3 * p, wr, 4 * p, t, r);
    }
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

/** ControllerCounters over a controller's state block. */
class CounterView implements ControllerCounters {
  constructor(private readonly s: Float64Array) {}
  get steps(): number { return this.s[COUNT_STEPS]; }
  set steps(v: number) { this.s[COUNT_STEPS] = v; }
  get searches(): number { return this.s[COUNT_SEARCHES]; }
  set searches(v: number) { this.s[COUNT_SEARCHES] = v; }
  get transitions(): number { return this.s[COUNT_TRANSITIONS]; }
  set transitions(v: number) { this.s[COUNT_TRANSITIONS] = v; }
  get seconds(): number { return this.s[COUNT_SECONDS]; }
  set seconds(v: number) { this.s[COUNT_SECONDS] = v; }
  toJSON(): { steps: number; searches: number; transitions: number; seconds: number } {
    return { steps: this.steps, searches: this.searches, transitions: this.transitions, seconds: this.seconds };
  }
}

/** Options objects made by resolveOptions (shared as they are by the controllers given them). */
const resolvedOptions = new WeakSet<object>();

/**
 * The playing and destination poses are scratch: a step fills and consumes them before it returns,
 * so all controllers of a thread share one pair per skeleton size (it stays in cache across a crowd).
 */
const poseScratchByJoints = new Map<number, { playing: Pose64; destination: Pose64 }>();

function poseScratch(J: number): { playing: Pose64; destination: Pose64 } {
  let s = poseScratchByJoints.get(J);
  if (!s) {
    const pose = (): Pose64 => ({
      positions: new Float64Array(J * 3), rotations: new Float64Array(J * 4),
      velocities: new Float64Array(J * 3), angularVelocities: new Float64Array(J * 3),
    });
    s = { playing: pose(), destination: pose() };
    poseScratchByJoints.set(J, s);
  }
  return s;
}

interface Pose64 extends PoseBuffers {
  positions: Float64Array;
  rotations: Float64Array;
  velocities: Float64Array;
  angularVelocities: Float64Array;
}


/**
 * Joint j's world transform from its parent's (position pp[po..], rotation pq[qo..]) and its local
 * translation / rotation: position = parent + parentRot · local, rotation = parentRot · localRot.
 * Written out in scalars: forward kinematics runs for every joint of every character each step.
 */
function composeJoint(
  wp: Float64Array, wr: Float64Array, j: number,
  pp: Float64Array, po: number, pq: Float64Array, qo: number,
  localT: Float64Array, localR: Float64Array,
): void {
  const qx = pq[qo], qy = pq[qo + 1], qz = pq[qo + 2], qw = pq[qo + 3];
  const j3 = 3 * j, j4 = 4 * j;
  const vx = localT[j3], vy = localT[j3 + 1], vz = localT[j3 + 2];
  // v' = v + w t + q × t with t = 2 q × v
  const tx = 2 * (qy * vz - qz * vy), ty = 2 * (qz * vx - qx * vz), tz = 2 * (qx * vy - qy * vx);
  wp[j3] = pp[po] + (vx + qw * tx + (qy * tz - qz * ty));
  wp[j3 + 1] = pp[po + 1] + (vy + qw * ty + (qz * tx - qx * tz));
  wp[j3 + 2] = pp[po + 2] + (vz + qw * tz + (qx * ty - qy * tx));
  const bx = localR[j4], by = localR[j4 + 1], bz = localR[j4 + 2], bw = localR[j4 + 3];
  wr[j4] = qw * bx + qx * bw + qy * bz - qz * by;
  wr[j4 + 1] = qw * by - qx * bz + qy * bw + qz * bx;
  wr[j4 + 2] = qw * bz + qx * by - qy * bx + qz * bw;
  wr[j4 + 3] = qw * bw - qx * bx - qy * by - qz * bz;
}

function dot4(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): number {
  return a[ao] * b[bo] + a[ao + 1] * b[bo + 1] + a[ao + 2] * b[bo + 2] + a[ao + 3] * b[bo + 3];
}

export function wrapAngle(a: number): number {
  return a - 2 * Math.PI * Math.round(a / (2 * Math.PI));
}

interface TrajectoryGroup {
  /** First query column of the group, its first entry in `times`, and its number of offsets. */
  readonly col: number;
  readonly first: number;
  readonly count: number;
}

interface TrajectoryLayout {
  /** Every trajectory offset (s), position groups' and direction groups' in schema order. */
  readonly times: readonly number[];
  readonly positions: readonly TrajectoryGroup[];
  readonly directions: readonly TrajectoryGroup[];
}

const trajectoryLayouts = new WeakMap<Database, TrajectoryLayout>();

/** The schema's trajectory groups, computed once per database. */
function trajectoryLayout(db: Database): TrajectoryLayout {
  let layout = trajectoryLayouts.get(db);
  if (layout) return layout;
  const cols = groupColumns(db.schema);
  const times: number[] = [], positions: TrajectoryGroup[] = [], directions: TrajectoryGroup[] = [];
  db.schema.groups.forEach((g, i) => {
    if (g.kind !== 'trajectoryPosition' && g.kind !== 'trajectoryDirection') return;
    const offsets = g.offsets ?? [];
    for (const o of offsets) if (o < 0) throw new RangeError(`the controller predicts the future only: schema group "${g.name}" has a past offset ${o}`);
    (g.kind === 'trajectoryPosition' ? positions : directions).push({ col: cols[i][0], first: times.length, count: offsets.length });
    times.push(...offsets);
  });
  layout = { times, positions, directions };
  trajectoryLayouts.set(db, layout);
  return layout;
}

/** The state block's size: state, pose buffers (J*14), inertialization, foot IK, trajectory (T*8), two float32 queries. */
function blockSize(J: number, inertSize: number, T: number, stride: number): number {
  return STATE_SIZE + J * (4 + 3 + 3 + 4) + inertSize + FOOT_IK_STATE_SIZE + T * 8 + 2 * Math.ceil(stride / 2);
}

function trajectoryOffsetCount(db: Database): number {
  return trajectoryLayout(db).times.length;
}

function firstCandidate(db: Database): number {
  for (let f = 0; f < db.frameCount; f++) if (db.candidates[f]) return f;
  return 0;
}

function validateControllerOptions(o: ControllerOptions): void {
  const positive = ['searchInterval', 'trajectoryHalfLife', 'facingHalfLife', 'inertializationHalfLife', 'crossfadeTime', 'clampDistance', 'clampAngle'] as const;
  for (const k of positive) {
    if (!(Number.isFinite(o[k]) && o[k] > 0)) throw new RangeError(`controller option ${k} must be a finite number > 0, got ${o[k]}`);
  }
  const nonNegative = ['continuingBias', 'sameClipWindow', 'sharpVelocityChange', 'sharpFacingChange', 'adjustPositionHalfLife', 'adjustRotationHalfLife', 'adjustMaxRatio'] as const;
  for (const k of nonNegative) {
    if (!(Number.isFinite(o[k]) && o[k] >= 0)) throw new RangeError(`controller option ${k} must be a finite number >= 0, got ${o[k]}`);
  }
  if (!(o.timeWarpMin > 0 && o.timeWarpMin <= 1 && o.timeWarpMax >= 1 && Number.isFinite(o.timeWarpMax))) {
    throw new RangeError(`time warp bounds must satisfy 0 < timeWarpMin <= 1 <= timeWarpMax, got [${o.timeWarpMin}, ${o.timeWarpMax}]`);
  }
  if (o.blendMode !== 'inertialize' && o.blendMode !== 'crossfade') throw new RangeError(`blendMode must be 'inertialize' or 'crossfade', got ${String(o.blendMode)}`);
}
