import type { Database } from '../../database/database.js';
import { quatFromScaledAngleAxis, quatInvMultiply, quatMultiply, quatMultiplyInv, quatRotateVec3, quatToScaledAngleAxis } from '../../math/quat.js';
import { solveTwoBoneIkInto, createTwoBoneIkScratch } from '../../math/two-bone-ik.js';
import { type FootIKLeg, type FootRig, type LegJoints, LegView, footRig } from './rig.js';
import { KNEE_POLE, keepAnimatedKnee, kneePole, kneeSettled, plantedReach, reachHold, restoreSoftening, softenReach, unsoftenOffset, updateSoftWidening } from './leg.js';
import {
  LOCKED, LOCK, OFFSET, OFFSET_VEL, TARGET, SHOWN, HEEL, HEEL_VEL, HEEL_SHIFT, LOCK_YAW, ANIM_HEIGHT, LEG_SIZE, RELEASED, HEEL_RAISE, SHOWN_REACH, UNSOFT, MAX_HEEL_RAISE,
  HIPS_DROP, HIPS_DROP_VEL, DECAY_DT, STEP_DT, NEEDED_DROP, HIPS_DT, HIPS_MAX, FOOT_DT, FOOT_IK_STATE_SIZE, SETTLING,
  IK_TARGET, FOOT_WORLD_ROT, BODY_DY, ANKLE_HEIGHT, LOCK_NORMAL, SHIFT, SHIFT_PREV, TILT, TILT_VEL, SHIFT_OFFSET, SHIFT_VEL, PLANTED_HEIGHT, LOCK_GROUND, CLEAR, CLEAR_VEL, FOLLOW, FOLLOW_VEL, ANIM_PREV, KNEE_PLANE, REACH, LIFT, LIFT_VEL, HOLD_ANIM, HOLD_LIFT, CLEAR_LIFT, CLEAR_LIFT_VEL, GROUND_AHEAD, HOLD_CAPTURED, DATA_HOLD,
} from './state.js';
import { capturedData, type CapturedData } from '../captured-data.js';
import { PLANT_SPEED_LEG_LENGTHS, STEP_LANDED_HOLD, floorLift, stillDown, updateGroundHolds, updateLift } from './on-ground.js';

export { GROUND_BAND_LEG_LENGTHS, PLANT_SPEED_LEG_LENGTHS, STILL_DOWN_LEG_LENGTHS, floorLift, groundHold } from './on-ground.js';
import { sampleGround, type Ground } from '../ground/ground.js';
import { DEFAULT_GROUND_OPTIONS, type GroundOptions } from '../ground/ground-options.js';
import { GROUND_UNDER_FOOT, clearHeel, decayFootSpring, followGroundUnderFoot, groundShare, tiltTowards } from './foot-ground.js';

import type { FootIKHost } from './host.js';
import { validateFootIKOptions, type FootIKOptions } from './options.js';
import { dropToReach, landingAhead, lowerHips } from './hips.js';
import { decayHeel, decayOffset, followDataOnGround } from './offsets.js';
import { HEADING_TOLERANCE, HEEL_RAISE_SPEED, HELD_TURN, PIVOT, REACH_IN, YAW_TURN, footBearing, heelRaiseToReach, heldTurn, holdFootHeading, pivotAboutContact } from './planted-turn.js';

export { HEADING_TOLERANCE, MAX_HELD_TURN } from './planted-turn.js';

export { FOOT_IK_STATE_SIZE } from './state.js';

/** The fastest a free foot's clearance over the ground rises beyond its spring (m/s). */
const CLEAR_RISE_SPEED = 2;
export type { FootIKLeg, LegJoints } from './rig.js';
export type { FootIKHost } from './host.js';
export { DEFAULT_FOOT_IK_OPTIONS, validateFootIKOptions, type FootIKOptions } from './options.js';


// Temporaries of one call, shared by every character of a thread (they stay in cache in a crowd).
const IK_SCRATCH = createTwoBoneIkScratch();
const PIVOT_TURN = new Float64Array(4);
const ANKLE_AS_ANIMATED = new Float64Array(3);
// Uneven ground: each leg's contact point target (3 per leg), the tilt and the whole turn of a foot, a foot-sized vector.
const CONTACT_TARGET = new Float64Array(6);
const TILT_TURN = new Float64Array(4);
const FOOT_TURN = new Float64Array(4);
const FOOT_OFFSET = new Float64Array(3);
/** The ground's height and normal under one joint (sampleGround's answer). */
const GROUND_UNDER_JOINT = new Float64Array(4);

/** On uneven ground, how fast a planted foot may follow its animated height (m/s). */
const PLANTED_VERTICAL_SPEED = 0.5;
/** A locked contact point shown further than this from its lock (in leg lengths; 2.6 cm for a 0.87 m leg, the skate measure's band) is not held: the leg cannot reach it. */
export const HELD_GAP_LEG_LENGTHS = 0.03;
/** A foot displayed higher than this above its animated height (in leg lengths) has not landed yet. */
export const LANDED_LEG_LENGTHS = 0.1;

