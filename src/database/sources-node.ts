import { readBvhFile, listBvhFiles, type SkippedBvhEntry } from '../import/bvh/bvh-node.js';
import { describeArgument } from '../util/arguments.js';
import type { SourceMotion } from './build.js';

/** Files of one set whose bodies are further than this (a fraction) from the set's median size are named. */
export const SCALE_MISMATCH = 0.2;

/** A file whose body, as imported, is not the size of the others' (their units or their rig differ). */
export interface ScaleMismatch {
  file: string;
  /** Its body's length along its bones (m), the set's median, and the unit detected for it. */
  bodyLength: number;
  median: number;
  unit: string;
}

/** "walk.bvh imports 2.5 times the size of the other files (...)": one line for a ScaleMismatch. */
export function scaleMismatchText(m: ScaleMismatch): string {
  const r = m.bodyLength / m.median;
  return `${m.file} imports ${r >= 1 ? `${r.toFixed(2)} times the size of` : `at ${r.toFixed(2)} of the size of`} the other files ` +
    `(its bones ${m.bodyLength.toFixed(2)} m end to end against ${m.median.toFixed(2)} m, unit ${m.unit}): check its units, or give --scale`;
}

export interface BvhSourceOptions {
  scale?: number;
  /** Called for each file whose body differs from the set's median size by more than SCALE_MISMATCH (with the scale detected). */
  onScaleMismatch?: (mismatch: ScaleMismatch) => void;
  onProgress?: (done: number, total: number, label: string) => void;
  /** Called for folder entries left out (links leading outside a named folder, duplicates); see listBvhFiles. */
  onSkip?: (skipped: SkippedBvhEntry) => void;
}

/** Parses every BVH file under the given files or folders (folders recursively, sorted). */
export function loadBvhSources(paths: string[] | string, options: BvhSourceOptions = {}): SourceMotion[] {
  // One path as a string is one path (iterated, its letters were each taken for a file: "no such file or folder: o").
  if (typeof paths === 'string') paths = [paths];
  if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string')) throw new TypeError(`loadBvhSources: paths must be a file or folder name or an array of them, got ${describeArgument(paths)}`);
  if (paths.length === 0) throw new RangeError('loadBvhSources: no files or folders given');
  const skipped: SkippedBvhEntry[] = [];
  const files = listBvhFiles(paths, { onSkip: (s) => { skipped.push(s); options.onSkip?.(s); } });
  if (files.length === 0) {
    // A folder of links to captures kept elsewhere finds nothing (links are followed only inside
    // the folder named): say what was left out and why, not only that nothing was found.
    const n = skipped.length;
    const left = n === 0 ? '' : ` (${n.toLocaleString('en-US')} ${n === 1 ? 'entry' : 'entries'} left out, e.g. ${skipped[0].path}: ${skipped[0].reason}; links are followed only inside the folder named: name the folder they lead to)`;
    throw new RangeError(`no .bvh files found in ${paths.join(', ')}${left}`);
  }
  const out: SourceMotion[] = [];
  const sizes: Array<{ file: string; bodyLength: number; unit: string }> = [];
  files.forEach((file, i) => {
    const { skeleton, clip, bodyLength, detectedUnit } = readBvhFile(file, { scale: options.scale ?? 'auto' });
    out.push({ skeleton, clip });
    sizes.push({ file, bodyLength, unit: detectedUnit });
    options.onProgress?.(i + 1, files.length, file);
  });
  if (options.scale === undefined && options.onScaleMismatch) for (const m of scaleMismatches(sizes)) options.onScaleMismatch(m);
  return out;
}

/** The files whose body length differs from the median of all of them by more than SCALE_MISMATCH. */
export function scaleMismatches(sizes: readonly { file: string; bodyLength: number; unit: string }[]): ScaleMismatch[] {
  const sorted = sizes.map((s) => s.bodyLength).filter((l) => l > 0).sort((a, b) => a - b);
  if (sorted.length < 2) return [];
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  return sizes.filter((s) => s.bodyLength > 0 && Math.abs(s.bodyLength / median - 1) > SCALE_MISMATCH).map((s) => ({ ...s, median }));
}

/** The built-in clips as build sources (they need no files: builtin-sources.ts; re-exported here for the commands). */
export { builtinSources } from './builtin-sources.js';
