/**
 * Root motion: root tracks supply motion INCREMENTS; the character accumulates them.
 *
 * An asset's translation origin never owns the character's world position, so nothing here ever
 * blends or returns a root *position*. Blending two root tracks blends their displacements over the
 * same interval; rotation is blended as a relative (local-frame) rotation; looping clips accumulate
 * across the wrap instead of subtracting wrapped coordinates. See docs/root-motion.md for the
 * contract and the worked figures. The parts:
 * - root-motion/scalar.ts     one coordinate: blendRootDelta, the wrong-order reference, loops
 * - root-motion/integrate.ts  sub-stepped integration when weight and velocity both vary
 * - root-motion/spaces.ts     the 3D and yaw roots as delta spaces sharing one algebra
 * - root-motion/local.ts      local deltas: between, blend, compose, apply, blended step, loops
 * - root-motion/checks.ts     argument checks (every function throws RangeError naming the argument)
 */
export { type RootSpan, blendRootDelta, blendRootPositionsNaive, intervalMeanWeight, loopRootDelta, loopRootDeltaBetween } from './scalar.js';
export { type IntegrateBlendedDeltaOptions, type IntegrationReport, integrateBlendedDelta } from './integrate.js';
export { ROOT_XFORM_SIZE, YAW_XFORM_SIZE, SPACE_3D, SPACE_YAW, type RootDeltaSpace } from './spaces.js';
export {
  rootDeltaLocal, rootDeltaLocalFromTrack, blendRootDeltaLocal, composeRootDeltaLocal, applyRootDeltaLocal,
  blendRootMotionLocal, loopRootDeltaLocal,
  yawRootDeltaLocal, blendYawRootDeltaLocal, composeYawRootDeltaLocal, applyYawRootDeltaLocal,
  blendYawRootMotionLocal, loopYawRootDeltaLocal,
} from './local.js';
