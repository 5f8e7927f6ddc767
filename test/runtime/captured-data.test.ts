/**
 * What the captures say about how suddenly the body ever changes its motion (CapturedData's
 * largest changes) must not be set by a capture glitch: a frame or a few whose positions jump off
 * and back (a marker swap, a dropout) would otherwise lift every limit taken from them (the root's
 * adjustment, foot IK's hold on a landing foot, the hips' drop, the knee's bend) for the whole
 * database. A change of motion that lasts is kept exactly.
 */
import { describe, expect, it } from 'vitest';
import { computeCapturedData } from '../../src/runtime/captured-data.js';
import { makeRootTrackDatabase } from '../helpers/root-track-db.js';

const FPS = 30;

/** A walk along z at `speed` m/s that stops dead at frame `stopAt` (root positions per frame). */
function walkThenStop(frames: number, speed: number, stopAt: number): number[] {
  const z: number[] = [];
  for (let k = 0, p = 0; k < frames; k++) { z.push(p); if (k < stopAt) p += speed / FPS; }
  return z;
}

describe('captured data: the largest changes of motion', () => {
  it('a stop that lasts counts in full: the body walking at 1.2 m/s stops within a frame', () => {
    const z = walkThenStop(60, 1.2, 30);
    const d = computeCapturedData(makeRootTrackDatabase([{ z }], FPS));
    expect(d.bodyVelocityChangeMax).toBeCloseTo(1.2, 4); // float32 poses
  });

  it('a glitch of one frame, or of three, changes nothing: the hips 15 cm off and back', () => {
    const z = walkThenStop(60, 1.2, 30), clean = computeCapturedData(makeRootTrackDatabase([{ z }], FPS));
    for (const width of [1, 3]) {
      const x = z.map((_, k) => (k >= 12 && k < 12 + width ? 0.15 : 0));
      const glitched = computeCapturedData(makeRootTrackDatabase([{ x, z }], FPS));
      // Taken as it is, the jump is a change of 0.15 m in a frame and back: 4.5 m/s twice over.
      expect(glitched.bodyVelocityChangeMax, `${width} frame(s)`).toBe(clean.bodyVelocityChangeMax);
      expect(glitched.contactVelocityChangeMax, `${width} frame(s)`).toBe(clean.contactVelocityChangeMax);
    }
  });

  it('a clip too short to change its rate sets no limit', () => {
    const d = computeCapturedData(makeRootTrackDatabase([{ z: [0, 0.04] }], FPS));
    expect(d.bodyVelocityChangeMax).toBe(Number.POSITIVE_INFINITY);
  });
});