/**
 * Foot locking with two-bone IK: a foot is locked where it is when its contact starts and released
 * when the contact ends or the animated foot drifts too far; switches between "follow the lock"
 * and "follow the animation" carry a decaying offset so that the foot never pops.
 */
export class FootIK {
  readonly legs: readonly FootIKLeg[];
  private readonly opts: FootIKOptions;
  private readonly rig: FootRig;
  private readonly S: Float64Array;
  /** capturedData(db): each leg's captured contact point motion and height per frame (followDataOnGround). */
  private readonly captured: CapturedData;
  /** capturedData(db).contactEnds: per frame, the legs whose contact ends there. */
  private readonly contactEnds: Uint8Array;

  /** `storage` (optional, >= FOOT_IK_STATE_SIZE values) holds the state; see the layout above. */
  constructor(private readonly db: Database, options: FootIKOptions, storage?: Float64Array) {
    this.opts = options;
    validateFootIKOptions(options);
    if (storage !== undefined && !(storage instanceof Float64Array && storage.length >= FOOT_IK_STATE_SIZE)) {
      throw new RangeError(`foot IK storage must be a Float64Array of at least ${FOOT_IK_STATE_SIZE} values`);
    }
    const S = (this.S = storage ?? new Float64Array(FOOT_IK_STATE_SIZE));
    S[DECAY_DT] = -1;
    S[HIPS_DT] = -1;
    S[FOOT_DT] = -1;
    this.rig = footRig(db);
    this.captured = capturedData(db);
    this.contactEnds = this.captured.contactEnds;
    this.legs = this.rig.legs.map((joints, i) => new LegView(joints, S, i * LEG_SIZE));
  }

  reset(worldPositions: Float64Array): void {
    const S = this.S;
    S[HIPS_DROP] = 0;
    S[HIPS_DROP_VEL] = 0;
    S[SETTLING] = 1;
    for (let i = 0; i < 2; i++) {
      const at = i * LEG_SIZE, f = 3 * this.rig.legs[i].foot, c = 3 * this.rig.legs[i].contact;
      S[at + LOCKED] = 0;
      S[at + HEEL_RAISE] = MAX_HEEL_RAISE;
      for (let k = 0; k < 3; k++) {
        S[at + OFFSET + k] = 0; S[at + OFFSET_VEL + k] = 0;
        S[at + HEEL + k] = 0; S[at + HEEL_VEL + k] = 0; S[at + HEEL_SHIFT + k] = 0;
        S[at + LOCK + k] = S[at + SHOWN + k] = S[at + ANIM_PREV + k] = worldPositions[c + k];
        S[at + TARGET + k] = worldPositions[f + k];
        S[at + TILT + k] = 0; S[at + TILT_VEL + k] = 0; S[at + LOCK_NORMAL + k] = k === 1 ? 1 : 0;
      }
      // On uneven ground a free foot starts from the ground under it (NaN: none followed yet).
      S[at + SHIFT] = 0; S[at + SHIFT_OFFSET] = 0; S[at + SHIFT_VEL] = 0; S[at + SHIFT_PREV] = Number.NaN; S[at + PLANTED_HEIGHT] = 0;
      S[at + CLEAR] = 0; S[at + CLEAR_VEL] = 0; S[at + FOLLOW] = 1; S[at + FOLLOW_VEL] = 0;
      S[at + LIFT] = 0; S[at + LIFT_VEL] = 0; S[at + CLEAR_LIFT] = 0; S[at + CLEAR_LIFT_VEL] = 0; S[at + DATA_HOLD] = 1;
      S[at + KNEE_PLANE] = 0; S[at + KNEE_PLANE + 1] = 0; S[at + KNEE_PLANE + 2] = 1;
      keepAnimatedKnee(this.rig.legs[i], worldPositions, S, at + KNEE_PLANE);
    }
  }

  isLocked(i: number): boolean {
    return this.S[i * LEG_SIZE + LOCKED] === 1;
  }

  /** How far leg i's foot is tilted towards the ground (radians; 0 on flat ground). */
  groundTilt(i: number): number {
    const S = this.S, t = i * LEG_SIZE + TILT;
    return Math.sqrt(S[t] * S[t] + S[t + 1] * S[t + 1] + S[t + 2] * S[t + 2]);
  }

  /** Current lowering of the hips (m) applied to keep locked feet reachable. */
  get hipsDrop(): number {
    return this.S[HIPS_DROP];
  }

  /** The animated height of leg i's contact point above the animation's ground (the root) in the last step (m). */
  animatedContactHeight(i: number): number {
    return this.S[i * LEG_SIZE + ANIM_HEIGHT];
  }

  /**
   * Updates locks and bends the legs of `host`'s output pose towards the targets. With a `ground`
   * (uneven ground, docs/terrain.md) the feet are placed on it; without one, on the plane y = 0.
   */
  apply(host: FootIKHost, dt: number, ground: Ground | null = null, groundOptions: GroundOptions = DEFAULT_GROUND_OPTIONS): void {
    // dt goes to the step through the state block (inlined wrapper: no boxed argument).
    this.S[STEP_DT] = dt;
    if (ground === null) this.applyStep(host);
    else this.applyGroundStep(host, ground, groundOptions);
    this.S[SETTLING] = 0;
  }

