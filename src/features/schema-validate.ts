import { DEFAULT_SCHEMA, schemaDims, type FeatureGroup, type FeatureGroupKind, type FeatureSchema } from './schema.js';

export class SchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaError';
  }
}

const KINDS: readonly FeatureGroupKind[] = ['bonePosition', 'boneVelocity', 'trajectoryPosition', 'trajectoryDirection'];

/**
 * Most feature dimensions a schema may make in all (a frame's row is this many floats, searched
 * per query: the default schema has 27), and most bones or offsets in one group. Without them a
 * 17 KB schema of 2,000 offsets made a 274 MB database, and 10,000 never finished building.
 */
export const MAX_SCHEMA_DIMS = 256;
export const MAX_GROUP_ENTRIES = 64;
/**
 * Group weights (normalisation: a group's scale is its spread / weight): beyond these the
 * normalised features overflow float32 (1e38) or vanish, and every search cost is NaN or 0.
 */
export const MIN_GROUP_WEIGHT = 1e-6;
export const MAX_GROUP_WEIGHT = 1e6;

/** "[0.000001, 1000000]": a range as a message writes it (no exponents for these). */
export function weightRangeText(): string {
  return `[${MIN_GROUP_WEIGHT.toFixed(6)}, ${MAX_GROUP_WEIGHT}]`;
}

/** Whether `w` is a usable group weight. */
export function isGroupWeight(w: unknown): w is number {
  return typeof w === 'number' && w >= MIN_GROUP_WEIGHT && w <= MAX_GROUP_WEIGHT;
}

const TOP_LEVEL_KEYS = ['groups', 'endMarginSeconds', 'facingSmoothingSeconds', 'positionSmoothingSeconds'];
const GROUP_KEYS = ['name', 'kind', 'weight'];

/**
 * Throws SchemaError when a schema would make a database too large to build or search: more than
 * MAX_GROUP_ENTRIES bones or offsets in a group, or more than MAX_SCHEMA_DIMS dimensions in all.
 * Checked where a database is made from a schema (a schema file, buildDatabase), not where one is
 * read (decodeDatabase checks a file's shape against its own size). Counts first, before any entry:
 * checking every entry of a list of millions takes time of its own.
 */
export function checkSchemaSize(s: FeatureSchema, where = 'schema'): void {
  if (!Array.isArray(s.groups)) return;
  s.groups.forEach((g, i) => {
    if (!g || typeof g !== 'object') return;
    const list = g.kind === 'bonePosition' || g.kind === 'boneVelocity' ? 'bones' : 'offsets';
    const entries: unknown = g[list];
    if (Array.isArray(entries) && entries.length > MAX_GROUP_ENTRIES) {
      const at = `${where}: groups[${i}]${typeof g.name === 'string' ? ` ("${g.name}")` : ''}`;
      throw new SchemaError(`${at}: "${list}" has ${entries.length} entries; a group may have at most ${MAX_GROUP_ENTRIES} (${MAX_SCHEMA_DIMS} feature dimensions in all)`);
    }
  });
  const dims = schemaDims(s);
  if (dims > MAX_SCHEMA_DIMS) throw new SchemaError(`${where}: the groups make ${dims} feature dimensions; a schema may have at most ${MAX_SCHEMA_DIMS} (3 per bone, 2 per offset)`);
}

