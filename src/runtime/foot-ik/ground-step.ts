/**
 * Foot IK's step on uneven ground (docs/terrain.md): the flat step of foot-ik.ts with the feet on a
 * `Ground` — planted on the ground under them, tilted towards its normal, free feet kept over it
 * and over a step's edge ahead. FootIK.apply calls it with its state block and tables. Functions on
 * the foot IK state block (state.ts); the temporaries of one call are this module's own.
 */
import type { Database } from '../../database/database.js';
import { quatFromScaledAngleAxis, quatInvMultiply, quatMultiply, quatMultiplyInv, quatRotateVec3, quatToScaledAngleAxis } from '../../math/quat.js';
import { solveTwoBoneIkInto, createTwoBoneIkScratch } from '../../math/two-bone-ik.js';
import type { CapturedData } from '../captured-data.js';
import { sampleGround, type Ground } from '../ground/ground.js';
import type { GroundOptions } from '../ground/ground-options.js';
import type { FootRig, LegJoints } from './rig.js';
import type { FootIKHost } from './host.js';
import type { FootIKOptions } from './options.js';
import { KNEE_POLE, keepAnimatedKnee, kneePole, kneeSettled, reachHold, softenReach, updateSoftWidening } from './leg.js';
import {
  LOCKED, LOCK, OFFSET, OFFSET_VEL, TARGET, SHOWN, HEEL, HEEL_VEL, HEEL_SHIFT, LOCK_YAW, ANIM_HEIGHT, LEG_SIZE, RELEASED, HEEL_RAISE, MAX_HEEL_RAISE,
  NEEDED_DROP, HIPS_MAX, STEP_DT, SETTLING, IK_TARGET, FOOT_WORLD_ROT, ANKLE_HEIGHT, LOCK_NORMAL, SHIFT, PLANTED_HEIGHT, LOCK_GROUND, CLEAR, CLEAR_VEL, FOLLOW,
  ANIM_PREV, KNEE_PLANE, LIFT, LIFT_VEL, CLEAR_LIFT, CLEAR_LIFT_VEL, GROUND_AHEAD, HOLD_CAPTURED, DATA_HOLD, REACH, TILT, PLANT_HEEL,
} from './state.js';
import { stillDown, updateGroundHolds, updateLift } from './on-ground.js';
import { CLEAR_RISE_SPEED, GROUND_UNDER_FOOT, clearHeel, decayFootSpring, followGroundUnderFoot, groundShare, shownHeelElevation, tiltTowards } from './foot-ground.js';
import { dropToReach, landingAhead, lowerHips, REACH_RISE } from './hips.js';
import { decayHeel, decayOffset, followDataOnGround } from './offsets.js';
import { HEADING_TOLERANCE, HELD_TURN, YAW_TURN, heldTurn, pivotAboutContact, shownBearing } from './planted-turn.js';
import { LANDED_LEG_LENGTHS, heldLastStep, holdsPlanted, landedFromStep, recordShown, slowEnoughToPlant, capturedFootStill } from './landing.js';
import { limitKneeBend, recordAnimatedKneeBend, recordKneeBend } from './knee-bend.js';

/** How fast a planted foot may follow its animated height (m/s). */
const PLANTED_VERTICAL_SPEED = 0.5;

// Temporaries of one call, shared by every character of a thread (they stay in cache in a crowd).
const IK_SCRATCH = createTwoBoneIkScratch();
const PIVOT_TURN = new Float64Array(4);
// Each leg's contact point target (3 per leg), the tilt and the whole turn of a foot, a foot-sized vector.
const CONTACT_TARGET = new Float64Array(6);
const TILT_TURN = new Float64Array(4);
const FOOT_TURN = new Float64Array(4);
const FOOT_OFFSET = new Float64Array(3);
/** The ground's height and normal under one joint (sampleGround's answer). */
const GROUND_UNDER_JOINT = new Float64Array(4);

/**
 * The step on uneven ground (docs/terrain.md): applyStep with the feet on `ground`.
 * - A foot is planted on the ground under its contact point and held there horizontally; its
 *   height is the ground's there plus its animated height above the animation's ground (along the
 *   normal) every step, so a rolling foot rolls; it tilts towards the normal (at most
 *   maxFootTilt) about the contact point.
 * - A free foot keeps its animated height over the ground under it, and over a step ahead of it
 *   (followGroundUnderFoot); it goes down with the hips as on flat ground, but not into the ground.
 * - Every turn of the foot (tilt, heading held, heel raised) is about the contact point, so that a
 *   released foot's offset is its contact point's alone and the turn (HEEL, without the tilt)
 *   blends out by itself.
 * - The hips drop, by up to maxHipsDropLegLengths, for what the ground adds to a leg's need: a lock
 *   or a free leg's target ahead of the body (a foot stepping down: it would land late, dragged
 *   along by the stretched leg) that the ground has carried below where the animation has it
 *   (reachDrop). A lock the body has moved away from on level ground is let go of as on flat ground
 *   (heldLastStep), not crouched for.
 */
