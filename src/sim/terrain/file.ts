/**
 * Height field files (docs/terrain.md, "Height field files"): the JSON and the binary form, read
 * from bytes and written to bytes. Browser-safe (reading a file from disk is terrain/file-node.ts).
 *
 * JSON: {"format": "motionmatch-heightfield", "version": 1, "columns": C, "rows": R,
 *        "spacing": s, "originX": x0, "originZ": z0, "edges": "clamp" | "repeat",
 *        "heights": [C·R numbers, row by row] or [[C numbers] × R]}
 * Binary (little-endian): "MMHF", u32 version 1, u32 columns, u32 rows, f64 spacing, f64 originX,
 * f64 originZ, u32 edges (0 clamp, 1 repeat), u32 0, then columns·rows float32 heights, row by row.
 */
import { HEIGHT_FIELD_LIMITS, HeightField, HeightFieldError, checkHeightFieldLayout, type HeightFieldSpec } from '../../runtime/ground/height-field.js';
import { integerIn, numberIn, readJson, strictObject, v } from '../../util/json-schema.js';

export const HEIGHT_FIELD_FORMAT = 'motionmatch-heightfield';
export const HEIGHT_FIELD_VERSION = 1;
export const HEIGHT_FIELD_MAGIC = 'MMHF';
/** Bytes before the heights in the binary form. */
export const HEIGHT_FIELD_HEADER_BYTES = 48;
/** The largest height field file read (bytes): the most samples a height field may hold, as JSON text. */
export const MAX_HEIGHT_FIELD_FILE_BYTES = 512 * 1024 * 1024;

const L = HEIGHT_FIELD_LIMITS;
/** Said as checkHeightFieldLayout says it, which checks the binary form's layout (and the JSON form's again). */
const origin = v.optional(numberIn(-L.maxAbsOrigin, L.maxAbsOrigin, `a finite number of metres within ±${L.maxAbsOrigin}`));

/**
 * A JSON height field's shape. The heights (up to 2^24 numbers) are checked as they are copied
 * (HeightField.fromArray), not here: a list of rows or one list.
 */
export const HeightFieldJsonSchema = strictObject({
  format: v.literal(HEIGHT_FIELD_FORMAT),
  version: v.literal(HEIGHT_FIELD_VERSION),
  columns: integerIn(2, L.maxSide),
  rows: integerIn(2, L.maxSide),
  spacing: numberIn(L.minSpacing, L.maxSpacing, `a number of metres in [${L.minSpacing}, ${L.maxSpacing}]`),
  originX: origin,
  originZ: origin,
  edges: v.optional(v.picklist(['clamp', 'repeat'], "'clamp' or 'repeat'")),
  heights: v.unknown(),
}, { says: (got) => `a JSON height field is an object {"format": "${HEIGHT_FIELD_FORMAT}", ...}, got ${got}` });

/** A JSON height field as its file holds it. */
export type HeightFieldJson = v.InferOutput<typeof HeightFieldJsonSchema>;

function fail(source: string, message: string): never {
  throw new HeightFieldError(`${source}: ${message}`);
}

/** A height field file's bytes (JSON or binary, told apart by the magic) as a checked spec. */
export function parseHeightFieldFile(bytes: Uint8Array, source: string): HeightFieldSpec {
  if (bytes.length >= 4 && String.fromCharCode(bytes[0], bytes[1], bytes[2], bytes[3]) === HEIGHT_FIELD_MAGIC) return parseBinary(bytes, source);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    fail(source, `neither a JSON height field (not UTF-8 text) nor a binary one (no "${HEIGHT_FIELD_MAGIC}" at the start)`);
  }
  return parseJson(text, source);
}

