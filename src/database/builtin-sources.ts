import { generateBuiltinClips } from '../builtin/generate.js';
import type { SourceMotion } from './build.js';

/** The built-in procedural locomotion clips as build sources (generated in memory: any platform). */
export function builtinSources(): SourceMotion[] {
  const { skeleton, clips } = generateBuiltinClips();
  return clips.map((clip) => ({ skeleton, clip }));
}
