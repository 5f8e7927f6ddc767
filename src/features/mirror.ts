import type { Skeleton } from '../anim/skeleton.js';
import type { Clip } from '../anim/clip.js';
import { mirrorJointMap } from './roles.js';
import { jointNameInfo } from './bone-names.js';
import type { BoneRoles } from './schema.js';
import { quatInvMultiply, quatMultiply } from '../math/quat.js';
import { bestTurnAbout, mat3, mat3AngleBetween, mat3AxisAngle, mat3Diagonal, mat3FromQuat, mat3Multiply, mat3TransposeMultiply, quatFromMat3, type Mat3 } from '../math/mat3.js';

/**
 * Mirroring across the world YZ plane (x negated, S) with left/right joints swapped.
 *
 * A joint's local frame and its partner's are related by an improper orthogonal T_j (det -1): the
 * one that maps the joint's child offsets onto the partner's (o_m(c) = T_j o_c). Then the mirrored
 * world rotation is G'_j = S G_m(j) T_j, which keeps every bone and every twist mirrored, and locally
 *   L'_j = T_pᵀ L_m(j) T_j,   t'_j = T_pᵀ t_m(j)      (T_p = S for the root)
 * where a reflection-rotation-reflection product is again a rotation. Usually T_j reflects one
 * local axis (in the Bandai data the legs mirror in local x, the hips in y, the chest in z), found
 * per joint; a rig whose frames are turned otherwise (bone rolls set by hand) needs a general one.
 */
export interface MirrorSetup {
  partner: Int32Array;
  /** Reflected local axis per joint (0 x, 1 y, 2 z), or GENERAL_REFLECTION: `frames` holds it. */
  axes: Int8Array;
  /**
   * Per joint, the rotation R_j = -T_j as a quaternion (x, y, z, w): a half turn about the axis for
   * a one-axis reflection. With it L'_j = R_pᵀ L_m(j) R_j and t'_j = -R_pᵀ t_m(j).
   */
  frames: Float64Array;
}

/** The axes code of a joint whose reflection is not one local axis's (MirrorSetup.frames holds it). */
export const GENERAL_REFLECTION = 3;
const WORLD_AXIS = 0;
/** R of the world's reflection S (x negated): a half turn about x. */
const WORLD_FRAME = new Float64Array([1, 0, 0, 0]);

/**
 * A reflection fitted from the data within this angle (radians) of the one-axis choice is taken as
 * that one-axis reflection. Rigs set their joint frames in quarter turns; a performer's left/right
 * asymmetry moves the twist fitted from the motion off the rig's own (up to 6.6° on the shared
 * captures, the head), and a rig's left and right bones may differ by a fraction of a degree. An
 * exact convention keeps mirrored bones untwisted on a skinned mesh. The price: a rig whose frames
 * are turned by less than this from a quarter-turn convention is mirrored as that convention.
 */
export const MIRROR_AXIS_SNAP = (15 * Math.PI) / 180;

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

/** The offsets joint j's reflection must map onto its partner's (children, then end sites in order): pairs [own, partner's]. */
function offsetPairs(s: Skeleton, partner: Int32Array, j: number): Array<[number[], number[]]> {
  const pairs: Array<[number[], number[]]> = [];
  const at = (v: Float64Array, i: number): number[] => [v[3 * i], v[3 * i + 1], v[3 * i + 2]];
  for (let c = 0; c < s.names.length; c++) if (s.parents[c] === j) pairs.push([at(s.offsets, c), at(s.offsets, partner[c])]);
  const mine: number[] = [], theirs: number[] = [];
  for (let e = 0; e < s.endSiteParents.length; e++) {
    if (s.endSiteParents[e] === j) mine.push(e);
    if (s.endSiteParents[e] === partner[j]) theirs.push(e);
  }
  for (let i = 0; i < Math.min(mine.length, theirs.length); i++) pairs.push([at(s.endSiteOffsets, mine[i]), at(s.endSiteOffsets, theirs[i])]);
  return pairs.filter(([a, b]) => Math.hypot(a[0], a[1], a[2]) > 0 && Math.hypot(b[0], b[1], b[2]) > 0);
}