export function applyGroundStep(S: Float64Array, rig: FootRig, db: Database, opts: FootIKOptions, captured: CapturedData, host: FootIKHost, ground: Ground, go: GroundOptions): void {
  const contacts = db.contacts[host.frame], legs = rig.legs;
  const wp = host.worldPositions, wr = host.worldRotations, root = host.rootPosition;
  S[NEEDED_DROP] = 0;
  // The larger of the flat limit (0 by default: on level ground the hips need not come down) and the
  // uneven ground's, for a foot stepping down.
  S[HIPS_MAX] = Math.max(opts.maxHipsDrop, go.maxHipsDropLegLengths * 0.5 * (legs[0].length + legs[1].length));
  for (let i = 0; i < 2; i++) {
    const leg = legs[i], at = i * LEG_SIZE, f = 3 * leg.foot, c = 3 * leg.contact, p = 3 * i;
    const contact = (contacts & leg.bit) !== 0;
    S[at + ANIM_HEIGHT] = wp[c + 1] - root[1];
    S[at + ANKLE_HEIGHT] = wp[f + 1] - root[1];
    updateGroundHolds(S, at, leg, captured.contactHeight, 2 * host.frame + i);
    if (S[at + LOCKED] === RELEASED && !contact) S[at + LOCKED] = 0;
    // As on flat ground: a free foot on the ground moves as the captured one, as far as the leg reaches.
    if (S[at + LOCKED] !== 1) { reachHold(leg, wp, S, at + OFFSET, at + REACH, captured); followDataOnGround(S, at, i, leg, host, captured, db); } else S[at + DATA_HOLD] = 1;
    // How far the animation moved the contact point up since the last step (a plant goes on from
    // where the foot was shown, moved by that).
    const animDy = wp[c + 1] - S[at + ANIM_PREV + 1];
    for (let k = 0; k < 3; k++) S[at + ANIM_PREV + k] = wp[c + k];
    if (S[at + LOCKED] === 1) {
      // (before the lock moves: whether the last step's solve brought the foot to it)
      const held = heldLastStep(S, leg, at);
      // Held where it was planted, at its animated height over the ground there (a rolling foot
      // rolls), moving up or down no faster than PLANTED_VERTICAL_SPEED: a contact label on a toe
      // still high in a hop lowered the held foot at 2 m/s, faster than the hips drop, and the
      // stretched leg snapped its knee (7-8 m/s).
      const wanted = S[at + LOCK_GROUND] + S[at + ANIM_HEIGHT] / Math.max(S[at + LOCK_NORMAL + 1], Math.cos(go.maxFootTilt));
      const most = PLANTED_VERTICAL_SPEED * S[STEP_DT], was = S[at + LOCK + 1];
      S[at + LOCK + 1] = wanted > was + most ? was + most : wanted < was - most ? was - most : wanted;
      const dx = S[at + LOCK] - wp[c], dz = S[at + LOCK + 2] - wp[c + 2];
      const limit = opts.unlockLegLengths * leg.length;
      // A lock the leg did not reach is let go, as on flat ground (the hips drop only for what the
      // ground adds to the leg's need, dropToReach).
      if ((!contact && !stillDown(leg, at, S, wp)) || !held || dx * dx + dz * dz > limit * limit || !capturedFootStill(captured, db.fps, host.frame, i, leg)) {
        // Hand over to the animation over the ground without a jump: the contact point's target
        // (LOCK + OFFSET) becomes the animated one (shifted by the ground under it) plus the offset.
        for (let k = 0; k < 3; k++) S[at + OFFSET + k] += S[at + LOCK + k] - wp[c + k];
        S[at + LOCKED] = contact ? RELEASED : 0;
        followGroundUnderFoot(S, at, leg, wp, root, ground, go, true);
        S[at + OFFSET + 1] -= S[at + FOLLOW] * S[at + SHIFT];
      }
    } else {
      followGroundUnderFoot(S, at, leg, wp, root, ground, go, false);
      if (contact && S[at + LOCKED] === 0 && (captured.contactEnds[host.frame] & leg.bit) === 0) {
        // Plant it on the ground under it (GROUND_UNDER_FOOT, where it is horizontally), at its
        // animated height above the ground along the normal, once it has come down that far; it
        // settles from its free target onto the lock through the offset. Not on a contact's last
        // frame (see updateLock).
        // (Where the ground is steeper than a foot tilts, e.g. a step's riser, as on a maxFootTilt slope.)
        // A foot stepping after the body is planted once it has landed from its step, as on flat
        // ground (landedFromStep).
        const lockY = GROUND_UNDER_FOOT[0] + S[at + ANIM_HEIGHT] / Math.max(GROUND_UNDER_FOOT[2], Math.cos(go.maxFootTilt));
        if (S[at + SHOWN + 1] - lockY < LANDED_LEG_LENGTHS * leg.length && landedFromStep(S, at) && slowEnoughToPlant(S, leg, at, wp) && capturedFootStill(captured, db.fps, host.frame, i, leg) && holdsPlanted(S, leg, at, wp, true)) {
          // Just after a reset (SETTLING) it is planted where it stands, with nothing to settle.
          const freeY = S[SETTLING] === 1 ? lockY : wp[c + 1] + S[at + FOLLOW] * S[at + SHIFT] + S[at + OFFSET + 1];
          S[at + LOCK] = wp[c] + S[at + OFFSET]; S[at + LOCK + 1] = lockY; S[at + LOCK + 2] = wp[c + 2] + S[at + OFFSET + 2];
          for (let k = 0; k < 3; k++) {
            S[at + OFFSET + k] = k === 1 ? freeY - lockY : 0;
            S[at + OFFSET_VEL + k] = 0;
            S[at + LOCK_NORMAL + k] = GROUND_UNDER_FOOT[1 + k];
          }
          // What of its clearance over a step's edge (clearGround) still showed (the foot above
          // its free target where it was last shown) comes down as what is left of a step's lift
          // does, at twice the offsets' rate (updateLift): dropped at the plant, a foot landing
          // beside a riser fell 1-2 cm in one step (82 cm/s, a standing character's lowest foot
          // 1 s after a stop on the steps). Only what showed: the whole clearance lifted feet the
          // hips' drop had carried down by 3 cm in one step; kept in the offset at its own rate,
          // planted feet hovered 2 cm and more at p95 (the feet in contact against the ground).
          // (What showed above the free target and its lift: the lift is in LIFT already. Counted
          // again, a foot landing with a lift left was planted that much above where it was shown,
          // and let go of in the next step dropped back: a knee at 13 m/s at 144 Hz on the real
          // captures' wander on hills.)
          if (S[at + CLEAR_LIFT] > 0 && S[SETTLING] === 0) {
            const shown = S[at + SHOWN + 1] + animDy - freeY - S[at + LIFT];
            if (shown > 0) S[at + LIFT] += shown < S[at + CLEAR_LIFT] ? shown : S[at + CLEAR_LIFT];
          }
          // A lift over a vertical offset below the lock (the free target under the upper level of
          // a step, the clearance holding the foot over it) cancel each other where they overlap,
          // so that each part left decays alone: the lift comes down at twice the offset's rate, and
          // the two together took a foot planted at the edge of a step 2.6 cm below its lock and
          // into the step (the lift 8.5 cm over an offset of -8.8: the built-in wander on the steps
          // at 144 Hz, agent 16 at 4.68 s).
          const below = -S[at + OFFSET + 1], lift = S[at + LIFT];
          if (below > 0 && lift > 0) {
            const both = below < lift ? below : lift;
            S[at + OFFSET + 1] += both;
            S[at + LIFT_VEL] *= (lift - both) / lift;
            S[at + LIFT] = lift - both;
          }
          S[at + LOCK_YAW] = shownBearing(S, at, leg, wp);
          S[at + LOCK_GROUND] = GROUND_UNDER_FOOT[0];
          S[at + CLEAR] = 0; S[at + CLEAR_VEL] = 0;
          // (the heel comes down from where it is shown: planted flat, the ankle fell in one step)
          S[at + PLANT_HEEL] = S[SETTLING] === 1 ? Number.NaN : shownHeelElevation(S, at, leg, wp);
          S[at + PLANTED_HEIGHT] = S[at + ANIM_HEIGHT];
          S[at + HEEL_RAISE] = MAX_HEEL_RAISE;
          S[at + LOCKED] = 1;
        }
      }
    }
    decayOffset(S, at, opts);
    // (widened on the ground too: a free foot's target the ground carries down out of a leg the
    // animation holds straight is softened before the leg reaches full stretch, see updateSoftWidening)
    updateSoftWidening(S, at, leg, S[at + LOCKED] === 1 ? 0 : S[at + FOLLOW] * S[at + SHIFT] + S[at + CLEAR_LIFT], true);
    const locked = S[at + LOCKED] === 1;
    if (!locked) decayHeel(S, at, opts);
    if (locked) tiltTowards(S, at, leg, S, at + LOCK_NORMAL, false, go);
    else tiltTowards(S, at, leg, GROUND_UNDER_FOOT, 1, true, go);
    // The contact point's target P, and the ankle's with the tilt about P: P + tilt·(ankle − contact).
    for (let k = 0; k < 3; k++) CONTACT_TARGET[p + k] = (locked ? S[at + LOCK + k] : wp[c + k] + (k === 1 ? S[at + FOLLOW] * S[at + SHIFT] : 0)) + S[at + OFFSET + k];
    quatFromScaledAngleAxis(TILT_TURN, 0, S, at + TILT);
    for (let k = 0; k < 3; k++) FOOT_OFFSET[k] = wp[f + k] - wp[c + k];
    quatRotateVec3(FOOT_OFFSET, 0, TILT_TURN, 0, FOOT_OFFSET, 0);
    for (let k = 0; k < 3; k++) S[at + TARGET + k] = CONTACT_TARGET[p + k] + FOOT_OFFSET[k];
    // As on flat ground: a foot the leg cannot hold steps rather than being dragged.
    updateLift(S, at, leg, locked, opts.blendHalfLife);
    CONTACT_TARGET[p + 1] += S[at + LIFT]; S[at + TARGET + 1] += S[at + LIFT];
    // (what the ground adds to the target's height over the animation's: the lock's height over the
    // animated contact point's, or the share of the ground's shift a free foot takes)
    // Not for a foot let go of while its contact lasts (RELEASED), stepping after the body unless it
    // lands ahead: crouched for, a running stop's trailing foot let go of 40 cm behind and below
    // the body held the hips 14 cm down, and the body's drop pressed the stepping foot onto the
    // ground, where it slid after the body (1.9 m/s a second after the stop request, the real
    // captures at 30 Hz on the hills; test/runtime/stop-mocap.test.ts).
    if (locked || (contact && S[at + LOCKED] !== RELEASED) || landingAhead(S, at, leg, wp, host.rootRotation)) {
      REACH_RISE[0] = locked ? S[at + LOCK + 1] - wp[c + 1] : S[at + FOLLOW] * S[at + SHIFT];
      dropToReach(S, at, leg, wp, true);
    }
  }
  const hipsY = wp[3 * rig.hips + 1];
  lowerHips(S, rig, db.skeleton.parents, host, opts);
  const bodyDy = wp[3 * rig.hips + 1] - hipsY;
  for (let i = 0; i < 2; i++) {
    const leg = legs[i], at = i * LEG_SIZE, f = 3 * leg.foot, c = 3 * leg.contact, p = 3 * i;
    const locked = S[at + LOCKED] === 1;
    recordAnimatedKneeBend(S, at, leg, wp);
    if (!locked) {
      // A free foot goes down with the body, keeping the leg's animated shape (folding a swinging
      // leg under lowered hips swung its knee about at 6-7 m/s), but never lower over the ground
      // (followed smoothly, as S[SHIFT]) than it stands when planted, nor, while it steps
      // (updateLift), lower than its step's lift over that: with the floor alone, a drop larger than
      // the lift put a stepping foot back on the ground, sliding after the body.
      const floor = root[1] + S[at + SHIFT] + S[at + PLANTED_HEIGHT] + S[at + LIFT];
      const overGround = CONTACT_TARGET[p + 1] + (1 - S[at + FOLLOW]) * S[at + SHIFT]; // at its animated height over the ground
      CONTACT_TARGET[p + 1] = Math.max(CONTACT_TARGET[p + 1] + bodyDy, Math.min(overGround, floor));
    }
    // The foot's turn: the tilt, then the heading held (planted) or what is left of a release's turn (free).
    quatFromScaledAngleAxis(TILT_TURN, 0, S, at + TILT);
    for (let k = 0; k < 4; k++) FOOT_TURN[k] = TILT_TURN[k];
    let turned = S[at + TILT] * S[at + TILT] + S[at + TILT + 1] * S[at + TILT + 1] + S[at + TILT + 2] * S[at + TILT + 2] >= 1e-12;
    if (locked) {
      for (let k = 0; k < 3; k++) { S[at + HEEL + k] = 0; S[at + HEEL_VEL + k] = 0; S[at + HEEL_SHIFT + k] = 0; }
      if (leg.contact !== leg.foot) {
        heldTurn(S, at, leg, wp);
        if (Math.abs(HELD_TURN[0]) >= HEADING_TOLERANCE) {
          quatMultiply(FOOT_TURN, 0, FOOT_TURN, 0, YAW_TURN, 0);
          turned = true;
        }
      }
    } else if (S[at + HEEL] * S[at + HEEL] + S[at + HEEL + 1] * S[at + HEEL + 1] + S[at + HEEL + 2] * S[at + HEEL + 2] >= 1e-12) {
      quatFromScaledAngleAxis(PIVOT_TURN, 0, S, at + HEEL);
      quatMultiply(FOOT_TURN, 0, FOOT_TURN, 0, PIVOT_TURN, 0);
      turned = true;
    }
    // Ankle target P + turn·(ankle − contact) and the foot's world rotation turn·animated (the hips
    // drop moved both joints alike: their difference is the animation's).
    for (let k = 0; k < 3; k++) FOOT_OFFSET[k] = wp[f + k] - wp[c + k];
    quatRotateVec3(IK_TARGET, 0, FOOT_TURN, 0, FOOT_OFFSET, 0);
    for (let k = 0; k < 3; k++) IK_TARGET[k] += CONTACT_TARGET[p + k];
    quatMultiply(FOOT_WORLD_ROT, 0, FOOT_TURN, 0, wr, 4 * leg.foot);
    if (locked && leg.contact !== leg.foot) {
      // Heel raised where the leg cannot reach the toe, or where the ground behind it is higher.
      pivotAboutContact(S, leg, at, wp, false);
      clearHeel(S, at, ground, go);
      // Remembered for a release: the foot's whole turn apart from the tilt, tilt⁻¹ · rotation · animated⁻¹.
      quatMultiplyInv(PIVOT_TURN, 0, FOOT_WORLD_ROT, 0, wr, 4 * leg.foot);
      quatInvMultiply(PIVOT_TURN, 0, TILT_TURN, 0, PIVOT_TURN, 0);
      quatToScaledAngleAxis(S, at + HEEL, PIVOT_TURN, 0);
      turned = true;
    }
    // A free foot keeps at least its animated clearance over the ground under it: SHIFT follows the
    // ground smoothly, and on a rising slope a swinging foot lagging it scuffed through the hill
    // (23 cm into it on the built-in data, skating 14.5 cm/s against 3 on flat ground).
    if (!locked) clearGround(S, leg, at, p, ground, go);
    else { S[at + CLEAR_LIFT] = 0; S[at + CLEAR_LIFT_VEL] = 0; }
    for (let k = 0; k < 3; k++) S[at + TARGET + k] = IK_TARGET[k];
    // Softened fully: on uneven ground a free leg is always solved, and a small lift of the ground
    // under a nearly straight leg ran it into full stretch (the knee snapped straight and back).
    // (a planted ankle of a rig without toes as well: see solveLeg)
    if (!locked || leg.contact === leg.foot) softenReach(leg, wp, S, at);
    // A knee bends or straightens no more suddenly than the captures' knees (knee-bend.ts).
    if (S[SETTLING] === 0) limitKneeBend(S, at, leg, wp, captured.kneeBendAccelerationMax);
    let error = 0;
    for (let k = 0; k < 3; k++) { const e = IK_TARGET[k] - wp[f + k]; error += e * e; }
    if (error < 2.5e-9 && !turned && kneeSettled(leg, wp, S, at + KNEE_PLANE)) { keepAnimatedKnee(leg, wp, S, at + KNEE_PLANE); continue; }
    kneePole(leg, wp, host.rootRotation, true, S, at + KNEE_PLANE);
    for (let round = 0; ; round++) {
      solveTwoBoneIkInto(host.rotations, wp, wr, db.skeleton.parents, leg.hip, leg.knee, leg.foot, IK_TARGET, IK_SCRATCH, KNEE_POLE);
      quatInvMultiply(host.rotations, 4 * leg.foot, wr, 4 * db.skeleton.parents[leg.foot], FOOT_WORLD_ROT, 0);
      for (let k = 0; k < 4; k++) wr[4 * leg.foot + k] = FOOT_WORLD_ROT[k];
      for (let b = 0; b < leg.below.length; b++) host.updateWorldJoint(leg.below[b]);
      if (round === OUT_OF_GROUND_ROUNDS || !raisedOutOfGround(leg, wp, p, ground)) break;
    }
  }
  recordShown(S, rig.legs, wp);
  for (let i = 0; i < 2; i++) recordKneeBend(S, i * LEG_SIZE, legs[i], wp, S[SETTLING] === 1);
}

