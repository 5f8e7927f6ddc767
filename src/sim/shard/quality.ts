/**
 * QualityStats (and OverlayStats) to JSON and back, field by field, without naming the fields:
 * whatever numbers, typed arrays, arrays and plain objects the statistics hold go into a partial
 * report, and are read back into a fresh instance whose own fields say what to expect. A field
 * added to the class travels with no change here; a report written by a version with other fields
 * is refused rather than merged into wrong figures. The terrain figures (feet against the ground)
 * are QualityStats fields, so they travel with it.
 */
import { QualityStats } from '../../runtime/quality/meter.js';
import { OverlayStats } from '../overlay/metrics.js';
import { excerpt, jsonExcerpt } from '../../util/input-text.js';

/** JSON form of a field: numbers as such (non-finite and -0 as strings), typed arrays tagged with their type. */
export type EncodedField = number | string | boolean | null | EncodedField[] | { typedArray: string; values: Array<number | string> } | { [k: string]: EncodedField };

type TypedArray = Float64Array | Float32Array | Int32Array | Uint32Array | Int16Array | Uint16Array | Int8Array | Uint8Array | Uint8ClampedArray;

function encodeNumber(x: number): number | string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (Object.is(x, -0)) return '-0';
  return x;
}

function decodeNumber(v: unknown, where: string): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  switch (v) {
    case 'NaN': return NaN;
    case 'Infinity': return Infinity;
    case '-Infinity': return -Infinity;
    case '-0': return -0;
  }
  throw new Error(`${where} must be a number, got ${jsonExcerpt(v)}`);
}

/**
 * Throws unless every number of `decoded` (a statistics object read back) is finite, or the
 * non-finite value a fresh instance starts with there (a minimum kept from Infinity). Statistics
 * are sums, counts, extremes and histograms of finite samples: a NaN or an infinity anywhere else
 * is an edited file, and would print as "foot skate NaN cm/s".
 */
function requireFiniteStats(template: unknown, decoded: unknown, where: string): void {
  const check = (t: unknown, x: number, at: string): void => {
    if (!Number.isFinite(x) && !(typeof t === 'number' && Object.is(x, t))) throw new Error(`${at} must be a finite number, got ${JSON.stringify(encodeNumber(x))}`);
  };
  if (typeof decoded === 'number') { check(template, decoded, where); return; }
  if (isTypedArray(decoded)) {
    const t = isTypedArray(template) ? template : null;
    for (let i = 0; i < decoded.length; i++) check(t ? t[i] : 0, decoded[i], `${where}[${i}]`);
    return;
  }
  if (Array.isArray(decoded)) {
    const element = Array.isArray(template) && template.length > 0 ? template[0] : 0;
    decoded.forEach((x, i) => requireFiniteStats(element, x, `${where}[${i}]`));
    return;
  }
  if (decoded !== null && typeof decoded === 'object') {
    const t = (template ?? {}) as Record<string, unknown>;
    for (const [k, x] of Object.entries(decoded)) requireFiniteStats(t[k], x, `${where}.${k}`);
  }
}

function isTypedArray(v: unknown): v is TypedArray {
  return ArrayBuffer.isView(v) && !(v instanceof DataView) && !(typeof BigInt64Array === 'function' && (v instanceof BigInt64Array || v instanceof BigUint64Array));
}

/**
 * Objects that travel field by field: plain objects and the QualityStats itself. Anything else (a
 * Map, a Set, a class instance) would lose its contents or its type as JSON, so it is refused by
 * name instead: a new kind of field needs a line here, not a silently wrong merge.
 */
function isPlainOrStats(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null || v instanceof QualityStats || v instanceof OverlayStats;
}

/** One value in its JSON form. */
export function encodeField(v: unknown, where: string): EncodedField {
  if (typeof v === 'number') return encodeNumber(v);
  if (typeof v === 'boolean' || typeof v === 'string' || v === null) return v;
  if (isTypedArray(v)) return { typedArray: v.constructor.name, values: Array.from(v, encodeNumber) };
  if (Array.isArray(v)) return v.map((x, i) => encodeField(x, `${where}[${i}]`));
  if (typeof v === 'object' && v !== undefined && isPlainOrStats(v)) {
    const out: Record<string, EncodedField> = {};
    for (const [k, x] of Object.entries(v)) out[k] = encodeField(x, `${where}.${k}`);
    return out;
  }
  const kind = typeof v === 'object' && v !== null ? (v.constructor?.name ?? 'object') : typeof v;
  throw new Error(`${where}: a ${kind} cannot go into a partial report (only numbers, booleans, strings, typed arrays, lists and plain objects)`);
}

