/**
 * Foot skate of the data itself: what plain playback of every clip shows, before any search,
 * transition, root adjustment or IK. The floor the runtime's figure is compared with.
 */
import type { Database } from '../../database/database.js';
import { forwardKinematics } from '../../anim/pose.js';
import { CONTACT_LEFT, CONTACT_RIGHT, contactJoints } from '../../features/contacts.js';
import { SKATE_BINS, SKATE_BIN, percentile } from './histogram.js';

/** Foot skate of the data itself (cm/s): what plain playback of every clip shows, no search, no IK. */
export interface PlaybackSkate {
  /** At the contact point (toe, else ankle): mean and 95th percentile. */
  footSkateCmPerSec: number;
  footSkateP95CmPerSec: number;
  /** At the ankle. */
  ankleSkateCmPerSec: number;
  ankleSkateP95CmPerSec: number;
}

/**
 * Plays every clip of `db` frame by frame (world poses as captured) and measures its feet as the
 * QualityMeter does: horizontal speed over a frame step of a foot labelled in contact at both ends.
 * This is the floor the runtime is compared with: what the capture (and its contact labels) has
 * before any search, transition, root adjustment or IK.
 */
export function playbackFootSkate(db: Database): PlaybackSkate {
  const J = db.skeleton.names.length, parents = db.skeleton.parents, fps = db.fps;
  const [cl, cr] = contactJoints(db.roles);
  const joints = [cl, cr, db.roles.leftFoot, db.roles.rightFoot];
  const wr = new Float64Array(4 * J), a = new Float64Array(3 * J), b = new Float64Array(3 * J);
  const contact = new Float64Array(SKATE_BINS + 1), ankle = new Float64Array(SKATE_BINS + 1);
  let sumC = 0, sumA = 0, n = 0;
  for (const clip of db.clips) {
    // The math helpers take float64: one clip's pose at a time.
    const rot = Float64Array.from(db.rotations.subarray(clip.start * J * 4, (clip.start + clip.count) * J * 4));
    const pos = Float64Array.from(db.translations.subarray(clip.start * J * 3, (clip.start + clip.count) * J * 3));
    for (let k = 0; k + 1 < clip.count; k++) {
      const f = clip.start + k;
      const both = db.contacts[f] & db.contacts[f + 1];
      if (both === 0) continue;
      forwardKinematics(parents, rot, k * J * 4, pos, k * J * 3, wr, a);
      forwardKinematics(parents, rot, (k + 1) * J * 4, pos, (k + 1) * J * 3, wr, b);
      for (let side = 0; side < 2; side++) {
        if (!(both & (side === 0 ? CONTACT_LEFT : CONTACT_RIGHT))) continue;
        const speed = (j: number) => Math.hypot(b[3 * j] - a[3 * j], b[3 * j + 2] - a[3 * j + 2]) * fps * 100;
        const sc = speed(joints[side]), sa = speed(joints[2 + side]);
        sumC += sc; sumA += sa; n++;
        contact[Math.min(SKATE_BINS, Math.floor(sc / SKATE_BIN))]++;
        ankle[Math.min(SKATE_BINS, Math.floor(sa / SKATE_BIN))]++;
      }
    }
  }
  return {
    footSkateCmPerSec: n ? sumC / n : 0,
    footSkateP95CmPerSec: percentile(contact, 0.95) * SKATE_BIN,
    ankleSkateCmPerSec: n ? sumA / n : 0,
    ankleSkateP95CmPerSec: percentile(ankle, 0.95) * SKATE_BIN,
  };
}
