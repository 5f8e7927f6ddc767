/**
 * Procedural terrains for the simulation and the demo (docs/terrain.md), seeded and tiled: each is
 * a height field whose grid repeats (edges 'repeat'), so that agents wandering anywhere walk on it.
 *
 * - hills: a sum of sine waves over the tile, scaled so that the steepest slope of the bilinear
 *   surface is exactly 30° (every slope from flat to 30° occurs).
 * - steps: terraces whose risers are 10 to 25 cm high (drawn per level), 10 cm deep (one grid cell),
 *   with treads about 1 to 3 m wide, following the contour lines of gentle hills.
 *
 * A terrain travels as a TerrainSpec (plain data, so that simulation workers receive it) and becomes
 * a Ground with terrainGround.
 */
import { HeightField, type HeightFieldSpec } from '../../runtime/ground/height-field.js';
import { createRandom } from '../../util/prng.js';

export type TerrainKind = 'hills' | 'steps';
export const TERRAIN_KINDS: readonly TerrainKind[] = ['hills', 'steps'];

/** A terrain as plain data: a procedural kind and its seed, or a height field (from a file). */
export type TerrainSpec =
  | { kind: TerrainKind; seed: number }
  | { kind: 'field'; name: string; field: HeightFieldSpec };

/** Steepest slope of the hills (radians). */
export const HILLS_MAX_SLOPE = Math.PI / 6;
/** Riser heights of the steps (m): each level's is drawn from this range. */
export const STEP_MIN_RISE = 0.1, STEP_MAX_RISE = 0.25;

const HILLS_TILE = 64, HILLS_SPACING = 0.25;
const STEPS_TILE = 40, STEPS_SPACING = 0.1;
/** Sine waves in the hills, and their wave numbers over the tile (2 to 6 periods: 10-32 m waves). */
const HILLS_WAVES = 6, MIN_PERIODS = 2, MAX_PERIODS = 6;
/** The steps' terraces follow contours of hills whose steepest slope is this many levels per metre. */
const STEPS_LEVELS_PER_METRE = 1.2;

/** A sum of `count` seeded sine waves with whole periods over a `tile`-metre square (so it tiles). */
function waves(seed: number, tile: number, count: number): (x: number, z: number) => number {
  const random = createRandom(seed);
  const kx: number[] = [], kz: number[] = [], amp: number[] = [], phase: number[] = [];
  for (let k = 0; k < count; k++) {
    let p = 0, q = 0;
    while (p * p + q * q < MIN_PERIODS * MIN_PERIODS || p * p + q * q > MAX_PERIODS * MAX_PERIODS) {
      p = Math.round((random() * 2 - 1) * MAX_PERIODS);
      q = Math.round((random() * 2 - 1) * MAX_PERIODS);
    }
    kx.push((2 * Math.PI * p) / tile); kz.push((2 * Math.PI * q) / tile);
    // Longer waves taller: amplitude ∝ wavelength keeps every wave's slope alike.
    amp.push((0.5 + random()) / Math.hypot(p, q));
    phase.push(random() * 2 * Math.PI);
  }
  return (x, z) => {
    let h = 0;
    for (let k = 0; k < count; k++) h += amp[k] * Math.sin(kx[k] * x + kz[k] * z + phase[k]);
    return h;
  };
}

/**
 * The steepest slope (rise over run) of a height field's bilinear surface: within a cell the slope
 * is largest at a corner, where it is made of the cell's two edge slopes meeting there.
 */
export function maxSlope(field: HeightField): number {
  const { columns: C, rows: R, heights: h, spacing } = field;
  const repeat = field.edges === 'repeat';
  const cellsX = repeat ? C : C - 1, cellsZ = repeat ? R : R - 1;
  let most = 0;
  for (let j = 0; j < cellsZ; j++) {
    const j1 = (j + 1) % R;
    for (let i = 0; i < cellsX; i++) {
      const i1 = (i + 1) % C;
      const h00 = h[j * C + i], h10 = h[j * C + i1], h01 = h[j1 * C + i], h11 = h[j1 * C + i1];
      const gx0 = h10 - h00, gx1 = h11 - h01, gz0 = h01 - h00, gz1 = h11 - h10;
      most = Math.max(most, gx0 * gx0 + gz0 * gz0, gx0 * gx0 + gz1 * gz1, gx1 * gx1 + gz0 * gz0, gx1 * gx1 + gz1 * gz1);
    }
  }
  return Math.sqrt(most) / spacing;
}

