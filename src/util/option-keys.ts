/**
 * Options objects checked for keys their reader does not know. A misspelt option (`mirorr`,
 * `thread`, `serchInterval`) was ignored without a word: the database built unmirrored, the pool
 * started one worker per core. JavaScript callers have no type check to catch it, and TypeScript
 * misses it in any object that is not a literal.
 */

/** The keys an options type has, as a table the compiler keeps complete: `Record<keyof T, true>`. */
export type OptionKeys<T> = Record<keyof T, true>;

/** Throws RangeError naming the first key of `given` that `known` has not, with the keys it has: "unknown WHAT"key" (options: a, b, ...)". */
export function refuseUnknownOptions(given: object, known: object, what: string): void {
  for (const k of Object.keys(given)) {
    if (!Object.prototype.hasOwnProperty.call(known, k)) throw new RangeError(`unknown ${what}${JSON.stringify(k)} (options: ${Object.keys(known).join(', ')})`);
  }
}

/**
 * refuseUnknownOptions for options given with every call (a search's): a for-in loop over `given`,
 * which allocates nothing, against a table of `true`s (a key of Object.prototype reads as a
 * function there, not true, so "constructor" is refused too).
 */
export function refuseUnknownCallOptions(given: object, known: Readonly<Record<string, true>>, what: string): void {
  for (const k in given) if (known[k] !== true) refuseUnknownOptions({ [k]: true }, known, what);
}
