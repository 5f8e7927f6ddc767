/**
 * How suddenly foot IK may change how much it bends a knee beyond the animation, on uneven ground:
 * no more suddenly than the captures' own knees ever change the speed they bend at
 * (CapturedData.kneeBendAccelerationMax). A leg held at full stretch (a foot dragged after the body
 * over lower ground, or planted at the edge of its reach) whose target came back within reach in one
 * step (a foot lifted over a step's edge at once, or one the animation brings forward) went from
 * straight to bent within the step: near full stretch a centimetre of reach moves the knee by
 * several, and it jumped 6-10 m/s (the real captures on the terrains, docs/terrain.md, stop 60). A
 * planted leg at full stretch flickered between straight and bent by a few millimetres of reach
 * as its heel rose (8.9 m/s at 144 Hz). The solve now reaches for its target along the
 * hip-to-target line only as far as that bend allows, and the foot catches up over the next steps
 * (a planted foot is a few millimetres short of its lock meanwhile). What the animation's own knee
 * does passes through untouched: only foot IK's correction of the bend (shown minus animated) is
 * limited. Functions on the foot IK state block (state.ts).
 */
import type { LegJoints } from './rig.js';
import { IK_TARGET, KNEE_ANIM, KNEE_BEND, KNEE_BEND_RATE, STEP_DT } from './state.js';
import { TWO_BONE_IK_EPS, chainBendAngle } from '../../math/two-bone-ik.js';

/**
 * The least limit (rad/s²), whatever the captures' knees: an idle alone bends its knees so little
 * (the built-in idle: 0.55 rad/s²) that foot IK could hardly follow the ground under a standing
 * character that turns or shifts on a slope. At this floor a 0.45 m thigh's knee changes its
 * velocity by at most 0.75 m/s in a 60 Hz step, well under what the pops measure flags (1.5 times a
 * capture's own largest, 4-7 m/s on the sets measured); every set measured has 329-764 (docs/terrain.md).
 */
export const KNEE_BEND_ACCELERATION_FLOOR = 100;

/** The bend (rad) of leg `leg` as posed in `wp`: the angle between thigh and shin, 0 straight. */
export function shownKneeBend(leg: LegJoints, wp: Float64Array): number {
  return chainBendAngle(wp, leg.hip, leg.knee, leg.foot);
}

/** Remembers leg `leg`'s bend as animated this step (before its solve; the hips drop moves a leg without bending it). */
export function recordAnimatedKneeBend(S: Float64Array, at: number, leg: LegJoints, wp: Float64Array): void {
  S[at + KNEE_ANIM] = shownKneeBend(leg, wp);
}

/** Remembers, at the end of the step, how much further than animated leg `leg`'s knee is shown bent, and the rate of that over the step (`first`: a reset's step, at rest). */
export function recordKneeBend(S: Float64Array, at: number, leg: LegJoints, wp: Float64Array, first: boolean): void {
  const beyond = shownKneeBend(leg, wp) - S[at + KNEE_ANIM], dt = S[STEP_DT];
  S[at + KNEE_BEND_RATE] = first || !(dt > 0) ? 0 : (beyond - S[at + KNEE_BEND]) / dt;
  S[at + KNEE_BEND] = beyond;
}

/**
 * Moves the ankle's target (IK_TARGET) along the line from the hip so that foot IK's correction of
 * the knee's bend, δ (the bend the target asks for minus the animated one), goes from the last
 * step's δ₁ at a rate that differs from the last step's rate ω₁ by at most `most`·dt (rad/s; `most`,
 * rad/s², the captures' figure `captured` or KNEE_BEND_ACCELERATION_FLOOR, whichever is larger),
 * and no faster towards what is wanted than it can stop at: |rate| ≤ √(2·most·|δ − δ₁|)
 * (as the hips drop, hips.ts lowerHips). A target within that is left as it is. The bend for a
 * hip-to-ankle distance d, with the thigh's and the shin's lengths a and b as posed, is
 * π − acos((a² + b² − d²) / 2ab) (the two-bone solve's law of cosines); and back, d² = a² + b² + 2ab·cos φ.
 */
export function limitKneeBend(S: Float64Array, at: number, leg: LegJoints, wp: Float64Array, captured: number): void {
  const dt = S[STEP_DT];
  if (!(dt > 0) || !(captured < Number.POSITIVE_INFINITY)) return;
  const most = captured > KNEE_BEND_ACCELERATION_FLOOR ? captured : KNEE_BEND_ACCELERATION_FLOOR;
  const h = 3 * leg.hip, k = 3 * leg.knee, f = 3 * leg.foot;
  const tx = wp[k] - wp[h], ty = wp[k + 1] - wp[h + 1], tz = wp[k + 2] - wp[h + 2];
  const sx = wp[f] - wp[k], sy = wp[f + 1] - wp[k + 1], sz = wp[f + 2] - wp[k + 2];
  const a = Math.sqrt(tx * tx + ty * ty + tz * tz), b = Math.sqrt(sx * sx + sy * sy + sz * sz);
  const x = IK_TARGET[0] - wp[h], y = IK_TARGET[1] - wp[h + 1], z = IK_TARGET[2] - wp[h + 2];
  const d = Math.sqrt(x * x + y * y + z * z);
  if (!(a > 0 && b > 0 && d > 0)) return;
  // (the solve's own clamp: never quite straight nor folded)
  const lo = Math.abs(a - b) + TWO_BONE_IK_EPS, hi = a + b - TWO_BONE_IK_EPS;
  const dc = d < lo ? lo : d > hi ? hi : d;
  const c = (a * a + b * b - dc * dc) / (2 * a * b);
  const animated = S[at + KNEE_ANIM], wanted = Math.PI - Math.acos(c < -1 ? -1 : c > 1 ? 1 : c) - animated;
  const was = S[at + KNEE_BEND], rate = S[at + KNEE_BEND_RATE], change = most * dt, gap = wanted - was;
  let speed = gap / dt;
  const stop = Math.sqrt(2 * most * Math.abs(gap));
  if (speed > stop) speed = stop; else if (speed < -stop) speed = -stop;
  if (speed > rate + change) speed = rate + change; else if (speed < rate - change) speed = rate - change;
  if (Math.abs(speed * dt - gap) < 1e-12) return;
  let bend = animated + was + speed * dt;
  if (bend < 0) bend = 0; else if (bend > Math.PI) bend = Math.PI;
  const reach = Math.sqrt(Math.max(0, a * a + b * b + 2 * a * b * Math.cos(bend)));
  // (a target out of the leg's reach is held at the reach this bend gives, along the same line)
  const s = reach / d;
  IK_TARGET[0] = wp[h] + x * s; IK_TARGET[1] = wp[h + 1] + y * s; IK_TARGET[2] = wp[h + 2] + z * s;
}