  /** {@link apply} with dt read from `p[po]`: nothing passed as a number, whether or not V8 inlines the call. */
  applyWith(host: FootIKHost, p: Float64Array, po: number, ground: Ground | null = null, groundOptions: GroundOptions = DEFAULT_GROUND_OPTIONS): void {
    this.S[STEP_DT] = p[po];
    if (ground === null) this.applyStep(host);
    else this.applyGroundStep(host, ground, groundOptions);
    this.S[SETTLING] = 0;
  }

  // The flat-ground step, in per-leg methods: one method over both legs was too large for V8 to
  // inline its small helpers, whose number arguments and results were then boxed (100 bytes of
  // garbage per character-step).
  private applyStep(host: FootIKHost): void {
    const S = this.S, wp = host.worldPositions;
    S[NEEDED_DROP] = 0;
    S[HIPS_MAX] = this.opts.maxHipsDrop;
    this.updateLock(host, 0);
    this.updateLock(host, 1);
    const hipsY = wp[3 * this.rig.hips + 1];
    lowerHips(this.S, this.rig, this.db.skeleton.parents, host, this.opts);
    // How far lowerHips moved the body (and every free foot with it) this step.
    S[BODY_DY] = wp[3 * this.rig.hips + 1] - hipsY;
    this.bendLeg(host, 0);
    this.bendLeg(host, 1);
    this.recordShown(wp);
  }

  /** Leg i's lock on flat ground: planted, held or released, its offsets and its ankle target (applyStep). */
  private updateLock(host: FootIKHost, i: number): void {
    const S = this.S, leg = this.rig.legs[i], wp = host.worldPositions, rootY = host.rootPosition[1];
    const at = i * LEG_SIZE, f = 3 * leg.foot, c = 3 * leg.contact;
    const contact = (this.db.contacts[host.frame] & leg.bit) !== 0;
    S[at + ANIM_HEIGHT] = wp[c + 1] - rootY;
    S[at + ANKLE_HEIGHT] = wp[f + 1] - rootY;
    updateGroundHolds(S, at, leg, this.captured.contactHeight, 2 * host.frame + i);
    // Before a release below may start it again: a release's hold-off, let go step by step (and one
    // its own step did not solve, dropped: the leg was shown as animated).
    restoreSoftening(S, at);
    if (S[at + LOCKED] === RELEASED && !contact) S[at + LOCKED] = 0;
    // A free foot on the ground moves as the captured one this step (before it may be planted
    // where that puts it), as far as the leg reaches.
    if (S[at + LOCKED] !== 1) { reachHold(leg, wp, S, at + OFFSET, at + REACH, this.captured); followDataOnGround(this.S, at, i, leg, host, this.captured, this.db); } else S[at + DATA_HOLD] = 1;
    for (let k = 0; k < 3; k++) S[at + ANIM_PREV + k] = wp[c + k];
    // A foot still coming down from a release (displayed well above where the animation has it)
    // is not planted yet: locking it in the air and stopping its fall at once would pop the leg.
    const landed = S[at + SHOWN + 1] - wp[c + 1] < LANDED_LEG_LENGTHS * leg.length;
    // A contact on its last frame is a foot lifting off: planted there, a foot that came down late
    // (still blending out a transition's offset) was held one step and released the next, stopped
    // dead and set going again (6.6 m/s at the ankle on the real captures).
    const lands = contact && (this.contactEnds[host.frame] & leg.bit) === 0;
    // A foot stepping (updateLift) is planted once the leg holds it again (its reach hold at least
    // STEP_LANDED_HOLD: planted while dragged, it was locked where the leg could not reach and the
    // ankle stopped dead, 7.8 m/s on the shared bench clips) and it is back near the ground (its lift
    // within the ground hold's top quarter, 0.03 leg lengths: planted higher, a brief contact's lock
    // stopped it in mid-descent and let go of it a few steps later, 13 cm off, knee 7.5 m/s).
    if (lands && S[at + LOCKED] === 0 && landed && !(S[at + UNSOFT] > 0) && S[at + REACH] >= STEP_LANDED_HOLD && S[at + HOLD_LIFT] >= STEP_LANDED_HOLD && this.slowEnoughToPlant(leg, at, wp) && this.holdsPlanted(leg, at, wp, false)) {
      // Plant the contact point where it is displayed horizontally (animation plus any offset still
      // blending out), so that nothing slides once it is down, at the height the animation has it
      // (the ground). A vertical offset still blending out goes on doing so, from where it is: the
      // foot is not stopped in its descent (held at the height it was displayed at the step before,
      // a landing sprint's foot stopped dead 2 cm above the animation's and the nearly straight
      // knee jumped 7 m/s). Vertical motion of a planted foot is not sliding.
      for (let k = 0; k < 3; k++) {
        S[at + LOCK + k] = k === 1 ? wp[c + 1] : wp[c + k] + S[at + OFFSET + k];
        if (k !== 1) { S[at + OFFSET + k] = 0; S[at + OFFSET_VEL + k] = 0; }
      }
      S[at + LOCK_YAW] = footBearing(leg, wp);
      S[at + HEEL_RAISE] = MAX_HEEL_RAISE;
      S[at + LOCKED] = 1;
    } else if (S[at + LOCKED] === 1) {
      const held = this.heldLastStep(leg, at);
      // Held horizontally; its height is the animation's, every step (a rolling foot rolls, and a
      // foot planted while a transition's blend still lifted it comes down onto the ground: held
      // at its height when planted, a standing character's feet hovered 1-2 cm).
      S[at + LOCK + 1] = wp[c + 1];
      const dx = S[at + LOCK] - wp[c], dz = S[at + LOCK + 2] - wp[c + 2];
      const limit = this.opts.unlockLegLengths * leg.length;
      if ((!contact && !stillDown(leg, at, S, wp)) || !held || dx * dx + dz * dz > limit * limit) {
        // Hand over from the lock to the animation without a jump: offset = old target - new desired
        // (the foot moves as a whole, so the contact point's gap is the ankle's).
        // A raised heel stays raised and blends down like the offset: the ankle starts where it was.
        for (let k = 0; k < 3; k++) S[at + OFFSET + k] = S[at + LOCK + k] + S[at + OFFSET + k] - wp[c + k] + S[at + HEEL_SHIFT + k];
        // (a foot without a toe joint was softened while planted, below: it is let go where it was shown)
        if (leg.contact !== leg.foot) unsoftenOffset(leg, wp, S, at);
        // Released while the contact lasts (the animation planted the foot a leg length away, e.g.
        // after a transition): the foot blends over to the animation and is planted again at its
        // next contact. Relocking at once stopped it dead in mid-blend (jumps of 6-7 m/s).
        S[at + LOCKED] = contact ? RELEASED : 0;
      }
    }
    decayOffset(this.S, at, this.opts);
    updateSoftWidening(this.S, at, leg);
    const locked = S[at + LOCKED] === 1;
    if (!locked) decayHeel(this.S, at, this.opts);
    // The ankle's target: the animated ankle, shifted (when locked) by what puts the animated contact
    // point on the lock. The foot keeps its animated orientation, so a heel rolling off a planted toe
    // still rolls.
    for (let k = 0; k < 3; k++) S[at + TARGET + k] = wp[f + k] + (locked ? S[at + LOCK + k] - wp[c + k] : 0) + S[at + OFFSET + k];
    updateLift(S, at, leg, locked, this.opts.blendHalfLife);
    S[at + TARGET + 1] += S[at + LIFT];
    if (locked) dropToReach(S, at, leg, wp, false);
  }

