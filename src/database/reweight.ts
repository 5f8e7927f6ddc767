/**
 * New feature-group weights for a built database. A group's weight only sets its normalisation
 * scale (scale = mean of the group's per-dimension standard deviations / weight, see
 * docs/features.md), so a database need not be rebuilt from its clips to change one: the scale and
 * the normalised features are recomputed from the raw features it keeps. The result is exactly
 * what a build with the same weights in its schema would have stored.
 */
import { computeNormalization, normalizeRows } from '../features/extract.js';
import type { FeatureSchema } from '../features/schema.js';
import type { Database } from './database.js';
import { sharePoses } from './pose-source.js';

/** A weight map names a group the schema does not have, or gives a weight outside (0, ∞). */
export class SchemaWeightError extends Error {
  override readonly name = 'SchemaWeightError';
}

/** The schema's group weights by group name. */
export function schemaWeights(schema: FeatureSchema): Record<string, number> {
  const out: Record<string, number> = {};
  for (const g of schema.groups) out[g.name] = g.weight;
  return out;
}

/**
 * `schema` with the weights in `weights` (group name -> weight); groups not named keep theirs.
 * Throws SchemaWeightError naming an unknown group (and the known ones) or a bad weight.
 */
export function schemaWithWeights(schema: FeatureSchema, weights: Readonly<Record<string, number>>): FeatureSchema {
  const names = new Set(schema.groups.map((g) => g.name));
  for (const [name, w] of Object.entries(weights)) {
    if (!names.has(name)) throw new SchemaWeightError(`schema weight for unknown feature group "${name}" (this database's groups: ${[...names].join(', ')})`);
    if (typeof w !== 'number' || !Number.isFinite(w) || w <= 0) throw new SchemaWeightError(`schema weight of group "${name}" must be a finite number > 0, got ${JSON.stringify(w)}`);
  }
  return { ...schema, groups: schema.groups.map((g) => (Object.hasOwn(weights, g.name) ? { ...g, weight: weights[g.name] } : g)) };
}

/**
 * A copy of `db` whose groups carry `weights`: new schema, mean, scale and normalised features (the
 * raw features and everything else are shared with `db`, not copied). With weights equal to the
 * current ones the features are bit-identical to `db`'s.
 */
export function reweightDatabase(db: Database, weights: Readonly<Record<string, number>>): Database {
  const schema = schemaWithWeights(db.schema, weights);
  const mean = new Float32Array(db.stride), scale = new Float32Array(db.stride);
  computeNormalization(db.rawFeatures, db.frameCount, db.stride, schema, mean, scale);
  const features = new Float32Array(db.frameCount * db.stride);
  normalizeRows(db.rawFeatures, db.frameCount, db.stride, db.dims, mean, scale, features);
  const copy = { ...db, schema, mean, scale, features };
  sharePoses(copy, db);
  return copy;
}
