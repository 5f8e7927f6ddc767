/**
 * Foot IK (docs/runtime.md, "Foot locking"): the FootIK class and its step on flat ground; the
 * step on uneven ground is ground-step.ts, when a foot may be planted landing.ts, the rest of what
 * a step does one concept per file beside this one (leg.ts: reach and knee; offsets.ts: blends;
 * on-ground.ts: ground holds and lift; planted-turn.ts: heel and heading; hips.ts: the hips' drop;
 * knee-bend.ts: how suddenly a knee's bend may change on uneven ground).
 */
import type { Database } from '../../database/database.js';
import { quatFromScaledAngleAxis, quatInvMultiply, quatMultiply, quatToScaledAngleAxis } from '../../math/quat.js';
import { solveTwoBoneIkInto, createTwoBoneIkScratch } from '../../math/two-bone-ik.js';
import { type FootIKLeg, type FootRig, type LegJoints, LegView, footRig } from './rig.js';
import { KNEE_POLE, keepAnimatedKnee, kneePole, kneeSettled, reachHold, restoreSoftening, softenReach, unsoftenOffset, updateSoftWidening } from './leg.js';
import {
  LOCKED, LOCK, OFFSET, OFFSET_VEL, TARGET, SHOWN, HEEL, HEEL_VEL, HEEL_SHIFT, LOCK_YAW, ANIM_HEIGHT, LEG_SIZE, RELEASED, HEEL_RAISE, UNSOFT, MAX_HEEL_RAISE,
  HIPS_DROP, HIPS_DROP_VEL, HIPS_SHOWN_VEL, HIPS_VEL_CHANGE_MAX, DECAY_DT, STEP_DT, NEEDED_DROP, HIPS_DT, HIPS_MAX, FOOT_DT, FOOT_IK_STATE_SIZE, SETTLING,
  IK_TARGET, FOOT_WORLD_ROT, BODY_DY, ANKLE_HEIGHT, LOCK_NORMAL, SHIFT, SHIFT_PREV, TILT, TILT_VEL, SHIFT_OFFSET, SHIFT_VEL, PLANTED_HEIGHT, CLEAR, CLEAR_VEL, FOLLOW, FOLLOW_VEL, ANIM_PREV, KNEE_PLANE, REACH, LIFT, LIFT_VEL, HOLD_ANIM, CLEAR_LIFT, CLEAR_LIFT_VEL, DATA_HOLD, PLANT_HEEL,
} from './state.js';
import { capturedData, type CapturedData } from '../captured-data.js';
import { GROUND_BAND_LEG_LENGTHS, floorLift, stillDown, updateGroundHolds, updateLift } from './on-ground.js';
import type { Ground } from '../ground/ground.js';
import { DEFAULT_GROUND_OPTIONS, type GroundOptions } from '../ground/ground-options.js';
import type { FootIKHost } from './host.js';
import { validateFootIKOptions, type FootIKOptions } from './options.js';
import { dropToReach, lowerHips } from './hips.js';
import { decayHeel, decayOffset, followDataOnGround } from './offsets.js';
import { YAW_TURN, holdFootHeading, pivotAboutContact, shownBearing } from './planted-turn.js';
import { LANDED_LEG_LENGTHS, heldLastStep, holdsPlanted, landedFromStep, plantable, recordShown, slowEnoughToPlant, capturedFootStill } from './landing.js';
import { applyGroundStep } from './ground-step.js';

export { GROUND_BAND_LEG_LENGTHS, PLANT_SPEED_LEG_LENGTHS, STILL_DOWN_LEG_LENGTHS, floorLift, groundHold } from './on-ground.js';
export { HEADING_TOLERANCE, MAX_HELD_TURN } from './planted-turn.js';
export { HELD_GAP_LEG_LENGTHS, LANDED_LEG_LENGTHS, REPLANT_LIFT_LEG_LENGTHS } from './landing.js';
export { FOOT_IK_STATE_SIZE } from './state.js';
export type { FootIKLeg, LegJoints } from './rig.js';
export type { FootIKHost } from './host.js';
export { DEFAULT_FOOT_IK_OPTIONS, validateFootIKOptions, type FootIKOptions } from './options.js';

