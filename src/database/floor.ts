/**
 * Where a set of captures has its floor. A capture's y = 0 is not always where its feet stand: a
 * rig whose origin is at the hips has its feet 67 cm below it, another's floor is a few centimetres
 * off. The feet say where the floor is: the height the lowest foot joint stands at when planted,
 * over every frame of the set. Captures whose feet already stand on y = 0 (at most a small
 * clearance above it, as a toe joint sits 2 cm over the sole) are left as they are; the others are
 * moved up or down so that they do, before anything is measured from the ground.
 */

/** The percentile (as a fraction) of the lowest foot joint's height over every frame taken as the floor. */
export const FLOOR_QUANTILE = 0.01;
/** Feet standing this high above y = 0 (in leg lengths) or less already stand on the floor. */
export const FLOOR_CLEARANCE_LEG_LENGTHS = 0.1;

/**
 * The floor of clips given as world joint positions (`worlds[c]`: frames × J × 3, y up): the
 * FLOOR_QUANTILE height of the lowest of `joints` over every frame of every clip; NaN without frames.
 */
export function floorHeight(worlds: readonly Float64Array[], joints: readonly number[], J: number): number {
  let n = 0;
  for (const w of worlds) n += w.length / (3 * J);
  if (n === 0 || joints.length === 0) return Number.NaN;
  const lowest = new Float64Array(n);
  let i = 0;
  for (const w of worlds) {
    for (let f = 0, F = w.length / (3 * J); f < F; f++) {
      let low = Infinity;
      for (const j of joints) low = Math.min(low, w[(f * J + j) * 3 + 1]);
      lowest[i++] = low;
    }
  }
  lowest.sort();
  return lowest[Math.min(n - 1, Math.floor(FLOOR_QUANTILE * n))];
}

/**
 * How far (m) to move the clips up so that they stand on y = 0: none when the floor lies between 0
 * and FLOOR_CLEARANCE_LEG_LENGTHS leg lengths above it, −floor otherwise.
 */
export function floorShift(floor: number, legLength: number): number {
  if (!Number.isFinite(floor)) return 0;
  return floor >= 0 && floor <= FLOOR_CLEARANCE_LEG_LENGTHS * legLength ? 0 : -floor;
}
