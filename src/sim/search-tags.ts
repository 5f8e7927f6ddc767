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

/** The page address's key for the tag filters (`demo --require-tag/--exclude-tag`: #tags=...). */
export const SEARCH_TAGS_FRAGMENT_KEY = 'tags';

/** "tags=..." for a page address's fragment (joined to others with '&'). */
export function searchTagsFragment(tags: SearchTags): string {
  return `${SEARCH_TAGS_FRAGMENT_KEY}=${encodeURIComponent(JSON.stringify({ require: tags.require, exclude: tags.exclude }))}`;
}

/** The filters a page address's fragment carries (null: none), or a RangeError saying what is wrong with them. */
export function searchTagsFromFragment(hash: string): SearchTags | null {
  const text = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash).get(SEARCH_TAGS_FRAGMENT_KEY);
  if (text === null) return null;
  let v: unknown;
  try { v = JSON.parse(text); } catch { throw new RangeError(`the page address (#${SEARCH_TAGS_FRAGMENT_KEY}=...): not valid JSON`); }
  const o = v as { require?: unknown; exclude?: unknown };
  const list = (x: unknown, key: string): string[] => {
    if (x === undefined) return [];
    if (!Array.isArray(x) || x.length > 64 || x.some((t) => typeof t !== 'string' || t === '' || t.length > 200)) {
      throw new RangeError(`the page address (#${SEARCH_TAGS_FRAGMENT_KEY}=...): ${key} must be a list of at most 64 tag names`);
    }
    return [...(x as string[])];
  };
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new RangeError(`the page address (#${SEARCH_TAGS_FRAGMENT_KEY}=...): expected { "require": [...], "exclude": [...] }`);
  return { require: list(o.require, 'require'), exclude: list(o.exclude, 'exclude') };
}

/**
 * `tags` without the names `db` has no frames for (a page that switches databases keeps the
 * filters that still mean something there), and those names.
 */
export function searchTagsOn(db: Database, tags: SearchTags | null | undefined): { tags: SearchTags | null; missing: string[] } {
  if (!tags) return { tags: null, missing: [] };
  const missing = [...tags.require, ...tags.exclude].filter((t) => !db.tagNames.includes(t));
  const require = tags.require.filter((t) => db.tagNames.includes(t)), exclude = tags.exclude.filter((t) => db.tagNames.includes(t) && !require.includes(t));
  return { tags: require.length + exclude.length > 0 ? { require, exclude } : null, missing };
}
