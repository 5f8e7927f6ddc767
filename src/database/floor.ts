/**
 * Where a set of captures has its floor. A capture's y = 0 is not always where its feet stand: a
 * rig whose origin is at the hips has its feet 67 cm below it, another's floor is a few centimetres
 * off. The feet say where the floor is: the height the lowest foot joint stands at when planted,
 * over every frame of the set. Captures whose feet already stand on y = 0 (at most a small
 * clearance above it, as a toe joint sits 2 cm over the sole) are left as they are; the others are
 * moved up or down so that they do, before anything is measured from the ground.
 *
 * Before that, the takes of a set are made to agree: takes from sessions calibrated apart stand a
 * few centimetres higher or lower than the others (the shared real set with every other file 4 cm
 * up: a standing character's feet 3.6 cm over the ground, against 0.16). A take whose own floor
 * (CLIP_FLOOR_QUANTILE of its lowest foot joint) is further than FLOOR_AGREEMENT_LEG_LENGTHS from the
 * floor the most takes agree on is moved onto it. The takes of one session agree within 1.7 cm (the shared real set,
 * `core/`, the built-in data: none moved).
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
  for (const w of worlds) { lowestJointHeights(w, joints, J, lowest, i); i += w.length / (3 * J); }
  return quantileOfSorted(lowest.sort(), FLOOR_QUANTILE);
}

/** Per frame of `world` (frames × J × 3, y up): the height of the lowest of `joints`, into out[at..]. */
function lowestJointHeights(world: Float64Array, joints: readonly number[], J: number, out: Float64Array, at: number): void {
  for (let f = 0, F = world.length / (3 * J); f < F; f++) {
    let low = Infinity;
    for (const j of joints) low = Math.min(low, world[(f * J + j) * 3 + 1]);
    out[at + f] = low;
  }
}

/** The q-quantile of sorted values (the lower of two neighbours). */
function quantileOfSorted(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/**
 * How far (m) to move the clips up so that they stand on y = 0: none when the floor lies between 0
 * and FLOOR_CLEARANCE_LEG_LENGTHS leg lengths above it, −floor otherwise.
 */
export function floorShift(floor: number, legLength: number): number {
  if (!Number.isFinite(floor)) return 0;
  return floor >= 0 && floor <= FLOOR_CLEARANCE_LEG_LENGTHS * legLength ? 0 : -floor;
}

/** The percentile (as a fraction) of a take's lowest foot joint's height taken as its own floor (a take is short: not its very lowest). */
export const CLIP_FLOOR_QUANTILE = 0.05;
/** Takes whose floors differ from the median take's by more than this (leg lengths) are moved onto it. */
export const FLOOR_AGREEMENT_LEG_LENGTHS = 0.025;

/** One take's floor (world positions `world`: frames × J × 3): CLIP_FLOOR_QUANTILE of its lowest of `joints`; NaN without frames. */
export function clipFloor(world: Float64Array, joints: readonly number[], J: number): number {
  const F = world.length / (3 * J);
  if (F === 0 || joints.length === 0) return Number.NaN;
  const lowest = new Float64Array(F);
  lowestJointHeights(world, joints, J, lowest, 0);
  return quantileOfSorted(lowest.sort(), CLIP_FLOOR_QUANTILE);
}

/**
 * How far (m) to move each take up so that the takes agree on their floor: 0 for a take within
 * FLOOR_AGREEMENT_LEG_LENGTHS of the set's floor (or without one of its own), the difference
 * otherwise. The set's floor is the middle of the most takes that agree with one another (within
 * the same agreement): with half the takes from another session, a median of all would fall
 * between the two floors.
 */
export function clipFloorShifts(floors: readonly number[], legLength: number): number[] {
  const known = floors.filter((f) => Number.isFinite(f)).sort((a, b) => a - b);
  if (known.length < 2) return floors.map(() => 0);
  const tolerance = FLOOR_AGREEMENT_LEG_LENGTHS * legLength;
  // Sorted, the takes within the agreement of known[i] are a window: two pointers. The set's floor
  // is the median of the fullest window (its centre, not an odd take at its edge).
  let most = 0, from = 0, to = 0, lo = 0, hi = 0;
  for (let i = 0; i < known.length; i++) {
    while (known[i] - known[lo] > tolerance) lo++;
    while (hi + 1 < known.length && known[hi + 1] - known[i] <= tolerance) hi++;
    if (hi - lo + 1 > most) { most = hi - lo + 1; from = lo; to = hi; }
  }
  const best = known[(from + to) >> 1];
  return floors.map((f) => (Number.isFinite(f) && Math.abs(f - best) > tolerance ? best - f : 0));
}
