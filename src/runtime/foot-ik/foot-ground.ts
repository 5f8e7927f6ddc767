/**
 * The feet on uneven ground, for foot IK (foot-ik/ground-step.ts, applyGroundStep): where a free foot's height
 * follows the ground under it (and ahead of it), how far a foot tilts towards the ground, and how a
 * planted foot's heel is kept out of a step behind it. Functions over FootIK's state block
 * (foot-ik/state.ts) and its per-call scratch; nothing here allocates.
 */
import type { LegJoints } from './rig.js';
import {
  LOCK, OFFSET, SHOWN, CLEAR, CLEAR_VEL, GROUND_AHEAD, FOLLOW, FOLLOW_VEL, SHIFT_OFFSET, SHIFT_VEL, SHIFT_PREV, SHIFT_SLOPE, SHIFT_AT, SHIFT, TILT, TILT_VEL, ANIM_HEIGHT, ANKLE_HEIGHT, STEP_DT, SETTLING, FOOT_DT, FOOT_E, FOOT_HALF_LIFE,
  IK_TARGET, FOOT_WORLD_ROT, MAX_HEEL_RAISE, HEEL, PLANT_HEEL, HEEL_RAISE,
} from './state.js';
import type { GroundOptions } from '../ground/ground-options.js';
import { type Ground, sampleGround } from '../ground/ground.js';
import { quatFromScaledAngleAxis, quatFromTo, quatMultiply, quatRotateVec3 } from '../../math/quat.js';
import { explainedRise } from '../ground/slope.js';

/** The ground under a free foot this step (height, normal), left by followGroundUnderFoot for the caller. */
export const GROUND_UNDER_FOOT = new Float64Array(4);
const AHEAD = new Float64Array(4);
const ASK = new Float64Array(3);
const HEEL_FROM = new Float64Array(3);
const HEEL_TO = new Float64Array(3);
const HEEL_TURN = new Float64Array(4);
/** The fastest a free foot's clearance over the ground rises beyond its spring (m/s; ground-step.ts clearGround). */
export const CLEAR_RISE_SPEED = 2;
/** A free foot looks ahead at most this many leg lengths for the ground it follows and its clearance takes whole (see stepsBeyondReach for further). */
const MAX_LOOK_AHEAD = 0.5;
/** Points of the way ahead a free foot's look-ahead samples the ground at (evenly spaced, the last at its end). */
const LOOK_AHEAD_SAMPLES = 8;
/** The spacing of those points (leg lengths); beyond MAX_LOOK_AHEAD the points are as far apart or, for a long way, as many. */
const LOOK_AHEAD_SPACING = MAX_LOOK_AHEAD / LOOK_AHEAD_SAMPLES;
/** How far (m) a foot must be shown from the animated one for the ground on its way there to count (followGroundUnderFoot). */
const AWAY = 0.02;
/** Free feet tilt fully with the ground up to this animated height (leg lengths), not at all from TILT_FADE_END. */
const TILT_FADE_START = 0.1, TILT_FADE_END = 0.3;

/**
 * How much a free foot at animated height h (leg lengths over the animation's ground) goes with the
 * ground rather than with the body: 1 near the ground, 0 high in its swing, linear between.
 */
export function groundShare(h: number): number {
  return h <= TILT_FADE_START ? 1 : h >= TILT_FADE_END ? 0 : (TILT_FADE_END - h) / (TILT_FADE_END - TILT_FADE_START);
}
/** A planted foot's ankle is kept at least this share of its animated height above the ground under it. */
const HEEL_CLEARANCE = 0.9;
/** The steepest a planted foot's toe-to-ankle line is turned by its heel's clearance (radians: short of vertical). */
const MAX_ELEVATION = 0.45 * Math.PI;

/**
 * A free foot's height shift, S[SHIFT]: the ground under its contact point (or, where it rises
 * beyond the slope, the ground `swingLookAhead` seconds on at the foot's speed) minus the root's
 * height, plus a decaying offset for changes no slope explains (a step edge passing under it), and
 * the share of it the foot takes, S[FOLLOW]. Near the ground the foot then keeps its animated
 * height over the ground it swings over, and rises before a step instead of hitting the riser. `restart`: the foot was just released; take the ground as it is
 * (the caller's offset carries the gap). Leaves the ground under the foot in GROUND_UNDER_FOOT.
 */
