/**
 * Turns a gait plan into joint rotations for the built-in skeleton: a pelvis with bob, sway,
 * counter-rotation and lean, a spine that carries the lean and counter-rotates, arms swinging
 * against the legs, a stabilised head, and legs solved with two-bone IK onto the planned foot
 * targets (so planted feet do not slide).
 *
 * Two passes: the first places the pelvis horizontally and the feet, and finds how high the
 * pelvis may be for the legs to reach; the second sets every joint's rotation.
 */
import type { Skeleton } from '../anim/skeleton.js';
import { quatMultiply, quatInvMultiply, quatSlerp, quatNormalize, quatRotateVec3, type Buf } from '../math/quat.js';
import { solveTwoBoneIk, createTwoBoneIkScratch } from '../math/two-bone-ik.js';
import { BUILTIN_JOINT as JI, legLengths } from './procedural-skeleton.js';
import {
  GRAVITY, clamp, lerp, dutyFactor, gaitAngle, footTargetAt, createFootTarget, pathAt,
  type GaitPlan, type FootTarget,
} from './gait.js';
import { createRandom, hashString, smoothNoise } from './noise.js';

export interface SynthesizedMotion {
  rotations: Float64Array;
  translations: Float64Array;
  /** Per frame: bit 1 = left foot planted, bit 2 = right foot planted. */
  contacts: Uint8Array;
  /** Largest IK residual of a planted foot (m): 0 unless a footprint was out of reach. */
  maxPlantedResidual: number;
}

const LEGS = [
  { hip: JI.thigh_l, knee: JI.calf_l, foot: JI.foot_l, toe: JI.toe_l },
  { hip: JI.thigh_r, knee: JI.calf_r, foot: JI.foot_r, toe: JI.toe_r },
] as const;

const ARMS = [
  { clavicle: JI.clavicle_l, upper: JI.upperarm_l, lower: JI.lowerarm_l, hand: JI.hand_l },
  { clavicle: JI.clavicle_r, upper: JI.upperarm_r, lower: JI.lowerarm_r, hand: JI.hand_r },
] as const;

/** Leg extension allowed when choosing the pelvis height (fraction of thigh + shin). */
const MAX_EXTENSION = 0.995;
const PELVIS_REST_Y = 0.98;
/** Share of the spine's bend taken by spine_01, spine_02, spine_03. */
const SPINE_SHARE = [0.3, 0.35, 0.35] as const;
const FOOT_STRIDE = 6;

/** Slow, seeded idle motions (weight shifts, looking around) and the breathing phase. */
interface IdleNoise {
  swayX: (t: number) => number;
  swayZ: (t: number) => number;
  yaw: (t: number) => number;
  look: (t: number) => number;
  lookPitch: (t: number) => number;
  breathPhase: number;
}

function createIdleNoise(seedName: string): IdleNoise {
  const random = createRandom(hashString(seedName));
  return {
    swayX: smoothNoise(random, 0.11), swayZ: smoothNoise(random, 0.07), yaw: smoothNoise(random, 0.05),
    look: smoothNoise(random, 0.06), lookPitch: smoothNoise(random, 0.09), breathPhase: 2 * Math.PI * random(),
  };
}

/** Everything about the body at one instant that both passes need. */
interface BodyState {
  t: number;
  /** Root facing yaw, speed, yaw rate. */
  yaw: number;
  v: number;
  yawRate: number;
  /** Gait phase in radians (0 = left foot lands) and shifted to the middle of the left stance. */
  cyc: number;
  stanceCyc: number;
  /** Activity (0 standing, 1 moving), its complement, and the run style (0 walk, 1 run). */
  amp: number;
  idle: number;
  r: number;
  /** Stepping angle relative to the facing and the forward part of the travel (for swing directions). */
  gait: number;
  cosTravel: number;
  /** Facing axes in the world. */
  fwdX: number; fwdZ: number; leftX: number; leftZ: number;
  /** Lean from the root's acceleration (rad): forward, and sideways (positive = towards the left). */
  leanPitch: number;
  leanRoll: number;
  breath: number;
  /** Pelvis yaw oscillation, turn towards a sideways stepping direction, list (roll) and forward tilt. */
  pelvisYawOsc: number;
  hipTurn: number;
  list: number;
  tilt: number;
}

