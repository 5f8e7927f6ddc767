/**
 * The benchmark's result shape (what --json writes) and its Markdown rendering.
 */
import { arch, availableParallelism, cpus, release, type } from 'node:os';
import { sharedMemorySupported, simdSupported } from '../search/wasm/load.js';
import type { CompactInfo } from '../search/matcher.js';

export interface MachineInfo {
  cpu: string;
  cores: number;
  node: string;
  v8: string;
  os: string;
  simd: boolean;
  sharedMemory: boolean;
  /** ISO date of the run. */
  date: string;
}

/** One backend x method x database x sigma: single queries through Matcher.search. */
export interface BenchRow {
  set: string;
  method: string;
  backend: string;
  frames: number;
  dims: number;
  sigma: number;
  /** Queries timed (fewer than requested when the row's time budget ran out: see `capped`). */
  queries: number;
  capped: boolean;
  medianUs: number;
  p99Us: number;
  meanUs: number;
  minUs: number;
  /** Median of the JS brute-force row of the same set and sigma / this row's median. */
  speedupVsJsBrute: number;
  /** Results that differ from the JS brute-force reference (frame index, or cost beyond 1e-5 relative). */
  mismatches: number;
  /** Queries compared with the reference (those both this row and the reference ran). */
  checked: number;
  /** True for the JS brute-force row: the reference and the speedup baseline. */
  reference: boolean;
  /** Bytes the method reads per row it looks at (its 8-bit or half-precision row, else the float32 row). */
  bytesPerRow: number;
  /** Compact and clustered methods: rows looked at (bound computed) per query, rows re-scored in float32 per query and their share, clusters / leaves / blocks searched per query. */
  rowsPerQuery?: number;
  rescoredPerQuery?: number;
  rescoredShare?: number;
  groupsPerQuery?: number;
  /** Up to 3 differing results, for debugging. */
  mismatchExamples?: Array<{ query: number; frame: number; cost: number; refFrame: number; refCost: number }>;
}

/** Batch throughput: searchBatch on the calling thread, or MatcherPool with N worker threads. */
export interface BatchRow {
  set: string;
  method: string;
  backend: string;
  frames: number;
  sigma: number;
  /** 'searchBatch' (Matcher, calling thread) or 'pool' (MatcherPool workers). */
  mode: 'searchBatch' | 'pool' | 'pool+caller';
  threads: number;
  /** Queries per call. */
  batchSize: number;
  /** Calls timed. */
  calls: number;
  medianBatchMs: number;
  queriesPerSecond: number;
  /** 'tinybench' or 'builtin' (tinybench not installed: a plain timing loop). */
  timer: string;
  mismatches: number;
  checked: number;
}

export interface BuildInfo {
  description: string;
  frames: number;
  clips: number;
  candidates: number;
  dims: number;
  stride: number;
  /** Import + feature build (or file read) of the database. */
  databaseMs: number;
  /** Box-pruning bounds build (fastest of the set's matchers: the build is the same JS code for every backend). */
  aabbMs: number;
  /** KD-tree build (fastest of the set's matchers). */
  kdtreeMs: number;
  kdNodes: number;
  kdDepth: number;
  /** Compact copies and clustered index of the set's matchers (zeros when no method needed them). */
  compact: CompactInfo;
}

export interface BenchConfigSummary {
  sets: string[];
  db: string | null;
  mocap: string | null;
  queries: number;
  noise: number[];
  methods: string[];
  backends: string[];
  batchMethods: string[];
  probes: number[];
  threads: number[];
  rowSeconds: number;
  refSeconds: number;
  batchSeconds: number;
  seed: number;
  quick: boolean;
}

/**
 * An approximate search (never the default): the PCA KD-tree with exact re-ranking, or a clustered
 * method with a probe count. Speed beside recall@1.
 */
