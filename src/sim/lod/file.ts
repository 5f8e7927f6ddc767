/**
 * Level-of-detail tables from a file (`simulate --lod --lod-levels FILE`, docs/lod.md): the levels
 * and the hysteresis as one JSON object,
 *
 *   { "levels": [ { "maxDistance": 15, "searchInterval": 0.1, "fullSearchInterval": 0, "localSeconds": 0,
 *                   "footIK": true, "inertialization": true, "inertializationHalfLife": 0.1, "poseEvery": 1 },
 *                 ...,
 *                 { "maxDistance": null, ... } ],
 *     "hysteresis": 2,
 *     "comment": "free text (optional)" }
 *
 * Every level names all of LodLevel's fields (a table is read as written, never completed from the
 * defaults); the last level's maxDistance is null (JSON has no Infinity) or left out. The hysteresis
 * is optional (DEFAULT_LOD_HYSTERESIS). The table is then checked as the library checks it
 * (validateLodLevels). Browser-safe: reading the file is the caller's.
 */
import { DEFAULT_LOD_HYSTERESIS, validateLodLevels, type LodLevel } from '../../runtime/lod/levels.js';
import { isPlainObject, jsonType, parseJsonText } from '../../util/json-text.js';

export interface LodTable {
  levels: LodLevel[];
  hysteresis: number;
}

/** A level table that cannot be used; the message starts with the file (or "LOD table"). */
export class LodTableError extends Error {
  override readonly name = 'LodTableError';
}

const NUMBER_FIELDS = ['maxDistance', 'searchInterval', 'fullSearchInterval', 'localSeconds', 'inertializationHalfLife', 'poseEvery'] as const;
const BOOLEAN_FIELDS = ['footIK', 'inertialization'] as const;
const LEVEL_FIELDS: readonly string[] = [...NUMBER_FIELDS, ...BOOLEAN_FIELDS];
const TOP_LEVEL_KEYS = ['levels', 'hysteresis', 'comment'];

/** Parses and checks a level table's text. `source` names it in messages. */
export function parseLodTable(text: string, source = 'LOD table'): LodTable {
  return checkLodTable(parseJsonText(text, source, (m) => new LodTableError(m)), source);
}

/** Checks a parsed level table (see the file's comment for the shape). */
export function checkLodTable(value: unknown, source = 'LOD table'): LodTable {
  if (!isPlainObject(value)) throw new LodTableError(`${source}: must be a JSON object with "levels", got ${jsonType(value)}`);
  for (const key of Object.keys(value)) {
    if (!TOP_LEVEL_KEYS.includes(key)) throw new LodTableError(`${source}: unknown key "${key}" (allowed: ${TOP_LEVEL_KEYS.join(', ')})`);
  }
  const raw = value.levels;
  if (!Array.isArray(raw)) throw new LodTableError(`${source}: "levels" must be an array of levels, got ${jsonType(raw)}`);
  const levels = raw.map((l, i) => checkLevel(l, i, i === raw.length - 1, source));
  const h = value.hysteresis;
  if (h !== undefined && typeof h !== 'number') throw new LodTableError(`${source}: "hysteresis" must be a number of metres, got ${jsonType(h)}`);
  if (value.comment !== undefined && typeof value.comment !== 'string') throw new LodTableError(`${source}: "comment" must be a string, got ${jsonType(value.comment)}`);
  const hysteresis = h ?? DEFAULT_LOD_HYSTERESIS;
  try {
    validateLodLevels(levels, hysteresis);
  } catch (e) {
    throw new LodTableError(`${source}: ${(e as Error).message}`);
  }
  return { levels, hysteresis };
}

function checkLevel(l: unknown, i: number, last: boolean, source: string): LodLevel {
  const name = `${source}: levels[${i}]`;
  if (!isPlainObject(l)) throw new LodTableError(`${name} must be an object, got ${jsonType(l)}`);
  for (const key of Object.keys(l)) {
    if (!LEVEL_FIELDS.includes(key)) throw new LodTableError(`${name}: unknown field "${key}" (a level has ${LEVEL_FIELDS.join(', ')})`);
  }
  const out: Record<string, number | boolean> = {};
  for (const f of NUMBER_FIELDS) {
    const v = l[f];
    if (f === 'maxDistance' && last && (v === null || v === undefined)) { out[f] = Infinity; continue; }
    if (v === undefined) throw new LodTableError(`${name}: "${f}" is missing${f === 'maxDistance' ? ' (only the last level leaves it out or null: it reaches to infinity)' : ''}`);
    if (typeof v !== 'number') throw new LodTableError(`${name}: "${f}" must be a number, got ${jsonType(v)}`);
    if (f === 'maxDistance' && last) throw new LodTableError(`${name}: the last level reaches to infinity: give "maxDistance": null (or leave it out), not ${v}`);
    out[f] = v;
  }
  for (const f of BOOLEAN_FIELDS) {
    const v = l[f];
    if (v === undefined) throw new LodTableError(`${name}: "${f}" is missing`);
    if (typeof v !== 'boolean') throw new LodTableError(`${name}: "${f}" must be true or false, got ${jsonType(v)}`);
    out[f] = v;
  }
  return out as unknown as LodLevel;
}

/** A level table as JSON holds it: the last level's maxDistance null. */
export interface LodTableJson {
  levels: Array<Omit<LodLevel, 'maxDistance'> & { maxDistance: number | null }>;
  hysteresis: number;
}

/** The table as a JSON object a file holds (the last level's maxDistance null). */
export function lodTableJson(t: LodTable): LodTableJson {
  return {
    levels: t.levels.map((l) => ({ ...l, maxDistance: Number.isFinite(l.maxDistance) ? l.maxDistance : null })),
    hysteresis: t.hysteresis,
  };
}