function parseJson(text: string, source: string): HeightFieldSpec {
  const o = readJson(HeightFieldJsonSchema, text, source, (m) => new HeightFieldError(m));
  const layout = withSource(source, () => checkHeightFieldLayout({
    columns: o.columns, rows: o.rows, spacing: o.spacing, originX: o.originX, originZ: o.originZ, edges: o.edges,
  }));
  if (!Array.isArray(o.heights)) fail(source, `"heights" must be a list of ${layout.columns * layout.rows} numbers (or ${layout.rows} rows of ${layout.columns})`);
  let flat: unknown[] = o.heights;
  if (flat.length > 0 && Array.isArray(flat[0])) {
    if (flat.length !== layout.rows) fail(source, `"heights" has ${flat.length} rows, "rows" says ${layout.rows}`);
    flat.forEach((row, j) => {
      if (!Array.isArray(row) || row.length !== layout.columns) fail(source, `"heights" row ${j} must be a list of ${layout.columns} numbers`);
    });
    flat = (flat as unknown[][]).flat();
  }
  return withSource(source, () => HeightField.fromArray(flat as number[], layout).toSpec());
}

function parseBinary(bytes: Uint8Array, source: string): HeightFieldSpec {
  if (bytes.length < HEIGHT_FIELD_HEADER_BYTES) fail(source, `a binary height field has a ${HEIGHT_FIELD_HEADER_BYTES}-byte header; the file has ${bytes.length} bytes`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(4, true);
  if (version !== HEIGHT_FIELD_VERSION) fail(source, `binary height field version ${version}; this motionmatch reads version ${HEIGHT_FIELD_VERSION}`);
  const edgesCode = view.getUint32(40, true);
  if (edgesCode > 1) fail(source, `edges code ${edgesCode} at byte 40 must be 0 (clamp) or 1 (repeat)`);
  if (view.getUint32(44, true) !== 0) fail(source, 'bytes 44-47 are reserved and must be 0');
  const layout = withSource(source, () => checkHeightFieldLayout({
    columns: view.getUint32(8, true), rows: view.getUint32(12, true), spacing: view.getFloat64(16, true),
    originX: view.getFloat64(24, true), originZ: view.getFloat64(32, true), edges: edgesCode === 1 ? 'repeat' : 'clamp',
  }));
  const n = layout.columns * layout.rows, want = HEIGHT_FIELD_HEADER_BYTES + 4 * n;
  if (bytes.length !== want) fail(source, `${layout.columns} x ${layout.rows} heights need ${want} bytes (header ${HEIGHT_FIELD_HEADER_BYTES} + 4 per height); the file has ${bytes.length}${bytes.length < want ? ' (cut short?)' : ''}`);
  const heights = new Float32Array(n);
  for (let k = 0; k < n; k++) heights[k] = view.getFloat32(HEIGHT_FIELD_HEADER_BYTES + 4 * k, true);
  return withSource(source, () => HeightField.fromSpec({ ...layout, heights }).toSpec());
}

/** The error of `fn` with the file named first. */
function withSource<T>(source: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof HeightFieldError) throw new HeightFieldError(`${source}: ${e.message.replace(/^height field: /, '')}`);
    throw e;
  }
}

/** The binary form of a height field. */
export function heightFieldToBinary(field: HeightFieldSpec): Uint8Array {
  const n = field.columns * field.rows, out = new Uint8Array(HEIGHT_FIELD_HEADER_BYTES + 4 * n);
  const view = new DataView(out.buffer);
  for (let i = 0; i < 4; i++) out[i] = HEIGHT_FIELD_MAGIC.charCodeAt(i);
  view.setUint32(4, HEIGHT_FIELD_VERSION, true);
  view.setUint32(8, field.columns, true);
  view.setUint32(12, field.rows, true);
  view.setFloat64(16, field.spacing, true);
  view.setFloat64(24, field.originX, true);
  view.setFloat64(32, field.originZ, true);
  view.setUint32(40, field.edges === 'repeat' ? 1 : 0, true);
  view.setUint32(44, 0, true);
  for (let k = 0; k < n; k++) view.setFloat32(HEIGHT_FIELD_HEADER_BYTES + 4 * k, field.heights[k], true);
  return out;
}

/** The JSON form of a height field (one line of text). */
export function heightFieldToJson(field: HeightFieldSpec): string {
  return JSON.stringify({
    format: HEIGHT_FIELD_FORMAT, version: HEIGHT_FIELD_VERSION, columns: field.columns, rows: field.rows, spacing: field.spacing,
    originX: field.originX, originZ: field.originZ, edges: field.edges, heights: Array.from(field.heights),
  }) + '\n';
}
