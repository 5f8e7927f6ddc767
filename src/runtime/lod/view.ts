/**
 * What a camera sees, on the ground, for levels of detail (docs/lod.md): a horizontal cone from
 * the camera's place along its forward direction. Far characters outside it are not seen, so their
 * pose may wait (MotionMatchingController.unseen) until they are.
 *
 * A cone on the ground is what a follow camera looking slightly down sees of characters tens of
 * metres away (their height is a few degrees of the view; near ones are always at levels that update
 * the pose every step, which ignore being unseen). The cone is wider than the view by a margin: the
 * camera turns between the step that decides and the frame that draws, and a character has a body.
 */

export interface LodView {
  /** The camera's place on the ground (x, z). */
  x: number;
  z: number;
  /** Horizontal forward direction of the view (need not be unit length; (0, 0): everything is seen). */
  forwardX: number;
  forwardZ: number;
  /** Cosine of the cone's half angle (the view's horizontal half angle plus the margin); -1: everything is seen. */
  cosHalfAngle: number;
}

/** Radians added to each side of the view: a turn of 0.2 rad between deciding and drawing (12 rad/s at 60 Hz) stays covered. */
export const LOD_VIEW_MARGIN = 0.2;

/** A view that sees everything (no camera direction known). */
export function seeAll(x = 0, z = 0): LodView {
  return { x, z, forwardX: 0, forwardZ: 0, cosHalfAngle: -1 };
}

/**
 * The cone's cosine for a perspective camera with a vertical field of view `fovYRadians` and
 * `aspect` (width / height): its horizontal half angle plus `margin`, capped at a half turn.
 */
export function viewCosHalfAngle(fovYRadians: number, aspect: number, margin = LOD_VIEW_MARGIN): number {
  const half = Math.atan(Math.tan(fovYRadians / 2) * aspect) + margin;
  return half >= Math.PI ? -1 : Math.cos(half);
}

/** Whether the point (x, z) on the ground is inside the view's cone (the camera's own place is). */
export function inLodView(v: LodView, x: number, z: number): boolean {
  if (v.cosHalfAngle <= -1) return true;
  const dx = x - v.x, dz = z - v.z;
  const along = dx * v.forwardX + dz * v.forwardZ;
  // along / (|d| |f|) >= cos, without a square root: compare squares with the sign kept.
  const d2 = dx * dx + dz * dz, f2 = v.forwardX * v.forwardX + v.forwardZ * v.forwardZ;
  if (d2 === 0 || f2 === 0) return true;
  const c = v.cosHalfAngle;
  if (c >= 0) return along >= 0 && along * along >= c * c * d2 * f2;
  // Wider than a quarter turn each side: everything ahead is in; behind, within |c| of the side.
  return along >= 0 || along * along <= c * c * d2 * f2;
}

/**
 * How many held poses may catch up in one step when their characters come into view (a quick turn
 * of the camera reveals many at once): the crowd's share that the coarsest level updates a step
 * anyway (agents / its poseEvery, at least 1), so the turn costs no more than that level's pose
 * rate. The others stay held, and undrawn, a step or a few longer.
 */
export function revealsPerStep(agents: number, levels: readonly { poseEvery: number }[]): number {
  let every = 1;
  for (const l of levels) every = Math.max(every, l.poseEvery);
  return Math.max(1, Math.ceil(agents / every));
}

/**
 * An unseen character steps (input, playback, root motion, trajectory, searches) only every this
 * many steps, with the time gathered meanwhile, as long as it stays out of view: its position and
 * timers stay exact at the steps it takes, and nothing it skips would have been drawn. Unreal's
 * update rate optimisation takes 4 for characters that are not rendered.
 */
export const UNSEEN_STEP_EVERY = 4;

/** The largest step rate a crowd takes for unseen characters (every 60th step: once a second at 60 Hz). */
export const MAX_UNSEEN_STEP_EVERY = 60;

/** Whether `n` is a step rate for unseen characters: an integer from 1 (every step) to MAX_UNSEEN_STEP_EVERY. */
export function isUnseenStepEvery(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= MAX_UNSEEN_STEP_EVERY;
}

/** Throws a RangeError naming the value unless it is absent or a step rate for unseen characters (isUnseenStepEvery). */
export function checkUnseenStepEvery(n: number | undefined): void {
  if (n !== undefined && !isUnseenStepEvery(n)) {
    throw new RangeError(`unseen step rate: unseenStepEvery must be an integer from 1 (every step) to ${MAX_UNSEEN_STEP_EVERY}, got ${n}`);
  }
}

/** An unseen character steps anyway once it has gathered this much time (s): a step must stay short (prepare() takes at most 1 s). */
export const UNSEEN_MAX_GATHERED = 0.25;

/**
 * Whether character `index`, unseen at its last step and still out of view, rests at crowd step
 * `step` with `gathered` seconds not yet stepped (the next step is `dt`): only one step in
 * UNSEEN_STEP_EVERY runs, staggered by index so that every step runs the same share of the crowd.
 */
export function restsUnseen(step: number, index: number, gathered: number, dt: number, every = UNSEEN_STEP_EVERY): boolean {
  return (step + index) % every !== 0 && gathered + dt <= UNSEEN_MAX_GATHERED;
}
