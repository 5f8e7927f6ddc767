/**
 * The space of steady requests a character can get, as a grid: desired speed (0 to the database's
 * top speed), direction of travel relative to facing (the full circle) and turn rate. Conventions
 * are the engine's: yaw = atan2(x, z), +X is the character's left, so a direction of +90° is a
 * sidestep to the left and a positive turn rate turns left.
 */
import type { Database } from '../../database/database.js';
import { databaseRuntime } from '../../runtime/database-runtime.js';

export interface CoverageGridOptions {
  /** Moving speeds (m/s, > 0); standing (0) is always added. Default: `speedBands` even steps up to the top speed. */
  speeds?: readonly number[];
  /** Moving speed bands when `speeds` is not given (default 5). */
  speedBands?: number;
  /** Directions around the circle, evenly spaced from straight ahead (default 16: 22.5° apart). */
  directions?: number;
  /** Turn rates (degrees per second, >= 0); each non-zero one is used both ways (default 0, 45, 90). */
  turnRates?: readonly number[];
}

export interface CoverageCell {
  /** Index in the report's cell list. */
  index: number;
  /** Desired speed (m/s). */
  speed: number;
  /** Direction of travel relative to facing (degrees, (-180, 180]: 0 forward, +90 left, -90 right, 180 back). */
  direction: number;
  /** Turn rate of the facing (degrees per second; > 0 turns left). */
  turnRate: number;
}

export interface CoverageGrid {
  /** Speeds including 0, ascending. */
  speeds: number[];
  /** Directions (degrees), in order around the circle starting at 0. */
  directions: number[];
  /** Signed turn rates (degrees per second), ascending. */
  turnRates: number[];
  /** Speed 0 has one cell per turn rate (a standing character has no direction of travel); every other speed one per direction and turn rate. */
  cells: CoverageCell[];
}

export const DEFAULT_SPEED_BANDS = 5;
export const DEFAULT_DIRECTIONS = 16;
export const DEFAULT_TURN_RATES: readonly number[] = [0, 45, 90];
/**
 * Most moving speeds and most turn rates a grid takes (as the most speed bands): the requests are
 * speeds x directions x turn rates (both ways), each a controller run, and a list of thousands ran
 * the heap out (5 GB for 5,000 speeds).
 */
export const MAX_COVERAGE_SPEEDS = 50;
export const MAX_COVERAGE_TURN_RATES = 50;

/**
 * The database's top speed (m/s): the 99th percentile of the root's horizontal speed over its
 * search candidates, so that a few frames of a stumble do not stretch the grid. 0 for a database
 * that never moves.
 */
export function databaseTopSpeed(db: Database): number {
  const v = databaseRuntime(db).rootVelocity;
  const speeds: number[] = [];
  for (let f = 0; f < db.frameCount; f++) {
    if (db.candidates[f]) speeds.push(Math.hypot(v[3 * f], v[3 * f + 2]));
  }
  if (speeds.length === 0) return 0;
  speeds.sort((a, b) => a - b);
  return speeds[Math.min(speeds.length - 1, Math.floor(0.99 * speeds.length))];
}

/** `n` even steps from top/n to top, rounded to 0.1 m/s (at least 0.1). */
export function evenSpeeds(top: number, n: number): number[] {
  const out: number[] = [];
  for (let i = 1; i <= n; i++) {
    const s = Math.max(0.1, Math.round((10 * top * i) / n) / 10);
    if (!out.includes(s)) out.push(s);
  }
  return out;
}

function requirePositiveInteger(v: number, name: string, max: number): void {
  if (!(Number.isInteger(v) && v >= 1 && v <= max)) throw new RangeError(`coverage: ${name} must be an integer in [1, ${max}], got ${v}`);
}