function createBodyState(): BodyState {
  return {
    t: 0, yaw: 0, v: 0, yawRate: 0, cyc: 0, stanceCyc: 0, amp: 0, idle: 1, r: 0, gait: 0, cosTravel: 0,
    fwdX: 0, fwdZ: 1, leftX: 1, leftZ: 0, leanPitch: 0, leanRoll: 0, breath: 0, pelvisYawOsc: 0, hipTurn: 0, list: 0, tilt: 0,
  };
}

function bodyStateAt(plan: GaitPlan, noise: IdleNoise, t: number, s: BodyState): BodyState {
  const path = plan.path;
  s.t = t;
  s.yaw = pathAt(path, path.yaw, t);
  s.v = pathAt(path, path.speed, t);
  s.yawRate = pathAt(path, path.yawRate, t);
  const travel = pathAt(path, path.travel, t);
  const ph = pathAt(path, plan.phase, t);
  s.amp = pathAt(path, plan.activity, t);
  s.idle = 1 - s.amp;
  s.r = pathAt(path, plan.runBlend, t);
  const moving = clamp(s.v / 0.3, 0, 1);
  s.gait = moving * gaitAngle(travel);
  s.cosTravel = moving * Math.cos(travel);
  s.fwdX = Math.sin(s.yaw); s.fwdZ = Math.cos(s.yaw); s.leftX = Math.cos(s.yaw); s.leftZ = -Math.sin(s.yaw);
  const ax = pathAt(path, path.ax, t), az = pathAt(path, path.az, t);
  s.leanPitch = clamp(Math.atan((ax * s.fwdX + az * s.fwdZ) / GRAVITY) * 0.8, -0.3, 0.35);
  s.leanRoll = clamp(Math.atan((ax * s.leftX + az * s.leftZ) / GRAVITY) * 0.8, -0.4, 0.4);
  s.cyc = 2 * Math.PI * ph;
  s.stanceCyc = 2 * Math.PI * (ph - 0.5 * dutyFactor(s.v));
  s.breath = Math.sin(2 * Math.PI * 0.25 * t + noise.breathPhase);
  // The hip of the forward leg leads (left leg forward at phase 0: pelvis turned right).
  s.pelvisYawOsc = -lerp(0.07, 0.11, s.r) * Math.cos(s.cyc) * s.cosTravel * s.amp;
  s.hipTurn = 0.15 * s.gait;
  // The swing side's hip drops: at mid left stance, the right side is low.
  s.list = lerp(0.06, 0.035, s.r) * Math.cos(s.stanceCyc) * s.amp;
  s.tilt = s.amp * (0.03 + 0.07 * s.r + 0.012 * s.v);
  return s;
}

/**
 * Synthesises the motion: `frames` samples at `fps`, local rotations and translations in the
 * skeleton's layout, and the planted-foot labels.
 */
