/**
 * BVH writer: Skeleton + Clip (metres, unit quaternions) to standard BVH text.
 *
 * Layout chosen so that both translation conventions read the file the same way:
 *   - the root has OFFSET 0 0 0 and 6 channels (Xposition Yposition Zposition + 3 rotations), so
 *     "OFFSET + channels" (three.js BVHLoader) and "channels replace OFFSET" (our default, Blender)
 *     agree on the root translation. The skeleton's rest offset of the root is therefore not
 *     written (the per-frame root translation carries the position);
 *   - other joints have 3 rotation channels and OFFSET = the skeleton's rest offset, or 6 channels
 *     when their translation differs from the rest offset on some frame (stretchy or translating
 *     bones). Such position channels hold the full local translation ('replace' convention), which
 *     three.js would add to the OFFSET: only files with animated non-root translations are affected.
 *   - joints are written depth-first (the only order BVH can express); a skeleton that is
 *     parents-first but not depth-first comes back re-ordered, with the same names.
 *   - End Sites come from the skeleton's end sites, after the joint's child joints.
 */
import type { Skeleton } from '../../anim/skeleton.js';
import { validateSkeleton } from '../../anim/skeleton.js';
import type { Clip } from '../../anim/clip.js';
import type { Buf } from '../../math/quat.js';

export type EulerOrder = 'XYZ' | 'XZY' | 'YXZ' | 'YZX' | 'ZXY' | 'ZYX';

export const EULER_ORDERS: readonly EulerOrder[] = ['XYZ', 'XZY', 'YXZ', 'YZX', 'ZXY', 'ZYX'];

export interface WriteBvhOptions {
  /** Rotation channel order for every joint (default 'ZXY', the most common in mocap files). */
  order?: EulerOrder;
  /** File units per metre (default 100: centimetres). */
  unitScale?: number;
  /** Digits after the decimal point for values (default 6; trailing zeros are dropped). */
  precision?: number;
}

/**
 * Euler angles (radians) of a unit quaternion for an intrinsic order: with order "ABC",
 * q = qA(out[oo]) * qB(out[oo + 1]) * qC(out[oo + 2]), the convention of BVH channel lists.
 * The middle angle is in [-pi/2, pi/2]; at gimbal lock (middle angle +-90 degrees) the third angle
 * is set to 0 and the first carries the whole remaining rotation.
 */
export function quatToEulerOrder(out: Buf, oo: number, q: Buf, qo: number, order: EulerOrder): Buf {
  let x = q[qo], y = q[qo + 1], z = q[qo + 2], w = q[qo + 3];
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  if (len > 0) { x /= len; y /= len; z /= len; w /= len; } else { w = 1; }
  // Rotation matrix (column vectors), m[r][c] at m[3 * r + c].
  const m = [
    1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
    2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
    2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
  ];
  const i = order.charCodeAt(0) - 88, j = order.charCodeAt(1) - 88, k = order.charCodeAt(2) - 88;
  // s = +1 for cyclic orders (XYZ, YZX, ZXY), -1 for the others: e_i x e_j = s e_k.
  const s = (j - i + 3) % 3 === 1 ? 1 : -1;
  const R = (r: number, c: number): number => m[3 * r + c];
  const cosB = Math.sqrt(R(i, i) * R(i, i) + R(i, j) * R(i, j));
  const b = Math.atan2(s * R(i, k), cosB);
  let a: number, c: number;
  if (cosB > 1e-7) {
    a = Math.atan2(-s * R(j, k), R(k, k));
    c = Math.atan2(-s * R(i, j), R(i, i));
  } else {
    c = 0;
    a = Math.atan2(s * R(k, j), R(j, j));
  }
  out[oo] = a; out[oo + 1] = b; out[oo + 2] = c;
  return out;
}

function formatter(precision: number): (v: number) => string {
  return (v: number): string => {
    let t = v.toFixed(precision);
    if (precision > 0 && t.indexOf('e') < 0) {
      let e = t.length;
      while (t.charCodeAt(e - 1) === 48) e--;
      if (t.charCodeAt(e - 1) === 46) e--;
      t = t.slice(0, e);
    }
    return t === '-0' ? '0' : t;
  };
}

/** Joint names usable in BVH: no whitespace or braces (replaced by '_'), never empty. */
function bvhNames(names: readonly string[]): string[] {
  const out = names.map((n, j) => {
    const t = n.replace(/[\s{}]+/g, '_');
    return t.length > 0 ? t : `joint${j}`;
  });
  const seen = new Map<string, number>();
  out.forEach((n, j) => {
    const prev = seen.get(n);
    if (prev !== undefined) throw new RangeError(`writeBvh: joints ${prev} (${names[prev]}) and ${j} (${names[j]}) have the same BVH name '${n}'`);
    seen.set(n, j);
  });
  return out;
}

