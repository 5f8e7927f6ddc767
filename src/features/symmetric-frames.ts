import type { Skeleton } from '../anim/skeleton.js';
import type { Clip } from '../anim/clip.js';
import { mirrorJointMap } from './roles.js';

/**
 * Many rigs give left and right limbs joint frames that are not mirror images of each other
 * (Maya-style rigs flip the right chain's x axis, so the right arm's rest direction is -x where the
 * left's is +x). Motion mirrored onto such a skeleton is geometrically right, but its local
 * rotations sit half a turn away from the clips it will be blended or inertialized with, and a
 * transition then swings the limb the long way round.
 *
 * This re-expresses each right-side joint in a frame turned by a constant half turn (or none),
 * K_j, chosen so that every left/right pair relates by the same reflection as the body's centre
 * joint above them. World positions are unchanged:
 *   offsets o~_j = K_p o_j,  translations t~_j = K_p t_j,  rotations L~_j = K_p L_j K_j
 * (K is its own inverse). Where the offsets do not decide K (a hand with no child offset, a bone
 * along the axis), the motion decides: the choice under which the mirrored right side moves most
 * like the left.
 */
export interface SymmetricFrames {
  skeleton: Skeleton;
  clips: Clip[];
  /** The half turn applied to each joint's frame: 0 none, 1/2/3 about x/y/z. */
  turns: Int8Array;
}

/** Diagonal sign matrix of a reflection of axis a (0..2), or -I (3). */
const REFLECTIONS: ReadonlyArray<readonly [number, number, number]> = [[-1, 1, 1], [1, -1, 1], [1, 1, -1], [-1, -1, -1]];
/** Diagonal sign matrix of turn t: none, half turn about x, y, z. */
const TURNS: ReadonlyArray<readonly [number, number, number]> = [[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]];

function turnOfSigns(s: readonly number[]): number {
  return TURNS.findIndex((t) => t[0] === s[0] && t[1] === s[1] && t[2] === s[2]);
}

function childOffsets(s: Skeleton, offsets: Float64Array, j: number): number[][] {
  const out: number[][] = [];
  for (let c = 0; c < s.names.length; c++) if (s.parents[c] === j) out.push([c, offsets[3 * c], offsets[3 * c + 1], offsets[3 * c + 2]]);
  return out;
}

/** How well reflection r maps joint a's children onto their partners, as a squared error. */
function relationError(s: Skeleton, offsets: Float64Array, partner: Int32Array, a: number, r: readonly number[]): number {
  let err = 0;
  for (const [c, x, y, z] of childOffsets(s, offsets, a)) {
    const m = partner[c];
    err += (offsets[3 * m] - r[0] * x) ** 2 + (offsets[3 * m + 1] - r[1] * y) ** 2 + (offsets[3 * m + 2] - r[2] * z) ** 2;
  }
  return err;
}

function scaleOf(s: Skeleton, offsets: Float64Array, j: number): number {
  let sum = 1e-12;
  for (const [, x, y, z] of childOffsets(s, offsets, j)) sum += x * x + y * y + z * z;
  return sum;
}

/** q' = D_a q D_b for diagonal sign matrices with det +1 or -1 pairs giving a rotation. */
function conjugate(out: Float64Array, q: ArrayLike<number>, qo: number, a: readonly number[], b: readonly number[]): void {
  // Build the rotation matrix, apply the signs, convert back (robust for any sign pattern).
  const x = q[qo], y = q[qo + 1], z = q[qo + 2], w = q[qo + 3];
  const m = [
    1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
  ];
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) m[3 * r + c] *= a[r] * b[c];
  matrixToQuat(out, m);
}

function matrixToQuat(out: Float64Array, m: number[]): void {
  const tr = m[0] + m[4] + m[8];
  let x: number, y: number, z: number, w: number;
  if (tr > 0) {
    const s = Math.sqrt(tr + 1) * 2;
    w = 0.25 * s; x = (m[7] - m[5]) / s; y = (m[2] - m[6]) / s; z = (m[3] - m[1]) / s;
  } else if (m[0] > m[4] && m[0] > m[8]) {
    const s = Math.sqrt(1 + m[0] - m[4] - m[8]) * 2;
    w = (m[7] - m[5]) / s; x = 0.25 * s; y = (m[1] + m[3]) / s; z = (m[2] + m[6]) / s;
  } else if (m[4] > m[8]) {
    const s = Math.sqrt(1 + m[4] - m[0] - m[8]) * 2;
    w = (m[2] - m[6]) / s; x = (m[1] + m[3]) / s; y = 0.25 * s; z = (m[5] + m[7]) / s;
  } else {
    const s = Math.sqrt(1 + m[8] - m[0] - m[4]) * 2;
    w = (m[3] - m[1]) / s; x = (m[2] + m[6]) / s; y = (m[5] + m[7]) / s; z = 0.25 * s;
  }
  const n = Math.hypot(x, y, z, w);
  out[0] = x / n; out[1] = y / n; out[2] = z / n; out[3] = w / n;
}

function accumulateAligned(acc: Float64Array, q: ArrayLike<number>, o: number): void {
  const d = acc[0] * q[o] + acc[1] * q[o + 1] + acc[2] * q[o + 2] + acc[3] * q[o + 3];
  const sgn = d < 0 ? -1 : 1;
  for (let k = 0; k < 4; k++) acc[k] += sgn * q[o + k];
}