export function followGroundUnderFoot(S: Float64Array, at: number, leg: LegJoints, wp: Float64Array, rootPosition: Float64Array, ground: Ground, go: GroundOptions, restart: boolean): void {
  const c = 3 * leg.contact, dt = S[STEP_DT];
  // The contact point's horizontal position this step (animation plus the offset still blending out).
  const px = wp[c] + S[at + OFFSET], pz = wp[c + 2] + S[at + OFFSET + 2];
  ASK[0] = px; ASK[1] = S[at + SHOWN + 1]; ASK[2] = pz;
  sampleGround(ground, ASK, 0, GROUND_UNDER_FOOT);
  let g = GROUND_UNDER_FOOT[0];
  // Its horizontal velocity from where it was displayed last step.
  let vx = 0, vz = 0, moved = 0;
  if (dt > 0) {
    vx = (px - S[at + SHOWN]) / dt; vz = (pz - S[at + SHOWN + 2]) / dt;
    moved = Math.sqrt(vx * vx + vz * vz) * dt;
  }
  // The slope of the ground under the foot.
  const gx = -GROUND_UNDER_FOOT[1] / GROUND_UNDER_FOOT[2], gz = -GROUND_UNDER_FOOT[3] / GROUND_UNDER_FOOT[2];
  S[at + GROUND_AHEAD] = 0;
  // Just released (`restart`), the foot was held by its lock, not moving: the gap between where it
  // was shown and its lock (a leg that could not reach it) is no velocity to look ahead along. Read
  // as one, a toe let go of on a riser's edge looked 8.5 cm up the riser, took that as the ground
  // under it, and the free foot's floor lifted it 10.5 cm in the release step (11.2 m/s at 144 Hz,
  // the shared locomotion captures' wander on the steps).
  if (go.swingLookAhead > 0 && moved > 0 && !restart) {
    let ax = vx * go.swingLookAhead, az = vz * go.swingLookAhead;
    const reach = Math.sqrt(ax * ax + az * az), most = MAX_LOOK_AHEAD * leg.length;
    if (reach > most) { ax *= most / reach; az *= most / reach; }
    // Only what rises ahead beyond the slope under the foot (a step) lifts it: on an even slope the
    // foot keeps its animated height over the ground under it (looking up a 20° slope held a landing
    // foot 2 cm up).
    // (Under the foot a riser, steeper than followSlope, is no slope to carry on along.)
    const tan = Math.tan(go.followSlope), slope = gx * gx + gz * gz > tan * tan ? 0 : gx * ax + gz * az;
    // The highest of it anywhere the foot passes over on its way there (LOOK_AHEAD_SAMPLES points
    // along the way, the last at the end): sampled at the end alone, a bar narrower than the look
    // ahead fell between the foot and the point looked at, the foot's lift came down again before
    // its edge, and the edge then lifted the swinging foot 7 cm in one step (the built-in database
    // running over 20 cm bars).
    let rise = -Infinity;
    for (let k = 1; k <= LOOK_AHEAD_SAMPLES; k++) {
      const u = k / LOOK_AHEAD_SAMPLES;
      ASK[0] = px + u * ax; ASK[2] = pz + u * az;
      sampleGround(ground, ASK, 0, AHEAD);
      const r = AHEAD[0] - (g + u * slope);
      if (r > rise) rise = r;
    }
    // For clearGround: how far the ground ahead rises beyond the slope under the foot (a step's edge),
    // and a step further on that a fast foot must start rising for now (stepsBeyondReach; AHEAD
    // still holds the ground at the end of the way above).
    let further = 0;
    if (reach > most) {
      FAR[F_PX] = px; FAR[F_PZ] = pz; FAR[F_VX] = vx; FAR[F_VZ] = vz; FAR[F_BASE] = g + slope; FAR[F_MOST] = most; FAR[F_REACH] = reach; FAR[F_LEG] = leg.length;
      stepsBeyondReach(ground, go);
      further = FAR[F_NEED];
    }
    const top = rise > further ? rise : further;
    S[at + GROUND_AHEAD] = top > 0 ? top : 0;
    if (rise > 0) g += rise;
  }
  // A foot shown away from the animated one (let go of and stepping after the body, or a
  // transition's offset blending out) is going there, whatever its velocity: the ground on its way
  // counts for clearGround too. Judged by its velocity alone, a released foot held behind the body
  // looked a few centimetres ahead, then caught up at 2.7 m/s into a 21 cm step it saw 3 steps
  // before the riser, and was lifted 16.6 cm in one step (7.7 m/s at the ankle: the built-in
  // database's strafe on the steps).
  // As above, only what rises beyond the slope under the foot (a step) counts.
  const ox = S[at + OFFSET], oz = S[at + OFFSET + 2];
  if (go.swingLookAhead > 0 && ox * ox + oz * oz > AWAY * AWAY) {
    const tan = Math.tan(go.followSlope), slope = gx * gx + gz * gz > tan * tan ? 0 : -(gx * ox + gz * oz);
    let rise = S[at + GROUND_AHEAD];
    for (let k = 1; k <= LOOK_AHEAD_SAMPLES; k++) {
      const u = k / LOOK_AHEAD_SAMPLES;
      ASK[0] = px - u * ox; ASK[2] = pz - u * oz;
      sampleGround(ground, ASK, 0, AHEAD);
      const r = AHEAD[0] - (GROUND_UNDER_FOOT[0] + u * slope);
      if (r > rise) rise = r;
    }
    S[at + GROUND_AHEAD] = rise;
  }
  const prev = S[at + SHIFT_PREV];
  if (restart || prev !== prev) {
    S[at + SHIFT_OFFSET] = 0; S[at + SHIFT_VEL] = 0;
    // Never followed a ground before (the option was just set): start from the root's level; just
    // after a reset, on the ground.
    if (!restart && S[SETTLING] === 0) S[at + SHIFT_OFFSET] = rootPosition[1] - g;
  } else {
    // What the slope explains is followed at once; the rest (a step passing under the foot or ahead of it) goes into the offset.
    // The slope explains the change over the way the sampled point moved since the last sample. Over
    // the foot's shown motion instead (from where it was shown to its target), a released foot whose
    // leg could not reach its target 74 cm off had a 20 cm "move" a step on a hill-like cell edge:
    // lifted 10 cm a step for three steps and stopped (13.9 m/s at the ankle at 144 Hz, the shared
    // locomotion captures' wander on the steps).
    S[at + SHIFT_OFFSET] -= g - prev - explainedRise(px - S[at + SHIFT_AT], pz - S[at + SHIFT_AT + 1], S[at + SHIFT_SLOPE], S[at + SHIFT_SLOPE + 1], gx, gz, Math.tan(go.followSlope));
    decayFootSpring(S, at + SHIFT_OFFSET, at + SHIFT_VEL, 1, go);
  }
  S[at + SHIFT_PREV] = g; S[at + SHIFT_SLOPE] = gx; S[at + SHIFT_SLOPE + 1] = gz; S[at + SHIFT_AT] = px; S[at + SHIFT_AT + 1] = pz;
  S[at + SHIFT] = g + S[at + SHIFT_OFFSET] - rootPosition[1];
  // How much of the shift the foot takes: all of it near the ground, none high in its swing, where
  // it goes with the body (a back-kick over ground rising behind a runner went above the hip, its
  // knee bent backwards); by a spring, since the animated height jumps at transitions.
  const h = S[at + ANIM_HEIGHT] / leg.length;
  const take = groundShare(h);
  S[at + FOLLOW] -= take;
  decayFootSpring(S, at + FOLLOW, at + FOLLOW_VEL, 1, go);
  S[at + FOLLOW] += take;
}