export function synthesizeMotion(skeleton: Skeleton, plan: GaitPlan, frames: number, fps: number, seedName: string): SynthesizedMotion {
  const J = skeleton.names.length;
  const path = plan.path;
  const rotations = new Float64Array(frames * J * 4);
  const translations = new Float64Array(frames * J * 3);
  const contacts = new Uint8Array(frames);
  const [thighLen, shinLen] = legLengths(skeleton, LEGS[0].knee, LEGS[0].foot);
  const maxLeg = MAX_EXTENSION * (thighLen + shinLen);
  const noise = createIdleNoise(seedName);
  const holdTime = 1.05 / fps;
  const s = createBodyState();

  // ---- pass 1: pelvis rotation and horizontal position, feet, highest reachable pelvis ----
  const pelvisRot = new Float64Array(frames * 4);
  const pelvisPos = new Float64Array(frames * 3);
  const desiredY = new Float64Array(frames);
  const allowedY = new Float64Array(frames);
  // Foot targets per frame and foot: x, y, z, yaw, pitch, toeBend (contact goes to `contacts`).
  const feet = new Float64Array(frames * 2 * FOOT_STRIDE);
  const ft = createFootTarget();
  const hipOff = new Float64Array(3);

  for (let f = 0; f < frames; f++) {
    const t = f / fps;
    bodyStateAt(plan, noise, t, s);
    qYXZ(pelvisRot, 4 * f, s.yaw + s.pelvisYawOsc + s.hipTurn + 0.03 * s.idle * noise.yaw(t), 0.4 * s.tilt + 0.3 * s.leanPitch, s.list - 0.3 * s.leanRoll);

    // Root + sway towards the standing foot (+ idle weight shifts).
    const swayAmp = Math.max(0, (0.028 - 0.008 * s.v) * (1 - s.r) + 0.008 * s.r) * s.amp;
    const sway = swayAmp * Math.cos(s.stanceCyc) + s.idle * 0.015 * noise.swayX(t);
    const surge = s.idle * 0.006 * noise.swayZ(t);
    pelvisPos[3 * f] = pathAt(path, path.x, t) + sway * s.leftX + surge * s.fwdX;
    pelvisPos[3 * f + 2] = pathAt(path, path.z, t) + sway * s.leftZ + surge * s.fwdZ;

    // Height wanted: walks stand tall (the legs' reach makes the bob), runs dip at mid-stance.
    // (Knee flexion is very sensitive near full extension: 3 mm of drop is already ~10 degrees.)
    const walkDrop = 0.004 + 0.004 * s.v;
    const runDrop = 0.035 + 0.006 * (s.v - 2.5) + 0.025 * Math.cos(2 * s.stanceCyc);
    const idleDrop = 0.006 + 0.002 * s.breath;
    desiredY[f] = PELVIS_REST_Y - lerp(idleDrop, lerp(walkDrop, runDrop, s.r), s.amp);

    // Feet, and the highest pelvis from which both legs reach their targets.
    let allowed = Infinity;
    for (let k = 0; k < 2; k++) {
      footTargetAt(plan, k, t, holdTime, ft);
      storeFoot(feet, (2 * f + k) * FOOT_STRIDE, ft);
      if (ft.contact) contacts[f] |= k === 0 ? 1 : 2;
      quatRotateVec3(hipOff, 0, pelvisRot, 4 * f, skeleton.offsets, 3 * LEGS[k].hip);
      const dx = pelvisPos[3 * f] + hipOff[0] - ft.x, dz = pelvisPos[3 * f + 2] + hipOff[2] - ft.z;
      const dh2 = dx * dx + dz * dz;
      const vert = dh2 < maxLeg * maxLeg ? Math.sqrt(maxLeg * maxLeg - dh2) : 0;
      allowed = Math.min(allowed, ft.y - hipOff[1] + vert);
    }
    allowedY[f] = allowed;
  }
  settlePelvisHeight(desiredY, allowedY, Math.max(1, Math.round(0.05 * fps)), pelvisPos);

  // ---- pass 2: joint rotations; legs by IK ----
  const local = new Float64Array(J * 4);
  const localPos = new Float64Array(J * 3);
  const wr = new Float64Array(J * 4), wp = new Float64Array(J * 3);
  const tmpQ = new Float64Array(12);
  const target = new Float64Array(3), pole = new Float64Array(3);
  const scratch = createTwoBoneIkScratch();
  let maxPlantedResidual = 0;

  for (let f = 0; f < frames; f++) {
    const t = f / fps;
    bodyStateAt(plan, noise, t, s);
    localPos.set(skeleton.offsets);
    for (let k = 0; k < 3; k++) localPos[k] = pelvisPos[3 * f + k];
    for (let j = 0; j < J; j++) { local[4 * j] = 0; local[4 * j + 1] = 0; local[4 * j + 2] = 0; local[4 * j + 3] = 1; }
    for (let k = 0; k < 4; k++) local[k] = pelvisRot[4 * f + k];

    setSpine(local, s, noise);
    for (let side = 0; side < 2; side++) setArm(local, s, side);
    setHead(local, wr, tmpQ, s, noise);

    // Legs: identity locals (hanging straight from the pelvis), then IK to the foot targets with
    // the knee towards the foot's forward. Only the pelvis and leg-chain world entries are needed.
    for (let k = 0; k < 4; k++) wr[k] = local[k];
    for (let k = 0; k < 3; k++) wp[k] = localPos[k];
    for (let side = 0; side < 2; side++) {
      const leg = LEGS[side];
      legChainWorld(wr, wp, skeleton.offsets, leg.hip, leg.knee, leg.foot);
      loadFoot(feet, (2 * f + side) * FOOT_STRIDE, ft);
      target[0] = ft.x; target[1] = ft.y; target[2] = ft.z;
      const px = Math.sin(ft.yaw) + s.fwdX, pz = Math.cos(ft.yaw) + s.fwdZ;
      const pl = Math.hypot(px, pz) || 1;
      pole[0] = px / pl; pole[1] = 0; pole[2] = pz / pl;
      const res = solveTwoBoneIk(local, wp, wr, skeleton.parents, leg.hip, leg.knee, leg.foot, target, scratch, pole);
      if ((contacts[f] & (side === 0 ? 1 : 2)) !== 0 && res > maxPlantedResidual) maxPlantedResidual = res;
      // Foot: world = yaw * pitch about its lateral axis; local = inv(calf world) * world.
      qYXZ(tmpQ, 0, ft.yaw, ft.pitch, 0);
      quatInvMultiply(local, 4 * leg.foot, wr, 4 * leg.knee, tmpQ, 0);
      quatNormalize(local, 4 * leg.foot, local, 4 * leg.foot);
      qXYZ(local, 4 * leg.toe, -ft.toeBend, 0, 0);
    }

    // Keep each joint's quaternion in the previous frame's hemisphere (no sign flips over time).
    const prev = (f - 1) * J * 4;
    for (let j = 0; j < J; j++) {
      const o = 4 * j;
      const d = f === 0
        ? local[o + 3]
        : local[o] * rotations[prev + o] + local[o + 1] * rotations[prev + o + 1] + local[o + 2] * rotations[prev + o + 2] + local[o + 3] * rotations[prev + o + 3];
      if (d < 0) { local[o] = -local[o]; local[o + 1] = -local[o + 1]; local[o + 2] = -local[o + 2]; local[o + 3] = -local[o + 3]; }
    }
    rotations.set(local, f * J * 4);
    translations.set(localPos, f * J * 3);
  }
  return { rotations, translations, contacts, maxPlantedResidual };
}

