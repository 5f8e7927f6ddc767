/**
 * The one error type of the three.js adapter. Every refusal (a file that is not a GLB, a scene
 * without a skinned mesh, two skeletons, a bone that cannot be found) is a ThreeRigError with a
 * one-line message that says what to do, and a `code` a UI can switch on.
 */

export type ThreeRigErrorCode =
  /** The bytes are not a usable GLB (bad magic, truncated, a length beyond the data or the limit). */
  | 'glb'
  /** The scene holds no SkinnedMesh (nothing to drive). */
  | 'no-skin'
  /** The scene holds more than one skeleton: the caller must pick one. */
  | 'several-skeletons'
  /** A required humanoid bone was not found. */
  | 'missing-bone'
  /** The boneMap option names a role or a bone that does not exist. */
  | 'bad-bone-map'
  /** The options name one the adapter does not have (a misspelling: it was ignored). */
  | 'bad-option'
  /** The rig cannot be driven (non-uniform scale, a leg chain with bones in between, ...). */
  | 'rig';

export class ThreeRigError extends Error {
  constructor(readonly code: ThreeRigErrorCode, message: string) {
    super(`motionmatch/three: ${message}`);
    this.name = 'ThreeRigError';
  }
}

/** Names listed in a message at most; the rest are counted (messages stay one line). */
const MAX_LISTED = 12;

/** "a, b, c, ... and 40 more". */
export function listBriefly(names: readonly string[], max = MAX_LISTED): string {
  const shown = names.slice(0, max).join(', ');
  return names.length > max ? `${shown}, ... and ${names.length - max} more` : shown;
}
