/**
 * The bit rates a compact pose track may use within a segment, as ACL's table does: a level is an
 * index into LEVEL_BITS. Level 0 stores no samples (the segment is constant at the middle of its
 * range); the last level stores raw float32 values, the fallback that always meets any error bound.
 */

/** Bits per component per frame for each level. */
export const LEVEL_BITS: readonly number[] = Object.freeze([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 22, 24, 32]);

/** The raw float32 level: samples are the values' IEEE bit patterns, not quantised. */
// At most 32 levels: a segment stores each in 5 bits (clip-layout.ts).
export const RAW_LEVEL = LEVEL_BITS.length - 1;

/** The level the encoder tries first for every track (16 bits): when it meets the bound, raw is skipped. */
export const START_LEVEL = LEVEL_BITS.indexOf(16);

/** Frames per segment: ACL's default, short enough that ranges stay tight, long enough to amortise the headers. */
export const SEGMENT_FRAMES = 16;

/** maxQuantised of 0..32 bits, looked up (the decoder asks once per segment and component). */
const MAX_QUANTISED: readonly number[] = Array.from({ length: 33 }, (_, b) => (b === 0 ? 0 : 2 ** b - 1));

/** The largest quantised sample at `bits` (2^bits - 1; 0 for no bits). */
export function maxQuantised(bits: number): number {
  return MAX_QUANTISED[bits] ?? (bits === 0 ? 0 : 2 ** bits - 1);
}

