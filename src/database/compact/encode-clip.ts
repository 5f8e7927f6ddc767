/**
 * Compressing one clip's pose tracks (layout in clip-layout.ts), ACL's way:
 *  1. tracks that never move are stored once (or not at all: rest offsets, identity rotations);
 *  2. the others are range-reduced per clip and per segment of SEGMENT_FRAMES frames;
 *  3. per segment, every component of every track starts at a safe bit rate and all are lowered one
 *     level at a time, leaves first, round after round; a step is kept only while the virtual
 *     points of the track's joint and of every joint below it stay within the error bound
 *     (error-metric.ts). The error is measured on the values the decoder will produce, so the
 *     bound holds for the file.
 */
import { LEVEL_BITS, RAW_LEVEL, SEGMENT_FRAMES, START_LEVEL } from './bit-rates.js';
import { BitWriter, bitsFromFloat } from './bit-stream.js';
import { align4, LEVEL_FIELD_BITS, readClipHeader, segmentCount, TRACK_ANIMATED, TRACK_ANIMATED_DROP_X, TRACK_CONSTANT, TRACK_DEFAULT, droppedComponent, type ClipHeader } from './clip-layout.js';
import { ERROR_THRESHOLD, parentsFirstOrder, subtrees, virtualPointErrorSquared, worldOfJoints } from './error-metric.js';
import { completeRotation, normaliseInClip, quantiseSample, segmentBase, segmentRangeOf, segmentStep, STORED_COMPONENTS } from './quantise.js';

/** A track whose values never move further than this from its first frame's is constant (exactly, for captures). */
export const CONSTANT_TOLERANCE = 1e-6;

export interface ClipPoses {
  parents: Int32Array;
  restOffsets: ArrayLike<number>;
  frames: number;
  /** frames * J * 4 and frames * J * 3, frame-major. */
  rotations: Float32Array;
  translations: Float32Array;
}

/** The clip's rotations with w >= 0 (q and -q are one rotation). */
function signFixedRotations(rot: Float32Array): Float32Array {
  const out = new Float32Array(rot);
  for (let o = 0; o < out.length; o += 4) if (out[o + 3] < 0) for (let k = 0; k < 4; k++) out[o + k] = -out[o + k];
  return out;
}

/** The component of joint j's rotations that stays furthest from 0 over the clip: the one to drop and rebuild. */
function componentToDrop(rot: Float32Array, J: number, j: number, frames: number): number {
  let best = 3, bestMin = -1;
  // w first: on a tie ACL's choice is kept.
  for (const k of [3, 0, 1, 2]) {
    let min = Infinity;
    for (let f = 0; f < frames; f++) min = Math.min(min, Math.abs(rot[(f * J + j) * 4 + k]));
    if (min > bestMin + 1e-3) { bestMin = min; best = k; }
  }
  return best;
}

/** Makes joint j's dropped component >= 0 in every frame (negating whole quaternions). */
function signFixTrack(rot: Float32Array, J: number, j: number, frames: number, dropped: number): void {
  for (let f = 0; f < frames; f++) {
    const o = (f * J + j) * 4;
    if (rot[o + dropped] < 0) for (let k = 0; k < 4; k++) rot[o + k] = -rot[o + k];
  }
}

/** Index in a frame's rotations (4 per joint) or translations (3) of a track's stored component c. */
function componentIndex(rotation: boolean, dropped: number, c: number): number {
  return rotation ? STORED_COMPONENTS[dropped][c] : c;
}

/** Largest |value - reference| over every frame of a track (width components at joint j). */
function largestDeviation(values: Float32Array, J: number, width: number, j: number, frames: number, ref: ArrayLike<number>, refAt: number): number {
  let d = 0;
  for (let f = 0; f < frames; f++) for (let c = 0; c < width; c++) d = Math.max(d, Math.abs(values[(f * J + j) * width + c] - ref[refAt + c]));
  return d;
}

/** The kind of an animated rotation track: which component it drops; sign-fixes the track for it. */
function animatedRotationKind(rot: Float32Array, J: number, j: number, frames: number): number {
  const d = componentToDrop(rot, J, j, frames);
  signFixTrack(rot, J, j, frames, d);
  return d === 3 ? TRACK_ANIMATED : TRACK_ANIMATED_DROP_X + d;
}