/**
 * Raises a free foot's ankle target (IK_TARGET; the contact point's at CONTACT_TARGET[p..]) so that
 * its contact point is no lower over the ground under it than the animation has it over its own
 * ground (nor than it stands when planted), and its ankle no lower than it stands when planted (the
 * foot moved up as a whole).
 */
function clearGround(S: Float64Array, leg: LegJoints, at: number, p: number, ground: Ground, go: GroundOptions): void {
  sampleGround(ground, CONTACT_TARGET, p, GROUND_UNDER_JOINT);
  // The animated clearance: the contact point as high over the ground under it as the animation
  // has it over its own (nor lower than it stands when planted), the ankle no lower than it
  // stands when planted. Near the ground it is kept at once; higher in the swing (groundShare)
  // at once only what keeps the foot out of the ground, the rest reached rising at most
  // CLEAR_RISE_SPEED: kept whole at once, a running foot swinging 30 cm up was lifted 12 cm in one
  // step as a step's edge passed under it (10.8 m/s, the built-in data on steps); kept only in
  // part (a spring for the rest), swinging feet grazed the upper levels and hills (skate 10-25%
  // higher on the shared captures' sets).
  const above = Math.max(0, S[at + ANIM_HEIGHT] - leg.plantedHeight), under = GROUND_UNDER_JOINT[0] + leg.plantedHeight - CONTACT_TARGET[p + 1];
  const ahead = under + above + S[at + GROUND_AHEAD];
  EDGE_IN[EDGE_TOE_GROUND] = GROUND_UNDER_JOINT[0];
  sampleGround(ground, IK_TARGET, 0, GROUND_UNDER_JOINT);
  const ankle = GROUND_UNDER_JOINT[0] + leg.anklePlantedHeight - IK_TARGET[1];
  EDGE_IN[EDGE_ANKLE_GROUND] = GROUND_UNDER_JOINT[0];
  const toeOnce = under + groundShare(S[at + ANIM_HEIGHT] / leg.length) * above;
  // The ankle at once only out of the ground itself; up to its planted height by the spring. A
  // planted foot whose heel rose over a riser's upper level (its toe on the lower one) had its ankle
  // 4 cm over the step, under its planted height: let go of, it was lifted the 9 cm left in one step
  // (7.3 m/s at 144 Hz, the real set's path on the steps, agent 78 at 0.71 s).
  const ankleOnce = ankle - leg.anklePlantedHeight;
  const atOnce = Math.max(toeOnce, ankleOnce);
  const need = Math.max(under + above, ankle);
  // A step's edge ahead (the ground swingLookAhead on rising beyond the slope under the foot,
  // followGroundUnderFoot): the same clearance over it, reached by a critically damped spring, so
  // that a swinging foot rises before the edge passes under it. Raised only as the edge arrived,
  // by the whole rise in one step, a swinging toe jumped 10-15 m/s at each step up (the built-in
  // database on steps: 14.8 m/s at most). Not for a foot the capture has down (a landing or
  // standing foot), and nothing on an even slope (the spring lagging behind the ground's own
  // clearance there lifted feet and popped them).
  // A foot stepping after the body (lifted because its leg cannot hold it, LIFT) is in the air
  // whatever the capture has: it rises for the edge it is going over too.
  const capturedDown = S[at + LIFT] > 0 ? 0 : S[at + HOLD_CAPTURED];
  const want = S[at + GROUND_AHEAD] > 0 ? Math.max(0, (1 - capturedDown) * ahead) : 0;
  S[at + CLEAR_LIFT] -= want;
  decayFootSpring(S, at + CLEAR_LIFT, at + CLEAR_LIFT_VEL, 1, go);
  S[at + CLEAR_LIFT] += want;
  // The clearance over the ground under the foot is kept (above), and let go of by the same
  // spring: a foot held up over a step's upper level, once its toe had passed the edge, dropped
  // to the lower level in one step (21 cm: a toe's velocity jumped 12.9 m/s, the built-in
  // database on steps). A landing foot too comes down onto the lower level by the spring (let go of
  // at once where the capture has it down, the real set's skate on steps stayed 14-21% higher).
  if (need >= S[at + CLEAR_LIFT]) {
    const most = S[at + CLEAR_LIFT] + CLEAR_RISE_SPEED * S[STEP_DT];
    // A foot carried into a step's riser, higher than it can rise this step, stops short of the edge
    // (holdAtEdge) and rises there: lifted over it at once, a released foot swept into a riser
    // jumped 15-16 cm in one step (10.4 m/s at the toe, the built-in database running up the steps).
    // Only what would put it into the ground: a foot high enough over the edge goes on over it and
    // rises to its animated clearance at CLEAR_RISE_SPEED (held back there, a swinging leg stopped
    // dead in mid-air: 18 m/s at the knee).
    let needed = need, once = atOnce;
    if (need > most && atOnce > most) {
      EDGE_IN[EDGE_TOE_ONCE] = toeOnce; EDGE_IN[EDGE_ANKLE_ONCE] = ankleOnce; EDGE_IN[EDGE_MOST] = most;
      if (holdAtEdge(S, at, p, ground)) {
        // The needs where the foot stops: each joint's term moved by the ground under it there.
        const dToe = EDGE_IN[EDGE_TOE_SHIFT], dAnkle = EDGE_IN[EDGE_ANKLE_SHIFT];
        needed = Math.max(under + above + dToe, ankle + dAnkle);
        once = Math.max(toeOnce + dToe, ankleOnce + dAnkle);
      }
    }
    if (needed <= most || once >= most) { S[at + CLEAR_LIFT] = needed <= most ? needed : once; S[at + CLEAR_LIFT_VEL] = 0; }
    else { S[at + CLEAR_LIFT] = most; S[at + CLEAR_LIFT_VEL] = CLEAR_RISE_SPEED; }
  }
  const lift = S[at + CLEAR_LIFT];
  if (lift > 0) { IK_TARGET[1] += lift; CONTACT_TARGET[p + 1] += lift; }
}

