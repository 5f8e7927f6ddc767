import { readBvhFile, listBvhFiles, type SkippedBvhEntry } from '../import/bvh/bvh-node.js';
import { generateBuiltinClips } from '../builtin/generate.js';
import type { SourceMotion } from './build.js';

export interface BvhSourceOptions {
  scale?: number;
  onProgress?: (done: number, total: number, label: string) => void;
  /** Called for folder entries left out (links leading outside a named folder, duplicates); see listBvhFiles. */
  onSkip?: (skipped: SkippedBvhEntry) => void;
}

/** Parses every BVH file under the given files or folders (folders recursively, sorted). */
export function loadBvhSources(paths: string[], options: BvhSourceOptions = {}): SourceMotion[] {
  const files = listBvhFiles(paths, { onSkip: options.onSkip });
  if (files.length === 0) throw new RangeError(`no .bvh files found in ${paths.join(', ')}`);
  const out: SourceMotion[] = [];
  files.forEach((file, i) => {
    const { skeleton, clip } = readBvhFile(file, { scale: options.scale ?? 'auto' });
    out.push({ skeleton, clip });
    options.onProgress?.(i + 1, files.length, file);
  });
  return out;
}

/** The built-in procedural locomotion clips as build sources. */
export function builtinSources(): SourceMotion[] {
  const { skeleton, clips } = generateBuiltinClips();
  return clips.map((clip) => ({ skeleton, clip }));
}