/**
 * Pelvis height = desired, lowered where a leg could not reach. The lowering is dilated then
 * blurred over +-radius frames, which keeps it at least as large as needed at every frame and
 * smooth. Writes the y of pelvisPos (frames*3).
 */
function settlePelvisHeight(desiredY: Float64Array, allowedY: Float64Array, radius: number, pelvisPos: Float64Array): void {
  const n = desiredY.length;
  const lower = new Float64Array(n), dilated = new Float64Array(n);
  for (let f = 0; f < n; f++) lower[f] = Math.max(0, desiredY[f] - allowedY[f]);
  for (let f = 0; f < n; f++) {
    let m = 0;
    for (let k = Math.max(0, f - radius); k <= Math.min(n - 1, f + radius); k++) m = Math.max(m, lower[k]);
    dilated[f] = m;
  }
  for (let f = 0; f < n; f++) {
    let sum = 0, wsum = 0;
    for (let k = -radius; k <= radius; k++) {
      const w = radius + 1 - Math.abs(k);
      sum += w * dilated[clamp(f + k, 0, n - 1)];
      wsum += w;
    }
    pelvisPos[3 * f + 1] = desiredY[f] - Math.max(sum / wsum, lower[f]);
  }
}

/**
 * Spine: undoes the pelvis' yaw (the chest faces the facing), counter-rotates against it, carries
 * the rest of the lean, undoes most of the list; breathing on the chest.
 */
