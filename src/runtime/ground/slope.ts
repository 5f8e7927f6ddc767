/**
 * How much of a change of ground height under a moving point the ground's slope explains. A point
 * that moved (dx, dz) over a slope sees its ground change by about slope · move; what the slope does
 * not explain is a step (a riser passed, a ledge looked over) and is smoothed by a spring instead
 * of followed at once. The slopes come from the ground's normals at both ends: where they agree
 * (same sign, within a factor of 2 of each other) the change is their average times the move (exact
 * on a plane, to second order on hills); where they differ the smaller one is taken (a flat tread
 * at either end explains nothing of a riser between them). Ground steeper than `limit` (tan of
 * the steepest slope followed) explains nothing: it is a step's riser.
 *
 * Small enough to be inlined where it is called (numbers passed to a call that is not inlined are
 * heap-allocated).
 */
export function explainedRise(dx: number, dz: number, gx0: number, gz0: number, gx1: number, gz1: number, limit: number): number {
  // Ground steeper than `limit` at either end is a step's riser, not a slope to walk on.
  if (gx0 * gx0 + gz0 * gz0 > limit * limit || gx1 * gx1 + gz1 * gz1 > limit * limit) return 0;
  const e0 = gx0 * dx + gz0 * dz, e1 = gx1 * dx + gz1 * dz;
  if (!(e0 * e1 > 0)) return 0;
  const m0 = Math.abs(e0), m1 = Math.abs(e1);
  return Math.abs(e0 - e1) <= 0.5 * Math.max(m0, m1) ? 0.5 * (e0 + e1) : m0 < m1 ? e0 : e1;
}
