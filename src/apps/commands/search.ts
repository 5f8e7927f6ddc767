import { parseCommandArgs, integerOption, UsageError } from '../args.js';
import { readRegularFile } from '../../util/files-node.js';
import { readDatabaseFile } from '../../database/mmdb/mmdb-node.js';
import type { Database } from '../../database/database.js';
import { Matcher, type Backend, type FrameRange, type SearchMethod } from '../../search/matcher.js';
import { SEARCH_METHODS, isClusterMethod, matcherOptionsFor } from '../../search/options.js';
import { escapeControlChars, quote } from '../../util/input-text.js';

export const SEARCH_USAGE = `usage: motionmatch search DB --queries FILE [--normalized] [--method METHOD] [--probes N]
                          [--backend wasm-simd|wasm-scalar|js|auto] [--window START:END[,START:END...]]
                          [--require-tags a,b] [--exclude-tags c] [--row-floats N] [--json]

  Finds the best-matching database frame for every query in FILE.
  --queries FILE   little-endian float32 rows, one query per row: the database's feature dims
                   (e.g. 27) or its padded stride (e.g. 28) floats; raw features unless --normalized
  --normalized     the queries are already normalised ((raw - mean) / scale, as db.features)
  --method M       brute, early, window, aabb, kdtree (default), or over compact data brute-u8,
                   brute-f16, aabb-u8, kdtree-u8, cluster, cluster-u8 (their copies and index are built
                   when the database is loaded); all return the same frames
  --probes N       cluster and cluster-u8 only: search the N clusters nearest each query, an
                   approximate answer (default: exact)
  --backend B      wasm-simd, wasm-scalar, js or auto (default auto: SIMD when the engine has it)
  --window RANGES  search only frames in these [START, END) ranges (required by --method window;
                   restricts every other method too)
  --require-tags L frames must carry every tag in the comma-separated list
  --exclude-tags L frames must carry none of these tags
  --row-floats N   floats per row when the file size fits both dims and stride rows
  --json           print { results: [{ frame, cost, clip, clipTime }], method, backend, queries, ms }

  The query file must be a regular file of at most 64 MiB (about 600,000 queries of 27 floats);
  FIFOs, devices and directories are refused. Every query value must be finite, and a query so far
  from the data that its float32 cost overflows at every allowed frame is an error (exit 1).`;

/** Largest query file accepted: 64 MiB (a bound, so /dev/zero or a runaway file cannot exhaust memory). */
export const MAX_QUERY_FILE_BYTES = 64 * 2 ** 20;

const METHODS: readonly SearchMethod[] = SEARCH_METHODS;
const BACKENDS: ReadonlyArray<Backend | 'auto'> = ['wasm-simd', 'wasm-scalar', 'js', 'auto'];

/** "10:200,300:400" -> [[10, 200], [300, 400]]. */
export function parseWindow(spec: string): FrameRange[] {
  const parts = spec.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (parts.length === 0) throw new UsageError('--window needs at least one START:END range', SEARCH_USAGE);
  return parts.map((p) => {
    const m = /^(\d+):(\d+)$/.exec(p);
    if (!m) throw new UsageError(`--window: ${quote(p)} is not START:END (non-negative frame numbers, END exclusive)`, SEARCH_USAGE);
    const start = Number(m[1]);
    const end = Number(m[2]);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) throw new UsageError(`--window: ${quote(p)} is out of range`, SEARCH_USAGE);
    if (end <= start) throw new UsageError(`--window: ${quote(p)} is empty (END must be greater than START)`, SEARCH_USAGE);
    return [start, end] as const;
  });
}

function tagList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

export interface QueryFile {
  /** rows x width floats. */
  values: Float32Array;
  rows: number;
  /** Floats per row (db.dims or db.stride). */
  width: number;
}

/**
 * Reads a query file: little-endian float32 rows of db.dims or db.stride floats. Throws with a
 * message naming the file when it is not a regular file, is larger than MAX_QUERY_FILE_BYTES, its
 * size fits no row width, or a row holds NaN / Infinity.
 */
export function readQueryFile(path: string, db: Database, rowFloats?: number): QueryFile {
  const bytes = readRegularFile(path, { what: 'query file', maxBytes: MAX_QUERY_FILE_BYTES });
  const { dims, stride } = db;
  const widths = dims === stride ? [dims] : [dims, stride];
  const describe = widths.map((w) => `${w} floats (${w === dims ? 'dims' : 'stride'}) = ${w * 4} bytes`).join(' or ');
  if (bytes.length === 0) throw new Error(`query file '${path}' is empty: expected rows of ${describe}`);
  if (bytes.length % 4 !== 0) {
    throw new Error(`query file '${path}' has ${bytes.length} bytes, not a whole number of float32 values; expected rows of ${describe}`);
  }
  const floats = bytes.length / 4;
  let width: number;
  if (rowFloats !== undefined) {
    if (!widths.includes(rowFloats)) throw new Error(`--row-floats ${rowFloats} does not match the database: rows are ${describe}`);
    if (floats % rowFloats !== 0) {
      throw new Error(`query file '${path}' has ${bytes.length} bytes (${floats} floats), not a multiple of the row width ${rowFloats} floats (${rowFloats * 4} bytes)`);
    }
    width = rowFloats;
  } else {
    const fits = widths.filter((w) => floats % w === 0);
    if (fits.length === 0) {
      throw new Error(`query file '${path}' has ${bytes.length} bytes (${floats} floats), not a multiple of the row width: ${describe} per row`);
    }
    if (fits.length > 1) {
      throw new Error(
        `query file '${path}' has ${floats} floats: that is ${floats / dims} rows of ${dims} (dims) or ${floats / stride} rows of ${stride} (stride); ` +
        `say which with --row-floats ${dims} or --row-floats ${stride}`,
      );
    }
    width = fits[0];
  }
  const rows = floats / width;
  const values = new Float32Array(floats);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < floats; i++) values[i] = view.getFloat32(i * 4, true);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < width; j++) {
      const v = values[r * width + j];
      if (!Number.isFinite(v)) {
        throw new Error(`query file '${path}': row ${r} (byte offset ${r * width * 4}) has ${v} in column ${j}; queries must be finite`);
      }
    }
  }
  return { values, rows, width };
}