/** Each track's kind (TRACK_*), joint by joint: rotation then translation. */
function trackKinds(p: ClipPoses, rot: Float32Array, J: number): Uint8Array {
  const kinds = new Uint8Array(2 * J);
  const identity = [0, 0, 0, 1];
  for (let j = 0; j < J; j++) {
    const firstRot = rot.subarray(j * 4, j * 4 + 4), firstPos = p.translations.subarray(j * 3, j * 3 + 3);
    kinds[2 * j] = largestDeviation(rot, J, 4, j, p.frames, identity, 0) <= CONSTANT_TOLERANCE ? TRACK_DEFAULT
      : largestDeviation(rot, J, 4, j, p.frames, firstRot, 0) <= CONSTANT_TOLERANCE ? TRACK_CONSTANT : animatedRotationKind(rot, J, j, p.frames);
    kinds[2 * j + 1] = largestDeviation(p.translations, J, 3, j, p.frames, p.restOffsets, 3 * j) <= CONSTANT_TOLERANCE ? TRACK_DEFAULT
      : largestDeviation(p.translations, J, 3, j, p.frames, firstPos, 0) <= CONSTANT_TOLERANCE ? TRACK_CONSTANT : TRACK_ANIMATED;
  }
  return kinds;
}

/** The clip header: frame count, kinds, constants (first frame's values), clip ranges. */
function clipHeaderBytes(p: ClipPoses, rot: Float32Array, J: number, kinds: Uint8Array): Uint8Array {
  const floats: number[] = [];
  for (let j = 0; j < J; j++) {
    if (kinds[2 * j] === TRACK_CONSTANT) floats.push(...rot.subarray(j * 4, j * 4 + 4));
    if (kinds[2 * j + 1] === TRACK_CONSTANT) floats.push(...p.translations.subarray(j * 3, j * 3 + 3));
  }
  let animated = 0;
  for (let j = 0; j < J; j++) {
    for (let r = 0; r < 2; r++) {
      if (kinds[2 * j + r] < TRACK_ANIMATED) continue;
      animated++;
      const values = r === 0 ? rot : p.translations, width = r === 0 ? 4 : 3;
      const dropped = r === 0 ? droppedComponent(kinds[2 * j]) : -1;
      const mins: number[] = [], exts: number[] = [];
      for (let c = 0; c < 3; c++) {
        let lo = Infinity, hi = -Infinity;
        const k = componentIndex(r === 0, dropped, c);
        for (let f = 0; f < p.frames; f++) { const v = values[(f * J + j) * width + k]; lo = Math.min(lo, v); hi = Math.max(hi, v); }
        const min = Math.fround(lo);
        let ext = Math.fround(hi - min);
        // Stored as float32: widen until the range holds the largest value.
        while (min + ext < hi) ext = Math.fround(ext * (1 + 2 ** -20) + 2 ** -40);
        mins.push(min); exts.push(ext);
      }
      floats.push(...mins, ...exts);
    }
  }
  const at = align4(8 + 2 * J);
  const out = new Uint8Array(at + floats.length * 4);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, p.frames, true);
  dv.setUint32(4, animated, true);
  out.set(kinds, 8);
  floats.forEach((v, i) => dv.setFloat32(at + 4 * i, v, true));
  return out;
}

/** Working state of one clip's encoding: original and decoded poses, their world transforms. */
interface ClipWork {
  p: ClipPoses;
  J: number;
  header: ClipHeader;
  hdv: DataView;
  /** Sign-fixed original rotations. */
  rot: Float32Array;
  /** Decoded (lossy) poses as the decoder will produce them. */
  lossyRot: Float32Array;
  lossyPos: Float32Array;
  /** World transforms of the original poses (every frame) and of the decoded ones (one segment). */
  refRot: Float64Array;
  refPos: Float64Array;
  segRot: Float64Array;
  segPos: Float64Array;
  order: Int32Array;
  below: Int32Array[];
  /** leavesFirst(header, order). */
  channelOrder: Int32Array;
}

/**
 * Decodes channel ch (track ch / 3, component ch % 3) of one segment at `level` into the lossy poses
 * (the decoder's arithmetic), and completes the track's rotations from its current components.
 */