  /** Bends leg i towards its target after the hips drop (applyStep). */
  private bendLeg(host: FootIKHost, i: number): void {
    const S = this.S, leg = this.rig.legs[i], wp = host.worldPositions, bodyDy = S[BODY_DY];
    const at = i * LEG_SIZE, f = 3 * leg.foot, o = at + OFFSET;
    // A free leg off the ground with nothing left to blend out just follows the body (down with the
    // hips too): pulling a swinging, nearly straight leg back to its old height would snap its knee.
    // A free foot on the ground stays on it (in proportion to groundHold): lowered with the hips it
    // went through the floor (8-13 cm below it on real captures) and slid there at swing speed.
    const onGround = bodyDy !== 0 && S[at + LOCKED] !== 1 ? S[at + HOLD_ANIM] : 0;
    // A foot never goes lower than it stands when planted: a transition's blend between two poses
    // passes a foot through the floor (3.1-3.4 cm on the built-in data, swinging or planted), and
    // the floor stops it there.
    if (S[at + LOCKED] !== 1) S[at + TARGET + 1] += bodyDy * (1 - onGround);
    const lift = floorLift(leg, wp, S[at + TARGET + 1] - wp[f + 1], host.rootPosition[1]);
    if (lift > 0) S[at + TARGET + 1] += lift;
    const heel = S[at + HEEL] * S[at + HEEL] + S[at + HEEL + 1] * S[at + HEEL + 1] + S[at + HEEL + 2] * S[at + HEEL + 2];
    let yawHeld = false;
    if (S[at + LOCKED] === 1) {
      // Recomputed below: the heading held and any heel raise the leg needs to reach the lock.
      for (let k = 0; k < 3; k++) { S[at + HEEL + k] = 0; S[at + HEEL_VEL + k] = 0; S[at + HEEL_SHIFT + k] = 0; ANKLE_AS_ANIMATED[k] = S[at + TARGET + k]; }
      if (leg.contact !== leg.foot) yawHeld = holdFootHeading(S, leg, at, wp);
    } else if (S[o] * S[o] + S[o + 1] * S[o + 1] + S[o + 2] * S[o + 2] < 1e-10 && heel < 1e-12 && onGround === 0 && lift === 0 && S[at + LIFT] === 0 && !(S[at + UNSOFT] > 0) && kneeSettled(leg, wp, S, at + KNEE_PLANE)) { keepAnimatedKnee(leg, wp, S, at + KNEE_PLANE); return; }
    // (A free leg still blending out an offset follows the body down too, above: its target was
    // taken before the hips were lowered. Held at the old height while any offset was left, it
    // dropped with the hips the step the offset ran out: knee jumps of 10-18 m/s with a 0.12 m drop.)
    let error = 0;
    for (let k = 0; k < 3; k++) { const e = S[at + TARGET + k] - wp[f + k]; error += e * e; }
    // Within 0.05 mm the solve would not show: skip it (most planted frames of clean data).
    // (A leg whose release is still being let go of is solved: shown as animated for a step, it
    // skipped its held reach and came back, 1.5 cm out and in at a nearly straight knee.)
    const settled = !(S[at + UNSOFT] > 0) && kneeSettled(leg, wp, S, at + KNEE_PLANE);
    if (error < 2.5e-9 && heel < 1e-12 && !yawHeld && settled) { keepAnimatedKnee(leg, wp, S, at + KNEE_PLANE); return; }
    if (error < 2.5e-9 && S[at + LOCKED] !== 1 && settled) {
      keepAnimatedKnee(leg, wp, S, at + KNEE_PLANE);
      // Only a released heel's turn left to blend out: the foot turns, the leg stays as animated.
      // Solved for its own ankle, a nearly straight leg took the knee pole instead of its animated
      // bend and snapped back when the turn ran out (9.5 m/s at the knee).
      this.turnFoot(host, leg, at);
      return;
    }
    this.solveLeg(host, i, yawHeld);
  }

