import { quatInvRotateVec3 } from '../math/quat.js';
import { type FeatureSchema, type FeatureGroup, groupColumns } from './schema.js';
import { ClipRootSampler } from './root-sampler.js';


/** What feature extraction needs about one clip, all in world space, frame-major. */
export interface ClipMotion {
  frames: number;
  fps: number;
  joints: number;
  /** World joint positions frames*J*3 and velocities frames*J*3. */
  worldPos: Float64Array;
  worldVel: Float64Array;
  /** Root track: positions frames*3, yaw rotations frames*4. */
  rootPos: Float64Array;
  rootRot: Float64Array;
  /** Looping clips continue from their start; others are extrapolated past their ends. */
  loop?: boolean;
}

const sample = new Float64Array(3);

/**
 * Raw (un-normalised) feature rows of one clip, written to out (frames * stride, starting at row
 * `rowOffset`). Everything is expressed in the frame's root frame; trajectory samples past the
 * clip's ends continue its root's motion (root-sampler.ts).
 */
export function extractClipFeatures(
  m: ClipMotion, schema: FeatureSchema, groupBones: readonly (readonly number[])[],
  stride: number, out: Float32Array, rowOffset: number,
): void {
  const v = new Float64Array(3), r = new Float64Array(3);
  const root = new ClipRootSampler(m);
  for (let f = 0; f < m.frames; f++) {
    let col = (rowOffset + f) * stride;
    const rr = 4 * f;
    for (let g = 0; g < schema.groups.length; g++) {
      const group: FeatureGroup = schema.groups[g];
      switch (group.kind) {
        case 'bonePosition':
        case 'boneVelocity': {
          const src = group.kind === 'bonePosition' ? m.worldPos : m.worldVel;
          for (const j of groupBones[g]) {
            const o = (f * m.joints + j) * 3;
            if (group.kind === 'bonePosition') {
              v[0] = src[o] - m.rootPos[3 * f]; v[1] = src[o + 1] - m.rootPos[3 * f + 1]; v[2] = src[o + 2] - m.rootPos[3 * f + 2];
            } else {
              v[0] = src[o]; v[1] = src[o + 1]; v[2] = src[o + 2];
            }
            quatInvRotateVec3(r, 0, m.rootRot, rr, v, 0);
            out[col++] = r[0]; out[col++] = r[1]; out[col++] = r[2];
          }
          break;
        }
        case 'trajectoryPosition':
        case 'trajectoryDirection': {
          const yaw0 = root.yaw[f];
          const c = Math.cos(yaw0), sn = Math.sin(yaw0);
          for (const offset of group.offsets ?? []) {
            root.sample(f + Math.round(offset * m.fps), sample);
            if (group.kind === 'trajectoryPosition') {
              // Into the current root frame: rotate by -yaw0 about +Y.
              const dx = sample[0] - m.rootPos[3 * f], dz = sample[1] - m.rootPos[3 * f + 2];
              out[col++] = c * dx - sn * dz; out[col++] = sn * dx + c * dz;
            } else {
              const d = sample[2] - yaw0;
              out[col++] = Math.sin(d); out[col++] = Math.cos(d);
            }
          }
          break;
        }
      }
    }
  }
}



/**
 * Normalisation (docs/features.md): subtract each dimension's mean; divide each group by the mean of its
 * per-dimension standard deviations over its weight. Padding columns get mean 0, scale 1.
 */
export function computeNormalization(raw: Float32Array, rows: number, stride: number, schema: FeatureSchema, outMean: Float32Array, outScale: Float32Array): void {
  const cols = groupColumns(schema);
  const dims = cols.length ? cols[cols.length - 1][1] : 0;
  const mean = new Float64Array(dims), sq = new Float64Array(dims);
  for (let i = 0; i < rows; i++) for (let d = 0; d < dims; d++) mean[d] += raw[i * stride + d];
  for (let d = 0; d < dims; d++) mean[d] /= Math.max(rows, 1);
  for (let i = 0; i < rows; i++) for (let d = 0; d < dims; d++) { const x = raw[i * stride + d] - mean[d]; sq[d] += x * x; }
  outMean.fill(0); outScale.fill(1);
  cols.forEach(([a, b], g) => {
    let std = 0;
    for (let d = a; d < b; d++) std += Math.sqrt(sq[d] / Math.max(rows, 1));
    std = b > a ? std / (b - a) : 0;
    // A constant group (e.g. one clip only) carries no information: keep it at unit scale.
    const groupStd = std > 1e-8 ? std : 1;
    const weight = schema.groups[g].weight;
    for (let d = a; d < b; d++) { outMean[d] = mean[d]; outScale[d] = groupStd / weight; }
  });
}

/** out = (raw - mean) / scale over the meaningful columns, padding zero. */
export function normalizeRows(raw: Float32Array, rows: number, stride: number, dims: number, mean: Float32Array, scale: Float32Array, out: Float32Array): void {
  for (let i = 0; i < rows; i++) {
    const o = i * stride;
    for (let d = 0; d < dims; d++) out[o + d] = (raw[o + d] - mean[d]) / scale[d];
    for (let d = dims; d < stride; d++) out[o + d] = 0;
  }
}
