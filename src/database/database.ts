import type { Skeleton } from '../anim/skeleton.js';
import type { BoneRole, FeatureSchema } from '../features/schema.js';

/** A clip's place in the database: frames [start, start + count). */
export interface ClipRange {
  name: string;
  source: string;
  start: number;
  count: number;
  loop: boolean;
  /** True for the left/right-mirrored copy of a source clip. */
  mirrored: boolean;
  /** The source's own frame rate when the build resampled it to the database's `fps` (absent otherwise). */
  sourceFps?: number;
  tags: string[];
}

/**
 * Everything the runtime needs, in flat typed arrays (N frames, J joints, S = stride floats per row).
 * The feature matrix `features` is row-major N x S, float32, padded rows (padding is zero), and is
 * what the search kernels read.
 */
export interface Database {
  skeleton: Skeleton;
  /** Bone roles resolved to joint indices (-1 when absent, e.g. no toe joint). */
  roles: Record<BoneRole, number>;
  fps: number;
  frameCount: number;
  clips: ClipRange[];
  /** Local rotations N*J*4 (x, y, z, w). */
  rotations: Float32Array;
  /** Local translations N*J*3 (metres). */
  translations: Float32Array;
  /** Root track: ground position N*3 (metres, world). */
  rootPositions: Float32Array;
  /** Root track: facing rotation about +Y, N*4 quaternions. */
  rootRotations: Float32Array;
  /** CONTACT_LEFT | CONTACT_RIGHT bits per frame. */
  contacts: Uint8Array;
  /** 1 when the frame may be returned by a search, 0 near clip ends. */
  candidates: Uint8Array;
  /** Tag names; bit i of `tagBits[f]` means frame f carries tagNames[i]. */
  tagNames: string[];
  tagBits: Uint32Array;
  schema: FeatureSchema;
  /** Meaningful values per row. */
  dims: number;
  /** Floats per row (dims padded to a multiple of 4). */
  stride: number;
  /** Raw (un-normalised) features N*S. */
  rawFeatures: Float32Array;
  /** Normalised, weighted features N*S: (raw - mean) / scale, padding 0. */
  features: Float32Array;
  /** Per-dimension mean (S; padding 0). */
  mean: Float32Array;
  /** Per-dimension divisor (S; group std / weight; padding 1). */
  scale: Float32Array;
}