/** Solves again after raising a foot shown in the ground (raisedOutOfGround): the raise also moves the foot away from the hip, over ground that may be higher. */
const OUT_OF_GROUND_ROUNDS = 2;
/** How far (m, horizontally) a foot's contact point is shown from its target before raisedOutOfGround looks at it. */
const SHOWN_AWAY = 0.01;

/**
 * Whether leg `leg`'s foot, as the solve showed it away from its target (its contact point
 * SHOWN_AWAY or more from CONTACT_TARGET horizontally), is in the ground (its ankle or contact
 * point below the ground under it by more than 0.1 mm); if so, moves the ankle's target
 * (IK_TARGET) up by the depth for another solve. The targets are kept clear of the ground
 * (clearGround, the locks' heights), but a leg that cannot reach its target shows the foot short
 * of it, pulled towards the hip, where the ground may be higher: a step's edge between the two put
 * the toe of a foot dragged after the body at full stretch 4.4 cm into the riser (a released foot,
 * the real captures' wander on the steps) and a planted toe the body climbing the steps ran away
 * from 7.5 cm (the built-in stop-go; docs/terrain.md, stop 56).
 */
function raisedOutOfGround(leg: LegJoints, wp: Float64Array, p: number, ground: Ground): boolean {
  // Only a foot shown away from its target: where it reaches it, its target's own height over the
  // ground holds (a planted toe's, which may be a few millimetres below it as captured).
  const mx = wp[3 * leg.contact] - CONTACT_TARGET[p], mz = wp[3 * leg.contact + 2] - CONTACT_TARGET[p + 2];
  if (mx * mx + mz * mz < SHOWN_AWAY * SHOWN_AWAY) return false;
  let need = 0;
  sampleGround(ground, wp, 3 * leg.foot, GROUND_UNDER_JOINT);
  const ankle = GROUND_UNDER_JOINT[0] - wp[3 * leg.foot + 1];
  if (ankle > need) need = ankle;
  if (leg.contact !== leg.foot) {
    sampleGround(ground, wp, 3 * leg.contact, GROUND_UNDER_JOINT);
    const contact = GROUND_UNDER_JOINT[0] - wp[3 * leg.contact + 1];
    if (contact > need) need = contact;
  }
  if (!(need > 1e-4)) return false;
  // Raised by swinging the leg about the hip, its hip-to-ankle distance kept: raised straight up, a
  // target at the edge of the leg's reach came within it, the straight knee bent for that step and
  // straightened the next (11 m/s at the knee).
  const h = 3 * leg.hip, f = 3 * leg.foot;
  const x = wp[f] - wp[h], y = wp[f + 1] - wp[h + 1], z = wp[f + 2] - wp[h + 2];
  const d2 = x * x + y * y + z * z, y2 = y + need, across = Math.sqrt(x * x + z * z);
  if (y2 < 0 && across > 1e-6) {
    const c = Math.sqrt(d2 - y2 * y2) / across;
    IK_TARGET[0] = wp[h] + x * c; IK_TARGET[1] = wp[h + 1] + y2; IK_TARGET[2] = wp[h + 2] + z * c;
  } else IK_TARGET[1] += need;
  return true;
}

