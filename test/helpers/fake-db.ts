/**
 * A minimal Database for search tests: only the search fields are meaningful (features,
 * candidates, tags, mean / scale, clips); animation arrays are empty.
 */
import type { Database, ClipRange } from '../../src/database/database.js';
import { DEFAULT_SCHEMA, paddedStride } from '../../src/features/schema.js';

export interface FakeDbOptions {
  /** 1 / 0 per frame; default all candidates. */
  candidates?: Uint8Array;
  tagNames?: string[];
  tagBits?: Uint32Array;
  /** Clip lengths in frames (must sum to the row count); default one clip. */
  clipLengths?: number[];
  fps?: number;
  /** Compute mean / per-dimension std and normalise; default false (mean 0, scale 1). */
  normalize?: boolean;
}

/** Builds a Database from raw rows (rows x dims floats, unpadded). */
export function makeFakeDb(raw: ArrayLike<number>, dims: number, opts: FakeDbOptions = {}): Database {
  const rows = Math.floor(raw.length / dims);
  const stride = paddedStride(dims);
  const mean = new Float32Array(stride);
  const scale = new Float32Array(stride).fill(1);
  if (opts.normalize) {
    for (let j = 0; j < dims; j++) {
      let s = 0;
      for (let i = 0; i < rows; i++) s += raw[i * dims + j];
      const m = rows ? s / rows : 0;
      let v = 0;
      for (let i = 0; i < rows; i++) v += (raw[i * dims + j] - m) ** 2;
      const sd = rows ? Math.sqrt(v / rows) : 1;
      mean[j] = m;
      scale[j] = sd > 1e-6 ? sd : 1;
    }
  }
  const rawFeatures = new Float32Array(rows * stride);
  const features = new Float32Array(rows * stride);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < dims; j++) {
      const v = raw[i * dims + j];
      rawFeatures[i * stride + j] = v;
      features[i * stride + j] = (v - mean[j]) / scale[j];
    }
  }
  const lengths = opts.clipLengths ?? [rows];
  const clips: ClipRange[] = [];
  let start = 0;
  lengths.forEach((count, k) => {
    clips.push({ name: `clip${k}`, source: `clip${k}.bvh`, start, count, loop: false, mirrored: false, tags: [] });
    start += count;
  });
  if (start !== rows) throw new Error(`clip lengths sum to ${start}, not ${rows}`);
  return {
    skeleton: {
      names: ['Hips'],
      parents: new Int32Array([-1]),
      offsets: new Float64Array(3),
      endSiteParents: new Int32Array(0),
      endSiteOffsets: new Float64Array(0),
    },
    roles: { hips: 0, leftFoot: -1, rightFoot: -1, leftToe: -1, rightToe: -1 },
    fps: opts.fps ?? 30,
    frameCount: rows,
    clips,
    rotations: new Float32Array(0),
    translations: new Float32Array(0),
    rootPositions: new Float32Array(0),
    rootRotations: new Float32Array(0),
    contacts: new Uint8Array(rows),
    candidates: opts.candidates ?? new Uint8Array(rows).fill(1),
    tagNames: opts.tagNames ?? [],
    tagBits: opts.tagBits ?? new Uint32Array(rows),
    schema: DEFAULT_SCHEMA,
    dims,
    stride,
    rawFeatures,
    features,
    mean,
    scale,
  };
}

/** Deterministic PRNG and normal samples for test data (the project's own). */
import { createRandom as rng, gaussian as gauss } from '../../src/util/prng.js';
export { rng, gauss };
