/** Per-frame contact bits (Database.contacts). */
export const CONTACT_LEFT = 1;
export const CONTACT_RIGHT = 2;

export interface ContactOptions {
  /** A foot is in contact while its toe moves slower than this (m/s). */
  speedThreshold: number;
  /** Majority filter window (frames, odd) that removes single-frame flicker. */
  filterFrames: number;
}

export const DEFAULT_CONTACT_OPTIONS: ContactOptions = { speedThreshold: 0.15, filterFrames: 5 };

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
  worldVel: Float64Array, J: number, frames: number, leftJoint: number, rightJoint: number,
  opts: ContactOptions, out: Uint8Array, offset: number,
): void {
  const raw = new Uint8Array(frames), l = new Uint8Array(frames), r = new Uint8Array(frames);
  rawContacts(worldVel, J, frames, leftJoint, opts.speedThreshold, raw);
  majorityFilter(raw, opts.filterFrames, l);
  rawContacts(worldVel, J, frames, rightJoint, opts.speedThreshold, raw);
  majorityFilter(raw, opts.filterFrames, r);
  for (let f = 0; f < frames; f++) out[offset + f] = (l[f] ? CONTACT_LEFT : 0) | (r[f] ? CONTACT_RIGHT : 0);
}
