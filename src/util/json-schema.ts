/**
 * One way to read a JSON file a user writes (issue 28 §3): its shape declared with valibot (the
 * TypeScript type comes from the same declaration: `v.InferOutput<typeof Schema>`), the text read
 * without trusting it (util/input-text.ts parseJsonInput: empty, syntax and depth errors), and the
 * first thing wrong said in ONE line that names the file and the field:
 *
 *   FILE: PATH must be EXPECTED, got VALUE     e.g. t.json: levels[0].poseEvery must be a number, got the string "4"
 *   FILE: PATH: unknown key "K" (allowed: …)    e.g. t.json: levels[0]: unknown key "poseEvry" (allowed: maxDistance, …)
 *   FILE: PATH is missing
 *
 * VALUE names the JSON type and a short, escaped excerpt (`the string "4"`, `an object {"foo":1}`,
 * `an array [1,2]`; numbers, booleans and null as they are: `0`, `true`, `null`): never more than
 * about 50 characters of the input, never a raw control character. A reader words a field's
 * expectation itself where it has one ("an integer in [2, 65536]"), or a whole message (says,
 * saysLine) where its files have always been told so. Each reader keeps its own semantic checks (ranges, cross-field consistency,
 * checksums) after the shape check. Browser-safe.
 *
 * The value checked is returned as it was read (valibot's output copies objects in the
 * declaration's key order; a reader's results must not depend on that).
 */
import * as v from 'valibot';
import { escapeControlChars, excerpt, parseJsonInput, type JsonInputOptions } from './input-text.js';

export { v };

/** Longest excerpt of a value a message quotes (characters). */
export const MAX_VALUE_CHARS = 48;

/** What every issue says when its schema gave no message of its own (the line is then derived). */
const DERIVED = '\u0000derived';
/** A custom message that is the whole text after "FILE: PATH: " ("FILE: " at the top). */
const WHOLE = '\u0000whole:';

/** A custom message that is the whole text after "FILE: " (whatever the path). */
const WHOLE_LINE = '\u0000line:';

/** A message for a schema or action that says the whole text after the field's path (or after the file, at the top). */
export function says(text: string): string {
  return WHOLE + text;
}

/** A message for a schema or action that says the whole text after the file's name (the field named in it, as the reader words it). */
export function saysLine(text: string): string {
  return WHOLE_LINE + text;
}

function isIdentifier(k: string): boolean {
  return /^[A-Za-z_$][\w$]*$/.test(k);
}

/** A path as a message writes it: levels[0].poseEvery, controller.footIKOptions.blendHalfLife. */
export function pathText(keys: ReadonlyArray<string | number>): string {
  let out = '';
  for (const k of keys) {
    if (typeof k === 'number') out += `[${k}]`;
    else if (isIdentifier(k)) out += out === '' ? k : `.${k}`;
    else out += `["${excerpt(k, 40)}"]`;
  }
  return escapeControlChars(out);
}

/**
 * `value` as short JSON text: at most about `max` characters (then "…"), no recursion deeper than
 * the budget allows (each level costs a character), control characters escaped.
 */
export function shortJson(value: unknown, max = MAX_VALUE_CHARS): string {
  let out = '';
  const put = (s: string): boolean => {
    if (out.length + s.length > max) { out += s.slice(0, Math.max(0, max - out.length)); return false; }
    out += s;
    return true;
  };
  const walk = (x: unknown): boolean => {
    if (x === null || typeof x === 'boolean') return put(String(x));
    if (typeof x === 'number') return put(Number.isFinite(x) ? JSON.stringify(x) : String(x));
    if (typeof x === 'string') return put(JSON.stringify(x.length > max ? x.slice(0, max + 1) : x));
    if (Array.isArray(x)) {
      if (!put('[')) return false;
      for (let i = 0; i < x.length; i++) if ((i > 0 && !put(',')) || !walk(x[i])) return false;
      return put(']');
    }
    if (typeof x === 'object') {
      if (!put('{')) return false;
      let first = true;
      for (const k in x as Record<string, unknown>) {
        if (!Object.prototype.hasOwnProperty.call(x, k)) continue;
        if ((!first && !put(',')) || !put(JSON.stringify(k.length > max ? k.slice(0, max + 1) : k) + ':') || !walk((x as Record<string, unknown>)[k])) return false;
        first = false;
      }
      return put('}');
    }
    return put(String(x));
  };
  const whole = walk(value);
  // Cut within a surrogate pair: drop its first half.
  if (!whole && /[\ud800-\udbff]$/.test(out)) out = out.slice(0, -1);
  return escapeControlChars(whole ? out : out + '…');
}