/** stepsBeyondReach's numbers (passed in an array: numbers passed to a call that is not inlined are heap boxes). */
const FAR = new Float64Array(9);
const F_PX = 0, F_PZ = 1, F_VX = 2, F_VZ = 3, F_BASE = 4, F_MOST = 5, F_REACH = 6, F_LEG = 7, F_NEED = 8;

/**
 * How much of a step (a riser) that a free foot at (px, pz) moving at (vx, vz) m/s reaches beyond
 * its look-ahead `most` (m; out to `reach`, swingLookAhead seconds on) it must already have risen by
 * now, m above `base` (the ground under the foot with the slope carried to `most`), into FAR[F_NEED]
 * (0 when none); the numbers in FAR, a leg of FAR[F_LEG] m. Capped at
 * MAX_LOOK_AHEAD leg lengths, a runner's foot at 7 m/s saw a 21 cm riser 0.06 s ahead; its clearance
 * rose 15 cm by the edge and `holdAtEdge` stopped it there for a step (7.0 m/s at the ankle at 144
 * Hz, the shared real captures on the steps). Looking the whole way instead lifted the built-in
 * runner's feet for the top of a flight 0.9 m above and 1.3 m ahead (13.9 m/s at the knee), and
 * past the cap a slope under the foot carried on for a metre read as steps. So beyond the cap only
 * what lies past a riser counts (ground rising more steeply than followSlope between two points of
 * the way; an even hill none), over flat ground from the cap's end, and a point reached t seconds
 * after the cap's end asks for its rise less what the clearance can still gain by then: rising at
 * CLEAR_RISE_SPEED, behind by its spring's lag on such a ramp (footHalfLife / ln 2: a critically
 * damped spring follows a ramp that far behind), so that the spring has it when the foot gets there.
 * At most LOOK_AHEAD_SAMPLES points (12 at the near spacing for 7 m/s measured 0.80-0.99 of the
 * crowd's speed on the steps; 8 the same motion within 0.5 m/s and 0.88-1.06): a riser is still
 * steeper than followSlope between points 9 cm apart, and comes nearer to be seen at the near spacing.
 */
