import { quatInvRotateVec3 } from '../math/quat.js';
import { wrapAngle } from '../math/angle.js';
import { type FeatureSchema, type FeatureGroup, groupColumns } from './schema.js';


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

/** Frames over which the end velocity used for extrapolation is measured (about 0.25 s). */
function extrapolationSpan(m: ClipMotion): number {
  return Math.max(1, Math.min(m.frames - 1, Math.round(0.25 * m.fps)));
}

/**
 * Root position (x, z) and facing (yaw) at integer frame t, which may lie outside the clip.
 * Short clips are the norm in real mocap (a run of 2 s), so clamping future samples at the end
 * would make every clip's last second look like a stop; instead the root keeps the velocity and
 * turning rate it had over its last quarter second (and its first, before the start). Looping
 * clips continue from their start with the cycle's displacement accumulated.
 */
export function rootSampleAt(m: ClipMotion, t: number, out: Float64Array): void {
  const F = m.frames;
  if (t >= 0 && t < F) {
    out[0] = m.rootPos[3 * t]; out[1] = m.rootPos[3 * t + 2]; out[2] = yawOf(m.rootRot, t);
    return;
  }
  if (F < 2) { out[0] = m.rootPos[0]; out[1] = m.rootPos[2]; out[2] = yawOf(m.rootRot, 0); return; }
  const after = t >= F;
  if (m.loop) {
    // One cycle runs from frame 0 to one step past the last frame (which flows into frame 0).
    const k = Math.floor(t / F), local = t - k * F;
    const yaw0 = yawOf(m.rootRot, 0);
    const endX = 2 * m.rootPos[3 * (F - 1)] - m.rootPos[3 * (F - 2)], endZ = 2 * m.rootPos[3 * (F - 1) + 2] - m.rootPos[3 * (F - 2) + 2];
    const endYaw = yawOf(m.rootRot, F - 1) + wrapAngle(yawOf(m.rootRot, F - 1) - yawOf(m.rootRot, F - 2));
    const [cx, cz] = toLocal(endX - m.rootPos[0], endZ - m.rootPos[2], yaw0);
    const cyaw = endYaw - yaw0;
    let x = m.rootPos[0], z = m.rootPos[2], yaw = yaw0;
    for (let i = 0; i < Math.abs(k); i++) {
      if (k > 0) { const [wx, wz] = toWorld(cx, cz, yaw); x += wx; z += wz; yaw += cyaw; }
      else { yaw -= cyaw; const [wx, wz] = toWorld(cx, cz, yaw); x -= wx; z -= wz; }
    }
    const [lx, lz] = toLocal(m.rootPos[3 * local] - m.rootPos[0], m.rootPos[3 * local + 2] - m.rootPos[2], yaw0);
    const [wx, wz] = toWorld(lx, lz, yaw);
    out[0] = x + wx; out[1] = z + wz; out[2] = yaw + (yawOf(m.rootRot, local) - yaw0);
    return;
  }
  const span = extrapolationSpan(m);
  // Edge frame b and a frame `span` inside it; velocity per frame in b's heading, turn per frame.
  const b = after ? F - 1 : 0, a = after ? F - 1 - span : span;
  const per = after ? span : -span;
  const vx = (m.rootPos[3 * b] - m.rootPos[3 * a]) / per, vz = (m.rootPos[3 * b + 2] - m.rootPos[3 * a + 2]) / per;
  const yawB = yawOf(m.rootRot, b);
  const lx = Math.cos(yawB) * vx - Math.sin(yawB) * vz, lz = Math.sin(yawB) * vx + Math.cos(yawB) * vz;
  const yawRate = wrapAngle(yawB - yawOf(m.rootRot, a)) / per;
  const n = after ? t - (F - 1) : -t, dir = after ? 1 : -1;
  let x = m.rootPos[3 * b], z = m.rootPos[3 * b + 2];
  for (let i = 1; i <= n; i++) {
    // An arc, frame by frame: the heading at the step's midpoint carries the edge's local velocity.
    const h = yawB + dir * yawRate * (i - 0.5);
    const c = Math.cos(h), sn = Math.sin(h);
    x += dir * (c * lx + sn * lz); z += dir * (-sn * lx + c * lz);
  }
  out[0] = x; out[1] = z; out[2] = yawB + dir * yawRate * n;
}

/** World (x, z) of a vector given in a frame with heading `yaw`, and back. */
function toWorld(x: number, z: number, yaw: number): [number, number] {
  const c = Math.cos(yaw), s = Math.sin(yaw);
  return [c * x + s * z, -s * x + c * z];
}

function toLocal(x: number, z: number, yaw: number): [number, number] {
  const c = Math.cos(yaw), s = Math.sin(yaw);
  return [c * x - s * z, s * x + c * z];
}

function yawOf(rot: Float64Array, f: number): number {
  const y = rot[4 * f + 1], w = rot[4 * f + 3];
  return 2 * Math.atan2(y, w);
}


const sample = new Float64Array(3);

/**
 * Raw (un-normalised) feature rows of one clip, written to out (frames * stride, starting at row
 * `rowOffset`). Everything is expressed in the frame's root frame; trajectory samples clamp at the
 * clip's ends.
 */
export function extractClipFeatures(
  m: ClipMotion, schema: FeatureSchema, groupBones: readonly (readonly number[])[],
  stride: number, out: Float32Array, rowOffset: number,
): void {
  const v = new Float64Array(3), r = new Float64Array(3);
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
          const yaw0 = yawOf(m.rootRot, f);
          const c = Math.cos(yaw0), sn = Math.sin(yaw0);
          for (const offset of group.offsets ?? []) {
            rootSampleAt(m, f + Math.round(offset * m.fps), sample);
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