/** The grid for `db` (throws RangeError naming a bad option). */
export function coverageGrid(db: Database, o: CoverageGridOptions = {}): CoverageGrid {
  const directionCount = o.directions ?? DEFAULT_DIRECTIONS;
  requirePositiveInteger(directionCount, 'directions', 360);
  let moving: number[];
  if (o.speeds !== undefined) {
    if (o.speeds.length > MAX_COVERAGE_SPEEDS) throw new RangeError(`coverage: at most ${MAX_COVERAGE_SPEEDS} speeds, got ${o.speeds.length}`);
    for (const s of o.speeds) if (!(Number.isFinite(s) && s > 0 && s <= 20)) throw new RangeError(`coverage: speeds must be in (0, 20] m/s, got ${s}`);
    moving = [...new Set(o.speeds)].sort((a, b) => a - b);
  } else {
    const bands = o.speedBands ?? DEFAULT_SPEED_BANDS;
    requirePositiveInteger(bands, 'speed bands', 50);
    const top = databaseTopSpeed(db);
    moving = top > 0.05 ? evenSpeeds(top, bands) : [];
  }
  const rates = o.turnRates ?? DEFAULT_TURN_RATES;
  if (rates.length > MAX_COVERAGE_TURN_RATES) throw new RangeError(`coverage: at most ${MAX_COVERAGE_TURN_RATES} turn rates, got ${rates.length}`);
  for (const r of rates) if (!(Number.isFinite(r) && r >= 0 && r <= 720)) throw new RangeError(`coverage: turn rates must be in [0, 720] degrees per second, got ${r}`);
  const turnRates = [...new Set(rates.flatMap((r) => (r === 0 ? [0] : [-r, r])))].sort((a, b) => a - b);
  if (turnRates.length === 0) throw new RangeError('coverage: give at least one turn rate');
  const directions = Array.from({ length: directionCount }, (_, i) => wrapDegrees((360 * i) / directionCount));
  const speeds = [0, ...moving];
  const cells: CoverageCell[] = [];
  for (const speed of speeds) {
    for (const direction of speed === 0 ? [0] : directions) {
      for (const turnRate of turnRates) cells.push({ index: cells.length, speed, direction, turnRate });
    }
  }
  return { speeds, directions, turnRates, cells };
}

/** An angle in degrees into (-180, 180]. */
export function wrapDegrees(a: number): number {
  let r = a % 360;
  if (r > 180) r -= 360;
  if (r <= -180) r += 360;
  return r;
}

/** What a capture of this request is called: "sidestep left", "backward walk", "diagonal forward-right", ... */
export function motionName(speed: number, direction: number): string {
  if (speed === 0) return 'standing';
  const gait = speed < 2.0 ? 'walk' : speed < 3.0 ? 'jog' : speed < 4.0 ? 'run' : 'sprint';
  const d = wrapDegrees(direction), a = Math.abs(d), side = d > 0 ? 'left' : 'right';
  if (a <= 11.25) return `forward ${gait}`;
  if (a >= 168.75) return `backward ${gait}`;
  if (a >= 78.75 && a <= 101.25) return speed < 2.0 ? `sidestep ${side}` : `sideways ${gait} ${side}`;
  if (a < 78.75) return `diagonal ${gait} forward-${side}`;
  return `diagonal ${gait} backward-${side}`;
}

/** "turning left 45°/s", or "" when straight. */
export function turnName(turnRate: number): string {
  if (turnRate === 0) return '';
  return `turning ${turnRate > 0 ? 'left' : 'right'} ${Math.abs(turnRate)}°/s`;
}

/** The request in words: "sidestep right at 1.5 m/s", "standing, turning left 90°/s (turn in place)". */
export function describeCell(c: Pick<CoverageCell, 'speed' | 'direction' | 'turnRate'>): string {
  const turn = turnName(c.turnRate);
  if (c.speed === 0) return turn ? `turn in place ${turn.replace('turning ', '')}` : 'standing still';
  return `${motionName(c.speed, c.direction)} at ${c.speed.toFixed(1)} m/s${turn ? `, ${turn}` : ''}`;
}
