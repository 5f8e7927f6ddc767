/**
 * The offsets of a transition under inertialization, over their life: started at the switch (the
 * pose's, in InertializationDecay, and the root velocity's, at ROOT_VEL_OFFSET), decayed each step,
 * and drained when a level of detail switches inertialization off (docs/lod.md, "Level changes")
 * until they are gone or a transition at that level cuts.
 * Works on the controller's state block `s` (controller/state.ts).
 */
import type { DatabaseRuntime } from '../database-runtime.js';
import type { InertializationDecay } from '../inertialization/decay.js';
import type { ControllerOptions } from './options.js';
import type { Pose64 } from './frame-pose.js';
import { decaySpringUpdateWith } from '../../math/spring.js';
import { sampleFramePose } from './frame-pose.js';
import { LAYER_FRACTION, LAYER_FRAME, LOD_DRAIN, ROOT_VEL_OFFSET, ROOT_VEL_OFFSET_RATE, STEP_DT } from './state.js';

/**
 * The offsets of a switch from frame `from` (the top one of `layerCount` layers playing) to frame
 * `to`: the destination and playing poses sampled with their velocities into `destination` and
 * `playing`, and the root's velocity change taken as ControllerOptions.rootVelocityInertialization
 * says.
 */
export function startTransitionOffsets(
  s: Float64Array, o: ControllerOptions, rt: DatabaseRuntime, inert: InertializationDecay,
  playing: Pose64, destination: Pose64, from: number, to: number, layerCount: number,
): void {
  // The destination pose is needed only for the offsets (not sampled without inertialization:
  // the coarsest level of detail cuts).
  sampleFramePose(rt, to, 0, destination, true);
  // The playing pose's velocities are only needed here (the per-frame path skips them).
  sampleFramePose(rt, s[LAYER_FRAME + layerCount - 1], s[LAYER_FRACTION + layerCount - 1], playing, true);
  const V = ROOT_VEL_OFFSET;
  if (o.rootVelocityInertialization === 'pose') {
    // The joint carrying the body (hips) takes the root's velocity change, so that its world
    // velocity stays what it was: source velocity += old root velocity (and any offset still
    // decaying) − new root velocity, in the root frame; the yaw rate likewise about +Y.
    const m = 3 * rt.rootRelativeJoint, P = playing;
    for (let d = 0; d < 3; d++) P.velocities[m + d] += s[V + d] + rt.rootVelocity[3 * from + d] - rt.rootVelocity[3 * to + d];
    P.angularVelocities[m + 1] += s[V + 3] + rt.rootYawRate[from] - rt.rootYawRate[to];
    s.fill(0, ROOT_VEL_OFFSET, ROOT_VEL_OFFSET + 8);
  }
  // Both poses come from the validated database: no finite-value scan per transition.
  inert.transition(playing, destination, o.inertializationHalfLife, false);
  if (o.rootVelocityInertialization === 'root') {
    for (let d = 0; d < 3; d++) s[V + d] = s[V + d] + rt.rootVelocity[3 * from + d] - rt.rootVelocity[3 * to + d];
    s[V + 3] = s[V + 3] + rt.rootYawRate[from] - rt.rootYawRate[to];
  }
}

/** The decay spring (decaySpringUpdate) on the root velocity offset of the last transition, over this step. */
export function decayRootVelocityOffset(s: Float64Array, o: ControllerOptions): void {
  // = decaySpringUpdate(s, ROOT_VEL_OFFSET, s, ROOT_VEL_OFFSET_RATE, o.inertializationHalfLife, s[STEP_DT], 4),
  // the two numbers through an array (every agent-step of a crowd).
  DECAY_ARGS[0] = o.inertializationHalfLife; DECAY_ARGS[1] = s[STEP_DT];
  decaySpringUpdateWith(s, ROOT_VEL_OFFSET, s, ROOT_VEL_OFFSET_RATE, DECAY_ARGS, 0, 4);
}

/** decayRootVelocityOffset's half-life and dt. */
const DECAY_ARGS = new Float64Array(2);

/**
 * With inertialization switched off (a coarse level of detail): true while the offsets of a
 * transition made before the switch are still decaying, root velocity offset included; once both
 * are gone the root velocity offset is cleared (nothing stale comes back when it is switched on)
 * and LOD_DRAIN ends.
 */
export function drainingOffsets(s: Float64Array, inert: InertializationDecay): boolean {
  if (inert.isActive) return true;
  let left = 0;
  for (let k = 0; k < 8; k++) left = Math.max(left, Math.abs(s[ROOT_VEL_OFFSET + k]));
  if (left > 1e-6) return true;
  endDrain(s, inert);
  return false;
}

/** Drops what is left of a drain (offsets, root velocity offset) and ends it. */
export function endDrain(s: Float64Array, inert: InertializationDecay): void {
  inert.reset();
  s.fill(0, ROOT_VEL_OFFSET, ROOT_VEL_OFFSET + 8);
  s[LOD_DRAIN] = 0;
}
