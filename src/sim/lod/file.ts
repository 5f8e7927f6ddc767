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
import { checkJson, readJson, strictObject, v } from '../../util/json-schema.js';

export interface LodTable {
  levels: LodLevel[];
  hysteresis: number;
}

/** A level table that cannot be used; the message starts with the file (or "LOD table"). */
export class LodTableError extends Error {
  override readonly name = 'LodTableError';
}

/**
 * One level as a file writes it: every field of LodLevel, the last level's maxDistance null or
 * left out (checkLodTable says which level may leave it out).
 */
const LevelJson = strictObject({
  maxDistance: v.nullish(v.number()),
  searchInterval: v.number(),
  fullSearchInterval: v.number(),
  localSeconds: v.number(),
  inertializationHalfLife: v.number(),
  poseEvery: v.number(),
  footIK: v.boolean(),
  inertialization: v.boolean(),
}, { unknown: (k, allowed) => `unknown field "${k}" (a level has ${allowed.join(', ')})` });

/** A level table file's shape (the levels' meaning is validateLodLevels'). */
export const LodTableSchema = strictObject({
  levels: v.array(LevelJson, 'an array of levels'),
  hysteresis: v.optional(v.number('a number of metres')),
  comment: v.optional(v.string()),
}, { expected: 'a JSON object with "levels"' });

/** A level table as its file holds it. */
export type LodTableFile = v.InferOutput<typeof LodTableSchema>;

const error = (m: string) => new LodTableError(m);

/** Parses and checks a level table's text. `source` names it in messages. */
export function parseLodTable(text: string, source = 'LOD table'): LodTable {
  return levelTable(readJson(LodTableSchema, text, source, error, { empty: 'not valid JSON (the file is empty)' }), source);
}

/** Checks a parsed level table (see the file's comment for the shape). */
export function checkLodTable(value: unknown, source = 'LOD table'): LodTable {
  return levelTable(checkJson(LodTableSchema, value, source, error), source);
}

function levelTable(file: LodTableFile, source: string): LodTable {
  const raw = file.levels;
  const levels = raw.map((l, i) => {
    const at = `${source}: levels[${i}]`;
    const last = i === raw.length - 1;
    if (!last && l.maxDistance === undefined) throw error(`${at}.maxDistance is missing (only the last level leaves it out or null: it reaches to infinity)`);
    if (!last && l.maxDistance === null) throw error(`${at}.maxDistance must be a number (only the last level is null: it reaches to infinity), got null`);
    if (last && typeof l.maxDistance === 'number') throw error(`${at}: the last level reaches to infinity: give "maxDistance": null (or leave it out), not ${l.maxDistance}`);
    return {
      maxDistance: l.maxDistance ?? Infinity, searchInterval: l.searchInterval, fullSearchInterval: l.fullSearchInterval, localSeconds: l.localSeconds,
      inertializationHalfLife: l.inertializationHalfLife, poseEvery: l.poseEvery, footIK: l.footIK, inertialization: l.inertialization,
    } satisfies LodLevel;
  });
  const hysteresis = file.hysteresis ?? DEFAULT_LOD_HYSTERESIS;
  try {
    validateLodLevels(levels, hysteresis);
  } catch (e) {
    throw error(`${source}: ${(e as Error).message}`);
  }
  return { levels, hysteresis };
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
