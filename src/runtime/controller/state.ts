/**
 * The layout of a motion matching controller's state block: one Float64Array per character that
 * holds every number a step reads or writes, so that a crowd of thousands streams through one
 * buffer instead of chasing ~40 small allocations and boxed object fields per character
 * (measured: 5,000 agents stepped 1.5x slower than 1,000 before the block; each double held in an
 * object field is a separate heap box, one more cache miss per step).
 *
 * Fixed part, at the constant offsets below (L = MAX_LAYERS):
 *   root pos 3 | root rot 4 | sim pos 3, vel 3, acc 3, rot 4, ang vel 3 | desired vel 3, rot 4 |
 *   root vel offset 4, rate 4 | layer fraction L, weight L | scalars | layer frame L | counters 4 | result cost, desired yaw, since transition, upper twist 3 |
 *   ground offset, rate, previous height, previous slope 2, dt, decay factor
 * then the variable part, in the order a step touches it (see blockSize):
 *   rotations J*4 | translations J*3 | world positions J*3 | world rotations J*4 | inertialization |
 *   foot IK | trajectory times T, positions T*3, rotations T*4 | raw query | normalised query (float32 each)
 */
import { FOOT_IK_STATE_SIZE } from '../foot-ik/foot-ik.js';

/** Crossfade layers a controller blends at most (the faintest is dropped beyond that). */
export const MAX_LAYERS = 4;

let next = 0;
/** The next `n` values of the fixed part (module constants: offsets never change at run time). */
function field(n: number): number {
  const at = next;
  next += n;
  return at;
}

/** Root transform of the character in the world: position (3) and rotation (4). */
export const ROOT_POS = field(3);
export const ROOT_ROT = field(4);
/** The simulated trajectory (springs), world space: position, velocity, acceleration, rotation, angular velocity. */
export const SIM_POS = field(3);
export const SIM_VEL = field(3);
export const SIM_ACC = field(3);
export const SIM_ROT = field(4);
export const SIM_ANGVEL = field(3);
/** This step's desired velocity (3) and facing (4). */
export const DESIRED_VEL = field(3);
export const DESIRED_ROT = field(4);
/** Root velocity offset after a transition (local vx, vy, vz, yaw rate) and its rate of change. */
export const ROOT_VEL_OFFSET = field(4);
export const ROOT_VEL_OFFSET_RATE = field(4);
/** Crossfade layers: fraction towards the next frame, weight. */
export const LAYER_FRACTION = field(MAX_LAYERS);
export const LAYER_WEIGHT = field(MAX_LAYERS);
/** Fraction of the way from the playing frame to the next. */
export const FRAME_FRACTION = field(1);
/** Cost of the playing frame against the last query, and of the last search's result. */
export const LAST_COST = field(1);
export const LAST_SEARCH_COST = field(1);
/** Time-warp play rate (1 when off). */
export const PLAY_RATE = field(1);
/** Seconds until the next regular search. */
export const SEARCH_TIMER = field(1);
/** The previous step's desired velocity (x, z) and facing: sharp changes trigger a search. */
export const LAST_DESIRED_VX = field(1);
export const LAST_DESIRED_VZ = field(1);
export const LAST_DESIRED_FACING = field(1);
/** This step's dt (read by the step's parts instead of passing it: a number argument is boxed). */
export const STEP_DT = field(1);
/** The dt the two root adjustment factors below were computed for, and the factors. */
export const ADJUST_DT = field(1);
export const ADJUST_POS_K = field(1);
export const ADJUST_ROT_K = field(1);
/**
 * The last step's limit of the position adjustment as a speed (m/s; +Infinity after a reset), and
 * how much it may grow in a step (m/s: the captures' own largest change of the body's velocity in a
 * frame, capturedData's bodyVelocityChangeMax; root-adjustment.ts).
 */
export const ADJUST_CAP = field(1);
export const ADJUST_CAP_RISE = field(1);
/** Crossfade layers' frames. */
export const LAYER_FRAME = field(MAX_LAYERS);
/** Counters (ControllerCounters reads them). */
export const COUNT_STEPS = field(1);
export const COUNT_SEARCHES = field(1);
/** Of COUNT_SEARCHES, the local ones. */
export const COUNT_LOCAL_SEARCHES = field(1);
export const COUNT_TRANSITIONS = field(1);
export const COUNT_SECONDS = field(1);
/** The search result complete() was given (its cost; passed through the block, not as an argument). */
export const RESULT_COST = field(1);
/** The yaw DESIRED_ROT was made from (NaN: none yet). */
export const DESIRED_ROT_YAW = field(1);
/** Seconds since the last transition (Infinity before the first). */
export const SINCE_TRANSITION = field(1);
/** Orientation warping: the upper body's turn about +Y towards the requested facing (target, value, rate; radians). */
export const UPPER_TWIST_TARGET = field(1);
export const UPPER_TWIST = field(1);
export const UPPER_TWIST_VEL = field(1);
/**
 * Uneven ground (controller/root-height.ts): the root's height is the ground under it plus a decaying
 * offset (value, rate) that takes up the changes its slope does not explain (steps); the ground
 * height it was last given, and the decay factor cached for a dt.
 */
