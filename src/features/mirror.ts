import type { Skeleton } from '../anim/skeleton.js';
import type { Clip } from '../anim/clip.js';
import { mirrorJointMap } from './roles.js';
import { jointNameInfo } from './bone-names.js';
import type { BoneRoles } from './schema.js';

/**
 * Mirroring across the world YZ plane (x negated, S) with left/right joints swapped.
 *
 * A joint's local frame and its partner's are related by a reflection T_j of one local axis: the
 * one that maps the joint's child offsets onto the partner's (o_m(c) = T_j o_c). Real skeletons
 * mix conventions (in the Bandai data the legs mirror in local x, the hips in y, the chest in z),
 * so T_j is found per joint. Then the mirrored world rotation is G'_j = S G_m(j) T_j, which keeps
 * every bone and every twist mirrored, and locally
 *   L'_j = T_p L_m(j) T_j,   t'_j = T_p t_m(j)      (T_p = S for the root)
 * where a reflection-rotation-reflection product is again a rotation.
 */
export interface MirrorSetup {
  partner: Int32Array;
  /** Reflected local axis per joint (0 x, 1 y, 2 z). */
  axes: Int8Array;
}

const WORLD_AXIS = 0;

function reflectionError(s: Skeleton, partner: Int32Array, j: number, axis: number): number {
  let err = 0;
  const J = s.names.length;
  for (let c = 0; c < J; c++) {
    if (s.parents[c] !== j) continue;
    const m = partner[c];
    for (let k = 0; k < 3; k++) {
      const d = s.offsets[3 * m + k] - (k === axis ? -1 : 1) * s.offsets[3 * c + k];
      err += d * d;
    }
  }
  // End sites pair up in order under partner joints.
  const mine: number[] = [], theirs: number[] = [];
  for (let e = 0; e < s.endSiteParents.length; e++) {
    if (s.endSiteParents[e] === j) mine.push(e);
    if (s.endSiteParents[e] === partner[j]) theirs.push(e);
  }
  for (let i = 0; i < Math.min(mine.length, theirs.length); i++) {
    for (let k = 0; k < 3; k++) {
      const d = s.endSiteOffsets[3 * theirs[i] + k] - (k === axis ? -1 : 1) * s.endSiteOffsets[3 * mine[i] + k];
      err += d * d;
    }
  }
  return err;
}

/**
 * The reflected local axis of every joint: the one that best maps its children onto its partner's
 * children. A joint whose children do not decide (a leaf, or one child on the bone axis, which
 * two reflections fit) is decided by the motion when clips are given: the axis under which the
 * partner's mirrored rotations look most like the joint's own (left and right limbs move alike);
 * otherwise it keeps the parent's axis. The root prefers the world's x.
 */
function jointReflectionAxes(s: Skeleton, partner: Int32Array, clips: readonly Clip[] = []): Int8Array {
  const J = s.names.length;
  const axes = new Int8Array(J);
  for (let j = 0; j < J; j++) {
    const inherited = s.parents[j] < 0 ? WORLD_AXIS : axes[s.parents[j]];
    const errs = [0, 1, 2].map((a) => reflectionError(s, partner, j, a));
    let scale = 1e-12;
    for (let c = 0; c < J; c++) if (s.parents[c] === j) scale += s.offsets[3 * c] ** 2 + s.offsets[3 * c + 1] ** 2 + s.offsets[3 * c + 2] ** 2;
    const best = Math.min(...errs);
    const tol = 1e-6 * scale + 1e-12;
    const fitting = [0, 1, 2].filter((a) => errs[a] <= best + tol);
    if (fitting.length === 1) { axes[j] = fitting[0]; continue; }
    axes[j] = clips.length > 0 ? mostAlikeAxis(s, partner, clips, j, inherited, fitting) : fitting.includes(inherited) ? inherited : fitting[0];
  }
  return axes;
}

/** Among `candidates`, the axis whose mirrored partner rotations average closest to joint j's. */
function mostAlikeAxis(s: Skeleton, partner: Int32Array, clips: readonly Clip[], j: number, parentAxis: number, candidates: number[]): number {
  const J = s.names.length;
  const own = new Float64Array(4), q = new Float64Array(4);
  const mirrored = candidates.map(() => new Float64Array(4));
  for (const clip of clips) {
    for (let f = 0; f < clip.frameCount; f++) {
      accumulateAligned(own, clip.rotations, (f * J + j) * 4);
      candidates.forEach((a, i) => {
        reflectRotation(q, 0, clip.rotations, (f * J + partner[j]) * 4, parentAxis, a);
        accumulateAligned(mirrored[i], q, 0);
      });
    }
  }
  let bestAxis = candidates[0], bestDot = -Infinity;
  const on = Math.hypot(own[0], own[1], own[2], own[3]) || 1;
  candidates.forEach((a, i) => {
    const m = mirrored[i], mn = Math.hypot(m[0], m[1], m[2], m[3]) || 1;
    const d = Math.abs(own[0] * m[0] + own[1] * m[1] + own[2] * m[2] + own[3] * m[3]) / (on * mn);
    if (d > bestDot + 1e-9) { bestDot = d; bestAxis = a; }
  });
  return bestAxis;
}

/** acc += q, with q's sign chosen to agree with acc (quaternion averaging). */
function accumulateAligned(acc: Float64Array, q: ArrayLike<number>, o: number): void {
  const d = acc[0] * q[o] + acc[1] * q[o + 1] + acc[2] * q[o + 2] + acc[3] * q[o + 3];
  const sgn = d < 0 ? -1 : 1;
  for (let k = 0; k < 4; k++) acc[k] += sgn * q[o + k];
}