/** Points sampled along a free foot's horizontal move of a step (holdAtEdge). */
const EDGE_SAMPLES = 8;
/**
 * holdAtEdge's input and output (numbers through an array: a call V8 does not inline boxes them):
 * the ground under the contact point's and the ankle's targets, what each needs lifted at once
 * there (clearGround's terms) and the most the foot may rise this step; out, how much the ground
 * under each is higher where the foot stops than under its target (0 or less).
 */
const EDGE_IN = new Float64Array(7);
const EDGE_TOE_GROUND = 0, EDGE_ANKLE_GROUND = 1, EDGE_TOE_ONCE = 2, EDGE_ANKLE_ONCE = 3, EDGE_MOST = 4, EDGE_TOE_SHIFT = 5, EDGE_ANKLE_SHIFT = 6;
/** A point on the way (sampleGround's input) and the ground there. */
const ON_THE_WAY = new Float64Array(3);
const GROUND_ON_THE_WAY = new Float64Array(4);

/**
 * A free foot whose move this step (from where its contact point was shown, S[SHOWN], to
 * CONTACT_TARGET[p..]; the ankle along the same move, to IK_TARGET) carries its contact point or
 * its ankle into ground higher than the foot can rise to this step stops short, at the last of
 * EDGE_SAMPLES points along the move where neither is: both targets and the leg's offset go back
 * horizontally, so that the foot stays there while its clearance rises, and goes on over the edge
 * once it is high enough; the offset's blend keeps the share of its speed the move kept. A foot
 * cannot go through a riser: lifted the whole step at once, a released foot swept into one jumped
 * 10.4 m/s at the toe. Returns whether it was held (not when even where it stands now is too low);
 * EDGE_IN's shifts say how the ground under each joint changed.
 */
