/**
 * Inertialization (docs/runtime.md): instead of cross-fading two animations, switch to the destination at
 * once and carry the difference as a per-bone offset that decays to zero with a critically damped
 * spring. On a transition
 *   offset ← (source + old offset) − destination
 * so the output does not jump; every frame the offsets decay and are added to the playing pose.
 *
 * Pose layout (flat, J joints): positions J·3, rotations J·4 (x, y, z, w), velocities J·3,
 * angular velocities J·3 (rad/s, same frame as the rotations). Rotation offsets are stored as
 * scaled angle-axis vectors (the quaternion log, short way round) so the same vector decay spring
 * drives them; the offset is applied on the left: out = exp(offset) · playing.
 *
 * The state owns its buffers; transition and update allocate nothing.
 */
import {
  type Buf,
  quatFromScaledAngleAxis,
  quatMultiply,
  quatMultiplyInv,
  quatRotateVec3,
  quatToScaledAngleAxis,
} from '../../math/quat.js';
import { decaySpringUpdate } from '../../math/spring.js';

/** One pose in flat buffers; see the module comment for the layout. */
export interface PoseBuffers {
  positions: Buf;
  rotations: Buf;
  velocities: Buf;
  angularVelocities: Buf;
}

/** Offsets carried between a transition and the moment they have decayed away. */
export interface InertializationState {
  readonly jointCount: number;
  /** J·3: output position − playing position. */
  readonly positionOffsets: Float64Array;
  /** J·3: output velocity − playing velocity. */
  readonly velocityOffsets: Float64Array;
  /** J·3: log(output rotation · playing rotation⁻¹), scaled angle-axis. */
  readonly rotationOffsets: Float64Array;
  /** J·3: output angular velocity − exp(offset)·playing angular velocity. */
  readonly angularVelocityOffsets: Float64Array;
}

/**
 * A state with zero offsets for `jointCount` joints. `storage` (optional, >= 12 * jointCount
 * values, zeroed here) holds the four offset arrays back to back, so a caller can keep them next to
 * its other per-character state.
 */
export function createInertializationState(jointCount: number, storage?: Float64Array): InertializationState {
  if (!(Number.isSafeInteger(jointCount) && jointCount >= 0)) {
    throw new RangeError(`createInertializationState: jointCount must be a non-negative integer, got ${String(jointCount)}`);
  }
  const n = jointCount * 3;
  if (storage !== undefined && !(storage instanceof Float64Array && storage.length >= 4 * n)) {
    throw new RangeError(`createInertializationState: storage must be a Float64Array of at least ${4 * n} values`);
  }
  const buf = storage ?? new Float64Array(4 * n);
  buf.fill(0, 0, 4 * n);
  return {
    jointCount,
    positionOffsets: buf.subarray(0, n),
    velocityOffsets: buf.subarray(n, 2 * n),
    rotationOffsets: buf.subarray(2 * n, 3 * n),
    angularVelocityOffsets: buf.subarray(3 * n, 4 * n),
  };
}

/** Zero every offset (e.g. after a teleport, where no continuity is wanted). */
export function inertializeReset(state: InertializationState): void {
  state.positionOffsets.fill(0);
  state.velocityOffsets.fill(0);
  state.rotationOffsets.fill(0);
  state.angularVelocityOffsets.fill(0);
}

/** Throws unless `pose` has J joints' worth of every buffer (and, with checkValues, only finite values). */
export function requirePose(fn: string, name: string, pose: PoseBuffers, J: number, checkValues: boolean): void {
  requireBuffer(fn, name, 'positions', pose.positions, J * 3, checkValues);
  requireBuffer(fn, name, 'rotations', pose.rotations, J * 4, checkValues);
  requireBuffer(fn, name, 'velocities', pose.velocities, J * 3, checkValues);
  requireBuffer(fn, name, 'angularVelocities', pose.angularVelocities, J * 3, checkValues);
}

// Names are passed in parts and joined only when throwing, so the per-frame check allocates nothing.
function requireBuffer(fn: string, pose: string, field: string, buf: Buf, length: number, checkValues: boolean): void {
  if (buf === undefined || buf === null || !(buf.length >= length)) {
    const have = buf === undefined || buf === null ? 'is missing' : `has ${buf.length} values`;
    throw new RangeError(`${fn}: ${pose}.${field} ${have}, needs at least ${length}`);
  }
  if (!checkValues) return;
  for (let i = 0; i < length; i++) {
    if (!Number.isFinite(buf[i])) {
      throw new RangeError(`${fn}: ${pose}.${field}[${i}] must be a finite number, got ${String(buf[i])}`);
    }
  }
}

const offsetQuat = new Float64Array(4);
const outputQuat = new Float64Array(4);
const rotatedVec = new Float64Array(3);

