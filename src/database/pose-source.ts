/**
 * Databases that share one set of poses. A copy with new feature weights (reweightDatabase) shares
 * the original's poses, root tracks, clips, contact labels, candidates and skeleton: what the
 * runtime derives from those alone (its pose tables, the captured contact data, the data's own
 * quality level, each a pass over every frame) is the same for both. Caches of such data key on
 * poseSource(db), so that a sweep over weightings (`motionmatch tune`) derives it once instead of
 * once per point: on the shared real captures' tuning half, 7.5 s of a 22 s sweep.
 */
import type { Database } from './database.js';

const sources = new WeakMap<Database, Database>();

/** The database whose poses `db` shares: `db` itself unless it was declared a copy (sharePoses). */
export function poseSource(db: Database): Database {
  return sources.get(db) ?? db;
}

/**
 * Declares that `copy` holds the very arrays of `source` for everything but its feature schema,
 * normalisation and normalised features (the same objects, not equal ones): poses, root tracks,
 * clips, contacts, candidates, tags, raw features, skeleton and roles.
 */
export function sharePoses(copy: Database, source: Database): void {
  if (copy !== source) sources.set(copy, poseSource(source));
}
