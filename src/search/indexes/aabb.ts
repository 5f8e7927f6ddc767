/**
 * Box-pruning data (Holden): per block of consecutive frames, the per-dimension min / max of its
 * candidate rows plus the block's candidate count and the OR / AND of their tag bits. Non-candidate
 * rows are left out because a search can never return them, which keeps the boxes tight.
 */
import { BLOCK_INFO_SIZE, BLOCK_COUNT, BLOCK_TAG_OR, BLOCK_TAG_AND } from '../wasm/memory-layout.js';

const INFO_INTS = BLOCK_INFO_SIZE >> 2;

/**
 * Fills `bounds` (per block: min[stride] then max[stride]) and `info` (per block: count, tagOr,
 * tagAnd, 0) for blocks of 2^shift frames. Blocks without candidates get zero boxes and count 0
 * (the kernels skip them).
 */
export function buildBlockBounds(
  features: Float32Array, rows: number, stride: number, candidates: Uint8Array, tagBits: Uint32Array,
  shift: number, bounds: Float32Array, info: Int32Array,
): void {
  const size = 1 << shift;
  const blocks = Math.ceil(rows / size);
  for (let b = 0; b < blocks; b++) {
    const lo = b * 2 * stride;
    const hi = lo + stride;
    let count = 0;
    let tagOr = 0;
    let tagAnd = -1;
    for (let j = 0; j < stride; j++) {
      bounds[lo + j] = Infinity;
      bounds[hi + j] = -Infinity;
    }
    const end = Math.min(rows, (b + 1) * size);
    for (let i = b * size; i < end; i++) {
      if (candidates[i] === 0) continue;
      count++;
      tagOr |= tagBits[i];
      tagAnd &= tagBits[i];
      const r = i * stride;
      for (let j = 0; j < stride; j++) {
        const v = features[r + j];
        if (v < bounds[lo + j]) bounds[lo + j] = v;
        if (v > bounds[hi + j]) bounds[hi + j] = v;
      }
    }
    if (count === 0) {
      bounds.fill(0, lo, hi + stride);
      tagAnd = 0;
    }
    const k = b * INFO_INTS;
    info[k + (BLOCK_COUNT >> 2)] = count;
    info[k + (BLOCK_TAG_OR >> 2)] = tagOr;
    info[k + (BLOCK_TAG_AND >> 2)] = tagAnd;
    info[k + 3] = 0;
  }
}
