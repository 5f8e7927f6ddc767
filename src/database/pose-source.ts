/**
 * Databases that share one set of poses. A copy with new feature weights (reweightDatabase) shares
 * the original's poses, root tracks, clips, contact labels, candidates and skeleton: what the
 * runtime derives from those alone (its pose tables, the captured contact data, the data's own
 * quality level, each a pass over every frame) is the same for both. Caches of such data key on
 * poseSource(db), so that a sweep over weightings (`motionmatch tune`) derives it once instead of
 * once per point: on the shared real captures' tuning half, 7.5 s of a 22 s sweep. Copies decoded
 * from the same bytes (declarePoseTwin) share them too, once checked equal.
 */
import type { Database } from './database.js';
import { sameBits } from '../util/same-bits.js';

const sources = new WeakMap<Database, Database>();

/** The database whose poses `db` shares: `db` itself unless it was declared a copy (sharePoses), or a twin found still equal (declarePoseTwin). */
export function poseSource(db: Database): Database {
  const shared = sources.get(db);
  if (shared !== undefined) return shared;
  const twin = twins.get(db);
  if (twin === undefined) return db;
  twins.delete(db);
  if (!samePoseData(db, twin)) return db;
  sources.set(db, poseSource(twin));
  return sources.get(db)!;
}

/**
 * Declares that `copy` holds the very arrays of `source` for everything but its feature schema,
 * normalisation and normalised features (the same objects, not equal ones): poses, root tracks,
 * clips, contacts, candidates, tags, raw features, skeleton and roles.
 */
export function sharePoses(copy: Database, source: Database): void {
  if (copy !== source) sources.set(copy, poseSource(source));
}

/** Copies declared equal to a database (declarePoseTwin), not yet checked. */
const twins = new WeakMap<Database, Database>();

/**
 * Declares that `copy` was decoded from the same bytes as `source` (equal arrays, not the same
 * ones: the built-in database hands each caller a copy of its own, src/apps/builtin-database.ts).
 * The first poseSource(copy) compares what sharePoses covers, bit for bit, and only if it is still
 * all equal (nobody wrote to the copy first) takes `source`'s poses for the copy's: a command run
 * again in the same process (a test, a sweep) then reuses the tables derived from them (150-200 ms
 * of the built-in database's, each time) instead of deriving them again. What is derived from a
 * database is already taken once, at its first use; a copy changed after that is in the same case
 * as any database changed after its first use.
 */
export function declarePoseTwin(copy: Database, source: Database): void {
  if (copy !== source) twins.set(copy, source);
}

/** Whether `a` and `b` hold equal (bit for bit) values for everything sharePoses lets a copy share. */
export function samePoseData(a: Database, b: Database): boolean {
  if (a.fps !== b.fps || a.frameCount !== b.frameCount || a.clips.length !== b.clips.length) return false;
  for (let i = 0; i < a.clips.length; i++) {
    const x = a.clips[i], y = b.clips[i];
    if (x.name !== y.name || x.source !== y.source || x.start !== y.start || x.count !== y.count || x.loop !== y.loop || x.mirrored !== y.mirrored || x.sourceFps !== y.sourceFps || !sameStrings(x.tags, y.tags)) return false;
  }
  const sa = a.skeleton, sb = b.skeleton;
  if (!sameStrings(sa.names, sb.names) || !sameBits(sa.parents, sb.parents) || !sameBits(sa.offsets, sb.offsets) || !sameBits(sa.endSiteParents, sb.endSiteParents) || !sameBits(sa.endSiteOffsets, sb.endSiteOffsets)) return false;
  const ra = a.roles as Record<string, number>, rb = b.roles as Record<string, number>;
  const roles = Object.keys(ra);
  if (roles.length !== Object.keys(rb).length || roles.some((k) => ra[k] !== rb[k])) return false;
  return sameStrings(a.tagNames, b.tagNames) && sameBits(a.rotations, b.rotations) && sameBits(a.translations, b.translations) &&
    sameBits(a.rootPositions, b.rootPositions) && sameBits(a.rootRotations, b.rootRotations) && sameBits(a.contacts, b.contacts) &&
    sameBits(a.candidates, b.candidates) && sameBits(a.tagBits, b.tagBits) && sameBits(a.rawFeatures, b.rawFeatures);
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