export interface ApproximateRow {
  set: string;
  frames: number;
  sigma: number;
  /** 'pca-kdtree' (src/search/approximate.ts) or the clustered method ('cluster-u8', 'cluster'). */
  method: string;
  backend: string;
  /** Its settings in words. */
  settings: string;
  /** PCA rows: components kept, candidates re-ranked, share of the feature variance kept. */
  components?: number;
  candidates?: number;
  explainedVariance?: number;
  /** Clustered rows: clusters searched per query. */
  probes?: number;
  queries: number;
  medianUs: number;
  p99Us: number;
  speedupVsJsBrute: number;
  /** Share of queries where it returns the brute-force frame. */
  recallAt1: number;
  /** Queries compared with the reference. */
  checked: number;
  /** Build time of its index (PCA tree, or the clustered index). */
  buildMs: number;
}

export interface BenchReport {
  machine: MachineInfo;
  config: BenchConfigSummary;
  rows: BenchRow[];
  batch: BatchRow[];
  /** Approximate (never the default) search rows; not part of the exact rows or their mismatch counts. */
  approximate: ApproximateRow[];
  /** Per set. */
  build: Record<string, BuildInfo>;
  skipped: Array<{ set: string; reason: string }>;
  notes: string[];
  /** Wall-clock seconds of the whole run. */
  seconds: number;
}

export function machineInfo(): MachineInfo {
  const c = cpus();
  return {
    cpu: c.length ? c[0].model.trim() : 'unknown',
    cores: availableParallelism(),
    node: process.version,
    v8: process.versions.v8,
    os: `${type()} ${release()} ${arch()}`,
    simd: simdSupported(),
    sharedMemory: sharedMemorySupported(),
    date: new Date().toISOString(),
  };
}

/** 3 significant digits, no exponent for the ranges a benchmark sees. */
export function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a >= 1000) return Math.round(x).toString();
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  return x.toPrecision(2);
}