export async function searchCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    queries: { type: 'string', short: 'q' },
    normalized: { type: 'boolean' },
    method: { type: 'string' },
    probes: { type: 'string' },
    backend: { type: 'string' },
    window: { type: 'string' },
    'require-tags': { type: 'string' },
    'exclude-tags': { type: 'string' },
    'row-floats': { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  }, SEARCH_USAGE);
  if (values.help) { process.stdout.write(SEARCH_USAGE + '\n'); return 0; }
  if (positionals.length !== 1) throw new UsageError(positionals.length ? `expected one database file, got ${positionals.length} arguments` : 'expected a database file', SEARCH_USAGE);
  if (!values.queries) throw new UsageError('--queries FILE is required', SEARCH_USAGE);
  const method = (values.method ?? 'kdtree') as SearchMethod;
  if (!METHODS.includes(method)) throw new UsageError(`unknown --method ${quote(values.method ?? '')} (expected ${METHODS.join(', ')})`, SEARCH_USAGE);
  const backend = (values.backend ?? 'auto') as Backend | 'auto';
  if (!BACKENDS.includes(backend)) throw new UsageError(`unknown --backend ${quote(values.backend ?? '')} (expected ${BACKENDS.join(', ')})`, SEARCH_USAGE);
  const ranges = values.window !== undefined ? parseWindow(values.window) : undefined;
  if (method === 'window' && ranges === undefined) throw new UsageError('--method window needs --window START:END[,START:END...]', SEARCH_USAGE);
  const rowFloats = integerOption(values['row-floats'], 'row-floats', SEARCH_USAGE, 1, 1 << 20);
  const probes = integerOption(values.probes, 'probes', SEARCH_USAGE, 1, 2147483647);
  if (probes !== undefined && !isClusterMethod(method)) throw new UsageError(`--probes applies to --method cluster or cluster-u8, not ${method}`, SEARCH_USAGE);
  const json = !!values.json;

  const file = positionals[0];
  const db = readDatabaseFile(file);
  const q = readQueryFile(values.queries, db, rowFloats);
  const matcher = await Matcher.create(db, { backend, ...matcherOptionsFor([method]) });
  const opts = {
    method,
    probes,
    normalized: !!values.normalized,
    ranges,
    requireTags: tagList(values['require-tags']),
    excludeTags: tagList(values['exclude-tags']),
  };
  const t0 = performance.now();
  let res;
  try {
    res = matcher.searchBatch(q.values, q.rows, opts);
  } catch (e) {
    // "query 3 [5] is ...": say which file the row is in.
    if (e instanceof RangeError && e.message.startsWith('query ')) throw new RangeError(`query file '${values.queries}': ${e.message}`);
    throw e;
  }
  const ms = performance.now() - t0;

  const results = Array.from({ length: q.rows }, (_, i) => {
    const frame = res.frames[i];
    const ci = matcher.clipOfFrame(frame);
    const clip = ci >= 0 ? db.clips[ci] : null;
    return {
      frame,
      cost: res.costs[i],
      clip: clip ? clip.name : null,
      clipTime: clip ? (frame - clip.start) / db.fps : null,
    };
  });

  if (json) {
    process.stdout.write(JSON.stringify({ results, method, ...(probes !== undefined ? { probes, approximate: true } : {}), backend: matcher.backend, queries: q.rows, ms: +ms.toFixed(3) }) + '\n');
    return 0;
  }
  const clipWidth = Math.max(4, ...results.map((r) => (r.clip ?? '-').length));
  const lines = [`${'query'.padStart(6)}  ${'frame'.padStart(8)}  ${'cost'.padStart(12)}  ${'clip'.padEnd(clipWidth)}  ${'time s'.padStart(8)}`];
  results.forEach((r, i) => {
    lines.push(
      `${String(i).padStart(6)}  ${String(r.frame).padStart(8)}  ${formatCost(r.cost).padStart(12)}  ${(r.clip ?? '-').padEnd(clipWidth)}  ` +
      `${r.clipTime === null ? '-'.padStart(8) : r.clipTime.toFixed(3).padStart(8)}`,
    );
  });
  lines.push(
    `${q.rows} ${q.rows === 1 ? 'query' : 'queries'} (${q.width} floats each, ${opts.normalized ? 'normalised' : 'raw'}) against ${file} ` +
    `(${db.frameCount} frames): method ${method}${probes !== undefined ? ` (approximate: ${probes} probes)` : ''}, backend ${matcher.backend}, ${ms.toFixed(2)} ms`,
  );
  // Clip names come from the database file: no terminal escapes.
  process.stdout.write(lines.map(escapeControlChars).join('\n') + '\n');
  return 0;
}

function formatCost(c: number): string {
  if (c === 0) return '0';
  const a = Math.abs(c);
  return a >= 1e-3 && a < 1e6 ? c.toPrecision(6) : c.toExponential(4);
}