export const GROUND_OFFSET = field(1);
export const GROUND_OFFSET_VEL = field(1);
export const GROUND_PREV = field(1);
/** The slope of the ground under the root when it was last asked (∂h/∂x, ∂h/∂z). */
export const GROUND_SLOPE = field(2);
export const GROUND_DT = field(1);
export const GROUND_E = field(1);
/**
 * Level of detail (runtime/lod/levels.ts; all zero without levels, which is level 0): the pose is updated
 * every LOD_POSE_EVERY steps (0 or 1: every step), counting steps in LOD_POSE_COUNT and the time not
 * yet given to the pose in LOD_POSE_DT; regular searches are local until LOD_FULL_INTERVAL seconds
 * after the last full one, over a window of ±LOD_LOCAL_FRAMES frames. Seconds since the last search
 * and since the last full search (the search budget's query age).
 */
export const LOD_POSE_EVERY = field(1);
export const LOD_POSE_COUNT = field(1);
export const LOD_POSE_DT = field(1);
export const LOD_FULL_INTERVAL = field(1);
export const LOD_LOCAL_FRAMES = field(1);
export const SINCE_SEARCH = field(1);
export const SINCE_FULL_SEARCH = field(1);
/** The time the pose moved on by in the last step: its dt, or with levels the gathered time, 0 when it waited. */
export const POSE_SECONDS = field(1);
/**
 * Out of view (1) or not (0, the default): an unseen character's pose waits until it is seen again
 * (LOD_POSE_HELD is 1 while it waits; the time gathers in LOD_POSE_DT). Both stay 0 unless an
 * application says what is seen, so runs that never do (simulate) are unchanged.
 */
export const LOD_UNSEEN = field(1);
export const LOD_POSE_HELD = field(1);
/**
 * The foot IK's weight (1 on, 0 off) and its rate: across a level change it springs to the new
 * level's (controller/level-blend.ts); it stays 1 (or 0) without levels.
 */
export const IK_WEIGHT = field(1);
export const IK_WEIGHT_VEL = field(1);
/**
 * 1 from a switch to a level without inertialization until the last transition's offsets have
 * decayed (or a transition cut them): here, in the fixed state a step always reads, so that
 * characters at such a level never touch the inertialization's state otherwise.
 */
export const LOD_DRAIN = field(1);
/**
 * Standing (standing.ts): 1 while the input asks the character to stand (STAND_REQUEST) and while it
 * is held on a standing frame (STAND_HOLD); the play rate's factor that takes it to rest there and
 * back (HOLD_RATE, 1 when playing) and its rate of change.
 */
export const STAND_REQUEST = field(1);
export const STAND_HOLD = field(1);
export const HOLD_RATE = field(1);
export const HOLD_RATE_VEL = field(1);
/** Time warping's play rate (playback.ts) and its rate of change: the play rate is it times HOLD_RATE. */
export const WARP_RATE = field(1);
export const WARP_RATE_VEL = field(1);
/** Values in the fixed part. */
export const STATE_SIZE = field(0);

/** The block's size: fixed part, pose buffers (J*14), inertialization, foot IK, trajectory (T*8), two float32 queries. */
export function blockSize(joints: number, inertializationSize: number, trajectoryOffsets: number, stride: number): number {
  return STATE_SIZE + joints * (4 + 3 + 3 + 4) + inertializationSize + FOOT_IK_STATE_SIZE + trajectoryOffsets * 8 + 2 * Math.ceil(stride / 2);
}

/** Counters the quality metrics and apps read. */
export interface ControllerCounters {
  steps: number;
  searches: number;
  transitions: number;
  seconds: number;
}

/** ControllerCounters over a controller's state block. */
export class CounterView implements ControllerCounters {
  constructor(private readonly s: Float64Array) {}
  get steps(): number { return this.s[COUNT_STEPS]; }
  set steps(v: number) { this.s[COUNT_STEPS] = v; }
  get searches(): number { return this.s[COUNT_SEARCHES]; }
  set searches(v: number) { this.s[COUNT_SEARCHES] = v; }
  get transitions(): number { return this.s[COUNT_TRANSITIONS]; }
  set transitions(v: number) { this.s[COUNT_TRANSITIONS] = v; }
  get seconds(): number { return this.s[COUNT_SECONDS]; }
  set seconds(v: number) { this.s[COUNT_SECONDS] = v; }
  toJSON(): ControllerCounters {
    return { steps: this.steps, searches: this.searches, transitions: this.transitions, seconds: this.seconds };
  }
}