function decodeChannel(w: ClipWork, ch: number, level: number, ranges: Uint8Array, f0: number, n: number): void {
  const a = (ch / 3) | 0, c = ch % 3;
  const t = w.header.tracks[a], J = w.J, bits = LEVEL_BITS[level];
  const src = t.rotation ? w.rot : w.p.translations, out = t.rotation ? w.lossyRot : w.lossyPos, width = t.rotation ? 4 : 3;
  const clipMin = w.hdv.getFloat32(t.rangeAt + 4 * c, true), clipExt = w.hdv.getFloat32(t.rangeAt + 12 + 4 * c, true);
  const qlo = ranges[ch * 2], qext = ranges[ch * 2 + 1];
  const base = segmentBase(clipMin, clipExt, qlo, qext, bits), step = segmentStep(clipExt, qext, bits);
  const k = componentIndex(t.rotation, t.dropped, c);
  for (let f = f0; f < f0 + n; f++) {
    const o = (f * J + t.joint) * width + k;
    out[o] = level === RAW_LEVEL ? src[o] : base + step * quantiseSample(src[o], clipMin, clipExt, qlo, qext, bits);
  }
  if (t.rotation) for (let f = f0; f < f0 + n; f++) completeRotation(w.lossyRot, (f * J + t.joint) * 4, t.dropped);
}

/** Recomputes the segment's world transforms of `joints` (a joint and everything below it) from the lossy poses. */
function segmentTransforms(w: ClipWork, joints: Int32Array, f0: number, n: number): void {
  for (let f = f0; f < f0 + n; f++) worldOfJoints(w.p.parents, joints, w.J, w.lossyRot, w.lossyPos, f, w.segRot, w.segPos, f - f0);
}

/**
 * Recomputes the segment's world transforms of `joints` and tells whether every one keeps its
 * virtual points within the bound (`thresholdSquared`, m²). Stops at the first that does not: the
 * frames after it keep their transforms, and the caller that undoes the step recomputes them all
 * (segmentTransforms).
 */
function withinBound(w: ClipWork, joints: Int32Array, f0: number, n: number, thresholdSquared: number): boolean {
  const J = w.J;
  for (let f = f0; f < f0 + n; f++) {
    const slot = f - f0;
    worldOfJoints(w.p.parents, joints, J, w.lossyRot, w.lossyPos, f, w.segRot, w.segPos, slot);
    for (let i = 0; i < joints.length; i++) {
      const j = joints[i];
      if (virtualPointErrorSquared(w.segRot, w.segPos, slot * J + j, w.refRot, w.refPos, f * J + j) > thresholdSquared) return false;
    }
  }
  return true;
}

/** The segment ranges of every animated track's components (8 bits each, 2 per component). */
function segmentRanges(w: ClipWork, f0: number, n: number): Uint8Array {
  const A = w.header.tracks.length, J = w.J;
  const ranges = new Uint8Array(A * 6);
  w.header.tracks.forEach((t, a) => {
    const src = t.rotation ? w.rot : w.p.translations, width = t.rotation ? 4 : 3;
    for (let c = 0; c < 3; c++) {
      const clipMin = w.hdv.getFloat32(t.rangeAt + 4 * c, true), clipExt = w.hdv.getFloat32(t.rangeAt + 12 + 4 * c, true);
      let lo = Infinity, hi = -Infinity;
      const k = componentIndex(t.rotation, t.dropped, c);
      for (let f = f0; f < f0 + n; f++) { const v = normaliseInClip(src[(f * J + t.joint) * width + k], clipMin, clipExt); lo = Math.min(lo, v); hi = Math.max(hi, v); }
      segmentRangeOf(lo, hi, ranges, (a * 3 + c) * 2);
    }
  });
  return ranges;
}

/**
 * The lowest levels, component by component, that keep every joint of the segment within
 * `threshold`: all start at START_LEVEL (or raw if even that breaks the bound), then each round
 * lowers every component by one level, leaves first, keeping a step only when its joint and
 * everything below it stay within the bound. A component whose step fails is done: lowering the
 * others only adds error. Decoding a rotation component rebuilds its dropped one from the current
 * values of all three, so the check sees exactly what the decoder will produce.
 */
function chooseLevels(w: ClipWork, ranges: Uint8Array, f0: number, n: number, threshold: number): Uint8Array {
  const tracks = w.header.tracks, C = tracks.length * 3, bound = threshold * threshold;
  const levels = new Uint8Array(C).fill(START_LEVEL);
  const setAll = (level: number): void => {
    levels.fill(level);
    // Every component first, then the rotations are completed from all three.
    for (let ch = 0; ch < C; ch++) decodeChannel(w, ch, level, ranges, f0, n);
  };
  setAll(START_LEVEL);
  if (!withinBound(w, w.order, f0, n, bound)) {
    setAll(RAW_LEVEL);
    segmentTransforms(w, w.order, f0, n);
  }
  const done = new Uint8Array(C);
  for (let changed = true; changed;) {
    changed = false;
    for (const ch of w.channelOrder) {
      if (done[ch] || levels[ch] === 0) continue;
      const below = w.below[tracks[(ch / 3) | 0].joint];
      decodeChannel(w, ch, levels[ch] - 1, ranges, f0, n);
      if (withinBound(w, below, f0, n, bound)) { levels[ch]--; changed = true; continue; }
      done[ch] = 1;
      decodeChannel(w, ch, levels[ch], ranges, f0, n);
      segmentTransforms(w, below, f0, n);
    }
  }
  return levels;
}

