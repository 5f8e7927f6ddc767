/**
 * Small helpers for reading JSON files a user writes (settings, level tables): what a value's JSON
 * type is called, and a parse error told as line and column (Node's own wording differs between
 * versions). Browser-safe.
 */

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON value's type as a message says it: null, array, object, number, string, boolean. */
export function jsonType(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

/** "line L, column C" of character offset `pos` in `text`. */
function lineColumn(text: string, pos: number): string {
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  return `line ${line}, column ${pos - before.lastIndexOf('\n')}`;
}

/**
 * JSON.parse(text), or a thrown `error(message)` with message "SOURCE: not valid JSON at line L,
 * column C: reason" (or "(the file is empty)").
 */
export function parseJsonText(text: string, source: string, error: (message: string) => Error): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const message = (e as Error).message;
    const pos = /position (\d+)/.exec(message);
    const where = pos ? ` at ${lineColumn(text, Number(pos[1]))}` : text.trim() === '' ? ' (the file is empty)' : '';
    // The engine's own position wording differs between Node versions; the line and column say it.
    const reason = message.split('\n')[0].replace(/\s*(in JSON )?at position \d+.*$/, '').replace(/\s*\(line \d+ column \d+\)$/, '');
    throw error(`${source}: not valid JSON${where}: ${reason}`);
  }
}
