/**
 * The tags a simulated crowd's locomotion searches keep to (`simulate`/`quality` --require-tag,
 * --exclude-tag), and the rule that keeps gestures out of locomotion: frames tagged for overlays
 * (`--overlay TAG`) are played by the overlay layer over the walk, and chosen by the locomotion
 * search a standing character idled on a bow. They are left out unless `require` asks for the tag.
 */
import type { Database } from '../database/database.js';
import { excerpt } from '../util/input-text.js';

/** Tag filters as a run's settings give them (each list may be empty). */
export interface SearchTags {
  require: string[];
  exclude: string[];
}

/** The filters a ScriptedDriver passes on with every input (null: no filter of that kind). */
export interface LocomotionTags {
  require: string[] | null;
  exclude: string[] | null;
}

/** Throws RangeError naming the first tag `db` does not have, and the tags it has. */
export function checkSearchTags(db: Database, tags: SearchTags | null | undefined): void {
  if (!tags) return;
  for (const [option, list] of [['--require-tag', tags.require], ['--exclude-tag', tags.exclude]] as const) {
    if (!Array.isArray(list)) throw new TypeError(`${option}: expected a list of tag names`);
    for (const t of list) {
      if (typeof t !== 'string' || t === '') throw new RangeError(`${option}: a tag must be a non-empty name`);
      if (!db.tagNames.includes(t)) {
        const have = db.tagNames.length > 0 ? `its tags: ${excerpt(db.tagNames.join(', '), 200)}` : 'it has none; tag clips with build --tag TAG=GLOB';
        throw new RangeError(`${option} ${excerpt(t, 80)}: the database has no frames tagged '${excerpt(t, 80)}' (${have})`);
      }
    }
  }
  const both = tags.require.find((t) => tags.exclude.includes(t));
  if (both !== undefined) throw new RangeError(`tag '${excerpt(both, 80)}' is both required (--require-tag) and excluded (--exclude-tag): no frame could be chosen`);
}

/**
 * The filters of a run's locomotion searches: `tags` as given, plus the overlay's tag excluded
 * unless it is required. `db` must have every tag named (checkSearchTags).
 */
export function locomotionTags(db: Database, tags: SearchTags | null | undefined, overlayTag: string | null): LocomotionTags {
  checkSearchTags(db, tags);
  const require = tags ? [...tags.require] : [];
  const exclude = tags ? [...tags.exclude] : [];
  if (overlayTag !== null && db.tagNames.includes(overlayTag) && !require.includes(overlayTag) && !exclude.includes(overlayTag)) exclude.push(overlayTag);
  return { require: require.length > 0 ? require : null, exclude: exclude.length > 0 ? exclude : null };
}

/** The filters in words, for a text report: "only walk + strafe; never wave". */
export function searchTagsText(tags: SearchTags): string {
  const parts: string[] = [];
  if (tags.require.length > 0) parts.push(`only ${tags.require.join(' + ')}`);
  if (tags.exclude.length > 0) parts.push(`never ${tags.exclude.join(', ')}`);
  return parts.join('; ');
}
