/**
 * The error report: for every frame of every clip and every joint, the virtual-point error
 * (error-metric.ts) of decoded poses against the originals; per clip and overall, the largest and
 * the 99.9th percentile (over joint-frames, each the largest of its three points).
 */
import { parentsFirstOrder, virtualPointError, worldOfJoints } from './error-metric.js';

export interface ErrorFigures {
  /** Metres. */
  max: number;
  p999: number;
}

export interface PoseErrorReport {
  clips: ErrorFigures[];
  overall: ErrorFigures;
}

/** The q-th quantile (0..1) of `values` (sorted in place), nearest rank. */
export function quantile(values: Float64Array, q: number): number {
  if (values.length === 0) return 0;
  values.sort();
  return values[Math.min(values.length - 1, Math.max(0, Math.ceil(q * values.length) - 1))];
}

/**
 * Errors of `decoded` poses against `original` ones (same layout: N frames x J joints, rotations 4
 * and translations 3 floats) over the clips' frame ranges.
 */
export function measurePoseError(
  parents: Int32Array,
  clips: ReadonlyArray<{ start: number; count: number }>,
  original: { rotations: Float32Array; translations: Float32Array },
  decoded: { rotations: Float32Array; translations: Float32Array },
): PoseErrorReport {
  const J = parents.length, order = parentsFirstOrder(parents);
  const aRot = new Float64Array(J * 4), aPos = new Float64Array(J * 3), bRot = new Float64Array(J * 4), bPos = new Float64Array(J * 3);
  const total = clips.reduce((n, c) => n + c.count, 0);
  const all = new Float64Array(total * J);
  let k = 0;
  const perClip = clips.map((c) => {
    const errs = new Float64Array(c.count * J);
    let i = 0;
    for (let f = c.start; f < c.start + c.count; f++) {
      worldOfJoints(parents, order, J, original.rotations, original.translations, f, aRot, aPos, 0);
      worldOfJoints(parents, order, J, decoded.rotations, decoded.translations, f, bRot, bPos, 0);
      for (let j = 0; j < J; j++) errs[i++] = virtualPointError(aRot, aPos, j, bRot, bPos, j);
    }
    all.set(errs, k);
    k += errs.length;
    let max = 0;
    for (const e of errs) max = Math.max(max, e);
    return { max, p999: quantile(errs, 0.999) };
  });
  let max = 0;
  for (const e of all) max = Math.max(max, e);
  return { clips: perClip, overall: { max, p999: quantile(all, 0.999) } };
}
