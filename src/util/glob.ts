/**
 * Clip-name globs (`build --loop GLOB`, `--tag TAG=GLOB`): `*` any run of characters, `?` one
 * character, everything else itself, case-insensitively. Matched by the classic two-pointer
 * wildcard algorithm (runs of `*` collapsed): O(glob · name) in the worst case, never the
 * exponential backtracking a regular expression such as /^.*.*.*x$/ takes on a long name.
 */

/** The longest glob accepted: clip names are file names (at most 255 characters on common file systems). */
export const MAX_GLOB_LENGTH = 256;

export interface GlobMatcher {
  /** Whether `name` matches the whole glob. */
  test(name: string): boolean;
}

/** A glob longer than MAX_GLOB_LENGTH. */
export class GlobError extends RangeError {
  override readonly name = 'GlobError';
}

/** One character of each, equal ignoring case. */
function sameLetter(a: string, b: string): boolean {
  return a === b || a.toLowerCase() === b.toLowerCase() || a.toUpperCase() === b.toUpperCase();
}

/** A matcher for `glob` (a GlobError when it is longer than MAX_GLOB_LENGTH). */
export function globMatcher(glob: string): GlobMatcher {
  if (glob.length > MAX_GLOB_LENGTH) throw new GlobError(`a glob may have at most ${MAX_GLOB_LENGTH} characters (clip names are file names), got ${glob.length}`);
  const p = glob.replace(/\*{2,}/g, '*');
  return {
    test(name: string): boolean {
      let i = 0, j = 0, star = -1, mark = 0;
      while (i < name.length) {
        if (j < p.length && p[j] !== '*' && (p[j] === '?' || sameLetter(p[j], name[i]))) {
          i++; j++;
        } else if (j < p.length && p[j] === '*') {
          star = j++; mark = i;
        } else if (star >= 0) {
          // The last star takes one more character; the rest of the glob starts again after it.
          j = star + 1; i = ++mark;
        } else {
          return false;
        }
      }
      while (j < p.length && p[j] === '*') j++;
      return j === p.length;
    },
  };
}
