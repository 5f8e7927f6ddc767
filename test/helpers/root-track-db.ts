/**
 * A database made only of root tracks: each clip is a list of root positions along z (and x),
 * the body a still biped carried by them. For testing root motion through the controller, where the
 * pose does not matter and every number of the root track does.
 */
import type { Database, ClipRange } from '../../src/database/database.js';
import { DEFAULT_SCHEMA, paddedStride, schemaDims } from '../../src/features/schema.js';
import { bipedSkeleton } from './skeletons.js';

export interface RootTrackClip {
  /** Root position per frame (x, z); y is 0. */
  x?: number[];
  z: number[];
  loop?: boolean;
}

export function makeRootTrackDatabase(clips: RootTrackClip[], fps: number): Database {
  const skeleton = bipedSkeleton();
  const J = skeleton.names.length, N = clips.reduce((n, c) => n + c.z.length, 0);
  const dims = schemaDims(DEFAULT_SCHEMA), stride = paddedStride(dims);
  const rotations = new Float32Array(N * J * 4), translations = new Float32Array(N * J * 3);
  const rootPositions = new Float32Array(N * 3), rootRotations = new Float32Array(N * 4);
  const ranges: ClipRange[] = [];
  let f = 0;
  clips.forEach((c, i) => {
    ranges.push({ name: `clip${i}`, source: `clip${i}.bvh`, start: f, count: c.z.length, loop: c.loop ?? false, mirrored: false, tags: [] });
    for (let k = 0; k < c.z.length; k++, f++) {
      const x = c.x?.[k] ?? 0, z = c.z[k];
      for (let j = 0; j < J; j++) {
        rotations[(f * J + j) * 4 + 3] = 1;
        for (let d = 0; d < 3; d++) translations[(f * J + j) * 3 + d] = skeleton.offsets[3 * j + d];
      }
      // The reference root joint carries the clip's placement (as in much real mocap).
      translations[f * J * 3] = x; translations[f * J * 3 + 2] = z;
      rootPositions[3 * f] = x; rootPositions[3 * f + 2] = z;
      rootRotations[4 * f + 3] = 1;
    }
  });
  return {
    skeleton,
    roles: { hips: 1, leftFoot: 5, rightFoot: 9, leftToe: 6, rightToe: 10 },
    fps, frameCount: N, clips: ranges,
    rotations, translations, rootPositions, rootRotations,
    contacts: new Uint8Array(N), candidates: new Uint8Array(N).fill(1),
    tagNames: [], tagBits: new Uint32Array(N),
    schema: DEFAULT_SCHEMA, dims, stride,
    rawFeatures: new Float32Array(N * stride), features: new Float32Array(N * stride),
    mean: new Float32Array(stride), scale: new Float32Array(stride).fill(1),
  };
}
