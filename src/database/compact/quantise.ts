/**
 * Range reduction and quantisation of one track component, shared by the encoder and the decoder so
 * that the values the encoder measures its error on are, bit for bit, the values a load decodes.
 *
 * A value v of a track in a clip is first normalised by the clip's range (min, extent, float32), then
 * by the segment's range inside it (8-bit start and extent, fractions of the clip range; rounded
 * outwards so the segment's values stay inside), then quantised to `bits` bits. Reconstruction is
 * base + step * q, with base and step computed once per segment and component.
 */
import { maxQuantised } from './bit-rates.js';

/** Segment ranges are stored in 8 bits as fractions of the clip range. */
export const SEGMENT_RANGE_STEPS = 255;

/** Normalised position of `v` in the clip range (0 when the range is empty). */
export function normaliseInClip(v: number, clipMin: number, clipExtent: number): number {
  return clipExtent > 0 ? (v - clipMin) / clipExtent : 0;
}

/** The 8-bit segment range [lo, lo + ext] (in 1/255 of the clip range) holding normalised values lo..hi. */
export function segmentRangeOf(lo: number, hi: number, out: Uint8Array, at: number): void {
  const qlo = Math.min(SEGMENT_RANGE_STEPS, Math.max(0, Math.floor(lo * SEGMENT_RANGE_STEPS)));
  const qhi = Math.min(SEGMENT_RANGE_STEPS, Math.max(qlo, Math.ceil(hi * SEGMENT_RANGE_STEPS)));
  out[at] = qlo;
  out[at + 1] = qhi - qlo;
}

/** The value a sample of 0 reconstructs to (for bits = 0: the middle of the segment range). */
export function segmentBase(clipMin: number, clipExtent: number, qlo: number, qext: number, bits: number): number {
  const lo = clipMin + clipExtent * (qlo / SEGMENT_RANGE_STEPS);
  return bits === 0 ? lo + clipExtent * (qext / SEGMENT_RANGE_STEPS) * 0.5 : lo;
}

/** The value one quantisation step adds. */
export function segmentStep(clipExtent: number, qext: number, bits: number): number {
  return bits === 0 ? 0 : (clipExtent * (qext / SEGMENT_RANGE_STEPS)) / maxQuantised(bits);
}

/** The nearest sample to `v` at `bits` bits in a segment range (clamped to the range). */
export function quantiseSample(v: number, clipMin: number, clipExtent: number, qlo: number, qext: number, bits: number): number {
  if (bits === 0 || qext === 0) return 0;
  const t = (normaliseInClip(v, clipMin, clipExtent) - qlo / SEGMENT_RANGE_STEPS) / (qext / SEGMENT_RANGE_STEPS);
  const m = maxQuantised(bits);
  return Math.min(m, Math.max(0, Math.round(t * m)));
}

/**
 * The three quaternion components a rotation track stores when it drops component `d` (x 0, y 1,
 * z 2, w 3). ACL drops w; a track whose w passes near 0 (a joint turned about 180 degrees) would
 * rebuild it badly from rounded x, y, z, so such a track drops the component that stays largest in
 * the clip instead (a permutation: no arithmetic, no rounding).
 */
export const STORED_COMPONENTS: readonly (readonly number[])[] = Object.freeze([[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]]);

/**
 * Completes the unit quaternion at out[o..o+3] whose component `dropped` is not stored (and is
 * >= 0): it is rebuilt from the other three, which are already in place (float32 values, so the
 * rebuilt one is rounded like them). Three stored components longer than 1 (quantisation near
 * 0) are scaled back to unit length with the dropped one 0.
 */
export function completeRotation(out: Float32Array, o: number, dropped: number): void {
  let s = 0;
  for (let k = 0; k < 4; k++) if (k !== dropped) s += out[o + k] * out[o + k];
  if (s <= 1) {
    out[o + dropped] = Math.sqrt(1 - s);
  } else {
    const n = Math.sqrt(s);
    for (let k = 0; k < 4; k++) if (k !== dropped) out[o + k] /= n;
    out[o + dropped] = 0;
  }
}
