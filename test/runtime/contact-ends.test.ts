/**
 * Where a contact ends (runtime/captured-data.ts contactEnds), and foot IK planting no lock there:
 * a foot that came down on a contact's last frame was held one step and released the next,
 * stopped dead and set going again (6.6 m/s at the ankle on the shared real captures, seed 2 wander,
 * over the largest-velocity-change target).
 */
import { describe, expect, it } from 'vitest';
import { contactEndsOf, capturedData } from '../../src/runtime/captured-data.js';
import { CONTACT_LEFT, CONTACT_RIGHT } from '../../src/features/contacts.js';
import { buildDatabase } from '../../src/database/build.js';
import { builtinSources } from '../../src/database/sources-node.js';
import { MotionMatchingController } from '../../src/runtime/controller/controller.js';
import type { Database } from '../../src/database/database.js';

const L = CONTACT_LEFT, R = CONTACT_RIGHT;

describe('contact ends', () => {
  it('marks the last frame of each contact run within a clip; a looping clip wraps, another clip\'s last frame ends nothing', () => {
    // Two clips: frames 0-5 (not looping), 6-9 (looping).
    const contacts = Uint8Array.from([L, L | R, R, 0, L, L, /* loop */ R, R | L, L, R]);
    const db = { frameCount: 10, contacts, clips: [{ start: 0, count: 6, loop: false }, { start: 6, count: 4, loop: true }] } as unknown as Database;
    expect(Array.from(contactEndsOf(db))).toEqual([
      0, L, R, 0, 0, 0, // left ends at 1 (frame 2 has only right), right at 2; frame 5 is the clip's end: unknown
      0, R, L, 0, //        right ends at 7, left at 8; frame 9 (right) continues into frame 6 (right)
    ]);
  });

  it('foot IK plants a lock where the contact goes on, and none on a contact\'s last frame', () => {
    const db = buildDatabase(builtinSources().slice(0, 6));
    const ends = capturedData(db).contactEnds;
    const c = new MotionMatchingController(db, { footIK: true });
    let lastFrames = 0, onFrames = 0;
    for (let f = 0; f < db.frameCount; f++) {
      for (const [leg, bit] of [[0, L], [1, R]] as const) {
        if ((db.contacts[f] & bit) === 0) continue;
        // A fresh start at f: the foot is where the animation has it and not moving, so only the label decides.
        c.reset(f);
        c.footIK.apply(c, 1 / 60);
        if ((ends[f] & bit) !== 0) { lastFrames++; expect(c.footIK.isLocked(leg), `frame ${f} leg ${leg}`).toBe(false); }
        else { onFrames++; expect(c.footIK.isLocked(leg), `frame ${f} leg ${leg}`).toBe(true); }
      }
    }
    expect(lastFrames).toBeGreaterThan(10);
    expect(onFrames).toBeGreaterThan(10 * lastFrames);
  });
});