/**
 * Start a transition from the pose that was playing (`source`, without offsets) to the pose that
 * plays from now on (`destination`), keeping the OUTPUT continuous:
 *   position offset  ← (source + offset) − destination           (and the same for velocities)
 *   rotation offset  ← log((exp(offset) · source) · destination⁻¹)  (short way round)
 *   angular velocity offset ← (offset_w + exp(offset)·source_w) − exp(new offset)·destination_w
 * The angular velocity offset subtracts the destination's angular velocity rotated by the NEW
 * offset because {@link inertializeUpdate} outputs offset_w + exp(offset)·playing_w; using the same
 * composition on both sides makes the output angular velocity exactly continuous too.
 * `source` is the raw pose that was playing, WITHOUT offsets (if you only have the shown output,
 * use {@link inertializeTransitionFromOutput}). Validates both poses (buffer sizes, and finite values
 * unless `checkValues` is false: a caller whose poses come from validated data, such as the
 * controller reading its database, skips that scan).
 */
export function inertializeTransition(
  state: InertializationState,
  source: PoseBuffers,
  destination: PoseBuffers,
  checkValues = true,
): void {
  const fn = 'inertializeTransition';
  requirePose(fn, 'source', source, state.jointCount, checkValues);
  requirePose(fn, 'destination', destination, state.jointCount, checkValues);
  transitionOffsets(state, source, destination);
}

/**
 * The same transition when what you have is the pose currently SHOWN (the last output of
 * {@link inertializeUpdate}, i.e. playing pose + offsets) rather than the raw playing pose: the
 * shown pose already contains the old offsets, so they are cleared first and
 *   offset ← shown − destination.
 * Passing the shown pose to {@link inertializeTransition} instead would count the old offsets twice.
 */
export function inertializeTransitionFromOutput(
  state: InertializationState,
  shown: PoseBuffers,
  destination: PoseBuffers,
): void {
  const fn = 'inertializeTransitionFromOutput';
  requirePose(fn, 'shown', shown, state.jointCount, true);
  requirePose(fn, 'destination', destination, state.jointCount, true);
  inertializeReset(state);
  transitionOffsets(state, shown, destination);
}

function transitionOffsets(state: InertializationState, source: PoseBuffers, destination: PoseBuffers): void {
  const J = state.jointCount;
  const po = state.positionOffsets, vo = state.velocityOffsets;
  const ro = state.rotationOffsets, wo = state.angularVelocityOffsets;
  for (let j = 0; j < J; j++) {
    const i3 = 3 * j, i4 = 4 * j;
    for (let k = 0; k < 3; k++) {
      po[i3 + k] = source.positions[i3 + k] + po[i3 + k] - destination.positions[i3 + k];
      vo[i3 + k] = source.velocities[i3 + k] + vo[i3 + k] - destination.velocities[i3 + k];
    }
    // What the output shows right now: exp(old offset) · source, and its angular velocity.
    quatFromScaledAngleAxis(offsetQuat, 0, ro, i3);
    quatMultiply(outputQuat, 0, offsetQuat, 0, source.rotations, i4);
    quatRotateVec3(rotatedVec, 0, offsetQuat, 0, source.angularVelocities, i3);
    const ow0 = wo[i3] + rotatedVec[0], ow1 = wo[i3 + 1] + rotatedVec[1], ow2 = wo[i3 + 2] + rotatedVec[2];
    // New offset: output · destination⁻¹, logged the short way round.
    quatMultiplyInv(offsetQuat, 0, outputQuat, 0, destination.rotations, i4);
    quatToScaledAngleAxis(ro, i3, offsetQuat, 0);
    quatFromScaledAngleAxis(offsetQuat, 0, ro, i3);
    quatRotateVec3(rotatedVec, 0, offsetQuat, 0, destination.angularVelocities, i3);
    wo[i3] = ow0 - rotatedVec[0];
    wo[i3 + 1] = ow1 - rotatedVec[1];
    wo[i3 + 2] = ow2 - rotatedVec[2];
  }
}

/**
 * Decay the offsets by dt with the critically damped decay spring (half-life `halfLife`, typically
 * 0.1 s) and write playing pose + offsets to `out`:
 *   position = playing + offset,  velocity = playing + offset_v,
 *   rotation = exp(offset) · playing,  angular velocity = offset_w + exp(offset)·playing_w.
 * dt = 0 only applies the offsets. `out` may be `playing` itself (in place). Checks buffer sizes
 * but not every value (per-frame path).
 */
export function inertializeUpdate(
  state: InertializationState,
  playing: PoseBuffers,
  dt: number,
  halfLife: number,
  out: PoseBuffers,
): void {
  const fn = 'inertializeUpdate';
  const J = state.jointCount;
  requirePose(fn, 'playing', playing, J, false);
  requirePose(fn, 'out', out, J, false);
  const n = J * 3;
  // Offsets and their velocities decay component-wise; rotations decay in log space.
  decaySpringUpdate(state.positionOffsets, 0, state.velocityOffsets, 0, halfLife, dt, n);
  decaySpringUpdate(state.rotationOffsets, 0, state.angularVelocityOffsets, 0, halfLife, dt, n);
  const po = state.positionOffsets, vo = state.velocityOffsets;
  const ro = state.rotationOffsets, wo = state.angularVelocityOffsets;
  for (let j = 0; j < J; j++) {
    const i3 = 3 * j, i4 = 4 * j;
    for (let k = 0; k < 3; k++) {
      out.positions[i3 + k] = playing.positions[i3 + k] + po[i3 + k];
      out.velocities[i3 + k] = playing.velocities[i3 + k] + vo[i3 + k];
    }
    quatFromScaledAngleAxis(offsetQuat, 0, ro, i3);
    quatMultiply(out.rotations, i4, offsetQuat, 0, playing.rotations, i4);
    quatRotateVec3(rotatedVec, 0, offsetQuat, 0, playing.angularVelocities, i3);
    out.angularVelocities[i3] = wo[i3] + rotatedVec[0];
    out.angularVelocities[i3 + 1] = wo[i3 + 1] + rotatedVec[1];
    out.angularVelocities[i3 + 2] = wo[i3 + 2] + rotatedVec[2];
  }
}

