/**
 * The importer's size limit (src/import/bvh/frames.ts MAX_JOINT_FRAMES): a clip whose frames times
 * joints pass it is refused at its 'Frames:' line, before a frame is read or a pose array made,
 * because a database built from it would need gigabytes (7.5 GB were measured at the former limit).
 */
import { describe, expect, it } from 'vitest';
import { MAX_JOINT_FRAMES } from '../../src/import/bvh/frames.js';
import { expectBvhError } from './bvh-fixtures.js';
import { resampleClip } from '../../src/database/resample.js';
import type { Clip } from '../../src/anim/clip.js';

/** A legged skeleton of 9 joints, only the root animated (6 values a frame: the cheapest file per frame); `lines` frames written. */
function legs(frames: number, lines = frames): string {
  const leg = (side: string, x: number) => `JOINT ${side}UpLeg\n{\nOFFSET ${x} 0 0\nCHANNELS 0\nJOINT ${side}Leg\n{\nOFFSET 0 -42 0\nCHANNELS 0\nJOINT ${side}Foot\n{\nOFFSET 0 -42 0\nCHANNELS 0\nJOINT ${side}Toe\n{\nOFFSET 0 -5 12\nCHANNELS 0\nEnd Site\n{\nOFFSET 0 0 5\n}\n}\n}\n}\n}\n`;
  return `HIERARCHY\nROOT Hips\n{\nOFFSET 0 90 0\nCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n${leg('Left', 10)}${leg('Right', -10)}}\nMOTION\nFrames: ${frames}\nFrame Time: 0.0333333\n${'0 90 0 0 0 0\n'.repeat(lines)}`;
}

describe('the BVH size limit', () => {
  it('refuses one frame past the limit at the Frames: line, in bounded time', () => {
    const most = Math.floor(MAX_JOINT_FRAMES / 9);
    const framesLine = legs(1).split('\n').findIndex((l) => l.startsWith('Frames:')) + 1;
    // (Every frame is there: a file declaring more frames than it holds is refused for that first.)
    const t0 = performance.now();
    const e = expectBvhError(legs(most + 1), framesLine, /file too large: \d+ frames of 9 joints exceed the importer's limit of 8388608 joint-frames .*split the take/);
    expect(e.message).toContain(String(most + 1));
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe('the same limit when a clip is resampled', () => {
  it('refuses a slow take raised to a high rate, naming the clip, the rates and what to do', () => {
    const J = 9, F = 20_000;
    const clip: Clip = { name: 'slow', source: 'slow.bvh', fps: 1, frameCount: F, rotations: new Float64Array(F * J * 4), translations: new Float64Array(F * J * 3), loop: false, tags: [] };
    expect(() => resampleClip(clip, 1000, J)).toThrow(/clip 'slow': 20000 frames at 1 fps resampled to 1000 fps make \d+ frames of 9 joints, past the limit of 8388608 joint-frames .*lower --fps/);
    expect(() => resampleClip({ ...clip, loop: true }, 1000, J)).toThrow(/past the limit/);
    expect(resampleClip(clip, 30, J).frameCount).toBe(Math.floor((F - 1) * 30) + 1);
  });
});
