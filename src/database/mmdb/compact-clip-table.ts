/**
 * The clip table of a compact file: the same facts as CLIP's in a float32 file, ~10x smaller.
 * Names and sources are front-coded (characters shared with the previous stored clip's, then the
 * rest: captures of one set share long path prefixes), starts are implied by the counts, and a
 * mirrored copy rebuilt from its original keeps only its tags (its name is the original's plus
 * "_mirror", its source, length and loop flag the original's).
 *
 *   stored clip:  [namePrefix, nameRest, sourcePrefix, sourceRest, count, loop (0/1), mirrored (0/1), tags]
 *   linked copy:  [tags]
 */
import type { ClipRange } from '../database.js';
import type { FieldReader } from './container.js';
import { describeValue, fmt } from './format.js';

function sharedPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** The table's JSON value for `clips` (mirrorOf[i] >= 0 for copies rebuilt from clip mirrorOf[i]). */
export function compactClipTable(clips: readonly ClipRange[], mirrorOf: Int32Array): unknown[] {
  let prevName = '', prevSource = '';
  return clips.map((c, i) => {
    if (mirrorOf[i] >= 0) return [c.tags];
    const n = sharedPrefix(prevName, c.name), s = sharedPrefix(prevSource, c.source);
    prevName = c.name; prevSource = c.source;
    return [n, c.name.slice(n), s, c.source.slice(s), c.count, c.loop ? 1 : 0, c.mirrored ? 1 : 0, c.tags];
  });
}

const isCount = (v: unknown, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;

/** Reads the table back into clip ranges; `rates` are the optional per-clip source rates. */
export function readCompactClipTable(r: FieldReader, clipCount: number, mirrorOf: Int32Array, rates: Float64Array | undefined): ClipRange[] {
  const value = r.json('clips');
  r.done();
  if (!Array.isArray(value)) r.fail('bad-section', `the clip table is ${describeValue(value)}, expected an array`);
  if (value.length !== clipCount) r.fail('inconsistent', `${fmt(value.length)} clips but META declares ${fmt(clipCount)}`);
  let prevName = '', prevSource = '', start = 0;
  const clips: ClipRange[] = [];
  value.forEach((e: unknown, i: number) => {
    if (!Array.isArray(e)) r.fail('bad-section', `clip ${i} is ${describeValue(e)}, expected an array`);
    const o = mirrorOf[i];
    let clip: ClipRange;
    if (o >= 0) {
      if (e.length !== 1) r.fail('bad-section', `clip ${i} is a mirrored copy and should hold only its tags`);
      if (!(o < i)) r.fail('inconsistent', `clip ${i} mirrors clip ${o}, which does not come before it`);
      const orig = clips[o];
      clip = { name: `${orig.name}_mirror`, source: orig.source, start, count: orig.count, loop: orig.loop, mirrored: true, tags: r.stringArray(e[0], `clip ${i} tags`) };
    } else {
      if (e.length !== 8) r.fail('bad-section', `clip ${i} has ${e.length} entries, expected 8`);
      const [np, nr, sp, sr, count, loop, mirrored] = e as unknown[];
      if (!isCount(np, prevName.length) || typeof nr !== 'string' || !isCount(sp, prevSource.length) || typeof sr !== 'string') {
        r.fail('bad-section', `clip ${i}: the name and source must be a shared-prefix length and a string each`);
      }
      if (!isCount(count, 0xffffffff) || (loop !== 0 && loop !== 1) || (mirrored !== 0 && mirrored !== 1)) {
        r.fail('bad-section', `clip ${i}: count must be a whole number and loop and mirrored 0 or 1`);
      }
      const name = prevName.slice(0, np as number) + (nr as string), source = prevSource.slice(0, sp as number) + (sr as string);
      prevName = name; prevSource = source;
      clip = { name, source, start, count: count as number, loop: loop === 1, mirrored: mirrored === 1, tags: r.stringArray(e[7], `clip ${i} tags`) };
    }
    if (rates && rates[i] !== 0) clip.sourceFps = rates[i];
    start += clip.count;
    clips.push(clip);
  });
  return clips;
}
