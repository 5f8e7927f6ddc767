/**
 * Foot IK's state block (one per character, inside the controller's block) and the temporaries of
 * one call that foot-ik/foot-ik.ts and its uneven-ground step (foot-ik/ground-step.ts, foot-ground.ts) share. Plain numbers
 * at fixed offsets so that a crowd keeps them next to the rest of a character's state.
 *
 * Per leg (LEG_SIZE values from i·LEG_SIZE):
 * - LOCKED: 0 free, 1 locked, RELEASED released while its contact lasts (planted again once down from
 *   its catch-up step on flat ground, landing.ts plantable, else at the next contact);
 * - LOCK: where a locked foot's contact point is held (world); OFFSET, OFFSET_VEL: the decaying offset
 *   that blends switches between lock and animation; TARGET: the ankle's target;
 * - SHOWN: where the contact point was displayed at the end of the last step (after IK and the hips drop);
 * - HEEL, HEEL_VEL: the foot's turn about its planted toe (scaled angle-axis, world) and its rate;
 *   HEEL_SHIFT: how far that turn moved the ankle target this step;
 * - LOCK_YAW: the planted foot's heading (the bearing of its ankle from its contact point: planted-turn.ts
 *   footBearing) when it was planted, or as the animation turned it while too steep to show one;
 * - ANIM_HEIGHT, ANKLE_HEIGHT: the animated contact point's and ankle's heights above the animation's
 *   ground (the root) this step; ANIM_PREV: where the animated contact point was (world) at the last step;
 *   KNEE_PLANE: the side the knee points to (a unit vector, world; leg.ts kneePole); REACH: how much
 *   of the ground's hold on a free foot's offset the leg's reach allows (leg.ts reachHold); LIFT,
 *   LIFT_VEL: how far a foot the leg cannot hold is raised off the ground (a step rather than a slide:
 *   on-ground.ts updateLift), and its rate;
 * - on uneven ground only: LOCK_GROUND, LOCK_NORMAL, the ground's height and normal where the foot
 *   was planted (LOCK's height is then that plus the animated height, every step); SHIFT_OFFSET,
 *   SHIFT_VEL, SHIFT_PREV, SHIFT_SLOPE: a free foot's decaying height offset over steps, the ground
 *   height it followed last and that ground's slope (∂h/∂x, ∂h/∂z); SHIFT: the height the free foot is moved by (ground under it minus the root's);
 *   TILT, TILT_VEL: the foot's tilt towards the ground (scaled angle-axis) and its rate;
 *   PLANTED_HEIGHT: the contact point's animated height when the foot was last planted (the
 *   lowest a free foot goes over the ground); CLEAR, CLEAR_VEL: how far a planted foot's heel is
 *   raised out of the ground behind it (radians) and its rate; FOLLOW, FOLLOW_VEL: how much of
 *   SHIFT a free foot takes (1 near the ground, 0 high in its swing, where it goes with the body)
 *   and its rate.
 * Then the hips drop spring and cached decay factors.
 */

export const LOCKED = 0, LOCK = 1, OFFSET = 4, OFFSET_VEL = 7, TARGET = 10, SHOWN = 13, HEEL = 16, HEEL_VEL = 19, HEEL_SHIFT = 22, LOCK_YAW = 25;
export const ANIM_HEIGHT = 26, LOCK_NORMAL = 27, SHIFT_OFFSET = 30, SHIFT_VEL = 31, SHIFT_PREV = 32, SHIFT = 33, TILT = 34, TILT_VEL = 37;
export const ANKLE_HEIGHT = 40, SHIFT_SLOPE = 41, PLANTED_HEIGHT = 43, LOCK_GROUND = 44, CLEAR = 45, CLEAR_VEL = 46, FOLLOW = 47, FOLLOW_VEL = 48;
export const ANIM_PREV = 49, KNEE_PLANE = 52;
/** How much of a free foot's ground hold its reach allows this step (1 well within the leg's reach, 0 at its edge; leg.ts reachHold). */
export const REACH = 55;
/** Per leg: how far a free foot is raised because its leg cannot hold it where it stands, and its rate (on-ground.ts updateLift). */
export const LIFT = 56, LIFT_VEL = 57;
/**
 * Per leg, this step: the ground hold (on-ground.ts groundHold) of the foot as shown (its animated
 * contact point raised by the lift of the step before), of the animated one, of the lift alone, and
 * of the captured contact point at the frame played (on-ground.ts updateGroundHolds).
 */
export const HOLD = 58, HOLD_ANIM = 59, HOLD_LIFT = 60, HOLD_CAPTURED = 61;
/**
 * Per leg, on uneven ground: how far a free foot is raised over the ground under it and ahead of the
 * ground it is about to swing over (raised at once, lowered by a spring), and its rate (ground-step.ts
 * clearGround); how far the ground rises at the look-ahead point this step (foot-ground.ts
 * followGroundUnderFoot).
 */