/** Seeded hills: a 64 m tile, 0.25 m grid, steepest slope exactly 30°. */
export function hillsField(seed: number): HeightField {
  const layout = { columns: HILLS_TILE / HILLS_SPACING, rows: HILLS_TILE / HILLS_SPACING, spacing: HILLS_SPACING, edges: 'repeat' as const };
  const raw = HeightField.fromFunction(waves(seed, HILLS_TILE, HILLS_WAVES), layout);
  const scale = Math.tan(HILLS_MAX_SLOPE) / maxSlope(raw);
  return HeightField.fromArray(Array.from(raw.heights, (h) => h * scale), layout);
}

/** Seeded steps: a 40 m tile, 0.1 m grid, risers of 10-25 cm between treads about 1-3 m wide. */
export function stepsField(seed: number): HeightField {
  const layout = { columns: STEPS_TILE / STEPS_SPACING, rows: STEPS_TILE / STEPS_SPACING, spacing: STEPS_SPACING, edges: 'repeat' as const };
  // Level number = contour of smooth hills, scaled to STEPS_LEVELS_PER_METRE at their steepest.
  const smooth = HeightField.fromFunction(waves(seed, STEPS_TILE, 5), layout);
  const levelsPerUnit = STEPS_LEVELS_PER_METRE / maxSlope(smooth);
  let lo = Infinity, hi = -Infinity;
  const level = Array.from(smooth.heights, (h) => {
    const n = Math.floor(h * levelsPerUnit);
    lo = Math.min(lo, n); hi = Math.max(hi, n);
    return n;
  });
  // Each level's riser height, drawn once: level n stands on the sum of the risers below it.
  const random = createRandom(seed ^ 0x5bd1e995);
  const base = new Float64Array(hi - lo + 1);
  for (let n = 1; n < base.length; n++) base[n] = base[n - 1] + STEP_MIN_RISE + (STEP_MAX_RISE - STEP_MIN_RISE) * random();
  return HeightField.fromArray(level.map((n) => base[n - lo]), layout);
}

const made = new WeakMap<object, HeightField>();

/** The terrain's height field (made once per spec object: agents of a thread share it). */
export function terrainGround(spec: TerrainSpec): HeightField {
  let field = made.get(spec);
  if (field) return field;
  switch (spec.kind) {
    case 'hills': field = hillsField(spec.seed); break;
    case 'steps': field = stepsField(spec.seed); break;
    case 'field': field = HeightField.fromSpec(spec.field); break;
    default: throw new RangeError(`unknown terrain kind ${String((spec as { kind: unknown }).kind)} (known: ${TERRAIN_KINDS.join(', ')}, or a height field file)`);
  }
  made.set(spec, field);
  return field;
}

/**
 * The spec with a height field's heights in a SharedArrayBuffer, so that posting it to worker
 * threads shares one copy instead of cloning it per worker (procedural kinds are returned as they
 * are: each thread generates its tile from the seed). Unchanged where SharedArrayBuffer is missing.
 */
export function shareTerrain(spec: TerrainSpec): TerrainSpec {
  if (spec.kind !== 'field' || typeof SharedArrayBuffer !== 'function' || spec.field.heights.buffer instanceof SharedArrayBuffer) return spec;
  const heights = new Float32Array(new SharedArrayBuffer(spec.field.heights.byteLength));
  heights.set(spec.field.heights);
  return { ...spec, field: { ...spec.field, heights } };
}

/** One line about a terrain, for reports: "hills (seed 1)", "steps (seed 1)", "field.json (400 x 400, 0.1 m)". */
export function describeTerrain(spec: TerrainSpec): string {
  if (spec.kind === 'field') return `${spec.name} (${spec.field.columns} x ${spec.field.rows} samples, ${spec.field.spacing} m apart)`;
  return `${spec.kind} (seed ${spec.seed})`;
}

/** The terrain as a JSON report records it (null on flat ground). */
export function terrainReport(t: TerrainSpec | null): Record<string, unknown> | null {
  if (!t) return null;
  if (t.kind !== 'field') return { kind: t.kind, seed: t.seed };
  const f = t.field;
  return { kind: 'file', file: t.name, columns: f.columns, rows: f.rows, spacing: f.spacing, originX: f.originX, originZ: f.originZ, edges: f.edges };
}

/** describeTerrain's line from a report's terrain (terrainReport), e.g. in `motionmatch merge`. */
export function describeTerrainReport(r: Record<string, unknown>): string {
  if (r.kind === 'file') return `${String(r.file)} (${String(r.columns)} x ${String(r.rows)} samples, ${String(r.spacing)} m apart)`;
  return `${String(r.kind)} (seed ${String(r.seed)})`;
}

/** The terrain's short name in table rows: "hills", "steps", or the file's name. */
export function terrainName(t: TerrainSpec): string {
  return t.kind === 'field' ? t.name : t.kind;
}
