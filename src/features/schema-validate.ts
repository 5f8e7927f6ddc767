import { DEFAULT_SCHEMA, type FeatureGroup, type FeatureGroupKind, type FeatureSchema } from './schema.js';

export class SchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaError';
  }
}

const KINDS: readonly FeatureGroupKind[] = ['bonePosition', 'boneVelocity', 'trajectoryPosition', 'trajectoryDirection'];

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
    if (typeof g.weight !== 'number' || !Number.isFinite(g.weight) || g.weight <= 0) {
      throw new SchemaError(`${at}: "weight" must be a finite number > 0, got ${JSON.stringify(g.weight)} (drop the group to switch it off)`);
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

/** Parses a schema JSON document; missing top-level fields take DEFAULT_SCHEMA's values. */
export function parseSchemaJson(text: string, where = 'schema'): FeatureSchema {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new SchemaError(`${where}: not valid JSON (${(e as Error).message})`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new SchemaError(`${where}: expected a JSON object with "groups"`);
  const d = doc as Partial<FeatureSchema>;
  const schema: FeatureSchema = {
    groups: (d.groups ?? DEFAULT_SCHEMA.groups) as FeatureGroup[],
    endMarginSeconds: d.endMarginSeconds ?? DEFAULT_SCHEMA.endMarginSeconds,
    facingSmoothingSeconds: d.facingSmoothingSeconds ?? DEFAULT_SCHEMA.facingSmoothingSeconds,
    positionSmoothingSeconds: d.positionSmoothingSeconds ?? (d.facingSmoothingSeconds !== undefined ? d.facingSmoothingSeconds : DEFAULT_SCHEMA.positionSmoothingSeconds),
  };
  validateSchema(schema, where);
  return schema;
}