function holdAtEdge(S: Float64Array, at: number, p: number, ground: Ground): boolean {
  const x0 = S[at + SHOWN], z0 = S[at + SHOWN + 2], dx = CONTACT_TARGET[p] - x0, dz = CONTACT_TARGET[p + 2] - z0;
  const ax = IK_TARGET[0] - CONTACT_TARGET[p], az = IK_TARGET[2] - CONTACT_TARGET[p + 2];
  const most = EDGE_IN[EDGE_MOST], toeOnce = EDGE_IN[EDGE_TOE_ONCE], ankleOnce = EDGE_IN[EDGE_ANKLE_ONCE];
  let u = 0;
  ON_THE_WAY[1] = CONTACT_TARGET[p + 1];
  for (let k = 0; k < EDGE_SAMPLES; k++) {
    const v = k / EDGE_SAMPLES;
    ON_THE_WAY[0] = x0 + v * dx; ON_THE_WAY[2] = z0 + v * dz;
    sampleGround(ground, ON_THE_WAY, 0, GROUND_ON_THE_WAY);
    const dToe = GROUND_ON_THE_WAY[0] - EDGE_IN[EDGE_TOE_GROUND];
    ON_THE_WAY[0] += ax; ON_THE_WAY[2] += az;
    sampleGround(ground, ON_THE_WAY, 0, GROUND_ON_THE_WAY);
    const dAnkle = GROUND_ON_THE_WAY[0] - EDGE_IN[EDGE_ANKLE_GROUND];
    if (toeOnce + dToe > most || ankleOnce + dAnkle > most) {
      if (k === 0) return false;
      break;
    }
    u = v; EDGE_IN[EDGE_TOE_SHIFT] = dToe; EDGE_IN[EDGE_ANKLE_SHIFT] = dAnkle;
  }
  // (u < 1 here: the target itself is too high, or holdAtEdge would not have been asked)
  const bx = (u - 1) * dx, bz = (u - 1) * dz;
  CONTACT_TARGET[p] += bx; CONTACT_TARGET[p + 2] += bz;
  IK_TARGET[0] += bx; IK_TARGET[2] += bz;
  S[at + OFFSET] += bx; S[at + OFFSET + 2] += bz;
  // The blend keeps the share of its speed that the foot kept of its move (none where it is held
  // where it stood): kept whole, it carried the foot, now further behind its target, over the edge at
  // twice its speed the step after the hold (3 m/s, held, then 6.4 m/s: the knee 7.4 m/s, the
  // built-in database's stop-go on the steps); started from rest wherever it is held, the foot swept
  // into a riser at a run caught up harder after the hold (5.23 m/s against 4.56, the built-in path).
  S[at + OFFSET_VEL] *= u; S[at + OFFSET_VEL + 2] *= u;
  return true;
}