function stepsBeyondReach(ground: Ground, go: GroundOptions): void {
  const px = FAR[F_PX], pz = FAR[F_PZ], vx = FAR[F_VX], vz = FAR[F_VZ], base = FAR[F_BASE], most = FAR[F_MOST], reach = FAR[F_REACH];
  const speed = Math.sqrt(vx * vx + vz * vz), lag = go.footHalfLife / Math.LN2, tan = Math.tan(go.followSlope);
  const n = Math.min(LOOK_AHEAD_SAMPLES, Math.ceil((reach - most) / (LOOK_AHEAD_SPACING * FAR[F_LEG])));
  // (the ground and distance of the point before, from the near look-ahead's last one on)
  let before = AHEAD[0], beforeD = most, riser = false, need = 0;
  for (let k = 1; k <= n; k++) {
    const d = most + (k / n) * (reach - most);
    ASK[0] = px + (vx / speed) * d; ASK[2] = pz + (vz / speed) * d;
    sampleGround(ground, ASK, 0, AHEAD);
    if (AHEAD[0] - before > tan * (d - beforeD)) riser = true;
    before = AHEAD[0]; beforeD = d;
    if (!riser) continue;
    const later = (d - most) / speed - lag;
    const r = AHEAD[0] - base - (later > 0 ? CLEAR_RISE_SPEED * later : 0);
    if (r > need) need = r;
  }
  FAR[F_NEED] = need;
}

/**
 * Moves the foot's tilt S[TILT] (scaled angle-axis) towards the rotation that takes +Y onto the
 * ground's normal n[o..o+2], by a critically damped spring: at most maxFootTilt, none on a riser,
 * and for a `free` foot only near the ground (none high in its swing, where the ground under it
 * says nothing about how it will land).
 */
export function tiltTowards(S: Float64Array, at: number, leg: LegJoints, n: Float64Array, o: number, free: boolean, go: GroundOptions): void {
  // The rotation +Y -> n is about +Y × n = (n_z, 0, −n_x), by acos(n_y).
  const ax = n[o + 2], az = -n[o], s = Math.sqrt(ax * ax + az * az);
  let k = 0;
  // Ground steeper than followSlope is a step's riser (on a height field, the one cell between two
  // levels): a foot on its edge stands level rather than tilted down the riser.
  if (s > 1e-9 && s <= Math.sin(go.followSlope)) {
    const h = S[at + ANIM_HEIGHT] / leg.length;
    const weight = free ? groundShare(h) : 1;
    k = (Math.min(Math.atan2(s, n[o + 1]), go.maxFootTilt) * weight) / s;
  }
  const t = at + TILT, tx = ax * k, tz = az * k;
  if (S[t] === tx && S[t + 1] === 0 && S[t + 2] === tz && S[at + TILT_VEL] === 0 && S[at + TILT_VEL + 1] === 0 && S[at + TILT_VEL + 2] === 0) return;
  S[t] -= tx; S[t + 2] -= tz;
  decayFootSpring(S, t, at + TILT_VEL, 3, go);
  S[t] += tx; S[t + 2] += tz;
}

