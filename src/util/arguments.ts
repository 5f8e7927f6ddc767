/**
 * One-line errors for arguments of the wrong kind at the library's entry points (a null where an
 * object goes, a string where an array goes): named for the function and the argument, instead of
 * "Cannot read properties of null (reading 'length')" from somewhere inside.
 */

/** A value for an argument error: its type, and its length when it has one. */
export function describeArgument(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (Array.isArray(v)) return `an array of ${v.length} values`;
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name}${'length' in v ? ` of ${(v as unknown as { length: number }).length} values` : ''}`;
  if (typeof v === 'object') return (v as object).constructor === Object ? 'an object' : `a ${(v as object).constructor?.name ?? 'object'}`;
  return `a ${typeof v}`;
}

/** Throws "WHERE: WHAT must be an object or left out, got …" unless `v` is undefined or a plain options object. */
export function requireOptionsObject(v: unknown, where: string, what: string): void {
  if (v !== undefined && (v === null || typeof v !== 'object' || Array.isArray(v) || ArrayBuffer.isView(v))) throw new TypeError(`${where}: ${what} must be an object or left out, got ${describeArgument(v)}`);
}