const unit = (v: number[]): number[] => { const n = Math.hypot(v[0], v[1], v[2]); return [v[0] / n, v[1] / n, v[2] / n]; };
const cross = (a: number[], b: number[]): number[] => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const dot = (a: number[], b: number[]): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

/** Below this sine two offsets count as one direction: the offsets then leave the twist about it to the motion. */
const COLLINEAR_SINE = 1e-3;

/** The directions the offsets fix: 0, 1 (the longest offset's, returned) or 2 (with the most perpendicular other one). */
function offsetSpan(pairs: Array<[number[], number[]]>): { rank: number; first: number; second: number } {
  if (pairs.length === 0) return { rank: 0, first: -1, second: -1 };
  let first = 0;
  pairs.forEach(([a], i) => { if (dot(a, a) > dot(pairs[first][0], pairs[first][0])) first = i; });
  const u = unit(pairs[first][0]);
  let second = -1, bestSine = COLLINEAR_SINE;
  pairs.forEach(([a], i) => {
    const sine = Math.hypot(...cross(u, unit(a)));
    if (sine > bestSine) { bestSine = sine; second = i; }
  });
  return { rank: second < 0 ? 1 : 2, first, second };
}

/** The improper T with T a1 = b1 and T a2 in the plane of b1, b2 (two offsets fix a reflection: a triad). */
function reflectionOfTwo(a1: number[], a2: number[], b1: number[], b2: number[]): Mat3 {
  const u1 = unit(a1), u2 = unit(a2.map((v, k) => v - dot(a2, u1) * u1[k])), u3 = cross(u1, u2);
  const v1 = unit(b1), v2 = unit(b2.map((v, k) => v - dot(b2, v1) * v1[k])), v3 = cross(v1, v2).map((v) => -v);
  const T = mat3();
  for (let i = 0; i < 3; i++) for (let k = 0; k < 3; k++) T[3 * i + k] = v1[i] * u1[k] + v2[i] * u2[k] + v3[i] * u3[k];
  return T;
}

/** The Householder reflection I - 2 n nᵀ that maps direction a onto direction b. */
function reflectionOfOne(a: number[], b: number[]): Mat3 {
  const ua = unit(a), ub = unit(b);
  let n = ua.map((v, k) => v - ub[k]);
  if (Math.hypot(n[0], n[1], n[2]) < 1e-9) {
    // a = b: any plane through a; the one holding a and the axis least along it.
    const k = [0, 1, 2].reduce((m, i) => (Math.abs(ua[i]) < Math.abs(ua[m]) ? i : m), 0);
    n = cross(ua, [k === 0 ? 1 : 0, k === 1 ? 1 : 0, k === 2 ? 1 : 0]);
  }
  n = unit(n);
  const T = mat3();
  for (let i = 0; i < 3; i++) for (let k = 0; k < 3; k++) T[3 * i + k] = (i === k ? 1 : 0) - 2 * n[i] * n[k];
  return T;
}

const applyMat3 = (m: Mat3, v: number[]): number[] => [0, 1, 2].map((i) => m[3 * i] * v[0] + m[3 * i + 1] * v[1] + m[3 * i + 2] * v[2]);
const angleBetweenDirections = (a: number[], b: number[]): number => Math.acos(Math.max(-1, Math.min(1, dot(unit(a), unit(b)))));

const axisReflection = (axis: number): Mat3 => mat3Diagonal(mat3(), axis === 0 ? -1 : 1, axis === 1 ? -1 : 1, axis === 2 ? -1 : 1);

/**
 * K = Σ L_m(j)ᵀ T_p L_j over every frame: tr(T_jᵀ K) is how alike the mirrored rotations
 * T_pᵀ L_m(j) T_j and the joint's own L_j are, summed (the Frobenius inner product). Local rotations,
 * as transitions blend them (relative to the root instead, a performer's asymmetric poses moved the
 * fits on the shared captures by up to 24°, against 5° here).
 */
