import type { Skeleton } from '../anim/skeleton.js';
import { quatInvRotateVec3, quatRotateVec3 } from '../math/quat.js';
import type { BoneRoles } from './roles.js';
import { type FeatureSchema, type FeatureGroup, groupWidth } from './schema.js';

/** Resolves a schema bone (a role such as "leftFoot", or a joint name) to a joint index. */
export function resolveSchemaBone(bone: string, skeleton: Skeleton, roles: BoneRoles): number {
  if (bone in roles) {
    const j = roles[bone as keyof BoneRoles];
    if (j < 0) throw new RangeError(`feature schema uses bone role "${bone}", which this skeleton lacks`);
    return j;
  }
  const j = skeleton.names.indexOf(bone);
  if (j < 0) throw new RangeError(`feature schema names bone "${bone}", which is neither a role (${Object.keys(roles).join(', ')}) nor a joint of this skeleton`);
  return j;
}

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
}

const FORWARD = [0, 0, 1];

/**
 * Raw (un-normalised) feature rows of one clip, written to out (frames * stride, starting at row
 * `rowOffset`). Everything is expressed in the frame's root frame; trajectory samples clamp at the
 * clip's ends.
 */
export function extractClipFeatures(
  m: ClipMotion, schema: FeatureSchema, groupBones: readonly (readonly number[])[],
  stride: number, out: Float32Array, rowOffset: number,
): void {
  const v = [0, 0, 0], r = [0, 0, 0];
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
          for (const offset of group.offsets ?? []) {
            const t = Math.min(m.frames - 1, Math.max(0, f + Math.round(offset * m.fps)));
            if (group.kind === 'trajectoryPosition') {
              v[0] = m.rootPos[3 * t] - m.rootPos[3 * f]; v[1] = 0; v[2] = m.rootPos[3 * t + 2] - m.rootPos[3 * f + 2];
            } else {
              quatRotateVec3(v, 0, m.rootRot, 4 * t, FORWARD, 0);
            }
            quatInvRotateVec3(r, 0, m.rootRot, rr, v, 0);
            out[col++] = r[0]; out[col++] = r[2];
          }
          break;
        }
      }
    }
  }
}

/** Per-group joint lists for a schema (empty for trajectory groups). */
export function schemaGroupBones(schema: FeatureSchema, skeleton: Skeleton, roles: BoneRoles): number[][] {
  return schema.groups.map((g) => (g.bones ?? []).map((b) => resolveSchemaBone(b, skeleton, roles)));
}

/** Column range [start, end) of each group in a row. */
export function groupColumns(schema: FeatureSchema): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let c = 0;
  for (const g of schema.groups) { const w = groupWidth(g); out.push([c, c + w]); c += w; }
  return out;
}

/**
 * Normalisation (GUIDE §2): subtract each dimension's mean; divide each group by the mean of its
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
