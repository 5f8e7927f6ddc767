/**
 * Per-frame tag bits as runs: most frames carry their clip's tags, so a database's bits are a few
 * runs, not 4 bytes a frame. A run is (first frame, frame count, bits).
 */
import { CompactFormatError } from './clip-layout.js';

/** The runs of equal bits in `bits`, flattened as start, count, bits triples (runs of 0 left out). */
export function tagRuns(bits: Uint32Array): Uint32Array {
  const out: number[] = [];
  for (let f = 0; f < bits.length;) {
    let e = f + 1;
    while (e < bits.length && bits[e] === bits[f]) e++;
    if (bits[f] !== 0) out.push(f, e - f, bits[f]);
    f = e;
  }
  return Uint32Array.from(out);
}

/** Per-frame bits for `frames` frames from runs; refuses runs that overlap, go backwards or pass the end. */
export function bitsFromTagRuns(runs: Uint32Array, frames: number): Uint32Array {
  if (runs.length % 3 !== 0) throw new CompactFormatError(`${runs.length} tag-run values, expected triples (start, count, bits)`);
  const out = new Uint32Array(frames);
  let next = 0;
  for (let i = 0; i < runs.length; i += 3) {
    const start = runs[i], count = runs[i + 1];
    if (start < next || count === 0 || start + count > frames) throw new CompactFormatError(`tag run ${i / 3 + 1} (frames ${start}..${start + count - 1}) overlaps another or lies outside the ${frames} frames`);
    out.fill(runs[i + 2], start, start + count);
    next = start + count;
  }
  return out;
}
