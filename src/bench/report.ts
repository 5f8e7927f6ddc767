/**
 * The benchmark's result shape (what --json writes) and its Markdown rendering.
 */
import { arch, availableParallelism, cpus, release, type } from 'node:os';
import { sharedMemorySupported, simdSupported } from '../search/wasm.js';

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
  threads: number[];
  rowSeconds: number;
  refSeconds: number;
  batchSeconds: number;
  seed: number;
  quick: boolean;
}

/** The opt-in approximate search (PCA KD-tree + exact re-ranking): speed beside recall@1. */
export interface ApproximateRow {
  set: string;
  frames: number;
  sigma: number;
  components: number;
  candidates: number;
  /** Share of the feature variance the kept components explain. */
  explainedVariance: number;
  queries: number;
  medianUs: number;
  p99Us: number;
  speedupVsJsBrute: number;
  /** Share of queries where it returns the brute-force frame. */
  recallAt1: number;
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
      ['set', 'frames', 'sigma', 'backend', 'method', 'queries', 'median µs', 'p99 µs', '× JS brute', 'mismatches'],
      ['l', 'r', 'r', 'l', 'l', 'r', 'r', 'r', 'r', 'r'],
      r.rows.map((x) => [
        x.set, String(x.frames), String(x.sigma), x.backend, x.reference ? `${x.method} (ref)` : x.method,
        `${x.queries}${x.capped ? '*' : ''}`, fmt(x.medianUs), fmt(x.p99Us), fmt(x.speedupVsJsBrute),
        `${x.mismatches}/${x.checked}`,
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
    out.push('## Approximate search (opt-in, JS): PCA KD-tree + exact re-ranking', '');
    out.push(table(
      ['set', 'frames', 'sigma', 'components', 'candidates', 'variance kept', 'median µs', 'p99 µs', '× JS brute', 'recall@1'],
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
      r.approximate.map((a) => [
        a.set, String(a.frames), String(a.sigma), String(a.components), String(a.candidates), a.explainedVariance.toFixed(3),
        fmt(a.medianUs), fmt(a.p99Us), fmt(a.speedupVsJsBrute), a.recallAt1.toFixed(3),
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
