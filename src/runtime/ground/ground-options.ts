/**
 * How a character adapts to uneven ground (the `groundOptions` controller option; used only when
 * the `ground` option is set). docs/terrain.md explains each with the measurements behind its
 * default.
 */

export interface GroundOptions {
  /**
   * Half-life (s) of the spring that takes the root's height onto the ground under it after a change
   * steeper than `followSlope` (a step): the body rises or sinks over ~3 half-lives, not in one frame.
   */
  rootHalfLife: number;
  /**
   * Steepest slope (radians) that the root and a free foot follow exactly: a change of ground height
   * under a point that moved d metres sideways is followed at once up to d·tan(followSlope); the rest
   * (the riser of a step) goes into a decaying offset. On a slope the body then rides the ground with
   * no lag (a spring alone lags 2.9·half-life·climb rate: 23 cm up a 30° slope at 1.4 m/s with 0.1 s).
   */
  followSlope: number;
  /** Largest tilt of a foot towards the ground's normal (radians): steeper ground keeps the foot at this tilt. */
  maxFootTilt: number;
  /** Half-life (s) of a free foot's height offset over a step and of a foot's tilt. */
  footHalfLife: number;
  /**
   * How far ahead (s, at the foot's own speed) a swinging foot looks for higher ground: it rises over
   * a step before it reaches it instead of hitting the riser.
   */
  swingLookAhead: number;
  /**
   * Largest lowering of the hips on uneven ground, in leg lengths (hip to knee plus knee to ankle):
   * a planted foot on a lower step or downhill needs more than the flat ground's `maxHipsDrop` (the
   * larger of the two applies).
   */
  maxHipsDropLegLengths: number;
}

export const DEFAULT_GROUND_OPTIONS: GroundOptions = {
  rootHalfLife: 0.1,
  followSlope: (40 * Math.PI) / 180,
  maxFootTilt: Math.PI / 6,
  footHalfLife: 0.055,
  swingLookAhead: 0.16,
  maxHipsDropLegLengths: 0.35,
};

/** Throws RangeError naming the first ground option outside its range. */
export function validateGroundOptions(o: GroundOptions): void {
  if (o === null || typeof o !== 'object') throw new RangeError('controller option groundOptions must be an object');
  const check = (name: keyof GroundOptions, ok: boolean, range: string) => {
    if (!ok) throw new RangeError(`ground option ${name} must be ${range}, got ${String(o[name])}`);
  };
  const n = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  check('rootHalfLife', n(o.rootHalfLife) && o.rootHalfLife > 0, 'a finite number > 0 (seconds)');
  check('followSlope', n(o.followSlope) && o.followSlope >= 0 && o.followSlope < Math.PI / 2, 'an angle in [0, π/2) (radians)');
  check('maxFootTilt', n(o.maxFootTilt) && o.maxFootTilt >= 0 && o.maxFootTilt <= Math.PI / 2, 'an angle in [0, π/2] (radians)');
  check('footHalfLife', n(o.footHalfLife) && o.footHalfLife > 0, 'a finite number > 0 (seconds)');
  check('swingLookAhead', n(o.swingLookAhead) && o.swingLookAhead >= 0 && o.swingLookAhead <= 1, 'a number in [0, 1] (seconds)');
  check('maxHipsDropLegLengths', n(o.maxHipsDropLegLengths) && o.maxHipsDropLegLengths >= 0 && o.maxHipsDropLegLengths <= 1, 'a number in [0, 1] (leg lengths)');
}
