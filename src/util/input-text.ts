/**
 * Text from hostile input, made safe for a one-line message, and JSON read without trusting it:
 * what a message quotes is short and has its control characters escaped (a terminal escape in a
 * file must not reach the terminal), and a document nested deeper than a reader needs is refused
 * before JSON.parse (whose recursion, or the recursion of whatever walks its result, would
 * overflow the stack). Browser-safe.
 */

/** Longest text a message quotes from input (a file, an option value): longer text is cut. */
export const MAX_ECHO_CHARS = 80;

/** Control characters (C0, DEL, C1) and the Unicode line and paragraph separators. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** `s` with every control character written as \uXXXX. */
export function escapeControlChars(s: string): string {
  return s.replace(CONTROLS, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/**
 * `s` for a message: at most `max` characters of it (then "…"), control characters escaped. The
 * cut never splits a surrogate pair.
 */
export function excerpt(s: string, max = MAX_ECHO_CHARS): string {
  let cut = s;
  if (s.length > max) {
    let end = max;
    const c = s.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff) end--;
    cut = s.slice(0, end) + '…';
  }
  return escapeControlChars(cut);
}

/** `s` in double quotes for a message (excerpt). */
export function quote(s: string, max = MAX_ECHO_CHARS): string {
  return `"${excerpt(s, max)}"`;
}

/** A JSON value for a message: its JSON text, excerpted. */
export function jsonExcerpt(v: unknown, max = MAX_ECHO_CHARS): string {
  let text: string;
  try {
    text = v === undefined ? 'undefined' : JSON.stringify(v) ?? String(v);
  } catch {
    text = String(v);
  }
  return excerpt(text, max);
}

/** "line L, column C" of character offset `pos` in `text`. */
function lineColumn(text: string, pos: number): string {
  let line = 1, lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < pos; i = text.indexOf('\n', i + 1)) { line++; lineStart = i + 1; }
  return `line ${line}, column ${pos - lineStart + 1}`;
}

/**
 * Offset of the first `[` or `{` (outside strings) that opens level `maxDepth + 1`, or -1 when the
 * text nests no deeper than `maxDepth`. One pass, no recursion.
 */
export function jsonDepthExceeded(text: string, maxDepth: number): number {
  let depth = 0, inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) { if (++depth > maxDepth) return i; }
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

export interface JsonInputOptions {
  /** Deepest nesting of arrays and objects accepted (default 64). */
  maxDepth?: number;
  /** What the file is, for "not valid JSON" (e.g. "not a partial report: "). */
  what?: string;
  /** The words for a syntax error (default "not valid JSON"). */
  invalid?: string;
}

/**
 * JSON.parse(text) for a file named `source`, or a thrown `error(message)` with a one-line message
 * that names `source`: "SOURCE: not valid JSON at line L, column C (near "…")" with a short,
 * escaped excerpt of the text there (never the engine's own message, which quotes the raw text),
 * "SOURCE: the file is empty", or "SOURCE: nests deeper than N levels at line L, column C".
 */
export function parseJsonInput(text: string, source: string, error: (message: string) => Error, options: JsonInputOptions = {}): unknown {
  const maxDepth = options.maxDepth ?? 64;
  const what = options.what ?? '';
  const invalid = options.invalid ?? 'not valid JSON';
  if (text.trim() === '') throw error(`${source}: ${what}the file is empty`);
  // JSON text never holds a NUL (a control character, even in a string, is escaped): binary data,
  // such as a .mmdb named where a JSON file goes. Read as JSON it failed on whatever came first (a
  // database's bytes "nested deeper than 16 levels").
  const nul = text.indexOf('\u0000');
  if (nul >= 0) throw error(`${source}: ${what}binary data, not JSON text (character ${nul + 1} is a NUL byte; the file starts with "${excerpt(text.slice(0, 12), 12)}")`);
  const deep = jsonDepthExceeded(text, maxDepth);
  if (deep >= 0) throw error(`${source}: ${what}JSON nests deeper than ${maxDepth} levels (at ${lineColumn(text, deep)})`);
  try {
    return JSON.parse(text);
  } catch (e) {
    if (e instanceof RangeError) throw error(`${source}: ${what}the JSON is too deeply nested to read`);
    const message = e instanceof Error ? e.message : String(e);
    const m = /position (\d+)/.exec(message);
    let pos = m ? Number(m[1]) : -1;
    if (pos < 0 && /end of (JSON )?input/i.test(message)) pos = text.length;
    // Node 20 gives no position for an unexpected token, and quotes the raw text (never echoed).
    const token = /^Unexpected token '(.)'/.exec(message);
    if (pos >= 0) failAt(text, source, what + invalid, error, pos);
    const start = excerpt(text.trimStart().slice(0, 24), 20);
    throw error(`${source}: ${what}${invalid}${token ? `: unexpected ${quote(token[1])}` : ''} (the file starts with "${start}")`);
  }
}

function failAt(text: string, source: string, what: string, error: (message: string) => Error, pos: number): never {
  if (pos >= text.length) throw error(`${source}: ${what}: it ends early (at ${lineColumn(text, text.length)}; was it cut short?)`);
  const near = excerpt(text.slice(pos, pos + 24), 20);
  throw error(`${source}: ${what} at ${lineColumn(text, pos)} (near "${near}")`);
}