// Temporaries of one call, shared by every character of a thread (they stay in cache in a crowd).
const IK_SCRATCH = createTwoBoneIkScratch();
const PIVOT_TURN = new Float64Array(4);
const ANKLE_AS_ANIMATED = new Float64Array(3);

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
    S[PLANT_HEEL] = Number.NaN; S[LEG_SIZE + PLANT_HEEL] = Number.NaN;
    this.rig = footRig(db);
    this.captured = capturedData(db);
    this.contactEnds = this.captured.contactEnds;
    S[HIPS_VEL_CHANGE_MAX] = this.captured.bodyVerticalVelocityChangeMax;
    this.legs = this.rig.legs.map((joints, i) => new LegView(joints, S, i * LEG_SIZE));
  }

  reset(worldPositions: Float64Array): void {
    const S = this.S;
    S[HIPS_DROP] = 0;
    S[HIPS_DROP_VEL] = 0;
    S[HIPS_SHOWN_VEL] = 0;
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
      S[at + KNEE_PLANE] = 0; S[at + KNEE_PLANE + 1] = 0; S[at + KNEE_PLANE + 2] = 1; S[at + PLANT_HEEL] = Number.NaN;
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
    else applyGroundStep(this.S, this.rig, this.db, this.opts, this.captured, host, ground, groundOptions);
    this.S[SETTLING] = 0;
  }

  /** {@link apply} with dt read from `p[po]`: nothing passed as a number, whether or not V8 inlines the call. */
  applyWith(host: FootIKHost, p: Float64Array, po: number, ground: Ground | null = null, groundOptions: GroundOptions = DEFAULT_GROUND_OPTIONS): void {
    this.S[STEP_DT] = p[po];
    if (ground === null) this.applyStep(host);
    else applyGroundStep(this.S, this.rig, this.db, this.opts, this.captured, host, ground, groundOptions);
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
    recordShown(S, this.rig.legs, wp);
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
    // Nor is one shown above the ground band (a transition's blend carrying it high in its swing
    // onto a frame that has it down): planted there, 21 cm from where that frame puts it, a stop's
    // foot came down onto its lock, which the leg could no longer reach once the blend had run out,
    // and stepped into place a second after the stop request (35 cm/s; the real set at 144 Hz).
    const landed = S[at + SHOWN + 1] - wp[c + 1] < LANDED_LEG_LENGTHS * leg.length && S[at + SHOWN + 1] - rootY - leg.plantedHeight < GROUND_BAND_LEG_LENGTHS * leg.length;
    // A contact on its last frame is a foot lifting off: planted there, a foot that came down late
    // (still blending out a transition's offset) was held one step and released the next, stopped
    // dead and set going again (6.6 m/s at the ankle on the real captures).
    const lands = contact && (this.contactEnds[host.frame] & leg.bit) === 0;
    // A foot stepping (updateLift) is planted once the leg holds it again (its reach hold at least
    // STEP_LANDED_HOLD: planted while dragged, it was locked where the leg could not reach and the
    // ankle stopped dead, 7.8 m/s on the shared bench clips) and it is back near the ground (its lift
    // within the ground hold's top quarter, 0.03 leg lengths: planted higher, a brief contact's lock
    // stopped it in mid-descent and let go of it a few steps later, 13 cm off, knee 7.5 m/s).
    if (lands && plantable(S, leg, at) && landed && !(S[at + UNSOFT] > 0) && landedFromStep(S, at) && slowEnoughToPlant(S, leg, at, wp) && capturedFootStill(this.captured, this.db.fps, host.frame, i, leg) && holdsPlanted(S, leg, at, wp, false)) {
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
      S[at + LOCK_YAW] = shownBearing(S, at, leg, wp);
      S[at + HEEL_RAISE] = MAX_HEEL_RAISE;
      S[at + LOCKED] = 1;
    } else if (S[at + LOCKED] === 1) {
      const held = heldLastStep(S, leg, at);
      // Held horizontally; its height is the animation's, every step (a rolling foot rolls, and a
      // foot planted while a transition's blend still lifted it comes down onto the ground: held
      // at its height when planted, a standing character's feet hovered 1-2 cm).
      S[at + LOCK + 1] = wp[c + 1];
      const dx = S[at + LOCK] - wp[c], dz = S[at + LOCK + 2] - wp[c + 2];
      const limit = this.opts.unlockLegLengths * leg.length;
      if ((!contact && !stillDown(leg, at, S, wp)) || !held || dx * dx + dz * dz > limit * limit || !capturedFootStill(this.captured, this.db.fps, host.frame, i, leg)) {
        // Hand over from the lock to the animation without a jump: offset = old target - new desired
        // (the foot moves as a whole, so the contact point's gap is the ankle's).
        // A raised heel stays raised and blends down like the offset: the ankle starts where it was.
        for (let k = 0; k < 3; k++) S[at + OFFSET + k] = S[at + LOCK + k] + S[at + OFFSET + k] - wp[c + k] + S[at + HEEL_SHIFT + k];
        // (a foot without a toe joint was softened while planted, below: it is let go where it was shown)
        if (leg.contact !== leg.foot) unsoftenOffset(leg, wp, S, at);
        // Released while the contact lasts (the animation planted the foot a leg length away, e.g.
        // after a transition): the foot blends over to the animation, stepping, and is planted again
        // once it is down from its step (plantable) or at its next contact. Relocking at once stopped
        // it dead in mid-blend (jumps of 6-7 m/s).
        S[at + LOCKED] = contact ? RELEASED : 0;
      }
    }
    decayOffset(this.S, at, this.opts);
    updateSoftWidening(this.S, at, leg, 0);
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
}