/**
 * A JSON value as a message names it: its type and a short excerpt (`the string "4"`, `an array
 * [1,2]`, `an object {"foo":1}`); numbers, booleans and null as they are (`0`, `true`, `null`), as
 * the runtime's own checks say them (runtime/ground/height-field.ts).
 */
export function describeValue(value: unknown, max = MAX_VALUE_CHARS): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (typeof value === 'boolean') return String(value);
  // A number as it is (a string says so: `the string "4"`, never a bare 4).
  if (typeof value === 'number') return shortJson(value, max);
  if (typeof value === 'string') return `the string ${shortJson(value, max)}`;
  if (Array.isArray(value)) return `an array ${shortJson(value, max)}`;
  if (typeof value === 'object') return `an object ${shortJson(value, max)}`;
  return typeof value;
}

/** "one of a, b" from valibot's `"a" | "b"`. */
function oneOf(expected: string): string {
  const parts = expected.split(' | ');
  return parts.length > 1 ? `one of ${parts.join(', ')}` : parts[0];
}

/** What an issue expected, in words, when its schema gave no message. */
function expectedText(issue: v.BaseIssue<unknown>): string {
  const req = issue.requirement;
  switch (issue.type) {
    case 'number': return 'a number';
    case 'string': return 'a string';
    case 'boolean': return 'true or false';
    case 'null': return 'null';
    case 'array': case 'tuple': case 'strict_tuple': return 'an array';
    case 'object': case 'strict_object': case 'loose_object': case 'record': return 'an object';
    case 'literal': case 'picklist': case 'union': case 'variant': return oneOf(issue.expected ?? 'something else');
    case 'integer': return 'an integer';
    case 'finite': return 'a finite number';
    case 'safe_integer': return 'a safe integer';
    case 'min_value': return `>= ${String(req)}`;
    case 'max_value': return `<= ${String(req)}`;
    case 'gt_value': return `> ${String(req)}`;
    case 'lt_value': return `< ${String(req)}`;
    case 'min_length': return `at least ${String(req)} long`;
    case 'max_length': return `at most ${String(req)} long`;
    case 'length': return `${String(req)} long`;
    case 'non_empty': return 'not empty';
    case 'regex': return `text matching ${String(req)}`;
    default: return issue.expected ? oneOf(issue.expected) : `valid (${issue.type})`;
  }
}

function keysOf(path: readonly v.IssuePathItem[]): Array<string | number> {
  return path.map((p) => ((p as { key: unknown }).key as string | number));
}

/** Words for a field's path in place of `a.b[0].c` (e.g. a group's name after its index); `root` is the value checked. */
export type PathLabel = (keys: ReadonlyArray<string | number>, root: unknown) => string;

/** The one-line message for a valibot issue in file `source` (`label`: see PathLabel; `root`: the value checked). */
export function issueLine(issue: v.BaseIssue<unknown>, source: string, label?: PathLabel, root?: unknown): string {
  const pathText_ = label ? (keys: ReadonlyArray<string | number>) => escapeControlChars(label(keys, root)) : pathText;
  const path = issue.path ?? [];
  const custom = issue.message !== DERIVED ? issue.message : null;
  const last = path[path.length - 1] as { origin?: string } | undefined;
  const keyIssue = last?.origin === 'key';
  const keys = keysOf(path);
  if (custom?.startsWith(WHOLE_LINE)) return `${source}: ${escapeControlChars(custom.slice(WHOLE_LINE.length))}`;
  // An unknown key: the path ends with it; the message names it from its object.
  if (keyIssue && issue.expected === 'never') {
    const at = pathText_(keys.slice(0, -1));
    const text = custom?.startsWith(WHOLE) ? custom.slice(WHOLE.length) : `unknown key "${excerpt(String(issue.input), 40)}"`;
    return `${source}: ${at ? `${at}: ` : ''}${escapeControlChars(text)}`;
  }
  const at = pathText_(keys);
  if (custom?.startsWith(WHOLE)) return `${source}: ${at ? `${at}: ` : ''}${escapeControlChars(custom.slice(WHOLE.length))}`;
  if (keyIssue) return `${source}: ${at} is missing`;
  const expected = custom ?? expectedText(issue);
  return `${source}: ${at ? `${at} ` : ''}must be ${expected}, got ${describeValue(issue.input)}`;
}

