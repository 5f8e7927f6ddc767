/**
 * The data's own level: every clip of a database played plainly (as captured, no search, no
 * transition, no root adjustment, no IK) at the display rate and measured by the same output
 * measures as the runtime (output-measures.ts). Every runtime figure is shown beside it: what the
 * captures themselves do is the floor the engine is judged against.
 */
import type { Database } from '../../database/database.js';
import { forwardKinematics } from '../../anim/pose.js';
import { quatYaw } from '../../math/quat.js';
import { wrapAngle } from '../../math/angle.js';
import { CONTACT_LEFT, CONTACT_RIGHT, contactJoints } from '../../features/contacts.js';
import { SKATE_BIN } from './histogram.js';
import { QualityStats, type QualityReport } from './metrics.js';
import { bodyFacing, qualityRig } from './quality-rig.js';
import { LOWEST_FOOT, STANDING_SPEED, recordFacing, recordFeet, recordHips, recordPlantedLift, recordPops, recordStanding } from './output-measures.js';
import { addSample } from './histogram.js';

/**
 * Plays every clip of `db` at `hz` steps per second (world joint positions interpolated linearly
 * between the captured frames: frame by frame when hz is the clip rate) and measures it as the
 * quality meter measures the engine's output, on flat ground y = 0. The facing figure is the body's
 * facing against the root track's (smoothed) facing: how far the capture itself sways. Stops,
 * transitions and trajectory errors have no meaning here (NaN or 0). The contact-label diagnostics
 * use the database's labels as the meter uses the playing frame's.
 */
export function playbackQuality(db: Database, hz: number): QualityReport {
  return playbackStats(db, hz).report();
}

/**
 * The statistics behind playbackQuality, added to `stats`; clips [from, to) only when given (a page
 * measures a large database a few clips per task and merges nothing: the same `stats` goes on).
 */
export function playbackStats(db: Database, hz: number, stats = new QualityStats(), from = 0, to = db.clips.length): QualityStats {
  if (!(Number.isFinite(hz) && hz > 0)) throw new RangeError(`playbackQuality: hz must be a finite number > 0, got ${hz}`);
  if (!(Number.isInteger(from) && Number.isInteger(to) && 0 <= from && from <= to && to <= db.clips.length)) {
    throw new RangeError(`playbackStats: clips ${from}..${to} are not a range of the database's ${db.clips.length}`);
  }
  const J = db.skeleton.names.length, parents = db.skeleton.parents, fps = db.fps, n = 3 * J;
  const rig = qualityRig(db);
  const contactFeet = contactJoints(db.roles).map((j) => rig.feet.indexOf(j)).filter((k) => k >= 0);
  const [cl, cr] = contactJoints(db.roles);
  const wr = new Float64Array(4 * J), rot = new Float64Array(4 * J), pos = new Float64Array(3 * J), wp = new Float64Array(3 * J);
  // Three slots of positions (now, the step before, the one before that), heights, flat ground.
  const H = new Float64Array(3 * n), heights = new Float64Array(4), ground = new Float64Array(4), rootRot = new Float64Array(4);
  const dt = 1 / hz;
  // The output measures' numbers (two arguments, then dt): they take numbers in an array.
  const ARGS = new Float64Array([0, 0, dt]);
  for (let c = from; c < to; c++) {
    const clip = db.clips[c];
    if (clip.count < 2) continue;
    const world = new Float64Array(clip.count * n);
    for (let k = 0; k < clip.count; k++) {
      const f = clip.start + k;
      for (let i = 0; i < 4 * J; i++) rot[i] = db.rotations[f * 4 * J + i];
      for (let i = 0; i < n; i++) pos[i] = db.translations[f * n + i];
      forwardKinematics(parents, rot, 0, pos, 0, wr, wp);
      world.set(wp, k * n);
    }
    const last = clip.count - 1, steps = Math.floor((last / fps) * hz + 1e-9);
    let rootX = 0, rootZ = 0, still = 0;
    for (let s = 0; s <= steps; s++) {
      const t = s * dt * fps, i0 = Math.min(last, Math.floor(t + 1e-9)), i1 = Math.min(last, i0 + 1), a = Math.min(1, Math.max(0, t - i0));
      const now = (s % 3) * n, p1 = ((s + 2) % 3) * n, p2 = ((s + 1) % 3) * n;
      for (let i = 0; i < n; i++) wp[i] = H[now + i] = world[i0 * n + i] + (world[i1 * n + i] - world[i0 * n + i]) * a;
      const f0 = clip.start + i0, f1 = clip.start + i1;
      const rx = lerp(db.rootPositions[3 * f0], db.rootPositions[3 * f1], a), rz = lerp(db.rootPositions[3 * f0 + 2], db.rootPositions[3 * f1 + 2], a);
      if (s >= 2) recordPops(stats, wp, H, p1, p2, n, ARGS, 2, 2);
      recordFeet(stats, rig, wp, H, s >= 1 ? p1 : -1, ground, heights, 0, ARGS, 2);
      ARGS[0] = ARGS[1] = wp[3 * rig.hips + 1];
      recordHips(stats, ARGS, 0);
      // The capture against itself: its planted feet are where it has them (0, by construction; the count is the data's).
      for (const k of contactFeet) { ARGS[0] = ARGS[1] = heights[k]; recordPlantedLift(stats, ARGS, 0); }
      if (s >= 1) {
        still = Math.hypot(rx - rootX, rz - rootZ) / dt < STANDING_SPEED ? still + dt : 0;
        ARGS[0] = still; ARGS[1] = LOWEST_FOOT[0];
        recordStanding(stats, ARGS, 0);
        // The contact labels of the frame played (the nearer one), at both ends of the step.
        const both = db.contacts[a < 0.5 ? f0 : f1] & db.contacts[clip.start + Math.min(last, Math.round((s - 1) * dt * fps))];
        if (both & CONTACT_LEFT) labelSkate(stats, wp, H, p1, cl, db.roles.leftFoot, dt);
        if (both & CONTACT_RIGHT) labelSkate(stats, wp, H, p1, cr, db.roles.rightFoot, dt);
      }
      const yaw = bodyFacing(rig, wp);
      if (!Number.isNaN(yaw)) {
        const r = 4 * (a < 0.5 ? f0 : f1);
        for (let k = 0; k < 4; k++) rootRot[k] = db.rootRotations[r + k];
        recordFacing(stats, wrapAngle(yaw - quatYaw(rootRot, 0)));
      }
      rootX = rx; rootZ = rz;
      stats.steps++;
      if (s > 0) stats.seconds += dt;
    }
  }
  return stats;
}

/** The label diagnostic: horizontal speeds (cm/s) of a labelled foot's contact point and ankle. */
function labelSkate(stats: QualityStats, wp: Float64Array, H: Float64Array, p: number, contact: number, ankle: number, dt: number): void {
  const speed = (j: number) => Math.hypot(wp[3 * j] - H[p + 3 * j], wp[3 * j + 2] - H[p + 3 * j + 2]) / dt * 100;
  const sc = speed(contact), sa = speed(ankle);
  stats.skateSum += sc; stats.skateCount++; addSample(stats.skateHist, sc, SKATE_BIN);
  stats.ankleSkateSum += sa; addSample(stats.ankleSkateHist, sa, SKATE_BIN);
}

function lerp(a: number, b: number, t: number): number {
  return a + (b - a) * t;
}