function alignment(a: Float64Array, b: Float64Array): number {
  return Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]) / ((Math.hypot(a[0], a[1], a[2], a[3]) || 1) * (Math.hypot(b[0], b[1], b[2], b[3]) || 1));
}

/** Re-expresses right-side joint frames so that left and right are mirror images; see the module comment. */
export function symmetrizeJointFrames(s: Skeleton, clips: readonly Clip[]): SymmetricFrames {
  const J = s.names.length;
  const partner = mirrorJointMap(s.names);
  const turns = new Int8Array(J);
  // Relation (reflection index into REFLECTIONS) of each centre joint, inherited by the sides below.
  const relation = new Int8Array(J);
  const offsets = Float64Array.from(s.offsets);
  const q = new Float64Array(4);
  for (let j = 0; j < J; j++) {
    const p = s.parents[j];
    const kp = p >= 0 ? TURNS[turns[p]] : TURNS[0];
    // The incoming offset is now expressed in the parent's corrected frame.
    for (let k = 0; k < 3; k++) offsets[3 * j + k] *= kp[k];
    const inherited = p >= 0 ? relation[p] : 0;
    const m = partner[j];
    if (m === j) {
      // Centre joint: its own children decide its relation; ties keep the parent's.
      const errs = [0, 1, 2].map((a) => relationError(s, offsets, partner, j, REFLECTIONS[a]));
      const best = Math.min(...errs), tol = 1e-6 * scaleOf(s, offsets, j) + 1e-12;
      relation[j] = errs[inherited] <= best + tol ? inherited : errs.indexOf(best);
      continue;
    }
    relation[j] = inherited;
    if (m > j) continue; // the first of a pair (usually the left) keeps its frame
    // Second of the pair: children offsets of the partner (already final) against ours (raw frame).
    const T = REFLECTIONS[inherited];
    const errs = REFLECTIONS.map((r) => relationError(s, offsets, partner, m, r));
    const best = Math.min(...errs), tol = 1e-6 * scaleOf(s, offsets, m) + 1e-12;
    const fitting = [0, 1, 2, 3].filter((r) => errs[r] <= best + tol);
    const candidates = fitting.map((r) => turnOfSigns([REFLECTIONS[r][0] * T[0], REFLECTIONS[r][1] * T[1], REFLECTIONS[r][2] * T[2]])).filter((t) => t >= 0);
    if (candidates.length === 0) continue;
    let chosen = candidates[0];
    if (candidates.length > 1 && clips.length > 0) {
      // The motion decides: the mirrored right side should move like the left.
      const left = new Float64Array(4);
      const mirrored = candidates.map(() => new Float64Array(4));
      for (const clip of clips) {
        for (let f = 0; f < clip.frameCount; f++) {
          accumulateAligned(left, clip.rotations, (f * J + m) * 4);
          candidates.forEach((t, i) => {
            const K = TURNS[t];
            conjugate(q, clip.rotations, (f * J + j) * 4, kp, K); // L~ = K_p L K
            conjugate(q, q, 0, T, T); // its mirror image on the left
            accumulateAligned(mirrored[i], q, 0);
          });
        }
      }
      let bestAlign = -1;
      candidates.forEach((t, i) => { const a = alignment(left, mirrored[i]); if (a > bestAlign + 1e-9) { bestAlign = a; chosen = t; } });
    } else if (candidates.includes(0)) {
      chosen = 0;
    }
    turns[j] = chosen;
  }
  // Children offsets of turned joints were read raw above; now that every K is known, finish.
  const outOffsets = new Float64Array(J * 3);
  for (let j = 0; j < J; j++) {
    const kp = s.parents[j] >= 0 ? TURNS[turns[s.parents[j]]] : TURNS[0];
    for (let k = 0; k < 3; k++) outOffsets[3 * j + k] = kp[k] * s.offsets[3 * j + k];
  }
  const endSiteOffsets = new Float64Array(s.endSiteOffsets.length);
  for (let e = 0; e < s.endSiteParents.length; e++) {
    const kp = TURNS[turns[s.endSiteParents[e]]];
    for (let k = 0; k < 3; k++) endSiteOffsets[3 * e + k] = kp[k] * s.endSiteOffsets[3 * e + k];
  }
  const skeleton: Skeleton = { ...s, offsets: outOffsets, endSiteOffsets };
  if (turns.every((t) => t === 0)) return { skeleton: s, clips: [...clips], turns };
  const out = clips.map((clip) => {
    const rotations = new Float64Array(clip.rotations.length);
    const translations = new Float64Array(clip.translations.length);
    for (let f = 0; f < clip.frameCount; f++) {
      for (let j = 0; j < J; j++) {
        const kp = s.parents[j] >= 0 ? TURNS[turns[s.parents[j]]] : TURNS[0];
        conjugate(q, clip.rotations, (f * J + j) * 4, kp, TURNS[turns[j]]);
        rotations.set(q, (f * J + j) * 4);
        for (let k = 0; k < 3; k++) translations[(f * J + j) * 3 + k] = kp[k] * clip.translations[(f * J + j) * 3 + k];
      }
    }
    return { ...clip, rotations, translations };
  });
  return { skeleton, clips: out, turns };
}