function table(head: string[], align: Array<'l' | 'r'>, rows: string[][]): string {
  const lines = [`| ${head.join(' | ')} |`, `|${align.map((a) => (a === 'r' ? '---:' : ':---')).join('|')}|`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

/** "57 / 0.6 (1.1%)": rows looked at and re-scored per query, and the re-scored share; "" for float32 methods. */
function rescoredCell(x: BenchRow): string {
  if (x.rowsPerQuery === undefined || x.rescoredPerQuery === undefined || x.rescoredShare === undefined) return '';
  return `${fmt(x.rowsPerQuery)} / ${fmt(x.rescoredPerQuery)} (${fmtShare(x.rescoredShare)})`;
}

/** A share as a percentage with 2 significant digits. */
function fmtShare(s: number): string {
  const p = 100 * s;
  return `${p >= 10 ? p.toFixed(0) : p >= 1 ? p.toFixed(1) : p.toPrecision(2)}%`;
}

/** The whole report as Markdown (what the command prints). */
export function renderMarkdown(r: BenchReport): string {
  const m = r.machine;
  const c = r.config;
  const out: string[] = [];
  out.push('# motionmatch bench', '');
  out.push(`${m.cpu}, ${m.cores} cores, Node ${m.node} (V8 ${m.v8}), ${m.os}; WASM SIMD ${m.simd ? 'yes' : 'no'}, shared memory ${m.sharedMemory ? 'yes' : 'no'}; ${m.date}`, '');
  out.push(
    `Queries: ${c.queries} per set and sigma — candidate rows picked with a seeded PRNG (seed ${c.seed}) plus Gaussian noise of standard deviation sigma per dimension, in normalised units. ` +
    'Times are per query (Matcher.search, one call each, after warm-up), in microseconds.', '');

  if (r.rows.length) {
    out.push('## Single queries', '');
    out.push(table(
      ['set', 'frames', 'sigma', 'backend', 'method', 'queries', 'median µs', 'p99 µs', '× JS brute', 'mismatches', 'bytes/row', 'rows looked at / re-scored per query'],
      ['l', 'r', 'r', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
      r.rows.map((x) => [
        x.set, String(x.frames), String(x.sigma), x.backend, x.reference ? `${x.method} (ref)` : x.method,
        `${x.queries}${x.capped ? '*' : ''}`, fmt(x.medianUs), fmt(x.p99Us), fmt(x.speedupVsJsBrute),
        `${x.mismatches}/${x.checked}`, String(x.bytesPerRow), rescoredCell(x),
      ]),
    ), '');
  }

  if (r.batch.length) {
    out.push('## Batch throughput', '');
    out.push(table(
      ['set', 'frames', 'sigma', 'method', 'backend', 'mode', 'threads', 'batch', 'median ms/batch', 'queries/s', 'mismatches'],
      ['l', 'r', 'r', 'l', 'l', 'l', 'r', 'r', 'r', 'r', 'r'],
      r.batch.map((b) => [
        b.set, String(b.frames), String(b.sigma), b.method, b.backend, b.mode, String(b.threads), String(b.batchSize),
        fmt(b.medianBatchMs), Math.round(b.queriesPerSecond).toString(), `${b.mismatches}/${b.checked}`,
      ]),
    ), '');
  }

  if (r.approximate.length) {
    out.push('## Approximate search (opt-in): PCA KD-tree + exact re-ranking, clustered search with a probe count', '');
    out.push(table(
      ['set', 'frames', 'sigma', 'method', 'backend', 'settings', 'median µs', 'p99 µs', '× JS brute', 'recall@1'],
      ['l', 'r', 'r', 'l', 'l', 'l', 'r', 'r', 'r', 'r'],
      r.approximate.map((a) => [
        a.set, String(a.frames), String(a.sigma), a.method, a.backend, a.settings,
        fmt(a.medianUs), fmt(a.p99Us), fmt(a.speedupVsJsBrute), `${a.recallAt1.toFixed(3)} (of ${a.checked})`,
      ]),
    ), '');
  }

  const sets = Object.entries(r.build);
  if (sets.length) {
    out.push('## Databases', '');
    out.push(table(
      ['set', 'frames', 'clips', 'candidates', 'dims', 'database build s', 'aabb build ms', 'kdtree build ms', 'kd nodes', 'kd depth', 'what'],
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
      sets.map(([name, b]) => [
        name, String(b.frames), String(b.clips), String(b.candidates), String(b.dims), (b.databaseMs / 1000).toFixed(2),
        fmt(b.aabbMs), fmt(b.kdtreeMs), String(b.kdNodes), String(b.kdDepth), b.description,
      ]),
    ), '');
    const compact = sets.filter(([, b]) => b.compact.u8RowBytes || b.compact.f16RowBytes || b.compact.clusters);
    if (compact.length) {
      out.push(table(
        ['set', '8-bit bytes/row', 'largest 8-bit row error', 'half bytes/row', 'largest half row error', 'clusters / sub-clusters', '8-bit + 16-bit box build ms', 'half build ms', 'cluster build ms'],
        ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
        compact.map(([name, b]) => {
          const c = b.compact;
          return [
            name, c.u8RowBytes ? String(c.u8RowBytes) : '-', c.u8RowBytes ? c.u8ErrorMax.toPrecision(3) : '-',
            c.f16RowBytes ? String(c.f16RowBytes) : '-', c.f16RowBytes ? c.f16ErrorMax.toPrecision(3) : '-',
            c.clusters ? `${c.clusters} / ${c.subClusters}` : '-', fmt(c.u8Ms + c.box16Ms), fmt(c.f16Ms), fmt(c.clusterMs),
          ];
        }),
      ), '');
    }
  }

  const notes = [...r.skipped.map((s) => s.reason), ...r.notes];
  if (notes.length) {
    out.push('Notes:', '');
    for (const n of notes) out.push(`- ${n}`);
    out.push('');
  }
  out.push(`Total ${r.seconds.toFixed(1)} s.`);
  return out.join('\n') + '\n';
}
