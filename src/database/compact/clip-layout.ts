/**
 * The byte layout of one compressed clip (docs/compact.md), and the reading of its header. All
 * numbers little-endian; the blob is self-describing and every length in it is checked against the
 * blob before use, so a damaged blob gives a CompactFormatError, never a read past its end.
 *
 *   u32  frame count F
 *   u32  animated track count A
 *   u8   kind[2J]        per joint: rotation kind, translation kind (TRACK_*; rotation kinds 2..5
 *                        also say which component is dropped)
 *   pad  to a multiple of 4
 *   f32  constants       per constant track, joint order, rotation (x, y, z, w) before translation (x, y, z)
 *   f32  clip ranges     per animated track: min[3], extent[3]
 *   then ceil(F / SEGMENT_FRAMES) segments, each:
 *     5 bits level[A][3] per component: index into LEVEL_BITS (each component its own bit rate),
 *                        packed, padded to a byte
 *     u8   range[A][3][2] segment start and extent per component, in 1/255 of the clip range
 *     bits samples       per animated track, per component, per frame: LEVEL_BITS[level] bits
 *     pad  to a byte
 *
 * Rotations store three components (the fourth, >= 0, is rebuilt: quantise.ts); translations x, y, z.
 */
import { LEVEL_BITS, SEGMENT_FRAMES } from './bit-rates.js';
import { readBits } from './bit-stream.js';

/** Rotation: identity; translation: the skeleton's rest offset. Nothing stored. */
export const TRACK_DEFAULT = 0;
/** One value for the whole clip, stored as float32. */
export const TRACK_CONSTANT = 1;
/** Range-reduced, quantised per segment (rotations: w dropped). */
export const TRACK_ANIMATED = 2;
/** Rotations only: animated with x (3), y (4) or z (5) dropped instead of w (quantise.ts). */
export const TRACK_ANIMATED_DROP_X = 3;
export const TRACK_LAST_KIND = 5;

/** The component an animated rotation track of `kind` drops (3 for w). */
export function droppedComponent(kind: number): number {
  return kind === TRACK_ANIMATED ? 3 : kind - TRACK_ANIMATED_DROP_X;
}

export class CompactFormatError extends Error {
  override readonly name = 'CompactFormatError';
}

/** One animated track: joint, rotation (true) or translation, and where its clip range is. */
export interface AnimatedTrack {
  joint: number;
  rotation: boolean;
  /** Rotations: the quaternion component rebuilt rather than stored (3 = w). */
  dropped: number;
  /** Byte offset of its min[3], extent[3] float32s in the blob. */
  rangeAt: number;
}

export interface ClipHeader {
  frames: number;
  kinds: Uint8Array;
  /** Byte offset of each joint's constant rotation / translation (-1 when not constant). */
  constantRotAt: Int32Array;
  constantPosAt: Int32Array;
  tracks: AnimatedTrack[];
  /** Byte offset of the first segment. */
  segmentsAt: number;
}

export const align4 = (n: number): number => Math.ceil(n / 4) * 4;

/** Reads and checks a clip blob's header (not its segments) for a skeleton of J joints. */
export function readClipHeader(blob: Uint8Array, J: number): ClipHeader {
  const dv = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const need = (end: number, what: string): void => {
    if (end > blob.length) throw new CompactFormatError(`the clip data ends inside its ${what} (${blob.length} bytes, ${end} needed)`);
  };
  need(8, 'header');
  const frames = dv.getUint32(0, true);
  const A = dv.getUint32(4, true);
  need(8 + 2 * J, 'track kinds');
  const kinds = blob.slice(8, 8 + 2 * J);
  let at = align4(8 + 2 * J);
  const constantRotAt = new Int32Array(J).fill(-1), constantPosAt = new Int32Array(J).fill(-1);
  const tracks: AnimatedTrack[] = [];
  for (let j = 0; j < J; j++) {
    for (let r = 0; r < 2; r++) {
      const k = kinds[2 * j + r];
      const last = r === 0 ? TRACK_LAST_KIND : TRACK_ANIMATED;
      if (k > last) throw new CompactFormatError(`joint ${j} has ${r === 0 ? 'rotation' : 'translation'} track kind ${k}, expected 0..${last}`);
      if (k === TRACK_CONSTANT) {
        if (r === 0) { constantRotAt[j] = at; at += 16; } else { constantPosAt[j] = at; at += 12; }
      }
    }
  }
  for (let j = 0; j < J; j++) {
    for (let r = 0; r < 2; r++) {
      const k = kinds[2 * j + r];
      if (k >= TRACK_ANIMATED) { tracks.push({ joint: j, rotation: r === 0, dropped: r === 0 ? droppedComponent(k) : -1, rangeAt: at }); at += 24; }
    }
  }
  if (tracks.length !== A) throw new CompactFormatError(`the header declares ${A} animated tracks but its kinds give ${tracks.length}`);
  need(at, 'constants and clip ranges');
  for (let p = align4(8 + 2 * J); p < at; p += 4) {
    if (!Number.isFinite(dv.getFloat32(p, true))) throw new CompactFormatError(`a constant or a clip range at byte ${p} is not a finite number`);
  }
  for (const t of tracks) {
    for (let c = 0; c < 3; c++) {
      const lo = dv.getFloat32(t.rangeAt + 4 * c, true), ext = dv.getFloat32(t.rangeAt + 12 + 4 * c, true);
      const limit = t.rotation ? 2 : 1e6;
      if (!(ext >= 0 && Math.abs(lo) <= limit && ext <= 2 * limit)) throw new CompactFormatError(`joint ${t.joint}'s ${t.rotation ? 'rotation' : 'translation'} range (${lo}, ${ext}) is out of bounds`);
    }
  }
  return { frames, kinds, constantRotAt, constantPosAt, tracks, segmentsAt: at };
}

/** Bits of each packed level field (LEVEL_BITS has at most 32 entries). */
export const LEVEL_FIELD_BITS = 5;

/** Header bytes of a segment of A animated tracks: 3 packed levels and 3 ranges of 2 bytes per track. */
export function segmentHeaderBytes(A: number): number {
  return Math.ceil((3 * A * LEVEL_FIELD_BITS) / 8) + 6 * A;
}

/** Byte offset of a segment's ranges (after its packed levels). */
export function segmentRangesAt(at: number, A: number): number {
  return at + Math.ceil((3 * A * LEVEL_FIELD_BITS) / 8);
}

/** The level of channel ch (track * 3 + component) of the segment at `at`. */
export function segmentLevel(blob: Uint8Array, at: number, ch: number): number {
  return readBits(blob, at * 8 + ch * LEVEL_FIELD_BITS, LEVEL_FIELD_BITS);
}

/**
 * Bytes of the segment of `n` frames at `at` (A tracks): headers plus samples, padded. Checks each
 * level is one LEVEL_BITS has; the caller has checked the header lies inside the blob.
 */
export function segmentBytesAt(blob: Uint8Array, at: number, A: number, n: number): number {
  let bits = 0;
  for (let ch = 0; ch < 3 * A; ch++) {
    const level = segmentLevel(blob, at, ch);
    if (level >= LEVEL_BITS.length) throw new CompactFormatError(`bit-rate level ${level} is not one of 0..${LEVEL_BITS.length - 1}`);
    bits += LEVEL_BITS[level] * n;
  }
  return segmentHeaderBytes(A) + Math.ceil(bits / 8);
}

export function segmentCount(frames: number): number {
  return Math.ceil(frames / SEGMENT_FRAMES);
}
