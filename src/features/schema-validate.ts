import { DEFAULT_SCHEMA, schemaDims, type FeatureGroup, type FeatureGroupKind, type FeatureSchema } from './schema.js';
import { pathText, plainObject, readJson, strictEntries, strictObject, v } from '../util/json-schema.js';

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

const quoted = (keys: readonly string[]) => keys.map((k) => `"${k}"`).join(', ');

/** One group of a schema file, of kind `kind`: its keys are the schema's (a misspelt "wieght" is refused, not dropped). */
function groupJson<K extends FeatureGroupKind>(kind: K) {
  const words = { unknown: (k: string, allowed: string[]) => `unknown key "${k}" (a ${kind} group has ${quoted(allowed)})` };
  const common = { name: v.string(), kind: v.literal(kind), weight: v.number() };
  return kind === 'bonePosition' || kind === 'boneVelocity'
    ? strictEntries({ ...common, bones: v.array(v.string()) }, words)
    : strictEntries({ ...common, offsets: v.array(v.number()) }, words);
}

const GroupJson = v.pipe(plainObject(), v.variant('kind', [groupJson('bonePosition'), groupJson('boneVelocity'), groupJson('trajectoryPosition'), groupJson('trajectoryDirection')], `one of ${KINDS.join(', ')}`));

/**
 * A schema file's shape: the schema's keys (a misspelt key would otherwise be dropped in silence
 * and the default used), each of its JSON type. What the values mean (non-empty groups, weights,
 * offsets, sizes) is checkSchemaSize's and validateSchema's, which check schemas made in code too.
 */
export const SchemaFileSchema = strictObject({
  groups: v.optional(v.array(GroupJson)),
  endMarginSeconds: v.optional(v.number()),
  facingSmoothingSeconds: v.optional(v.number()),
  positionSmoothingSeconds: v.optional(v.number()),
}, {
  expected: 'a JSON object with "groups"',
  unknown: (k) => `unknown key "${k}" (a schema has ${quoted(TOP_LEVEL_KEYS)})`,
});

/** A schema file as it holds it (fields left out take DEFAULT_SCHEMA's). */
export type SchemaFile = v.InferOutput<typeof SchemaFileSchema>;

/** groups[2] ("feet").weight: a group named after its index, as validateSchema names it. */
function schemaPath(keys: ReadonlyArray<string | number>, root: unknown): string {
  if (keys[0] !== 'groups' || typeof keys[1] !== 'number') return pathText(keys);
  const g = (root as { groups?: unknown[] }).groups?.[keys[1]] as { name?: unknown } | undefined;
  const name = g && typeof g === 'object' && typeof g.name === 'string' ? ` (${JSON.stringify(g.name.length > 40 ? `${g.name.slice(0, 40)}…` : g.name)})` : '';
  const rest = pathText(keys.slice(2));
  return `groups[${keys[1]}]${name}${rest === '' ? '' : rest.startsWith('[') ? rest : `.${rest}`}`;
}

/** Parses a schema JSON document; missing top-level fields take DEFAULT_SCHEMA's values. */
export function parseSchemaJson(text: string, where = 'schema'): FeatureSchema {
  const d = readJson(SchemaFileSchema, text, where, (m) => new SchemaError(m), { label: schemaPath });
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