/** Throws SchemaError naming the first problem: unknown kinds, empty groups, bad weights or offsets. */
export function validateSchema(s: FeatureSchema, where = 'schema'): void {
  if (!Array.isArray(s.groups) || s.groups.length === 0) throw new SchemaError(`${where}: "groups" must be a non-empty array`);
  const names = new Set<string>();
  s.groups.forEach((g, i) => {
    const at = `${where}: groups[${i}]${g && typeof g.name === 'string' ? ` ("${g.name}")` : ''}`;
    if (!g || typeof g !== 'object') throw new SchemaError(`${at} must be an object`);
    if (typeof g.name !== 'string' || g.name.length === 0) throw new SchemaError(`${at}: "name" must be a non-empty string`);
    if (names.has(g.name)) throw new SchemaError(`${at}: duplicate group name`);
    names.add(g.name);
    if (!KINDS.includes(g.kind)) throw new SchemaError(`${at}: "kind" must be one of ${KINDS.join(', ')}, got ${JSON.stringify(g.kind)}`);
    if (!isGroupWeight(g.weight)) {
      throw new SchemaError(`${at}: "weight" must be a number in ${weightRangeText()}, got ${typeof g.weight === 'number' ? String(g.weight) : JSON.stringify(g.weight)} (drop the group to switch it off)`);
    }
    if (g.kind === 'bonePosition' || g.kind === 'boneVelocity') {
      if (!Array.isArray(g.bones) || g.bones.length === 0 || !g.bones.every((b) => typeof b === 'string' && b.length > 0)) {
        throw new SchemaError(`${at}: "bones" must be a non-empty array of role or joint names`);
      }
    } else if (!Array.isArray(g.offsets) || g.offsets.length === 0 || !g.offsets.every((o) => typeof o === 'number' && Number.isFinite(o) && Math.abs(o) <= 60)) {
      throw new SchemaError(`${at}: "offsets" must be a non-empty array of finite times in seconds (|t| <= 60)`);
    }
  });
  for (const key of ['endMarginSeconds', 'facingSmoothingSeconds', 'positionSmoothingSeconds'] as const) {
    const v = s[key];
    if (key === 'positionSmoothingSeconds' && v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 10) throw new SchemaError(`${where}: "${key}" must be a number of seconds in [0, 10], got ${JSON.stringify(v)}`);
  }
}

/**
 * A schema file's keys are the schema's (as a settings file's are): a misspelt key ("wieght",
 * "offset") would otherwise be dropped in silence and the default used.
 */
function refuseUnknownKeys(doc: Record<string, unknown>, where: string): void {
  const known = (keys: readonly string[]) => keys.map((k) => `"${k}"`).join(', ');
  for (const k of Object.keys(doc)) if (!TOP_LEVEL_KEYS.includes(k)) throw new SchemaError(`${where}: unknown key "${k}" (a schema has ${known(TOP_LEVEL_KEYS)})`);
  if (!Array.isArray(doc.groups)) return; // validateSchema says what groups must be
  doc.groups.forEach((g: unknown, i) => {
    if (!g || typeof g !== 'object' || Array.isArray(g)) return;
    const group = g as Record<string, unknown>;
    const kind = typeof group.kind === 'string' && (KINDS as readonly string[]).includes(group.kind) ? group.kind as FeatureGroupKind : null;
    const keys = [...GROUP_KEYS, ...(kind === null ? ['bones', 'offsets'] : kind === 'bonePosition' || kind === 'boneVelocity' ? ['bones'] : ['offsets'])];
    for (const k of Object.keys(group)) {
      if (!keys.includes(k)) {
        const name = typeof group.name === 'string' ? ` ("${group.name}")` : '';
        throw new SchemaError(`${where}: groups[${i}]${name}: unknown key "${k}" (a ${kind ?? 'feature'} group has ${known(keys)})`);
      }
    }
  });
}

/** Parses a schema JSON document; missing top-level fields take DEFAULT_SCHEMA's values. */
export function parseSchemaJson(text: string, where = 'schema'): FeatureSchema {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new SchemaError(`${where}: not valid JSON (${(e as Error).message})`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new SchemaError(`${where}: expected a JSON object with "groups"`);
  refuseUnknownKeys(doc as Record<string, unknown>, where);
  const d = doc as Partial<FeatureSchema>;
  const schema: FeatureSchema = {
    groups: (d.groups ?? DEFAULT_SCHEMA.groups) as FeatureGroup[],
    endMarginSeconds: d.endMarginSeconds ?? DEFAULT_SCHEMA.endMarginSeconds,
    facingSmoothingSeconds: d.facingSmoothingSeconds ?? DEFAULT_SCHEMA.facingSmoothingSeconds,
    positionSmoothingSeconds: d.positionSmoothingSeconds ?? (d.facingSmoothingSeconds !== undefined ? d.facingSmoothingSeconds : DEFAULT_SCHEMA.positionSmoothingSeconds),
  };
  checkSchemaSize(schema, where);
  validateSchema(schema, where);
  return schema;
}