/** Serializes a skeleton and clip as BVH text (see the module comment for the layout). */
export function writeBvh(skeleton: Skeleton, clip: Clip, options: WriteBvhOptions = {}): string {
  const order = options.order ?? 'ZXY';
  if (!EULER_ORDERS.includes(order)) throw new RangeError(`writeBvh: order must be one of ${EULER_ORDERS.join(', ')}, got ${String(order)}`);
  const unitScale = options.unitScale ?? 100;
  if (!(Number.isFinite(unitScale) && unitScale > 0)) throw new RangeError(`writeBvh: unitScale must be a finite number > 0, got ${unitScale}`);
  const precision = options.precision ?? 6;
  if (!(Number.isInteger(precision) && precision >= 0 && precision <= 15)) throw new RangeError(`writeBvh: precision must be an integer from 0 to 15, got ${precision}`);
  validateSkeleton(skeleton);
  const J = skeleton.names.length, F = clip.frameCount;
  if (!(Number.isInteger(F) && F >= 1)) throw new RangeError(`writeBvh: clip ${clip.name} has ${F} frames; BVH needs at least one`);
  if (clip.rotations.length !== F * J * 4 || clip.translations.length !== F * J * 3) {
    throw new RangeError(`writeBvh: clip ${clip.name} arrays do not match ${F} frames of ${J} joints`);
  }
  if (!(Number.isFinite(clip.fps) && clip.fps > 0)) throw new RangeError(`writeBvh: clip fps must be finite and > 0, got ${clip.fps}`);

  const fmt = formatter(precision);
  const names = bvhNames(skeleton.names);
  const { parents, offsets, endSiteParents, endSiteOffsets } = skeleton;
  const children: number[][] = Array.from({ length: J }, () => []);
  for (let j = 1; j < J; j++) children[parents[j]].push(j);
  const endSites: number[][] = Array.from({ length: J }, () => []);
  for (let e = 0; e < endSiteParents.length; e++) endSites[endSiteParents[e]].push(e);

  // Position channels: always on the root; elsewhere only when the translation leaves the rest offset
  // by more than what the chosen precision can show.
  const tol = 0.5 * Math.pow(10, -precision) / unitScale;
  const hasPos = new Uint8Array(J);
  hasPos[0] = 1;
  const tr = clip.translations;
  for (let j = 1; j < J; j++) {
    for (let f = 0; f < F && !hasPos[j]; f++) {
      const b = (f * J + j) * 3;
      if (Math.abs(tr[b] - offsets[3 * j]) > tol || Math.abs(tr[b + 1] - offsets[3 * j + 1]) > tol || Math.abs(tr[b + 2] - offsets[3 * j + 2]) > tol) hasPos[j] = 1;
    }
  }

  const rotChannels = [...order].map((a) => `${a}rotation`).join(' ');
  const lines: string[] = ['HIERARCHY'];
  const dfs: number[] = [];
  // Iterative depth-first emission: [joint, next child index].
  const stack: [number, number][] = [[0, 0]];
  const open = (j: number, depth: number): void => {
    const ind = '\t'.repeat(depth);
    lines.push(`${ind}${j === 0 ? 'ROOT' : 'JOINT'} ${names[j]}`, `${ind}{`);
    const o = j === 0 ? [0, 0, 0] : [offsets[3 * j] * unitScale, offsets[3 * j + 1] * unitScale, offsets[3 * j + 2] * unitScale];
    lines.push(`${ind}\tOFFSET ${fmt(o[0])} ${fmt(o[1])} ${fmt(o[2])}`);
    lines.push(hasPos[j] ? `${ind}\tCHANNELS 6 Xposition Yposition Zposition ${rotChannels}` : `${ind}\tCHANNELS 3 ${rotChannels}`);
    dfs.push(j);
  };
  open(0, 0);
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const [j, ci] = top;
    const depth = stack.length;
    if (ci < children[j].length) {
      top[1]++;
      const c = children[j][ci];
      open(c, depth);
      stack.push([c, 0]);
      continue;
    }
    const ind = '\t'.repeat(depth);
    for (const e of endSites[j]) {
      lines.push(`${ind}End Site`, `${ind}{`,
        `${ind}\tOFFSET ${fmt(endSiteOffsets[3 * e] * unitScale)} ${fmt(endSiteOffsets[3 * e + 1] * unitScale)} ${fmt(endSiteOffsets[3 * e + 2] * unitScale)}`,
        `${ind}}`);
    }
    lines.push(`${'\t'.repeat(depth - 1)}}`);
    stack.pop();
  }

  lines.push('MOTION', `Frames: ${F}`, `Frame Time: ${String(1 / clip.fps)}`);
  const RAD_TO_DEG = 180 / Math.PI;
  const eul = new Float64Array(3);
  const row: string[] = [];
  for (let f = 0; f < F; f++) {
    row.length = 0;
    for (const j of dfs) {
      if (hasPos[j]) {
        const b = (f * J + j) * 3;
        row.push(fmt(tr[b] * unitScale), fmt(tr[b + 1] * unitScale), fmt(tr[b + 2] * unitScale));
      }
      quatToEulerOrder(eul, 0, clip.rotations, (f * J + j) * 4, order);
      row.push(fmt(eul[0] * RAD_TO_DEG), fmt(eul[1] * RAD_TO_DEG), fmt(eul[2] * RAD_TO_DEG));
    }
    lines.push(row.join(' '));
  }
  return lines.join('\n') + '\n';
}