/**
 * The per-frame path of {@link inertializeUpdate} for characters that only need the pose (not its
 * velocities): decays the offsets (one exponential for all joints) and writes
 *   position = playing + offset,  rotation = exp(offset) · playing
 * Returns false, and copies the playing pose through, once every offset has decayed below `epsilon`
 * (the offsets are then zeroed, so the next transition starts clean and idle characters cost a copy).
 */
export function inertializeApplyPose(
  state: InertializationState,
  playingPositions: Float64Array, playingRotations: Float64Array,
  dt: number, halfLife: number,
  outPositions: Float64Array, outRotations: Float64Array,
  epsilon = 1e-7,
): boolean {
  const po = state.positionOffsets, vo = state.velocityOffsets;
  const ro = state.rotationOffsets, wo = state.angularVelocityOffsets;
  const n = state.jointCount * 3;
  const y = (2 * Math.LN2) / halfLife;
  const e = Math.exp(-y * dt);
  let largest = 0;
  for (let i = 0; i < n; i++) {
    const x = po[i], v = vo[i], j = v + x * y;
    po[i] = e * (x + j * dt); vo[i] = e * (v - j * y * dt);
    const r = ro[i], w = wo[i], k = w + r * y;
    ro[i] = e * (r + k * dt); wo[i] = e * (w - k * y * dt);
    const m = Math.max(Math.abs(po[i]), Math.abs(vo[i]) * dt, Math.abs(ro[i]), Math.abs(wo[i]) * dt);
    if (m > largest) largest = m;
  }
  if (largest < epsilon) {
    inertializeReset(state);
    outPositions.set(playingPositions.subarray(0, n));
    outRotations.set(playingRotations.subarray(0, state.jointCount * 4));
    return false;
  }
  for (let i = 0; i < n; i++) outPositions[i] = playingPositions[i] + po[i];
  rotateByOffsets(ro, ro, NO_DECAY, 0, playingRotations, 0, outRotations, state.jointCount);
  return true;
}

/** decay for offsets used as they are: e = 1, τ = 0 (the stepwise path keeps current offsets). */
const NO_DECAY = Float64Array.of(1, 0);

/**
 * out[j] = exp(r_j) · Q[at + j] for every joint, with the rotation offset (scaled angle-axis)
 * r = e (x0 + j0 τ) formed per component, e = decay[decayAt] and τ = decay[decayAt + 1]: the
 * closed-form decay of inertialization/decay.ts (and, with x0 = j0 = the offsets, e = 1, τ = 0, the
 * stepwise path's current offsets). Rotations are read in place at `at`. Small angles (most of a
 * decay) use the series. Shared by the stepwise and the closed-form inertialization.
 */
export function rotateByOffsets(
  x0: Float64Array, j0: Float64Array, decay: Float64Array, decayAt: number,
  Q: Float32Array | Float64Array, at: number, out: Float64Array, jointCount: number,
): void {
  const e = decay[decayAt], t = decay[decayAt + 1];
  for (let i3 = 0, i4 = 0; i3 < 3 * jointCount; i3 += 3, i4 += 4) {
    const x = e * (x0[i3] + j0[i3] * t), y = e * (x0[i3 + 1] + j0[i3 + 1] * t), z = e * (x0[i3 + 2] + j0[i3 + 2] * t);
    const hh = 0.25 * (x * x + y * y + z * z); // (angle / 2)^2
    let s: number, qw: number;
    if (hh < 2.5e-3) {
      s = 0.5 * (1 - hh / 6 + (hh * hh) / 120);
      qw = 1 - hh / 2 + (hh * hh) / 24;
    } else {
      const h = Math.sqrt(hh);
      s = Math.sin(h) / (2 * h);
      qw = Math.cos(h);
    }
    const qx = x * s, qy = y * s, qz = z * s; // q = quatFromScaledAngleAxis(x, y, z), series near 0
    const r = at + i4;
    const bx = Q[r], by = Q[r + 1], bz = Q[r + 2], bw = Q[r + 3];
    // = quatMultiply(out, 4j, q, Q, r)
    out[i4] = qw * bx + qx * bw + qy * bz - qz * by;
    out[i4 + 1] = qw * by - qx * bz + qy * bw + qz * bx;
    out[i4 + 2] = qw * bz + qx * by - qy * bx + qz * bw;
    out[i4 + 3] = qw * bw - qx * bx - qy * by - qz * bz;
  }
}