/** Channels (track * 3 + component) in the order chooseLevels lowers them: leaves first (the joints deepest in the parents-first order come last in it). */
function leavesFirst(header: ClipHeader, order: Int32Array): Int32Array {
  const tracks = header.tracks;
  const depth = (ch: number): number => order.indexOf(tracks[(ch / 3) | 0].joint);
  return Int32Array.from({ length: tracks.length * 3 }, (_, ch) => ch).sort((x, y) => depth(y) - depth(x) || x - y);
}

/** Appends a segment: levels, ranges, packed samples. */
function writeSegment(out: BitWriter, w: ClipWork, levels: Uint8Array, ranges: Uint8Array, f0: number, n: number): void {
  out.alignToByte();
  for (const level of levels) out.write(level, LEVEL_FIELD_BITS);
  out.writeBytes(ranges);
  const J = w.J;
  w.header.tracks.forEach((t, a) => {
    const src = t.rotation ? w.rot : w.p.translations, width = t.rotation ? 4 : 3;
    for (let c = 0; c < 3; c++) {
      const level = levels[a * 3 + c], bits = LEVEL_BITS[level];
      const clipMin = w.hdv.getFloat32(t.rangeAt + 4 * c, true), clipExt = w.hdv.getFloat32(t.rangeAt + 12 + 4 * c, true);
      const qlo = ranges[(a * 3 + c) * 2], qext = ranges[(a * 3 + c) * 2 + 1];
      for (let f = f0; f < f0 + n; f++) {
        const v = src[(f * J + t.joint) * width + componentIndex(t.rotation, t.dropped, c)];
        out.write(level === RAW_LEVEL ? bitsFromFloat(v) : quantiseSample(v, clipMin, clipExt, qlo, qext, bits), bits);
      }
    }
  });
  out.alignToByte();
}

/** Compresses one clip so that every joint's virtual points stay within `threshold` (m) of the original's. */
export function encodeClip(p: ClipPoses, threshold: number = ERROR_THRESHOLD): Uint8Array {
  const J = p.parents.length, F = p.frames;
  const rot = signFixedRotations(p.rotations);
  const kinds = trackKinds(p, rot, J); // sign-fixes animated rotation tracks for their dropped component
  const headerBytes = clipHeaderBytes(p, rot, J, kinds);
  const header = readClipHeader(headerBytes, J);
  const order = parentsFirstOrder(p.parents);
  const refRot = new Float64Array(F * J * 4), refPos = new Float64Array(F * J * 3);
  for (let f = 0; f < F; f++) worldOfJoints(p.parents, order, J, p.rotations, p.translations, f, refRot, refPos, f);
  const w: ClipWork = {
    p, J, header, hdv: new DataView(headerBytes.buffer), rot,
    lossyRot: new Float32Array(F * J * 4), lossyPos: new Float32Array(F * J * 3),
    refRot, refPos, segRot: new Float64Array(SEGMENT_FRAMES * J * 4), segPos: new Float64Array(SEGMENT_FRAMES * J * 3),
    order, below: subtrees(p.parents, order), channelOrder: leavesFirst(header, order),
  };
  // Default and constant tracks, as the decoder fills them.
  for (let f = 0; f < F; f++) {
    for (let j = 0; j < J; j++) {
      const r = (f * J + j) * 4, t = (f * J + j) * 3;
      for (let k = 0; k < 4; k++) w.lossyRot[r + k] = kinds[2 * j] === TRACK_DEFAULT ? (k === 3 ? 1 : 0) : rot[j * 4 + k];
      for (let k = 0; k < 3; k++) w.lossyPos[t + k] = kinds[2 * j + 1] === TRACK_DEFAULT ? p.restOffsets[3 * j + k] : p.translations[j * 3 + k];
    }
  }
  const out = new BitWriter();
  out.writeBytes(headerBytes);
  for (let s = 0, S = segmentCount(F); s < S; s++) {
    const f0 = s * SEGMENT_FRAMES, n = Math.min(SEGMENT_FRAMES, F - f0);
    const ranges = segmentRanges(w, f0, n);
    const levels = chooseLevels(w, ranges, f0, n, threshold);
    writeSegment(out, w, levels, ranges, f0, n);
  }
  return out.finish();
}