/**
 * Why mirrored copies of this skeleton's clips would be wrong, in one line, or null: the partners
 * come from the joints' names (mirrorJointMap), and a limb without a partner is mirrored in place,
 * its motion reflected on its own side (legs crossing through each other). Names the joints whose
 * names give a side but find no partner, and says so when the two feet are not partners (names
 * that give no side at all).
 */
export function mirrorPairingProblem(s: Skeleton, roles: Pick<BoneRoles, 'leftFoot' | 'rightFoot'>): string | null {
  const partner = mirrorJointMap(s.names), info = jointNameInfo(s.names);
  const unpaired = s.names.filter((_, j) => info[j].side !== 'none' && partner[j] === j);
  const MAX_SHOWN = 6;
  const list = (names: string[]): string => names.slice(0, MAX_SHOWN).map((n) => `'${n.length > 40 ? n.slice(0, 40) + '...' : n}'`).join(', ') + (names.length > MAX_SHOWN ? ` and ${names.length - MAX_SHOWN} more` : '');
  if (unpaired.length > 0) return `${unpaired.length === 1 ? 'joint' : 'joints'} ${list(unpaired)} ${unpaired.length === 1 ? 'names a side but has' : 'name a side but have'} no partner on the other side: the mirrored copies move ${unpaired.length === 1 ? 'it' : 'them'} in place, reflected`;
  const { leftFoot: l, rightFoot: r } = roles;
  if (l >= 0 && r >= 0 && partner[l] !== r) return `the feet ${list([s.names[l]])} and ${list([s.names[r]])} are not left and right of each other by name, so no limb changes sides: the mirrored copies reflect each leg in place`;
  return null;
}

/** Mirroring setup for a skeleton; pass the clips to be mirrored to settle ambiguous joints by their motion. */
export function mirrorSetup(s: Skeleton, clips: readonly Clip[] = []): MirrorSetup {
  const partner = mirrorJointMap(s.names);
  return { partner, axes: jointReflectionAxes(s, partner, clips) };
}

/** out = T_a q T_b for reflections of axes a and b (a rotation). */
function reflectRotation(out: Float64Array | Float32Array, oo: number, q: ArrayLike<number>, qo: number, a: number, b: number): void {
  // T_a q T_a negates the two components other than a; then multiply by T_a T_b, a half turn
  // about the third axis when a != b.
  let x = q[qo], y = q[qo + 1], z = q[qo + 2], w = q[qo + 3];
  if (a !== 0) x = -x;
  if (a !== 1) y = -y;
  if (a !== 2) z = -z;
  if (a !== b) {
    const c = 3 - a - b; // the remaining axis; (x,y,z,w) * unit quaternion along axis c
    let nx: number, ny: number, nz: number, nw: number;
    if (c === 0) { nx = w; ny = z; nz = -y; nw = -x; }
    else if (c === 1) { nx = -z; ny = w; nz = x; nw = -y; }
    else { nx = y; ny = -x; nz = w; nw = -z; }
    x = nx; y = ny; z = nz; w = nw;
  }
  out[oo] = x; out[oo + 1] = y; out[oo + 2] = z; out[oo + 3] = w;
}

/**
 * mirrorClip's poses written straight into float32 arrays: `frames` frames from frame `srcFrame` of
 * rot/pos to frame `dstFrame` of the same arrays (the compact loader, which keeps a database's
 * poses in one pair of float32 arrays). Mirroring only negates and swaps values, so every value is
 * the one mirrorClip computes, and float32 inputs give float32 values exactly.
 */
export function mirrorFramesInto(s: Skeleton, setup: MirrorSetup, rot: Float32Array, pos: Float32Array, srcFrame: number, dstFrame: number, frames: number): void {
  const J = s.names.length;
  for (let f = 0; f < frames; f++) {
    const sf = (srcFrame + f) * J, df = (dstFrame + f) * J;
    for (let j = 0; j < J; j++) {
      const src = setup.partner[j];
      const p = s.parents[j];
      const parentAxis = p < 0 ? WORLD_AXIS : setup.axes[p];
      reflectRotation(rot, (df + j) * 4, rot, (sf + src) * 4, parentAxis, setup.axes[j]);
      for (let k = 0; k < 3; k++) pos[(df + j) * 3 + k] = (k === parentAxis ? -1 : 1) * pos[(sf + src) * 3 + k];
    }
  }
}

/** The left/right mirrored copy of a clip (same skeleton, same joint order). */
export function mirrorClip(s: Skeleton, clip: Clip, setup: MirrorSetup = mirrorSetup(s)): Clip {
  const J = s.names.length, F = clip.frameCount;
  const rot = new Float64Array(clip.rotations.length);
  const pos = new Float64Array(clip.translations.length);
  for (let f = 0; f < F; f++) {
    for (let j = 0; j < J; j++) {
      const src = setup.partner[j];
      const p = s.parents[j];
      const parentAxis = p < 0 ? WORLD_AXIS : setup.axes[p];
      reflectRotation(rot, (f * J + j) * 4, clip.rotations, (f * J + src) * 4, parentAxis, setup.axes[j]);
      for (let k = 0; k < 3; k++) pos[(f * J + j) * 3 + k] = (k === parentAxis ? -1 : 1) * clip.translations[(f * J + src) * 3 + k];
    }
  }
  return { ...clip, name: `${clip.name}_mirror`, rotations: rot, translations: pos, tags: [...clip.tags] };
}