/**
 * A planted foot's heel kept out of the ground behind it (a toe on a lower step, the heel over the
 * step above): the raise that puts the ankle target (IK_TARGET) HEEL_CLEARANCE of its animated
 * height (S[ANKLE_HEIGHT]) over the ground under it, turning the foot about the toe target
 * P = LOCK + OFFSET (pitch, in the vertical plane of toe and ankle; at most MAX_HEEL_RAISE), is
 * followed by a critically damped spring (S[CLEAR], footHalfLife): a step's edge passing under the
 * heel raises it over a few frames, not in one (measured: a heel raised 10 cm at once when a foot
 * landed jumped its knee by 6.4 m/s). Moves IK_TARGET and turns FOOT_WORLD_ROT with it.
 */
export function clearHeel(S: Float64Array, at: number, ground: Ground, go: GroundOptions): void {
  ASK[0] = IK_TARGET[0]; ASK[1] = IK_TARGET[1]; ASK[2] = IK_TARGET[2];
  sampleGround(ground, ASK, 0, AHEAD);
  const need = AHEAD[0] + HEEL_CLEARANCE * S[at + ANKLE_HEIGHT];
  const px = S[at + LOCK] + S[at + OFFSET], py = S[at + LOCK + 1] + S[at + OFFSET + 1], pz = S[at + LOCK + 2] + S[at + OFFSET + 2];
  const ux = IK_TARGET[0] - px, uy = IK_TARGET[1] - py, uz = IK_TARGET[2] - pz;
  const r = Math.sqrt(ux * ux + uy * uy + uz * uz), flat = Math.sqrt(ux * ux + uz * uz);
  if (!(r > 1e-6 && flat > 1e-6)) return;
  // Elevation of toe -> ankle now and wanted: the raise wanted, limited.
  const now = Math.asin(Math.max(-1, Math.min(1, uy / r)));
  const wanted = IK_TARGET[1] >= need ? now : Math.asin(Math.max(-1, Math.min(1, (need - py) / r)));
  const raise = Math.min(wanted - now, MAX_HEEL_RAISE), c = at + CLEAR;
  // Just planted: the heel starts as high as it was shown (beyond any raise to reach the toe, which
  // `now` has), and comes down by the spring.
  const planted = S[at + PLANT_HEEL];
  if (planted === planted) {
    S[at + PLANT_HEEL] = Number.NaN;
    if (planted - now > S[c]) { S[c] = Math.min(planted - now, MAX_HEEL_RAISE); S[at + CLEAR_VEL] = 0; }
  }
  if (raise <= 0 && S[c] === 0 && S[at + CLEAR_VEL] === 0) return;
  S[c] -= raise > 0 ? raise : 0;
  decayFootSpring(S, c, at + CLEAR_VEL, 1, go);
  S[c] += raise > 0 ? raise : 0;
  if (Math.abs(S[c]) < 1e-6 && Math.abs(S[at + CLEAR_VEL]) < 1e-5 && raise <= 0) { S[c] = 0; S[at + CLEAR_VEL] = 0; return; }
  // The clearance and the raise to reach the toe (pivotAboutContact, S[HEEL_RAISE]) together no more
  // than MAX_HEEL_RAISE, nor past the vertical: added up beyond it, a heel kept over a riser's edge
  // while the leg needed it raised to reach turned the foot over the vertical (80 degrees and on),
  // the ankle swung out to full stretch within a step and the knee jumped 12 cm (10.1 m/s, the
  // shared locomotion captures on the steps).
  const pivot = S[at + HEEL_RAISE] > 0 ? S[at + HEEL_RAISE] : 0;
  const room = Math.min(MAX_HEEL_RAISE - pivot, MAX_ELEVATION - now);
  const to = now + Math.max(0, Math.min(S[c], room));
  const cs = Math.cos(to), sn = Math.sin(to);
  HEEL_FROM[0] = ux / r; HEEL_FROM[1] = uy / r; HEEL_FROM[2] = uz / r;
  HEEL_TO[0] = (cs * ux) / flat; HEEL_TO[1] = sn; HEEL_TO[2] = (cs * uz) / flat;
  IK_TARGET[0] = px + r * HEEL_TO[0]; IK_TARGET[1] = py + r * HEEL_TO[1]; IK_TARGET[2] = pz + r * HEEL_TO[2];
  // = quatMultiply(FOOT_WORLD_ROT, quatFromTo(u, new u), FOOT_WORLD_ROT): the foot turns about the toe.
  quatFromTo(HEEL_TURN, 0, HEEL_FROM, 0, HEEL_TO, 0);
  quatMultiply(FOOT_WORLD_ROT, 0, HEEL_TURN, 0, FOOT_WORLD_ROT, 0);
}

