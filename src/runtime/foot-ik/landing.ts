/**
 * When foot IK (foot-ik.ts, ground-step.ts) may plant a free foot, and whether a lock still holds:
 * each check reads where the step before displayed the foot (SHOWN, written at the end of every
 * step by recordShown). Functions on the foot IK state block (state.ts).
 */
import type { LegJoints } from './rig.js';
import type { CapturedData } from '../captured-data.js';
import { plantedReach } from './leg.js';
import { HEEL, HIPS_DROP, HIPS_MAX, HOLD_LIFT, IK_TARGET, LEG_SIZE, LIFT, LOCK, LOCKED, OFFSET, REACH, RELEASED, SETTLING, SHIFT, FOLLOW, SHOWN, SHOWN_REACH, STEP_DT } from './state.js';
import { PLANT_SPEED_LEG_LENGTHS, STEP_LANDED_HOLD } from './on-ground.js';
import { HEEL_RAISE_SPEED, PIVOT, REACH_IN, heelRaiseToReach } from './planted-turn.js';

/** A foot displayed higher than this above its animated height (in leg lengths) has not landed yet. */
export const LANDED_LEG_LENGTHS = 0.1;
/** A locked contact point shown further than this from its lock (in leg lengths; 2.6 cm for a 0.87 m leg, the skate measure's band) is not held: the leg cannot reach it. */
export const HELD_GAP_LEG_LENGTHS = 0.03;

/**
 * Whether a foot stepping after the body (on-ground.ts updateLift) has landed from its step: the leg
 * holds it again (its reach hold) and it is back near the ground (the ground hold of its lift), both
 * at least STEP_LANDED_HOLD. Planted while dragged, it was locked where the leg could not reach and
 * the ankle stopped dead (7.8 m/s on the shared bench clips); planted in mid-step on uneven ground,
 * it stopped dead from 2.6 m/s (a knee at 7.2 m/s, the real strafe on hills). Flat and uneven
 * ground plant by it alike.
 */
export function landedFromStep(S: Float64Array, at: number): boolean {
  return S[at + REACH] >= STEP_LANDED_HOLD && S[at + HOLD_LIFT] >= STEP_LANDED_HOLD;
}

/**
 * How close to the ground (its lift, in leg lengths: 8.7 mm for a 0.87 m leg) a foot let go of in
 * mid-contact (RELEASED) must have come down from its catch-up step to be planted again within the
 * same contact. Left released until the contact ended, a foot that had stepped slid the rest of its
 * offset along the floor or hovered with the lift its leg's reach still asked for, for as long as the
 * contact lasted (a standing character's for good); planted higher, it came down onto its lock in
 * one step (1 cm at 30 Hz: 25 cm/s one second after a stop, on the shared real captures).
 */
export const REPLANT_LIFT_LEG_LENGTHS = 0.01;

/** Whether leg `leg`'s foot may be planted: free, or let go of in mid-contact and back down from its step (REPLANT_LIFT_LEG_LENGTHS). */
export function plantable(S: Float64Array, leg: LegJoints, at: number): boolean {
  return S[at + LOCKED] === 0 || (S[at + LOCKED] === RELEASED && S[at + LIFT] < REPLANT_LIFT_LEG_LENGTHS * leg.length);
}

/**
 * Whether a free foot about to be planted moves slowly enough to stop where it is: its contact
 * point, displayed where this step puts it, moved less than PLANT_SPEED_LEG_LENGTHS leg lengths per
 * second since the last step. The label says the captured foot is still; the displayed one may
 * still be carried by a blend (a label that went off and on again across a transition planted a
 * foot lifting off at 6.9 m/s). It is planted at a later step of the contact, once it has slowed.
 */
export function slowEnoughToPlant(S: Float64Array, leg: LegJoints, at: number, wp: Float64Array): boolean {
  const c = 3 * leg.contact, dt = S[STEP_DT];
  if (!(dt > 0)) return true;
  const dx = wp[c] + S[at + OFFSET] - S[at + SHOWN], dz = wp[c + 2] + S[at + OFFSET + 2] - S[at + SHOWN + 2];
  const most = PLANT_SPEED_LEG_LENGTHS * leg.length * dt;
  return dx * dx + dz * dz < most * most;
}

/**
 * Whether the capture's own contact point of leg `i` stays where it is over the frame played: it
 * moves from frame `frame` to the next (CapturedData.contactMotion) slower than
 * PLANT_SPEED_LEG_LENGTHS leg lengths per second, the speed slowEnoughToPlant asks of a displayed
 * foot before it is planted. A lock is let go of once it does not (foot-ik.ts, ground-step.ts),
 * whatever holds it: a lock is held past its contact while the animation still has the foot near
 * the floor (stillDown), and a foot locked before a transition onto a 180-degree pivot's lift-off
 * was held there while the capture swung it away along the floor at 1.2, 2.7, then 4.2 m/s, and let
 * go of into the swing, which it caught up with at 7.6 m/s (8.2 m/s of velocity change at the toe
 * against the data's own largest 4.9: the built-in database mirrored, strafing at 30 Hz). Let go of
 * at once, it follows the capture's swing from the step it is shown in. Nor is a foot planted on such
 * a frame (it would be let go of the next step; on the sets measured the displayed foot was never
 * slow enough there, slowEnoughToPlant).
 */
