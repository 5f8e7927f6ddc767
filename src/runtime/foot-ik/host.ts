/** What FootIK needs from the controller: the output pose it may edit, and its world transforms. */
export interface FootIKHost {
  readonly frame: number;
  readonly rotations: Float64Array;
  readonly worldPositions: Float64Array;
  readonly worldRotations: Float64Array;
  readonly translations: Float64Array;
  readonly rootPosition: Float64Array;
  readonly rootRotation: Float64Array;
  /** Frames of the database played per second of the step (time warping; 1 when off). */
  readonly playRate: number;
  /** Recomputes one joint's world transform from its parent's. */
  updateWorldJoint(j: number): void;
}