const SHOWN_TURN = new Float64Array(4);
const TOE_TO_ANKLE = new Float64Array(3);

/**
 * The elevation (radians) of the toe-to-ankle line of a foot as shown with its heel turn (S[HEEL]: a
 * released heel still coming down), NaN when it shows none: a foot being planted keeps it in
 * S[PLANT_HEEL], and its first clearHeel starts the heel's clearance from there. Planted flat, a foot
 * let go of with its heel raised over a riser's edge and planted again while the heel came down
 * flattened in one step: the ankle fell 5 cm, a knee at 22 m/s at 144 Hz (the built-in path on the
 * steps).
 */
export function shownHeelElevation(S: Float64Array, at: number, leg: LegJoints, wp: Float64Array): number {
  const h = at + HEEL;
  if (S[h] * S[h] + S[h + 1] * S[h + 1] + S[h + 2] * S[h + 2] < 1e-12) return Number.NaN;
  const f = 3 * leg.foot, c = 3 * leg.contact;
  for (let k = 0; k < 3; k++) TOE_TO_ANKLE[k] = wp[f + k] - wp[c + k];
  const r = Math.sqrt(TOE_TO_ANKLE[0] * TOE_TO_ANKLE[0] + TOE_TO_ANKLE[1] * TOE_TO_ANKLE[1] + TOE_TO_ANKLE[2] * TOE_TO_ANKLE[2]);
  if (!(r > 1e-6)) return Number.NaN;
  // The foot as shown: tilt · heel turn · animated (ground-step.ts FOOT_TURN), as clearHeel's
  // elevation has it (measured without the tilt, a foot planted on a slope had its heel raised by
  // the slope's pitch: the real set's strafe on hills, p99.9 of the velocity changes 3.2 → 3.7 m/s).
  quatFromScaledAngleAxis(SHOWN_TURN, 0, S, h);
  quatRotateVec3(TOE_TO_ANKLE, 0, SHOWN_TURN, 0, TOE_TO_ANKLE, 0);
  quatFromScaledAngleAxis(SHOWN_TURN, 0, S, at + TILT);
  quatRotateVec3(TOE_TO_ANKLE, 0, SHOWN_TURN, 0, TOE_TO_ANKLE, 0);
  return Math.asin(Math.max(-1, Math.min(1, TOE_TO_ANKLE[1] / r)));
}

/**
 * decaySpringUpdate on n values of the block with footHalfLife, its e^(−y·dt) cached per dt and
 * half-life. Each caller's value is its distance from its target: just after a reset (SETTLING) it
 * starts there.
 */
export function decayFootSpring(S: Float64Array, x: number, v: number, n: number, go: GroundOptions): void {
  if (S[SETTLING] === 1) { for (let i = 0; i < n; i++) { S[x + i] = 0; S[v + i] = 0; } return; }
  const dt = S[STEP_DT], h = go.footHalfLife, y = (2 * Math.LN2) / h;
  if (dt !== S[FOOT_DT] || h !== S[FOOT_HALF_LIFE]) { S[FOOT_DT] = dt; S[FOOT_HALF_LIFE] = h; S[FOOT_E] = Math.exp(-y * dt); }
  const e = S[FOOT_E];
  for (let i = 0; i < n; i++) {
    const j = S[v + i] + S[x + i] * y;
    S[x + i] = e * (S[x + i] + j * dt);
    S[v + i] = e * (S[v + i] - j * y * dt);
  }
}
