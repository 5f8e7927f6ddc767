/**
 * --require-tag TAG and --exclude-tag TAG (repeatable): the tags a command's searches keep to, read
 * the same way by coverage, simulate and quality.
 */
import { UsageError } from './args.js';
import type { SearchTags } from '../sim/search-tags.js';

/** Most --require-tag and most --exclude-tag options (a database has at most 32 tags; a bound, not a count of them). */
export const MAX_TAG_OPTIONS = 64;

/** parseArgs entries of the two options. */
export const TAG_OPTIONS = {
  'require-tag': { type: 'string', multiple: true },
  'exclude-tag': { type: 'string', multiple: true },
} as const;

/** The usage lines of the two options, for a command whose searches are `who` (e.g. "locomotion searches"). */
export function tagOptionsUsage(who: string): string {
  return [
    `  --require-tag TAG  ${who} choose only frames with this tag (repeatable, at most ${MAX_TAG_OPTIONS})`,
    `  --exclude-tag TAG  ${who} never choose frames with this tag (repeatable, at most ${MAX_TAG_OPTIONS})`,
  ].join('\n');
}

/** The options as SearchTags (null when neither is given), or a usage error for a bad count or name. */
export function searchTagsOption(values: { 'require-tag'?: string[]; 'exclude-tag'?: string[] }, usage: string): SearchTags | null {
  for (const option of ['require-tag', 'exclude-tag'] as const) {
    const list = values[option] ?? [];
    if (list.length > MAX_TAG_OPTIONS) throw new UsageError(`--${option} is given ${list.length} times; at most ${MAX_TAG_OPTIONS} (a database has at most 32 tags)`, usage);
    if (list.some((t) => t.trim() === '')) throw new UsageError(`--${option} needs a tag name`, usage);
  }
  const require = values['require-tag'] ?? [], exclude = values['exclude-tag'] ?? [];
  return require.length + exclude.length > 0 ? { require: [...require], exclude: [...exclude] } : null;
}