function setSpine(local: Float64Array, s: BodyState, noise: IdleNoise): void {
  const chestYawOsc = lerp(0.06, 0.1, s.r) * Math.cos(s.cyc) * s.cosTravel * s.amp;
  const spineYaw = chestYawOsc - s.pelvisYawOsc - s.hipTurn - 0.015 * s.idle * noise.yaw(s.t);
  const spinePitch = 0.6 * s.tilt + 0.7 * s.leanPitch - 0.02 * s.idle;
  const spineRoll = -0.8 * s.list - 0.7 * s.leanRoll;
  for (let i = 0; i < 3; i++) {
    const extra = i === 2 ? 0.012 * s.breath * (1 - 0.5 * s.amp) : 0;
    qYXZ(local, 4 * (JI.spine_01 + i), SPINE_SHARE[i] * spineYaw, SPINE_SHARE[i] * spinePitch + extra, SPINE_SHARE[i] * spineRoll);
  }
}

/**
 * Arm of one side: hangs down from the T-pose, swings opposite to the same-side leg (the left arm
 * is back when the left leg is forward), elbow bent more going forward and much more when running.
 * Built for the left side and mirrored for the right.
 */
function setArm(local: Float64Array, s: BodyState, side: number): void {
  const armAmp = s.amp * lerp(0.16 + 0.13 * s.v, 0.42 + 0.05 * s.v, s.r);
  const swing = Math.cos(s.cyc - 0.25); // slightly behind the legs
  const down = 1.42 - 0.14 * s.r;
  const sgn = side === 0 ? -1 : 1;
  const sig = s.cosTravel * armAmp * sgn * swing + 0.05 * s.amp + 0.015 * s.idle * s.breath;
  const sigN = armAmp > 1e-6 ? clamp(sig / armAmp, -1, 1) : 0;
  const elbow = lerp(0.12, lerp(0.28 + 0.14 * Math.max(0, sigN), 1.45 + 0.18 * sigN, s.r), Math.min(1, 2 * s.amp)) + 0.02 * s.idle * s.breath;
  const a = ARMS[side];
  // Clavicle: forward with the arm, up a little when breathing and running.
  qXYZ(local, 4 * a.clavicle, 0, -0.12 * sig, 0.015 * s.breath + 0.04 * s.r * s.amp);
  // Upper arm: lower by `down` about Z, then swing forward about the chest's X.
  qXYZ(local, 4 * a.upper, -sig, 0.12 * s.r * s.amp, -down);
  // Elbow and wrist flex about the (lowered) arm's Y axis.
  qXYZ(local, 4 * a.lower, 0, -elbow, 0);
  qXYZ(local, 4 * a.hand, 0, -0.12 - 0.1 * s.r * s.amp, -0.1);
  if (side === 1) {
    mirrorInPlace(local, 4 * a.clavicle); mirrorInPlace(local, 4 * a.upper);
    mirrorInPlace(local, 4 * a.lower); mirrorInPlace(local, 4 * a.hand);
  }
}

/**
 * Head: level and looking where the character faces (a little into turns, around when idle),
 * whatever the torso does; the neck takes 45% of the correction. Needs the spine locals set.
 */
function setHead(local: Float64Array, wr: Float64Array, tmpQ: Float64Array, s: BodyState, noise: IdleNoise): void {
  // Chest world rotation = pelvis * spine_01 * spine_02 * spine_03 (a chain).
  quatMultiply(wr, 4 * JI.spine_01, local, 0, local, 4 * JI.spine_01);
  quatMultiply(wr, 4 * JI.spine_02, wr, 4 * JI.spine_01, local, 4 * JI.spine_02);
  quatMultiply(wr, 4 * JI.spine_03, wr, 4 * JI.spine_02, local, 4 * JI.spine_03);
  const look = clamp(0.22 * s.yawRate, -0.35, 0.35) + s.idle * 0.12 * noise.look(s.t);
  const pitch = 0.04 * s.r + s.idle * 0.04 * noise.lookPitch(s.t);
  qYXZ(tmpQ, 0, s.yaw + look, pitch, -0.35 * s.leanRoll);
  quatInvMultiply(tmpQ, 4, wr, 4 * JI.spine_03, tmpQ, 0); // C = inv(chest) * head world
  tmpQ[8] = 0; tmpQ[9] = 0; tmpQ[10] = 0; tmpQ[11] = 1;
  quatSlerp(local, 4 * JI.neck, tmpQ, 8, tmpQ, 4, 0.45);
  quatInvMultiply(local, 4 * JI.head, local, 4 * JI.neck, tmpQ, 4);
}