/**
 * `value` checked against `schema`: returned as it is (typed by the declaration), or a thrown
 * `error(line)` for the first issue (issueLine), an unknown key before any other (every issue is
 * collected for that; a pipe stops at its first). Messages a schema does not give are derived here
 * (valibot's global and specific messages are not set anywhere in this project: they would win).
 */
export function checkJson<S extends v.GenericSchema>(schema: S, value: unknown, source: string, error: (message: string) => Error, label?: PathLabel): v.InferOutput<S> {
  const r = v.safeParse(schema, value, { abortPipeEarly: true, message: () => DERIVED });
  if (r.success) return value as v.InferOutput<S>;
  // An unknown key first (a misspelt key is also a missing one: the misspelling is the news).
  const issue = r.issues.find((i) => i.expected === 'never' && i.path?.[i.path.length - 1]?.origin === 'key') ?? r.issues[0];
  throw error(issueLine(issue, source, label, value));
}

export interface ReadJsonOptions extends JsonInputOptions {
  /** What an empty file is said to be (default "the file is empty"). */
  empty?: string;
  /** Words for a field's path (see PathLabel). */
  label?: PathLabel;
}

/**
 * A JSON file's text read and checked against `schema` (checkJson): an empty file, a syntax error,
 * a nesting deeper than `options.maxDepth` (default 64) and a value of the wrong shape are each one
 * line naming `source`.
 */
export function readJson<S extends v.GenericSchema>(schema: S, text: string, source: string, error: (message: string) => Error, options: ReadJsonOptions = {}): v.InferOutput<S> {
  if (options.empty !== undefined && text.trim() === '') throw error(`${source}: ${options.empty}`);
  return checkJson(schema, parseJsonInput(text, source, error, options), source, error, options.label);
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * A JSON object with exactly `entries` (unknown keys refused; an array is not an object here):
 * `what.expected` says what it must be (or `what.says(got)` the whole message when it is not an
 * object), `what.unknown` how an unknown key is told (default: `unknown key "K" (allowed: a, b)`).
 */
export function strictObject<E extends v.ObjectEntries>(entries: E, what?: StrictObjectWords) {
  const expected = what?.expected ?? 'an object';
  const says_ = what?.says;
  return v.pipe(v.custom<Record<string, unknown>>(isPlainObject, says_ ? (issue) => says(says_(describeValue(issue.input))) : expected), strictEntries(entries, what));
}

export interface StrictObjectWords {
  expected?: string;
  /** How an unknown key is told (after its object's path; saysLine(text): the whole line after the file). */
  unknown?: (key: string, allowed: string[]) => string;
  /** How a missing key is told (the whole line after the file). */
  missing?: (key: string) => string;
  /** The whole message (after the path) when the value is not an object; `got` names what it is. */
  says?: (got: string) => string;
}

/** valibot's strictObject with the messages of strictObject (an array passes its type check: use it where an object is known, e.g. in v.variant). */
export function strictEntries<E extends v.ObjectEntries>(entries: E, what?: StrictObjectWords) {
  const allowed = Object.keys(entries);
  const expected = what?.expected ?? 'an object';
  return v.strictObject(entries, (issue: v.StrictObjectIssue) => {
    if (issue.expected === 'never') {
      const key = excerpt(String(issue.input), 40);
      const text = what?.unknown ? what.unknown(key, allowed) : `unknown key "${key}" (allowed: ${allowed.join(', ')})`;
      return text.startsWith('\u0000') ? text : says(text); // saysLine's text as it is
    }
    if (issue.input === undefined && issue.path?.length) { // a missing key
      const key = String((issue.path[issue.path.length - 1] as { key: unknown }).key);
      return what?.missing ? saysLine(what.missing(key)) : DERIVED;
    }
    return expected;
  });
}

/** A plain JSON object (not an array, not null), said as `expected` when it is not: the first step of a pipe (e.g. before v.variant). */
export function plainObject(expected = 'an object') {
  return v.custom<Record<string, unknown>>(isPlainObject, expected);
}

/** A finite number in [min, max], said as `expected` when it is not. */
export function numberIn(min: number, max: number, expected = `a number in [${min}, ${max}]`) {
  return v.pipe(v.number(expected), v.finite(expected), v.minValue(min, expected), v.maxValue(max, expected));
}

/** An integer in [min, max], said as `expected` when it is not. */
export function integerIn(min: number, max: number, expected = `an integer in [${min}, ${max}]`) {
  return v.pipe(v.number(expected), v.integer(expected), v.minValue(min, expected), v.maxValue(max, expected));
}