  /** Solves leg i for its ankle target with the foot's world orientation kept (turned by a held heading or a heel still blending out). */
  private solveLeg(host: FootIKHost, i: number, yawHeld: boolean): void {
    const S = this.S, leg = this.rig.legs[i], wp = host.worldPositions, at = i * LEG_SIZE;
    const heel = S[at + HEEL] * S[at + HEEL] + S[at + HEEL + 1] * S[at + HEEL + 1] + S[at + HEEL + 2] * S[at + HEEL + 2];
    // Keep the foot's world orientation: remember it, bend the leg, then restore it locally.
    for (let k = 0; k < 4; k++) FOOT_WORLD_ROT[k] = host.worldRotations[4 * leg.foot + k];
    for (let k = 0; k < 3; k++) IK_TARGET[k] = S[at + TARGET + k];
    if (S[at + LOCKED] === 1) {
      if (yawHeld) {
        // = quatMultiply(FOOT_WORLD_ROT, quatFromYaw(held turn), FOOT_WORLD_ROT)
        quatMultiply(FOOT_WORLD_ROT, 0, YAW_TURN, 0, FOOT_WORLD_ROT, 0);
        quatToScaledAngleAxis(S, at + HEEL, YAW_TURN, 0);
      }
      if (leg.contact !== leg.foot) pivotAboutContact(S, leg, at, wp, yawHeld);
      for (let k = 0; k < 3; k++) S[at + HEEL_SHIFT + k] = IK_TARGET[k] - ANKLE_AS_ANIMATED[k];
    } else if (heel >= 1e-12) {
      // = quatMultiply(FOOT_WORLD_ROT, quatFromScaledAngleAxis(heel), FOOT_WORLD_ROT): a heel raised
      // while the foot was planted comes down as it blends onto the animation.
      quatFromScaledAngleAxis(PIVOT_TURN, 0, S, at + HEEL);
      quatMultiply(FOOT_WORLD_ROT, 0, PIVOT_TURN, 0, FOOT_WORLD_ROT, 0);
    }
    // A planted foot keeps its leg within the soft reach by raising its heel about the toe
    // (pivotAboutContact); a rig without a toe joint plants its ankle and has no heel to raise, so
    // its planted leg is softened too. Held at full stretch instead, the leg was pulled in by the
    // soft reach the step the lock let go (3 cm up in one step, the straight knee 7 m/s: on the
    // shared locomotion captures without their toe joints, pops 1.67 times the data's).
    if (S[at + LOCKED] !== 1 || leg.contact === leg.foot) softenReach(leg, wp, S, at);
    kneePole(leg, wp, host.rootRotation, false, S, at + KNEE_PLANE);
    solveTwoBoneIkInto(host.rotations, host.worldPositions, host.worldRotations, this.db.skeleton.parents, leg.hip, leg.knee, leg.foot, IK_TARGET, IK_SCRATCH, KNEE_POLE);
    quatInvMultiply(host.rotations, 4 * leg.foot, host.worldRotations, 4 * this.db.skeleton.parents[leg.foot], FOOT_WORLD_ROT, 0);
    for (let k = 0; k < 4; k++) host.worldRotations[4 * leg.foot + k] = FOOT_WORLD_ROT[k];
    for (let b = 0; b < leg.below.length; b++) host.updateWorldJoint(leg.below[b]);
  }

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
   * - The hips also drop for a free leg whose target ahead of the body is out of reach (a foot
   *   stepping down: it would land late, dragged along by the stretched leg), by up to
   *   maxHipsDropLegLengths. A free leg's target is the animation's over the ground, so on level
   *   ground this asks for nothing.
   */
  private applyGroundStep(host: FootIKHost, ground: Ground, go: GroundOptions): void {
    const contacts = this.db.contacts[host.frame], S = this.S, legs = this.rig.legs;
    const wp = host.worldPositions, wr = host.worldRotations, root = host.rootPosition;
    S[NEEDED_DROP] = 0;
    // The larger of the flat limit (0 by default: on level ground the hips need not come down) and the
    // uneven ground's, for a foot stepping down.
    S[HIPS_MAX] = Math.max(this.opts.maxHipsDrop, go.maxHipsDropLegLengths * 0.5 * (legs[0].length + legs[1].length));
    for (let i = 0; i < 2; i++) {
      const leg = legs[i], at = i * LEG_SIZE, f = 3 * leg.foot, c = 3 * leg.contact, p = 3 * i;
      const contact = (contacts & leg.bit) !== 0;
      S[at + ANIM_HEIGHT] = wp[c + 1] - root[1];
      S[at + ANKLE_HEIGHT] = wp[f + 1] - root[1];
      updateGroundHolds(S, at, leg, this.captured.contactHeight, 2 * host.frame + i);
      if (S[at + LOCKED] === RELEASED && !contact) S[at + LOCKED] = 0;
      // As on flat ground: a free foot on the ground moves as the captured one, as far as the leg reaches.
      if (S[at + LOCKED] !== 1) { reachHold(leg, wp, S, at + OFFSET, at + REACH, this.captured); followDataOnGround(this.S, at, i, leg, host, this.captured, this.db); } else S[at + DATA_HOLD] = 1;
      // How far the animation moved the contact point up since the last step (a plant goes on from
      // where the foot was shown, moved by that).
      const animDy = wp[c + 1] - S[at + ANIM_PREV + 1];
      for (let k = 0; k < 3; k++) S[at + ANIM_PREV + k] = wp[c + k];
      if (S[at + LOCKED] === 1) {
        // Held where it was planted, at its animated height over the ground there (a rolling foot
        // rolls), moving up or down no faster than PLANTED_VERTICAL_SPEED: a contact label on a toe
        // still high in a hop lowered the held foot at 2 m/s, faster than the hips drop, and the
        // stretched leg snapped its knee (7-8 m/s).
        const wanted = S[at + LOCK_GROUND] + S[at + ANIM_HEIGHT] / Math.max(S[at + LOCK_NORMAL + 1], Math.cos(go.maxFootTilt));
        const most = PLANTED_VERTICAL_SPEED * S[STEP_DT], was = S[at + LOCK + 1];
        S[at + LOCK + 1] = wanted > was + most ? was + most : wanted < was - most ? was - most : wanted;
        const dx = S[at + LOCK] - wp[c], dz = S[at + LOCK + 2] - wp[c + 2];
        const limit = this.opts.unlockLegLengths * leg.length;
        if ((!contact && !stillDown(leg, at, S, wp)) || dx * dx + dz * dz > limit * limit) {
          // Hand over to the animation over the ground without a jump: the contact point's target
          // (LOCK + OFFSET) becomes the animated one (shifted by the ground under it) plus the offset.
          for (let k = 0; k < 3; k++) S[at + OFFSET + k] += S[at + LOCK + k] - wp[c + k];
          S[at + LOCKED] = contact ? RELEASED : 0;
          followGroundUnderFoot(S, at, leg, wp, root, ground, go, true);
          S[at + OFFSET + 1] -= S[at + FOLLOW] * S[at + SHIFT];
        }
      } else {
        followGroundUnderFoot(S, at, leg, wp, root, ground, go, false);
        if (contact && S[at + LOCKED] === 0 && (this.contactEnds[host.frame] & leg.bit) === 0) {
          // Plant it on the ground under it (GROUND_UNDER_FOOT, where it is horizontally), at its
          // animated height above the ground along the normal, once it has come down that far; it
          // settles from its free target onto the lock through the offset. Not on a contact's last
          // frame (see updateLock).
          // (Where the ground is steeper than a foot tilts, e.g. a step's riser, as on a maxFootTilt slope.)
          const lockY = GROUND_UNDER_FOOT[0] + S[at + ANIM_HEIGHT] / Math.max(GROUND_UNDER_FOOT[2], Math.cos(go.maxFootTilt));
          if (S[at + SHOWN + 1] - lockY < LANDED_LEG_LENGTHS * leg.length && this.slowEnoughToPlant(leg, at, wp) && this.holdsPlanted(leg, at, wp, true)) {
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
            if (S[at + CLEAR_LIFT] > 0 && S[SETTLING] === 0) {
              const shown = S[at + SHOWN + 1] + animDy - freeY;
              if (shown > 0) S[at + LIFT] += shown < S[at + CLEAR_LIFT] ? shown : S[at + CLEAR_LIFT];
            }
            S[at + LOCK_YAW] = footBearing(leg, wp);
            S[at + LOCK_GROUND] = GROUND_UNDER_FOOT[0];
            S[at + CLEAR] = 0; S[at + CLEAR_VEL] = 0;
            S[at + PLANTED_HEIGHT] = S[at + ANIM_HEIGHT];
            S[at + HEEL_RAISE] = MAX_HEEL_RAISE;
            S[at + LOCKED] = 1;
          }
        }
      }
      decayOffset(this.S, at, this.opts);
      updateSoftWidening(this.S, at, leg);
      const locked = S[at + LOCKED] === 1;
      if (!locked) decayHeel(this.S, at, this.opts);
      if (locked) tiltTowards(S, at, leg, S, at + LOCK_NORMAL, false, go);
      else tiltTowards(S, at, leg, GROUND_UNDER_FOOT, 1, true, go);
      // The contact point's target P, and the ankle's with the tilt about P: P + tilt·(ankle − contact).
      for (let k = 0; k < 3; k++) CONTACT_TARGET[p + k] = (locked ? S[at + LOCK + k] : wp[c + k] + (k === 1 ? S[at + FOLLOW] * S[at + SHIFT] : 0)) + S[at + OFFSET + k];
      quatFromScaledAngleAxis(TILT_TURN, 0, S, at + TILT);
      for (let k = 0; k < 3; k++) FOOT_OFFSET[k] = wp[f + k] - wp[c + k];
      quatRotateVec3(FOOT_OFFSET, 0, TILT_TURN, 0, FOOT_OFFSET, 0);
      for (let k = 0; k < 3; k++) S[at + TARGET + k] = CONTACT_TARGET[p + k] + FOOT_OFFSET[k];
      // As on flat ground: a foot the leg cannot hold steps rather than being dragged.
      updateLift(S, at, leg, locked, this.opts.blendHalfLife);
      CONTACT_TARGET[p + 1] += S[at + LIFT]; S[at + TARGET + 1] += S[at + LIFT];
      if (locked || contact || landingAhead(S, at, leg, wp, host.rootRotation)) dropToReach(S, at, leg, wp, true);
    }
    const hipsY = wp[3 * this.rig.hips + 1];
    lowerHips(this.S, this.rig, this.db.skeleton.parents, host, this.opts);
    const bodyDy = wp[3 * this.rig.hips + 1] - hipsY;
    for (let i = 0; i < 2; i++) {
      const leg = legs[i], at = i * LEG_SIZE, f = 3 * leg.foot, c = 3 * leg.contact, p = 3 * i;
      const locked = S[at + LOCKED] === 1;
      if (!locked) {
        // A free foot goes down with the body, keeping the leg's animated shape (folding a swinging
        // leg under lowered hips swung its knee about at 6-7 m/s), but never lower over the ground
        // (followed smoothly, as S[SHIFT]) than it stands when planted.
        const floor = root[1] + S[at + SHIFT] + S[at + PLANTED_HEIGHT];
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
      if (!locked) this.clearGround(leg, at, p, ground, go);
      else { S[at + CLEAR_LIFT] = 0; S[at + CLEAR_LIFT_VEL] = 0; }
      for (let k = 0; k < 3; k++) S[at + TARGET + k] = IK_TARGET[k];
      // Softened fully: on uneven ground a free leg is always solved, and a small lift of the ground
      // under a nearly straight leg ran it into full stretch (the knee snapped straight and back).
      // (a planted ankle of a rig without toes as well: see solveLeg)
      if (!locked || leg.contact === leg.foot) softenReach(leg, wp, S, at);
      let error = 0;
      for (let k = 0; k < 3; k++) { const e = IK_TARGET[k] - wp[f + k]; error += e * e; }
      if (error < 2.5e-9 && !turned && kneeSettled(leg, wp, S, at + KNEE_PLANE)) { keepAnimatedKnee(leg, wp, S, at + KNEE_PLANE); continue; }
      kneePole(leg, wp, host.rootRotation, true, S, at + KNEE_PLANE);
      solveTwoBoneIkInto(host.rotations, wp, wr, this.db.skeleton.parents, leg.hip, leg.knee, leg.foot, IK_TARGET, IK_SCRATCH, KNEE_POLE);
      quatInvMultiply(host.rotations, 4 * leg.foot, wr, 4 * this.db.skeleton.parents[leg.foot], FOOT_WORLD_ROT, 0);
      for (let k = 0; k < 4; k++) wr[4 * leg.foot + k] = FOOT_WORLD_ROT[k];
      for (let b = 0; b < leg.below.length; b++) host.updateWorldJoint(leg.below[b]);
    }
    this.recordShown(wp);
  }

  /**
   * Whether a free foot about to be planted moves slowly enough to stop where it is: its contact
   * point, displayed where this step puts it, moved less than PLANT_SPEED_LEG_LENGTHS leg lengths per
   * second since the last step. The label says the captured foot is still; the displayed one may
   * still be carried by a blend (a label that went off and on again across a transition planted a
   * foot lifting off at 6.9 m/s). It is planted at a later step of the contact, once it has slowed.
   */
  private slowEnoughToPlant(leg: LegJoints, at: number, wp: Float64Array): boolean {
    const S = this.S, c = 3 * leg.contact, dt = S[STEP_DT];
    if (!(dt > 0)) return true;
    const dx = wp[c] + S[at + OFFSET] - S[at + SHOWN], dz = wp[c + 2] + S[at + OFFSET + 2] - S[at + SHOWN + 2];
    const most = PLANT_SPEED_LEG_LENGTHS * leg.length * dt;
    return dx * dx + dz * dz < most * most;
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
  private holdsPlanted(leg: LegJoints, at: number, wp: Float64Array, ground: boolean): boolean {
    if (leg.contact === leg.foot) return true;
    const S = this.S, f = 3 * leg.foot, c = 3 * leg.contact, ox = S[at + OFFSET], oz = S[at + OFFSET + 2];
    const dy = S[at + OFFSET + 1] + (ground ? S[at + FOLLOW] * S[at + SHIFT] : 0);
    REACH_IN[0] = wp[f] + ox; REACH_IN[1] = wp[f + 1] + dy; REACH_IN[2] = wp[f + 2] + oz;
    REACH_IN[3] = wp[c] + ox; REACH_IN[4] = wp[c + 1] + dy; REACH_IN[5] = wp[c + 2] + oz;
    REACH_IN[6] = S[HIPS_MAX];
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
   * Flat ground only: on uneven ground the hips drop to reach a lock (dropToReach), and letting go
   * there too popped the legs (the real set's strafe on hills: 8.5 → 10.5 m/s).
   */
  private heldLastStep(leg: LegJoints, at: number): boolean {
    const S = this.S, most = HELD_GAP_LEG_LENGTHS * leg.length;
    const gx = S[at + SHOWN] - S[at + LOCK] - S[at + OFFSET];
    const gy = S[at + SHOWN + 1] - S[at + LOCK + 1] - S[at + OFFSET + 1] - S[at + LIFT];
    const gz = S[at + SHOWN + 2] - S[at + LOCK + 2] - S[at + OFFSET + 2];
    return gx * gx + gy * gy + gz * gz <= most * most;
  }

  /** Turns free leg `leg`'s foot by its heel turn (S[HEEL]) from its animated world rotation, the joints below it with it. */
  private turnFoot(host: FootIKHost, leg: LegJoints, at: number): void {
    const wr = host.worldRotations;
    // = quatMultiply(quatFromScaledAngleAxis(heel), animated world rotation)
    quatFromScaledAngleAxis(PIVOT_TURN, 0, this.S, at + HEEL);
    quatMultiply(FOOT_WORLD_ROT, 0, PIVOT_TURN, 0, wr, 4 * leg.foot);
    quatInvMultiply(host.rotations, 4 * leg.foot, wr, 4 * this.db.skeleton.parents[leg.foot], FOOT_WORLD_ROT, 0);
    for (let k = 0; k < 4; k++) wr[4 * leg.foot + k] = FOOT_WORLD_ROT[k];
    for (let b = 0; b < leg.below.length; b++) host.updateWorldJoint(leg.below[b]);
  }

  /**
   * Raises a free foot's ankle target (IK_TARGET; the contact point's at CONTACT_TARGET[p..]) so that
   * its contact point is no lower over the ground under it than the animation has it over its own
   * ground (nor than it stands when planted), and its ankle no lower than it stands when planted (the
   * foot moved up as a whole).
   */
  private clearGround(leg: LegJoints, at: number, p: number, ground: Ground, go: GroundOptions): void {
    const S = this.S;
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
    sampleGround(ground, IK_TARGET, 0, GROUND_UNDER_JOINT);
    const ankle = GROUND_UNDER_JOINT[0] + leg.anklePlantedHeight - IK_TARGET[1];
    const atOnce = Math.max(under + groundShare(S[at + ANIM_HEIGHT] / leg.length) * above, ankle);
    const need = Math.max(under + above, ankle);
    // A step's edge ahead (the ground swingLookAhead on rising beyond the slope under the foot,
    // followGroundUnderFoot): the same clearance over it, reached by a critically damped spring, so
    // that a swinging foot rises before the edge passes under it. Raised only as the edge arrived,
    // by the whole rise in one step, a swinging toe jumped 10-15 m/s at each step up (the built-in
    // database on steps: 14.8 m/s at most). Not for a foot the capture has down (a landing or
    // standing foot), and nothing on an even slope (the spring lagging behind the ground's own
    // clearance there lifted feet and popped them).
    const want = S[at + GROUND_AHEAD] > 0 ? Math.max(0, (1 - S[at + HOLD_CAPTURED]) * ahead) : 0;
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
      if (need <= most || atOnce >= most) { S[at + CLEAR_LIFT] = need <= most ? need : atOnce; S[at + CLEAR_LIFT_VEL] = 0; }
      else { S[at + CLEAR_LIFT] = most; S[at + CLEAR_LIFT_VEL] = CLEAR_RISE_SPEED; }
    }
    const lift = S[at + CLEAR_LIFT];
    if (lift > 0) { IK_TARGET[1] += lift; CONTACT_TARGET[p + 1] += lift; }
  }

  /** Where each leg's contact point is displayed at the end of the step. */
  private recordShown(wp: Float64Array): void {
    const S = this.S, legs = this.rig.legs;
    for (let i = 0; i < 2; i++) {
      const leg = legs[i], at = i * LEG_SIZE, c = 3 * leg.contact;
      for (let k = 0; k < 3; k++) S[at + SHOWN + k] = wp[c + k];
      const h = 3 * leg.hip, f = 3 * leg.foot, dx = wp[f] - wp[h], dy = wp[f + 1] - wp[h + 1], dz = wp[f + 2] - wp[h + 2];
      S[at + SHOWN_REACH] = Math.sqrt(dx * dx + dy * dy + dz * dz);
    }
  }
}