function motionMatrix(s: Skeleton, partner: Int32Array, clips: readonly Clip[], j: number, Tp: Mat3): Mat3 {
  const J = s.names.length, K = mat3(), own = mat3(), theirs = mat3(), tmp = mat3(), term = mat3();
  for (const clip of clips) {
    for (let f = 0; f < clip.frameCount; f++) {
      mat3FromQuat(own, clip.rotations, (f * J + j) * 4);
      mat3FromQuat(theirs, clip.rotations, (f * J + partner[j]) * 4);
      mat3TransposeMultiply(term, theirs, mat3Multiply(tmp, Tp, own));
      for (let i = 0; i < 9; i++) K[i] += term[i];
    }
  }
  return K;
}

/** T turned about its own axes (coordinate ascent on tr(Tᵀ K)) until no turn gains: a joint no offset constrains. */
function turnedToMotion(T: Mat3, K: Mat3): Mat3 {
  let cur: Mat3 = Float64Array.from(T), next: Mat3 = mat3();
  const R = mat3(), AXES = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
  for (let round = 0; round < 100; round++) {
    let largest = 0;
    for (const e of AXES) {
      const angle = bestTurnAbout(cur, K, e);
      largest = Math.max(largest, Math.abs(angle));
      mat3Multiply(next, cur, mat3AxisAngle(R, e, angle));
      [cur, next] = [next, cur];
    }
    if (largest < 1e-12) break;
  }
  return cur;
}

/**
 * The reflection of every joint. First the one-axis reflections that map its children's offsets
 * onto its partner's: a joint whose children do not decide (a leaf, or one child on the bone axis,
 * which two reflections fit) is decided by the motion when clips are given: the axis under which
 * the partner's mirrored rotations look most like the joint's own (left and right limbs move alike);
 * otherwise it keeps the parent's axis. The root prefers the world's x. Where no one-axis reflection
 * fits, two offsets give a general one. Where the offsets leave a twist open (one child, or none),
 * the motion fixes it: the twist under which the mirrored rotations look most like the joint's own,
 * kept when it is more than MIRROR_AXIS_SNAP away from the one-axis choice.
 */
function jointReflections(s: Skeleton, partner: Int32Array, clips: readonly Clip[] = []): { axes: Int8Array; frames: Float64Array } {
  const J = s.names.length;
  const axes = new Int8Array(J), frames = new Float64Array(4 * J);
  const reflections: Mat3[] = [];
  const world = axisReflection(WORLD_AXIS);
  for (let j = 0; j < J; j++) {
    const p = s.parents[j];
    const inherited = p < 0 ? WORLD_AXIS : axes[p];
    const parentReflection = p < 0 ? world : reflections[p];
    const errs = [0, 1, 2].map((a) => reflectionError(s, partner, j, a));
    let scale = 1e-12;
    for (let c = 0; c < J; c++) if (s.parents[c] === j) scale += s.offsets[3 * c] ** 2 + s.offsets[3 * c + 1] ** 2 + s.offsets[3 * c + 2] ** 2;
    const best = Math.min(...errs);
    const tol = 1e-6 * scale + 1e-12;
    const pairs = offsetPairs(s, partner, j), span = offsetSpan(pairs);
    const fitting = [0, 1, 2].filter((a) => errs[a] <= best + tol);
    const parentFrame = p < 0 ? WORLD_FRAME : frames.subarray(4 * p, 4 * p + 4);
    axes[j] = fitting.length === 1 ? fitting[0] : clips.length > 0 ? mostAlikeAxis(s, partner, clips, j, inherited, parentFrame, fitting) : fitting.includes(inherited) ? inherited : fitting[0];
    let T = axisReflection(axes[j]);
    // The general reflection the data fixes: two offsets fix it; one offset fixes all but the twist
    // about it, which the motion fixes (the twist under which the mirrored rotations look most like
    // the joint's own), as it fixes all of a joint without offsets. Kept where it is more than
    // MIRROR_AXIS_SNAP away from the one-axis choice; a rig whose left and right bones differ a little
    // (lengths, or directions by a fraction of a degree) keeps its axis.
    let general: Mat3 | null = null;
    if (span.rank === 2) {
      general = reflectionOfTwo(pairs[span.first][0], pairs[span.second][0], pairs[span.first][1], pairs[span.second][1]);
    } else if (clips.length > 0 && p >= 0) {
      // Not for a root: its rotation carries the heading, which the mirror changes, so comparing
      // mirrored and own rotations would prefer a frame facing the original way. A BVH root's rest
      // frame is the world's, which the world's reflection keeps (and a root that never turns would
      // give the motion nothing to tell).
      const K = motionMatrix(s, partner, clips, j, parentReflection);
      if (span.rank === 1) {
        const [a1, b1] = pairs[span.first], d = unit(a1), base = reflectionOfOne(a1, b1);
        general = mat3Multiply(mat3(), base, mat3AxisAngle(mat3(), d, bestTurnAbout(base, K, d)));
      } else {
        general = turnedToMotion(T, K);
      }
    }
    const miss = general ? mat3AngleBetween(T, general) : span.rank === 1 ? angleBetweenDirections(applyMat3(T, pairs[span.first][0]), pairs[span.first][1]) : 0;
    if (miss > MIRROR_AXIS_SNAP) {
      T = general ?? reflectionOfOne(pairs[span.first][0], pairs[span.first][1]);
      axes[j] = GENERAL_REFLECTION;
    }
    reflections[j] = T;
    const R = mat3();
    for (let i = 0; i < 9; i++) R[i] = -T[i];
    quatFromMat3(frames, 4 * j, R);
  }
  return { axes, frames };
}

