/**
 * Foot IK's settings (controller option footIKOptions), their defaults and their ranges.
 */
export interface FootIKOptions {
  /**
   * Release a locked foot while its contact lasts only when the animated contact point drifts further
   * from the lock than this many leg lengths (hip to knee plus knee to ankle, of the rig: a limit in
   * the rig's own scale, not in metres). 1 holds the lock for as long as the leg could possibly reach
   * it, i.e. to the end of the contact in practice: the gap then blends out while the foot is in the
   * air, where it does not show as sliding. (A lock the leg cannot reach is let go of whatever this
   * says: landing.ts HELD_GAP_LEG_LENGTHS.) (Measured on real captures: releasing at a fixed 0.3 m
   * while the label was still on caused 90-94% of all skate — the foot moved ~2.3 m/s at the release
   * and relocked at once with most of the gap left, over and over.)
   */
  unlockLegLengths: number;
  /** Half-life of the target offset that blends IK in and out (s). */
  blendHalfLife: number;
  /** Largest lowering of the hips (m) so that a locked foot stays within the leg's reach (0 = off). */
  maxHipsDrop: number;
  /**
   * How much faster than its spring the hips may be lowered when a locked leg needs it (m/s; 0 = the
   * spring alone). The spring lags ~0.1 s, during which the leg cannot reach its lock and the planted
   * foot is dragged; lowering at once without a bound jerks the body (knee jumps of 11 m/s).
   */
  hipsDropSpeed: number;
}

export const DEFAULT_FOOT_IK_OPTIONS: FootIKOptions = { unlockLegLengths: 1, blendHalfLife: 0.08, maxHipsDrop: 0, hipsDropSpeed: 1 };

/** Throws RangeError naming the first foot IK option outside its range. */
export function validateFootIKOptions(o: FootIKOptions): void {
  const check = (name: keyof FootIKOptions, ok: boolean, range: string) => {
    if (!ok) throw new RangeError(`foot IK option ${name} must be ${range}, got ${String(o[name])}`);
  };
  check('unlockLegLengths', Number.isFinite(o.unlockLegLengths) && o.unlockLegLengths > 0, 'a finite number > 0');
  check('blendHalfLife', Number.isFinite(o.blendHalfLife) && o.blendHalfLife > 0, 'a finite number > 0 (seconds)');
  check('maxHipsDrop', Number.isFinite(o.maxHipsDrop) && o.maxHipsDrop >= 0, 'a finite number >= 0 (metres)');
  check('hipsDropSpeed', Number.isFinite(o.hipsDropSpeed) && o.hipsDropSpeed >= 0, 'a finite number >= 0 (m/s)');
}
