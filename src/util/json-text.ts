/**
 * Small helpers for JSON values a user wrote: whether a value is a plain object, and what its JSON
 * type is called. Reading a file's text and checking its shape is util/json-schema.ts (readJson).
 * Browser-safe.
 */

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON value's type as a message says it: null, array, object, number, string, boolean. */
export function jsonType(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}