/**
 * `encoded` read back in the shape of `template` (a value of the same field in a fresh object):
 * same kind, typed-array type and length, same keys. Throws naming the field otherwise.
 */
export function decodeField(template: unknown, encoded: unknown, where: string): unknown {
  if (typeof template === 'number') return decodeNumber(encoded, where);
  if (typeof template === 'boolean' || typeof template === 'string') {
    if (typeof encoded !== typeof template) throw new Error(`${where} must be a ${typeof template}, got ${jsonExcerpt(encoded)}`);
    return encoded;
  }
  if (template === null) {
    if (encoded !== null) throw new Error(`${where} must be null`);
    return null;
  }
  if (isTypedArray(template)) {
    const e = encoded as { typedArray?: unknown; values?: unknown };
    const type = template.constructor.name;
    if (!e || typeof e !== 'object' || e.typedArray !== type || !Array.isArray(e.values)) throw new Error(`${where} must be a ${type}`);
    if (e.values.length !== template.length) throw new Error(`${where} has ${e.values.length} values where this version keeps ${template.length}`);
    const out = new (template.constructor as { new (n: number): TypedArray })(template.length);
    for (let i = 0; i < out.length; i++) out[i] = decodeNumber(e.values[i], `${where}[${i}]`);
    return out;
  }
  if (Array.isArray(template)) {
    if (!Array.isArray(encoded)) throw new Error(`${where} must be a list`);
    // A list's length may vary; its elements take the kind of the template's first one (numbers when empty).
    const element = template.length > 0 ? template[0] : 0;
    return encoded.map((x, i) => decodeField(element, x, `${where}[${i}]`));
  }
  if (typeof template === 'object' && template !== undefined && isPlainOrStats(template)) {
    if (!encoded || typeof encoded !== 'object' || Array.isArray(encoded)) throw new Error(`${where} must be an object`);
    const out: Record<string, unknown> = {};
    decodeFieldsInto(template as Record<string, unknown>, encoded as Record<string, unknown>, where, out);
    return out;
  }
  const kind = typeof template === 'object' && template !== null ? (template.constructor?.name ?? 'object') : typeof template;
  throw new Error(`${where}: this version keeps a ${kind} here, which a partial report cannot carry`);
}

/** Every own field of `template` decoded from `encoded` into `out`; missing and unknown fields are errors. */
function decodeFieldsInto(template: Record<string, unknown>, encoded: Record<string, unknown>, where: string, out: Record<string, unknown>): void {
  for (const k of Object.keys(encoded)) {
    if (!Object.prototype.hasOwnProperty.call(template, k)) throw new Error(`${where}.${excerpt(k)} is not a field this version knows (a partial report from another motionmatch version?)`);
  }
  for (const [k, t] of Object.entries(template)) {
    if (!Object.prototype.hasOwnProperty.call(encoded, k)) throw new Error(`${where}.${k} is missing (a partial report from another motionmatch version?)`);
    out[k] = decodeField(t, encoded[k], `${where}.${k}`);
  }
}

/** Every own enumerable field of a QualityStats in JSON form (`field`: where it goes in the report, for errors). */
export function encodeQualityStats(stats: QualityStats, field = 'quality'): Record<string, EncodedField> {
  return encodeField(stats, field) as Record<string, EncodedField>;
}

/**
 * A QualityStats rebuilt from encodeQualityStats' output; throws naming `where` (the file), the
 * report's `field` (quality, lod.levelStats[2]) and the first field that does not fit.
 */
export function decodeQualityStats(encoded: unknown, where: string, field = 'quality'): QualityStats {
  return decodeStatsInto(new QualityStats(), encoded, `${where}: ${field}`);
}

/** Every own enumerable field of an OverlayStats in JSON form. */
export function encodeOverlayStats(stats: OverlayStats): Record<string, EncodedField> {
  return encodeField(stats, 'overlay.stats') as Record<string, EncodedField>;
}

/** An OverlayStats rebuilt from encodeOverlayStats' output; throws naming the first field that does not fit. */
export function decodeOverlayStats(encoded: unknown, where: string): OverlayStats {
  return decodeStatsInto(new OverlayStats(), encoded, `${where}: overlay.stats`);
}

function decodeStatsInto<T extends object>(fresh: T, encoded: unknown, where: string): T {
  if (!encoded || typeof encoded !== 'object' || Array.isArray(encoded)) throw new Error(`${where} must be an object`);
  const fields: Record<string, unknown> = {};
  decodeFieldsInto(fresh as unknown as Record<string, unknown>, encoded as Record<string, unknown>, where, fields);
  requireFiniteStats(fresh, fields, where);
  return Object.assign(fresh, fields);
}
