/** Per-frame contact bits (Database.contacts). */
export const CONTACT_LEFT = 1;
export const CONTACT_RIGHT = 2;

/**
 * The joint whose motion decides a foot's contact label, and so the point that must not slide while
 * the label is on: the toe where the rig has one (the ball of the foot stays planted while the heel
 * rolls off), else the ankle. Foot locking and the skate measure use the same point.
 */
export function contactJoints(roles: { leftFoot: number; rightFoot: number; leftToe: number; rightToe: number }): [number, number] {
  return [roles.leftToe >= 0 ? roles.leftToe : roles.leftFoot, roles.rightToe >= 0 ? roles.rightToe : roles.rightFoot];
}

export interface ContactOptions {
  /** A foot is in contact while its contact point moves slower than this (m/s). */
  speedThreshold: number;
  /**
   * Width of the majority filter that removes flicker, as a duration (seconds), so that it means the
   * same at 24 and 120 fps; turned into the nearest odd frame count at the clip's rate (1/6 s: 5
   * frames at 24 and 30 fps, 11 at 60, 21 at 120).
   */
  filterSeconds: number;
}

export const DEFAULT_CONTACT_OPTIONS: ContactOptions = { speedThreshold: 0.15, filterSeconds: 1 / 6 };

/** The majority filter's window at `fps`: filterSeconds as the nearest odd number of frames (at least 1). */
export function contactFilterFrames(opts: ContactOptions, fps: number): number {
  return Math.max(1, 2 * Math.round((opts.filterSeconds * fps - 1) / 2) + 1);
}

/** 1 where the joint's horizontal+vertical speed is under the threshold, per frame. */
export function rawContacts(worldVel: Float64Array, J: number, frames: number, joint: number, threshold: number, out: Uint8Array): void {
  for (let f = 0; f < frames; f++) {
    const o = (f * J + joint) * 3;
    out[f] = Math.hypot(worldVel[o], worldVel[o + 1], worldVel[o + 2]) < threshold ? 1 : 0;
  }
}

/** Majority vote over a centred window (shrunk at the ends). */
export function majorityFilter(src: Uint8Array, window: number, out: Uint8Array): void {
  const half = Math.max(0, (window - 1) >> 1);
  const n = src.length;
  for (let f = 0; f < n; f++) {
    const a = Math.max(0, f - half), b = Math.min(n - 1, f + half);
    let on = 0;
    for (let k = a; k <= b; k++) on += src[k];
    out[f] = 2 * on > b - a + 1 ? 1 : 0;
  }
}

/**
 * Contact bits (CONTACT_LEFT | CONTACT_RIGHT) per frame of one clip, from the toe joints (or the
 * feet when a skeleton has no toes), written at out[offset + f].
 */
export function footContacts(
  worldVel: Float64Array, J: number, frames: number, fps: number, leftJoint: number, rightJoint: number,
  opts: ContactOptions, out: Uint8Array, offset: number,
): void {
  const raw = new Uint8Array(frames), l = new Uint8Array(frames), r = new Uint8Array(frames);
  const window = contactFilterFrames(opts, fps);
  rawContacts(worldVel, J, frames, leftJoint, opts.speedThreshold, raw);
  majorityFilter(raw, window, l);
  rawContacts(worldVel, J, frames, rightJoint, opts.speedThreshold, raw);
  majorityFilter(raw, window, r);
  for (let f = 0; f < frames; f++) out[offset + f] = (l[f] ? CONTACT_LEFT : 0) | (r[f] ? CONTACT_RIGHT : 0);
}
