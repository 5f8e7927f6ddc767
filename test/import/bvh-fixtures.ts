/**
 * Shared BVH fixtures for the import tests: a small valid file and helpers that check errors and
 * poses.
 */
import { expect } from 'vitest';
import { parseBvh } from '../../src/import/bvh/bvh.js';
import type { BvhImport, BvhParseOptions } from '../../src/import/bvh/bvh.js';
import { BvhError } from '../../src/import/errors.js';
import { writeBvh } from '../../src/import/bvh/write.js';
import type { Clip } from '../../src/anim/clip.js';
import { quatFromEulerOrder } from '../../src/math/quat.js';
import { bipedSkeleton } from '../helpers/skeletons.js';

// A small valid file. Line numbers (1-based) used by the error tests:
//  1 HIERARCHY, 2 ROOT Hips, 5 root CHANNELS, 6 JOINT Spine, 8 Spine OFFSET, 9 Spine CHANNELS,
// 10 End Site, 12 its OFFSET, 13 its '}', 19 JOINT LeftLeg, 29 root '}', 30 MOTION, 31 Frames,
// 32 Frame Time, 33-34 frames (15 values each).
export const MINI_LINES = [
  'HIERARCHY',
  'ROOT Hips',
  '{',
  '  OFFSET 0 90 0',
  '  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
  '  JOINT Spine',
  '  {',
  '    OFFSET 0 10 0',
  '    CHANNELS 3 Zrotation Xrotation Yrotation',
  '    End Site',
  '    {',
  '      OFFSET 0 60 0',
  '    }',
  '  }',
  '  JOINT LeftUpLeg',
  '  {',
  '    OFFSET 10 0 0',
  '    CHANNELS 3 Zrotation Xrotation Yrotation',
  '    JOINT LeftLeg',
  '    {',
  '      OFFSET 0 -45 0',
  '      CHANNELS 3 Zrotation Xrotation Yrotation',
  '      End Site',
  '      {',
  '        OFFSET 0 -45 0',
  '      }',
  '    }',
  '  }',
  '}',
  'MOTION',
  'Frames: 2',
  'Frame Time: 0.0333333',
  '1 90 2 10 20 30 0 0 0 5 -5 15 90 0 0',
  '1.5 91 2.5 -10 -20 -30 1 2 3 4 5 6 0 90 0',
];
export const MINI = MINI_LINES.join('\n') + '\n';

/** MINI with line `n` (1-based) replaced by `text` (undefined deletes it; an array inserts several). */
export function withLine(n: number, text: string | string[] | undefined): string {
  const lines = MINI_LINES.slice();
  if (text === undefined) lines.splice(n - 1, 1);
  else lines.splice(n - 1, 1, ...(Array.isArray(text) ? text : [text]));
  return lines.join('\n') + '\n';
}

export function expectBvhError(text: string, line: number, reason: RegExp, options: BvhParseOptions = {}): BvhError {
  let caught: unknown;
  try {
    parseBvh(text, { file: 'bad.bvh', ...options });
  } catch (e) {
    caught = e;
  }
  expect(caught, 'expected a BvhError').toBeInstanceOf(BvhError);
  const err = caught as BvhError;
  expect(err.reason).toMatch(reason);
  expect(err.line).toBe(line);
  expect(err.file).toBe('bad.bvh');
  expect(err.message).toBe(`bad.bvh:${line}: ${err.reason}`);
  return err;
}

/** All rotations unit length and finite, all translations finite. */
export function expectFinitePose(r: BvhImport): void {
  const { rotations, translations } = r.clip;
  for (let i = 0; i < translations.length; i++) expect(Number.isFinite(translations[i])).toBe(true);
  for (let i = 0; i < rotations.length; i += 4) {
    const n = Math.hypot(rotations[i], rotations[i + 1], rotations[i + 2], rotations[i + 3]);
    expect(Math.abs(n - 1)).toBeLessThan(1e-12);
  }
}

/** A walking-ish biped clip written as BVH (centimetres), which builds into a database as it is. */
export function bipedBvh(frames = 12, fps = 30): string {
  const skeleton = bipedSkeleton();
  const J = skeleton.names.length;
  const rotations = new Float64Array(frames * J * 4), translations = new Float64Array(frames * J * 3);
  const q = [0, 0, 0, 1];
  for (let f = 0; f < frames; f++) {
    for (let j = 0; j < J; j++) {
      const swing = 0.4 * Math.sin(f * 0.7 + j);
      quatFromEulerOrder(q, 0, [swing, 0.1 * swing, 0], 'XYZ');
      rotations.set(q, (f * J + j) * 4);
      translations.set(skeleton.offsets.subarray(3 * j, 3 * j + 3), (f * J + j) * 3);
    }
    translations[(f * J) * 3 + 2] = 0.04 * f; // the root walks forward
  }
  const clip: Clip = { name: 'walk', source: 'walk.bvh', fps, frameCount: frames, rotations, translations, loop: false, tags: [] };
  return writeBvh(skeleton, clip, { precision: 4 });
}