export function capturedFootStill(data: CapturedData, fps: number, frame: number, i: number, leg: LegJoints): boolean {
  const m = data.contactMotion, f = 6 * frame + 3 * i;
  const most = (PLANT_SPEED_LEG_LENGTHS * leg.length) / fps;
  return m[f] * m[f] + m[f + 2] * m[f + 2] < most * most;
}

/**
 * Whether leg `leg` holds its foot planted where it is displayed (the animated foot moved by the
 * offset, and on uneven ground by the height it follows the ground with) with its heel raised no
 * faster than HEEL_RAISE_SPEED from the turn the foot shows now, the hips lowered as far as they
 * may go this step (S[HIPS_MAX]: a foot stepping down onto uneven ground is reached by lowering
 * them). A foot held back at full stretch (dragged behind the body, toe down) and planted as a
 * transition brought the animation's foot forward was reachable only with the foot nearly
 * vertical: the heel rose 55 degrees in one step, the ankle jumped 6.7 m/s (the shared real
 * captures' wander). Not planted, the foot steps after the body instead (updateLift).
 */
export function holdsPlanted(S: Float64Array, leg: LegJoints, at: number, wp: Float64Array, ground: boolean): boolean {
  if (leg.contact === leg.foot) return true;
  const f = 3 * leg.foot, c = 3 * leg.contact, ox = S[at + OFFSET], oz = S[at + OFFSET + 2];
  const dy = S[at + OFFSET + 1] + (ground ? S[at + FOLLOW] * S[at + SHIFT] : 0);
  REACH_IN[0] = wp[f] + ox; REACH_IN[1] = wp[f + 1] + dy; REACH_IN[2] = wp[f + 2] + oz;
  REACH_IN[3] = wp[c] + ox; REACH_IN[4] = wp[c + 1] + dy; REACH_IN[5] = wp[c + 2] + oz;
  // On uneven ground the hips as they are now: they come down only for what the ground adds to a
  // leg's need, and no faster than their spring. Assuming they went as far as they may (S[HIPS_MAX]),
  // a foot 30 cm out on level ground was planted, and then also one needing the hips 8 cm lower than
  // they could come that step: its heel rose 50 degrees in a step (the ankle 8.6 m/s, the real
  // captures' stop-go on the steps). A foot stepping down is planted once the hips have come down
  // for it (dropToReach asks for them while its contact lasts). Just after a reset the hips start
  // at the drop the legs need (SETTLING): a foot is planted where it stands.
  REACH_IN[6] = ground && S[SETTLING] !== 1 ? Math.min(S[HIPS_MAX], S[HIPS_DROP]) : S[HIPS_MAX];
  IK_TARGET[0] = REACH_IN[0]; IK_TARGET[1] = REACH_IN[1]; IK_TARGET[2] = REACH_IN[2];
  REACH_IN[7] = plantedReach(leg, wp, S, at);
  heelRaiseToReach(leg, wp);
  const shown = Math.sqrt(S[at + HEEL] * S[at + HEEL] + S[at + HEEL + 1] * S[at + HEEL + 1] + S[at + HEEL + 2] * S[at + HEEL + 2]);
  return PIVOT[0] <= shown + HEEL_RAISE_SPEED * S[STEP_DT];
}

/**
 * Whether the last step's solve put leg `leg`'s contact point where the lock wanted it (LOCK plus
 * the offset and lift still blending out), within HELD_GAP_LEG_LENGTHS: a lock the leg cannot
 * reach, even with the heel raised, is no lock. Held on, the stretched leg hung the foot in the
 * air behind the body, toe off the floor, until the body was a leg length away (on the shared
 * captures' locomotion clips, a fifth of the contact-labelled foot joints were shown more than
 * 2.5 cm up, against 2% in the data); let go, the foot steps after the body (updateLift).
 * On uneven ground too since the hips drop there only for what the ground adds to a leg's need
 * (hips.ts reachDrop): while they dropped as far as any lock within sideways reach needed, letting
 * go there popped the legs (the real set's strafe on hills: 8.5 → 10.5 m/s), and holding on
 * crouched the body up to 28 cm.
 */
export function heldLastStep(S: Float64Array, leg: LegJoints, at: number): boolean {
  const most = HELD_GAP_LEG_LENGTHS * leg.length;
  const gx = S[at + SHOWN] - S[at + LOCK] - S[at + OFFSET];
  const gy = S[at + SHOWN + 1] - S[at + LOCK + 1] - S[at + OFFSET + 1] - S[at + LIFT];
  const gz = S[at + SHOWN + 2] - S[at + LOCK + 2] - S[at + OFFSET + 2];
  return gx * gx + gy * gy + gz * gz <= most * most;
}

/** Where each leg's contact point is displayed at the end of the step (SHOWN), and its hip-to-ankle distance (SHOWN_REACH). */
export function recordShown(S: Float64Array, legs: readonly LegJoints[], wp: Float64Array): void {
  for (let i = 0; i < 2; i++) {
    const leg = legs[i], at = i * LEG_SIZE, c = 3 * leg.contact;
    for (let k = 0; k < 3; k++) S[at + SHOWN + k] = wp[c + k];
    const h = 3 * leg.hip, f = 3 * leg.foot, dx = wp[f] - wp[h], dy = wp[f + 1] - wp[h + 1], dz = wp[f + 2] - wp[h + 2];
    S[at + SHOWN_REACH] = Math.sqrt(dx * dx + dy * dy + dz * dz);
  }
}