export const CLEAR_LIFT = 62, CLEAR_LIFT_VEL = 63, GROUND_AHEAD = 64;
/**
 * Per leg, while planted: the heel raise shown at the last step (rad; pivotAboutContact), which the
 * next may exceed by at most HEEL_RAISE_SPEED·dt. MAX_HEEL_RAISE at the plant: no limit on the first.
 */
export const HEEL_RAISE = 65;
/**
 * Per leg: the hip-to-ankle distance shown at the end of the last step (m); and for a leg just let
 * go of, how much of the way from the distance it was shown at to its softened reach is still held
 * off (-1 until its solve in the release step decides; then 1, down to 0 over
 * HOLD_RELEASE_SECONDS), the gap between the two then (m) and the distance shown then (leg.ts
 * unsoftenOffset, softenReach, restoreSoftening).
 */
export const SHOWN_REACH = 66, UNSOFT = 67, UNSOFT_GAP = 68, UNSOFT_CAP = 69;
/** Per leg: the ground's hold on a free foot's horizontal motion at the last step (offsets.ts followDataOnGround; 1 while planted). */
export const DATA_HOLD = 70;
/** Per leg: how far its soft reach is widened towards (1 − SOFT_REACH) leg lengths, 0 to 1 (leg.ts updateSoftWidening). */
export const SOFT_WIDEN = 71;
/**
 * Per leg, on uneven ground, from a plant to the first clearHeel after it: the elevation (radians)
 * of the toe-to-ankle line the foot showed as it was planted (its heel turn still coming down), NaN
 * otherwise (foot-ground.ts shownHeelElevation, clearHeel).
 */
export const PLANT_HEEL = 72;
/**
 * Per leg (knee-bend.ts): how much further the knee was shown bent than the animation bends it at the
 * end of the last step (the bend: the angle between thigh and shin, 0 straight; rad), the rate that
 * changed at over the step (rad/s), and this step's animated bend.
 */
export const KNEE_BEND = 73, KNEE_BEND_RATE = 74, KNEE_ANIM = 75;
/**
 * Per leg (foot-ground.ts followGroundUnderFoot): where (x, z) the ground of SHIFT_PREV was sampled,
 * so that the slope explains the ground's change over the way that point moved (not over the gap to
 * where the foot was shown, which a leg that cannot reach its target leaves open).
 */
export const SHIFT_AT = 76;
export const LEG_SIZE = 78;
/** LOCKED's value for a foot released while its contact lasts. */
export const RELEASED = 2;
export const HIPS_DROP = 2 * LEG_SIZE, HIPS_DROP_VEL = HIPS_DROP + 1, DECAY_DT = HIPS_DROP + 2, DECAY_E = HIPS_DROP + 3;
// This step's dt and the hips drop the locked legs need: passed between the step's methods through
// the block, since number arguments and results of calls that are not inlined get boxed.
export const STEP_DT = HIPS_DROP + 4, NEEDED_DROP = HIPS_DROP + 5;
// The hips spring's decay factor, cached for the dt it was computed for.
export const HIPS_DT = HIPS_DROP + 6, HIPS_E = HIPS_DROP + 7;
/** The most the hips may be lowered this step (m). */
export const HIPS_MAX = HIPS_DROP + 8;
/** The feet's ground springs' decay factor (footHalfLife), cached for a dt and half-life. */
export const FOOT_DT = HIPS_DROP + 9, FOOT_E = HIPS_DROP + 10, FOOT_HALF_LIFE = HIPS_DROP + 11;
/** How far the hips drop moved the body this step (m; passed from the lock updates to the leg bends). */
export const BODY_DY = HIPS_DROP + 12;
/**
 * 1 from a reset to the end of the next step: the springs start at their targets (a foot planted
 * on the ground under it at once, the hips at the drop the legs need). Nothing was shown before, so
 * nothing can jump; eased in instead, a character spawned with a foot inside a step's riser showed
 * it there for a step and lifted it out the next (11.9 m/s at the knee, the built-in data on steps).
 */
export const SETTLING = HIPS_DROP + 13;
/**
 * The hips drop's speed as shown at the last step (m/s, down positive; hips.ts lowerHips), and how
 * much it may change in a step: the captures' own largest change of the hips' vertical velocity in
 * a frame (capturedData's bodyVerticalVelocityChangeMax, set at construction).
 */
export const HIPS_SHOWN_VEL = HIPS_DROP + 14, HIPS_VEL_CHANGE_MAX = HIPS_DROP + 15;
/** Values FootIK keeps per character (the size of the `storage` its constructor accepts). */
export const FOOT_IK_STATE_SIZE = HIPS_DROP + 16;

/** The most a planted toe's heel is raised (to keep the toe in the leg's reach, or the heel out of the ground; radians). */
export const MAX_HEEL_RAISE = Math.PI / 3;

// Temporaries of one call, shared by every character of a thread (they stay in cache in a crowd).
/** The ankle's target for the solve. */
export const IK_TARGET = new Float64Array(3);
/** The foot's world rotation to keep (restored after the solve). */
export const FOOT_WORLD_ROT = new Float64Array(4);