/**
 * World transforms of a leg hanging from the pelvis (joint 0) with identity locals: hip, knee and
 * ankle share the pelvis rotation and sit at the pelvis plus the rotated rest offsets.
 */
function legChainWorld(wr: Float64Array, wp: Float64Array, offsets: Float64Array, hip: number, knee: number, foot: number): void {
  for (let step = 0; step < 3; step++) {
    const j = step === 0 ? hip : step === 1 ? knee : foot;
    const p = step === 0 ? 0 : step === 1 ? hip : knee;
    quatRotateVec3(wp, 3 * j, wr, 0, offsets, 3 * j);
    wp[3 * j] += wp[3 * p]; wp[3 * j + 1] += wp[3 * p + 1]; wp[3 * j + 2] += wp[3 * p + 2];
    wr[4 * j] = wr[0]; wr[4 * j + 1] = wr[1]; wr[4 * j + 2] = wr[2]; wr[4 * j + 3] = wr[3];
  }
}

function storeFoot(buf: Float64Array, o: number, ft: FootTarget): void {
  buf[o] = ft.x; buf[o + 1] = ft.y; buf[o + 2] = ft.z; buf[o + 3] = ft.yaw; buf[o + 4] = ft.pitch; buf[o + 5] = ft.toeBend;
}

function loadFoot(buf: Float64Array, o: number, ft: FootTarget): void {
  ft.x = buf[o]; ft.y = buf[o + 1]; ft.z = buf[o + 2]; ft.yaw = buf[o + 3]; ft.pitch = buf[o + 4]; ft.toeBend = buf[o + 5];
}

// ---- rotation builders writing into (out, o) ----

/** q = Ry(yaw) * Rx(pitch) * Rz(roll). */
function qYXZ(out: Buf, o: number, yaw: number, pitch: number, roll: number): void {
  const cy = Math.cos(0.5 * yaw), sy = Math.sin(0.5 * yaw);
  const cp = Math.cos(0.5 * pitch), sp = Math.sin(0.5 * pitch);
  const cr = Math.cos(0.5 * roll), sr = Math.sin(0.5 * roll);
  const ax = cy * sp, ay = sy * cp, az = -sy * sp, aw = cy * cp; // Ry * Rx
  out[o] = ax * cr + ay * sr;
  out[o + 1] = ay * cr - ax * sr;
  out[o + 2] = aw * sr + az * cr;
  out[o + 3] = aw * cr - az * sr;
}

/** q = Rx(rx) * Ry(ry) * Rz(rz). */
function qXYZ(out: Buf, o: number, rx: number, ry: number, rz: number): void {
  const cx = Math.cos(0.5 * rx), sx = Math.sin(0.5 * rx);
  const cy = Math.cos(0.5 * ry), sy = Math.sin(0.5 * ry);
  const cz = Math.cos(0.5 * rz), sz = Math.sin(0.5 * rz);
  const ax = sx * cy, ay = cx * sy, az = sx * sy, aw = cx * cy; // Rx * Ry
  out[o] = ax * cz + ay * sz;
  out[o + 1] = ay * cz - ax * sz;
  out[o + 2] = aw * sz + az * cz;
  out[o + 3] = aw * cz - az * sz;
}

/** x-mirror of a rotation (left side to right side): (x, -y, -z, w). */
function mirrorInPlace(q: Buf, o: number): void {
  q[o + 1] = -q[o + 1];
  q[o + 2] = -q[o + 2];
}