/** Among `candidates`, the axis whose mirrored partner rotations average closest to joint j's. */
function mostAlikeAxis(s: Skeleton, partner: Int32Array, clips: readonly Clip[], j: number, parentAxis: number, parentFrame: Float64Array, candidates: number[]): number {
  const J = s.names.length;
  const own = new Float64Array(4), q = new Float64Array(4);
  const mirrored = candidates.map(() => new Float64Array(4));
  const frame = new Float64Array(4);
  for (const clip of clips) {
    for (let f = 0; f < clip.frameCount; f++) {
      accumulateAligned(own, clip.rotations, (f * J + j) * 4);
      candidates.forEach((a, i) => {
        axisFrame(frame, 0, a);
        mirrorRotation(q, 0, clip.rotations, (f * J + partner[j]) * 4, parentAxis, parentFrame, 0, a, frame, 0);
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

/** The frames of one-axis reflections (MirrorSetup.frames where no joint is GENERAL_REFLECTION). */
export function framesOfAxes(axes: ArrayLike<number>): Float64Array {
  const frames = new Float64Array(4 * axes.length);
  for (let j = 0; j < axes.length; j++) axisFrame(frames, 4 * j, axes[j]);
  return frames;
}

/** The half turn about `axis` as a quaternion: R = -T of that axis's reflection. */
export function axisFrame(out: Float64Array, o: number, axis: number): void {
  out[o] = axis === 0 ? 1 : 0; out[o + 1] = axis === 1 ? 1 : 0; out[o + 2] = axis === 2 ? 1 : 0; out[o + 3] = 0;
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
  return { partner, ...jointReflections(s, partner, clips) };
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
 * out = T_pᵀ q T_j: the mirrored local rotation of a joint whose reflection is (b, bf) under a parent
 * whose reflection is (pa, pf) (axis codes, and frames R = -T as quaternions). Two one-axis
 * reflections only negate and swap components (reflectRotation); otherwise R_pᵀ q R_j.
 */
function mirrorRotation(out: Float64Array | Float32Array, oo: number, q: ArrayLike<number>, qo: number, pa: number, pf: Float64Array, po: number, b: number, bf: Float64Array, bo: number): void {
  if (pa !== GENERAL_REFLECTION && b !== GENERAL_REFLECTION) { reflectRotation(out, oo, q, qo, pa, b); return; }
  for (let k = 0; k < 4; k++) SOURCE[k] = q[qo + k];
  quatInvMultiply(TURNED, 0, pf, po, SOURCE, 0);
  quatMultiply(TURNED, 0, TURNED, 0, bf, bo);
  for (let k = 0; k < 4; k++) out[oo + k] = TURNED[k];
}
const SOURCE = new Float64Array(4), TURNED = new Float64Array(4);

/** out = T_pᵀ t: a one-axis parent negates its axis; a general one gives -R_pᵀ t. */
function mirrorTranslation(out: Float64Array | Float32Array, oo: number, t: ArrayLike<number>, to: number, pa: number, pf: ArrayLike<number>, po: number): void {
  if (pa !== GENERAL_REFLECTION) {
    for (let k = 0; k < 3; k++) out[oo + k] = (k === pa ? -1 : 1) * t[to + k];
    return;
  }
  // Rᵀ t for unit quaternion r: t - 2w (u x t) + 2 u x (u x t) with u = (x, y, z).
  const x = pf[po], y = pf[po + 1], z = pf[po + 2], w = pf[po + 3];
  const vx = t[to], vy = t[to + 1], vz = t[to + 2];
  const cx = y * vz - z * vy, cy = z * vx - x * vz, cz = x * vy - y * vx;
  const ccx = y * cz - z * cy, ccy = z * cx - x * cz, ccz = x * cy - y * cx;
  out[oo] = -(vx - 2 * w * cx + 2 * ccx);
  out[oo + 1] = -(vy - 2 * w * cy + 2 * ccy);
  out[oo + 2] = -(vz - 2 * w * cz + 2 * ccz);
}

/**
 * Joint j's mirrored local pose from its partner's, read at (rot, ro)/(pos, po) (the frame's first
 * joint) and written at (outRot, oro)/(outPos, opo): one-axis reflections only negate and swap
 * values (exact: float32 in, the same float32 values out); a general one is computed in float64.
 * Called with float32 and with float64 arrays: kept small, so that each caller's loop stays
 * monomorphic around it (one shared loop over both array types ran 1.4-2 times slower).
 */
function mirrorJoint(s: Skeleton, setup: MirrorSetup, j: number, rot: Float32Array | Float64Array, ro: number, pos: Float32Array | Float64Array, po: number, outRot: Float32Array | Float64Array, oro: number, outPos: Float32Array | Float64Array, opo: number): void {
  const src = setup.partner[j], p = s.parents[j];
  const pa = p < 0 ? WORLD_AXIS : setup.axes[p], b = setup.axes[j];
  if (pa !== GENERAL_REFLECTION && b !== GENERAL_REFLECTION) {
    reflectRotation(outRot, oro + 4 * j, rot, ro + 4 * src, pa, b);
    for (let k = 0; k < 3; k++) outPos[opo + 3 * j + k] = (k === pa ? -1 : 1) * pos[po + 3 * src + k];
    return;
  }
  const pf = p < 0 ? WORLD_FRAME : setup.frames, pfo = p < 0 ? 0 : 4 * p;
  mirrorRotation(outRot, oro + 4 * j, rot, ro + 4 * src, pa, pf, pfo, b, setup.frames, 4 * j);
  mirrorTranslation(outPos, opo + 3 * j, pos, po + 3 * src, pa, pf, pfo);
}

/**
 * mirrorClip's poses written straight into float32 arrays: `frames` frames from frame `srcFrame` of
 * rot/pos to frame `dstFrame` of the same arrays (the compact loader, which keeps a database's
 * poses in one pair of float32 arrays). The arithmetic is mirrorClip's (mirrorJoint), so every value
 * is the float32 rounding of the one mirrorClip computes from the same float32 inputs.
 */
export function mirrorFramesInto(s: Skeleton, setup: MirrorSetup, rot: Float32Array, pos: Float32Array, srcFrame: number, dstFrame: number, frames: number): void {
  const J = s.names.length;
  for (let f = 0; f < frames; f++) {
    const sf = srcFrame + f, df = dstFrame + f;
    for (let j = 0; j < J; j++) mirrorJoint(s, setup, j, rot, sf * J * 4, pos, sf * J * 3, rot, df * J * 4, pos, df * J * 3);
  }
}

/** The left/right mirrored copy of a clip (same skeleton, same joint order). */
export function mirrorClip(s: Skeleton, clip: Clip, setup: MirrorSetup = mirrorSetup(s)): Clip {
  const J = s.names.length, F = clip.frameCount;
  const rot = new Float64Array(clip.rotations.length);
  const pos = new Float64Array(clip.translations.length);
  for (let f = 0; f < F; f++) {
    for (let j = 0; j < J; j++) mirrorJoint(s, setup, j, clip.rotations, f * J * 4, clip.translations, f * J * 3, rot, f * J * 4, pos, f * J * 3);
  }
  return { ...clip, name: `${clip.name}_mirror`, rotations: rot, translations: pos, tags: [...clip.tags] };
}
