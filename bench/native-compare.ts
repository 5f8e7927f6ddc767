/**
 * `npm run bench:native`: the project's WASM SIMD search next to a native C reference (bench/native/),
 * both directions. Native: brute force one row per iteration (what this comparison used to run), 4
 * rows per pass with SSE, 8 with AVX2, and Holden's box pruning (blocks of 64 and 16) with SSE / AVX2
 * row scans; all compiled here with the same flags. Project: WASM SIMD brute force, box pruning
 * (`aabb`) and KD-tree, through Matcher.search. Same database, candidates and queries; every result is
 * checked against the JS brute force (index and cost). Native and WASM alternate in chunks of 250
 * queries; the table shows the median over rounds of each round's per-query median, and the ratios
 * are taken chunk by chunk (the machine is shared: its speed swings by several times within minutes).
 *
 * Usage: node dist/bench/native-compare.js [--db FILE] [--mocap DIR] [--rows N] [--queries N] [--rounds R]
 *                                          [--sigmas 0.1,0.5] [--seed K] [--json FILE] [--candidate-wasm FILE]
 * Default database: the real bench set, mirrored (../shared/data/mocap/bench), else the built-in one.
 * --rows N: only the database's first N frames. The real bench set (4.6 MB of features) is read
 * from L3 or memory, and where that bandwidth binds every brute force takes the same time whatever
 * its instructions; a few thousand rows stay in L2, and then the code decides. The report says which
 * regime a run was in (whether native AVX2 beats native SSE).
 * --candidate-wasm FILE: also time another build of the kernels (a build/search.simd.wasm of a change
 * under test) in the same rounds, so that a kernel change is measured under the same machine load.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { buildDatabase } from '../src/database/build.js';
import { builtinSources } from '../src/database/sources-node.js';
import { readDatabaseFile } from '../src/database/mmdb/mmdb-node.js';
import type { Database } from '../src/database/database.js';
import { jointCount } from '../src/anim/skeleton.js';
import { Matcher, type SearchMethod } from '../src/search/matcher.js';
import { nodePackageRoot } from '../src/search/wasm/load.js';
import { parseToolArgs } from '../src/apps/args.js';
import { BenchSetLoader, defaultMocapDir, resolveMocapDir } from '../src/bench/datasets.js';
import { makeQueries, mixSeed, seededRandom, median, percentile } from '../src/bench/search-bench.js';

/** The flags every native method is compiled with (no fused multiply-add: costs stay bit-identical to the kernels'). */
const FLAGS = ['-O3', '-march=native', '-ffp-contract=off', '-std=gnu11'];
const NATIVE_METHODS = ['sse-1row', 'sse', 'sse-generic', 'avx2', 'boxes-sse', 'boxes-avx2'] as const;
const WASM_METHODS: readonly SearchMethod[] = ['brute', 'aabb', 'kdtree'];
const WARMUP_QUERIES = 8;
/**
 * The AVX2 loop does the SSE loop's work in half the instructions: where it is no faster than
 * this factor, memory bandwidth, not code, bound the run.
 */
const BANDWIDTH_BOUND_GAIN = 1.05;
/** Queries per chunk: native and WASM alternate chunk by chunk, so that both see the same machine load. */
const CHUNK = 250;

const LABEL: Record<string, string> = {
  'native sse-1row': 'native brute, SSE, 1 row per iteration (the old loop)',
  'native sse': 'native brute, SSE, 4 rows per pass',
  'native sse-generic': 'native brute, SSE, 4 rows per pass, row width not a constant',
  'native avx2': 'native brute, AVX2, 8 rows per pass',
  'native boxes-sse': 'native box pruning 64/16, SSE',
  'native boxes-avx2': 'native box pruning 64/16, AVX2 row scans',
  'wasm brute': 'project WASM SIMD brute',
  'wasm aabb': 'project WASM SIMD aabb (box pruning 64/16)',
  'wasm kdtree': 'project WASM SIMD kdtree',
};

/** The comparisons the issue asks for (first / second; > 1: the first is slower). */
const PAIRS: ReadonlyArray<[string, string]> = [
  ['wasm brute', 'native sse'], ['wasm brute', 'native avx2'], ['wasm brute', 'native sse-1row'], ['wasm brute', 'native sse-generic'],
  ['native boxes-sse', 'wasm aabb'], ['native boxes-sse', 'wasm kdtree'], ['native boxes-avx2', 'wasm kdtree'],
];

/** Per-query results of one implementation over one chunk of queries. */
interface ChunkRun {
  index: Int32Array;
  cost: Float32Array;
  us: Float64Array;
}

interface Row {
  sigma: number;
  impl: string;
  label: string;
  /** Median over rounds of the round's per-query median (range: fastest and slowest round). */
  medianUs: number;
  minRoundUs: number;
  maxRoundUs: number;
  p99Us: number;
  meanUs: number;
  mismatches: number;
  checked: number;
}

function positiveInt(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${text}"`);
  return n;
}

/** The C compiler to use (gcc, else cc) and its version line. */
function findCompiler(): { cc: string; version: string } {
  for (const cc of ['gcc', 'cc']) {
    try {
      return { cc, version: execFileSync(cc, ['--version'], { encoding: 'utf8' }).split('\n')[0].trim() };
    } catch { /* try the next */ }
  }
  throw new Error('no C compiler found (gcc or cc): the native reference cannot be built');
}

function stats(us: Float64Array): { medianUs: number; p99Us: number; meanUs: number } {
  let sum = 0;
  for (const v of us) sum += v;
  return { medianUs: median(us), p99Us: percentile(us, 99), meanUs: sum / us.length };
}

/** Index and cost of every query by the JS brute force (the correctness reference). */
async function reference(db: Database, queries: Float32Array, n: number): Promise<{ index: Int32Array; cost: Float32Array }> {
  const js = await Matcher.create(db, { backend: 'js' });
  const index = new Int32Array(n), cost = new Float32Array(n);
  const out = { frame: -1, clip: -1, clipTime: 0, cost: 0 };
  const S = db.stride;
  for (let k = 0; k < n; k++) {
    js.search(queries.subarray(k * S, (k + 1) * S), { method: 'brute', normalized: true }, out);
    index[k] = out.frame;
    cost[k] = out.cost;
  }
  return { index, cost };
}

/** The native program's input: header, rows, candidate mask (padded to 4 bytes), queries. */
function nativeData(db: Database, queries: Float32Array, n: number): Buffer {
  const header = Buffer.alloc(16);
  header.write('MMNB', 0, 'latin1');
  header.writeInt32LE(db.frameCount, 4);
  header.writeInt32LE(db.stride, 8);
  header.writeInt32LE(n, 12);
  const mask = Buffer.alloc((db.frameCount + 3) & ~3);
  mask.set(db.candidates);
  const rows = Buffer.from(db.features.buffer, db.features.byteOffset, db.frameCount * db.stride * 4);
  return Buffer.concat([header, rows, mask, Buffer.from(queries.buffer, queries.byteOffset, n * db.stride * 4)]);
}

/** One native round over all queries: per method, its indices, costs and per-query µs. */
function runNative(exe: string, data: string, out: string, n: number): Map<string, { index: Int32Array; cost: Float32Array; us: Float64Array }> {
  const info = JSON.parse(execFileSync(exe, [data, out, NATIVE_METHODS.join(',')], { encoding: 'utf8' })) as { methods: string[] };
  const bytes = readFileSync(out);
  const per = n * (4 + 4 + 8);
  const results = new Map<string, { index: Int32Array; cost: Float32Array; us: Float64Array }>();
  info.methods.forEach((m, i) => {
    const at = bytes.byteOffset + i * per;
    const copy = bytes.buffer.slice(at, at + per);
    results.set(m, { index: new Int32Array(copy, 0, n), cost: new Float32Array(copy, 4 * n, n), us: new Float64Array(copy, 8 * n, n) });
  });
  return results;
}

/** One WASM round of `method` over all queries: indices, costs and per-query µs. */
function runWasm(m: Matcher, method: SearchMethod, queries: Float32Array, n: number, S: number): { index: Int32Array; cost: Float32Array; us: Float64Array } {
  const out = { frame: -1, clip: -1, clipTime: 0, cost: 0 };
  const opts = { method, normalized: true };
  const views = Array.from({ length: n }, (_, k) => queries.subarray(k * S, (k + 1) * S));
  for (let k = 0; k < Math.min(n, WARMUP_QUERIES); k++) m.search(views[k], opts, out);
  const index = new Int32Array(n), cost = new Float32Array(n), us = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const t0 = performance.now();
    m.search(views[k], opts, out);
    us[k] = (performance.now() - t0) * 1000;
    index[k] = out.frame;
    cost[k] = out.cost;
  }
  return { index, cost, us };
}

/** Per (σ, implementation): every round's per-query times (chunks appended in order) and chunk medians. */
class Timings {
  readonly rounds = new Map<string, number[][]>();
  readonly chunkMedians = new Map<string, number[]>();
  readonly mismatches = new Map<string, number>();
  readonly checked = new Map<string, number>();

  add(key: string, round: number, r: ChunkRun, ref: { index: Int32Array; cost: Float32Array }, offset: number): void {
    const rounds = this.rounds.get(key) ?? [];
    (rounds[round] ??= []).push(...r.us);
    this.rounds.set(key, rounds);
    const chunks = this.chunkMedians.get(key) ?? [];
    chunks.push(median(r.us));
    this.chunkMedians.set(key, chunks);
    let bad = 0;
    for (let k = 0; k < r.index.length; k++) if (r.index[k] !== ref.index[offset + k] || r.cost[k] !== ref.cost[offset + k]) bad++;
    this.mismatches.set(key, (this.mismatches.get(key) ?? 0) + bad);
    this.checked.set(key, (this.checked.get(key) ?? 0) + r.index.length);
  }

  row(sigma: number, impl: string): Row | null {
    const key = `${sigma}|${impl}`, rounds = this.rounds.get(key);
    if (!rounds) return null;
    const per = rounds.map((us) => stats(Float64Array.from(us)));
    const medians = per.map((p) => p.medianUs);
    return {
      sigma, impl, label: LABEL[impl] ?? impl,
      medianUs: median(medians), minRoundUs: Math.min(...medians), maxRoundUs: Math.max(...medians),
      p99Us: median(per.map((p) => p.p99Us)), meanUs: median(per.map((p) => p.meanUs)),
      mismatches: this.mismatches.get(key) ?? 0, checked: this.checked.get(key) ?? 0,
    };
  }

  /**
   * a's time over b's, chunk by chunk (the two ran within a second of each other, so under the same
   * machine load): the median of those ratios and their interquartile range.
   */
  ratio(sigma: number, a: string, b: string): { sigma: number; a: string; b: string; median: number; q25: number; q75: number } | null {
    const ca = this.chunkMedians.get(`${sigma}|${a}`), cb = this.chunkMedians.get(`${sigma}|${b}`);
    if (!ca || !cb) return null;
    const r = ca.map((x, i) => x / cb[i]);
    return { sigma, a, b, median: median(r), q25: percentile(r, 25), q75: percentile(r, 75) };
  }
}

function table(rows: Row[]): string {
  const f = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
  const lines = ['| σ | implementation | median µs (range over rounds) | p99 µs | vs native SSE brute | mismatches |', '|---|---|---|---|---|---|'];
  for (const r of rows) {
    const base = rows.find((b) => b.sigma === r.sigma && b.impl === 'native sse')!;
    lines.push(`| ${r.sigma} | ${r.label} | ${f(r.medianUs)} (${f(r.minRoundUs)}–${f(r.maxRoundUs)}) | ${f(r.p99Us)} | ${(r.medianUs / base.medianUs).toFixed(2)}x | ${r.mismatches}/${r.checked} |`);
  }
  return lines.join('\n');
}

/**
 * The database's first n frames (clips cut at frame n), sharing its arrays: what the search sees of
 * a smaller capture set of the same rig.
 */
function firstFrames(db: Database, n: number): Database {
  if (n >= db.frameCount) return db;
  const J = jointCount(db.skeleton);
  const S = db.stride;
  const clips = db.clips.filter((c) => c.start < n).map((c) => ({ ...c, count: Math.min(c.count, n - c.start) }));
  return {
    ...db,
    frameCount: n,
    clips,
    rotations: db.rotations.subarray(0, n * J * 4),
    translations: db.translations.subarray(0, n * J * 3),
    rootPositions: db.rootPositions.subarray(0, n * 3),
    rootRotations: db.rootRotations.subarray(0, n * 4),
    contacts: db.contacts.subarray(0, n),
    candidates: db.candidates.subarray(0, n),
    tagBits: db.tagBits.subarray(0, n),
    rawFeatures: db.rawFeatures.subarray(0, n * S),
    features: db.features.subarray(0, n * S),
  };
}

/** Native SSE brute force's median over the AVX2 one's at one σ (null without the AVX2 loop). */
function avx2Gain(rows: Row[], sigma: number): number | null {
  const sse = rows.find((r) => r.sigma === sigma && r.impl === 'native sse');
  const avx2 = rows.find((r) => r.sigma === sigma && r.impl === 'native avx2');
  return sse && avx2 ? sse.medianUs / avx2.medianUs : null;
}

async function loadDatabase(values: Options, root: string): Promise<{ db: Database; what: string }> {
  const file = values.db;
  if (file) return { db: readDatabaseFile(file), what: `database file ${file}` };
  const mocap = resolveMocapDir(values.mocap ?? defaultMocapDir(root));
  if (mocap) return { db: new BenchSetLoader(mocap).load('real').db, what: `real bench set (${mocap}), mirrored` };
  console.error('native-compare: real mocap not found; using the built-in database (give --mocap DIR for the real set)');
  return { db: buildDatabase(builtinSources()), what: 'built-in database' };
}

const USAGE = 'usage: node dist/bench/native-compare.js [--db FILE] [--mocap DIR] [--rows N] [--queries N] [--rounds R] [--sigmas 0.1,0.5] [--seed K] [--json FILE] [--candidate-wasm FILE]\n';
const OPTIONS = {
  db: { type: 'string' }, mocap: { type: 'string' }, rows: { type: 'string' }, queries: { type: 'string' }, rounds: { type: 'string' },
  sigmas: { type: 'string' }, seed: { type: 'string' }, json: { type: 'string' }, 'candidate-wasm': { type: 'string' }, help: { type: 'boolean', short: 'h' },
} as const;
type Options = ReturnType<typeof parseToolArgs<typeof OPTIONS>>['values'];

async function main(): Promise<void> {
  // (a typo or --help used to run the whole benchmark with defaults)
  const { values } = parseToolArgs('native-compare', process.argv.slice(2), OPTIONS, USAGE);
  if (values.help) { process.stdout.write(USAGE); return; }
  const n = positiveInt(values.queries, '--queries', 2000);
  const roundCount = positiveInt(values.rounds, '--rounds', 7);
  const seed = positiveInt(values.seed, '--seed', 1);
  const sigmas = (values.sigmas ?? '0.1,0.5').split(',').map(Number);
  if (sigmas.some((s) => !(Number.isFinite(s) && s >= 0))) throw new Error('--sigmas must be a comma-separated list of numbers >= 0');
  const jsonFile = values.json;
  const root = await nodePackageRoot();
  const loaded = await loadDatabase(values, root);
  const db = firstFrames(loaded.db, positiveInt(values.rows, '--rows', Infinity));
  const what = db === loaded.db ? loaded.what : `${loaded.what}, first ${db.frameCount} of ${loaded.db.frameCount} frames`;
  let candidateRows = 0;
  for (const c of db.candidates) candidateRows += c;
  if (candidateRows === 0) throw new Error(`no candidate frame among the first ${db.frameCount}: give --rows a larger number`);
  const S = db.stride;

  if (process.arch !== 'x64') throw new Error(`the native reference uses SSE/AVX2 intrinsics and needs an x86-64 machine (this is ${process.arch})`);
  const { cc, version } = findCompiler();
  const dir = mkdtempSync(join(tmpdir(), 'mm-native-'));
  const loadStart = loadavg()[0];
  try {
    const exe = join(dir, 'native');
    const src = ['main.c', 'brute.c', 'boxes.c'].map((f) => join(root, 'bench', 'native', f));
    execFileSync(cc, [...FLAGS, '-o', exe, ...src]);
    const wasm = await Matcher.create(db, { backend: 'wasm-simd' });
    const candidateFiles = values['candidate-wasm']?.split(',') ?? [];
    const candidates = await Promise.all(candidateFiles.map(async (file) => ({
      name: `candidate ${basename(file)}`, matcher: await Matcher.create(db, { backend: 'wasm-simd', wasm: readFileSync(file) }),
    })));
    const sets = [];
    for (const sigma of sigmas) {
      const { queries } = makeQueries(db, n, sigma, seededRandom(mixSeed(seed, `native-compare:${sigma}`)));
      const chunks = [];
      for (let from = 0; from < n; from += CHUNK) {
        const count = Math.min(CHUNK, n - from);
        const data = join(dir, `queries-${sigma}-${from}.bin`);
        const part = queries.subarray(from * S, (from + count) * S);
        writeFileSync(data, nativeData(db, part, count));
        chunks.push({ from, count, data, queries: part });
      }
      process.stderr.write(`native-compare: JS brute-force reference, σ ${sigma} (${n} queries)...\n`);
      sets.push({ sigma, chunks, ref: await reference(db, queries, n) });
    }
    const timings = new Timings();
    for (let round = 0; round < roundCount; round++) {
      process.stderr.write(`native-compare: round ${round + 1}/${roundCount}\n`);
      for (const set of sets) {
        for (const c of set.chunks) {
          for (const [m, r] of runNative(exe, c.data, join(dir, 'out.bin'), c.count)) timings.add(`${set.sigma}|native ${m}`, round, r, set.ref, c.from);
          for (const m of WASM_METHODS) timings.add(`${set.sigma}|wasm ${m}`, round, runWasm(wasm, m, c.queries, c.count, S), set.ref, c.from);
          for (const cand of candidates) {
            for (const m of WASM_METHODS) timings.add(`${set.sigma}|${cand.name} ${m}`, round, runWasm(cand.matcher, m, c.queries, c.count, S), set.ref, c.from);
          }
        }
      }
    }
    const impls = [...NATIVE_METHODS.map((m) => `native ${m}`), ...WASM_METHODS.map((m) => `wasm ${m}`), ...candidates.flatMap((c) => WASM_METHODS.map((m) => `${c.name} ${m}`))];
    const rows = sets.flatMap((set) => impls.map((impl) => timings.row(set.sigma, impl)).filter((r): r is Row => r !== null));
    const pairs = [...PAIRS, ...candidates.flatMap((c) => [[`${c.name} brute`, 'native sse'], [`${c.name} brute`, 'wasm brute'], [`${c.name} aabb`, 'wasm aabb'], [`${c.name} kdtree`, 'wasm kdtree']] as Array<[string, string]>)];
    const ratios = sets.flatMap((set) => pairs.map(([a, b]) => timings.ratio(set.sigma, a, b)).filter((r) => r !== null));
    const report = {
      database: { what, rows: db.frameCount, candidates: candidateRows, stride: S, dims: db.dims, featureBytes: db.frameCount * S * 4 },
      queries: n, rounds: roundCount, chunk: CHUNK, sigmas, seed,
      compiler: { command: cc, version, flags: FLAGS },
      machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version, loadAverageStart: loadStart, loadAverageEnd: loadavg()[0] },
      candidateWasm: candidateFiles,
      timing: `each query timed on its own (clock_gettime / performance.now around the call); queries go in chunks of ${CHUNK}, native and WASM alternating chunk by chunk; per round (all queries once) the median and p99 over the queries; shown: the median over rounds, with the fastest and slowest round; ratios: per chunk, the ratio of the two chunk medians, then their median and interquartile range`,
      rows,
      ratios,
      regime: sigmas.map((sigma) => {
        const gain = avx2Gain(rows, sigma);
        return { sigma, avx2Gain: gain, bandwidthBound: gain === null ? null : gain <= BANDWIDTH_BOUND_GAIN };
      }),
    };
    const failed = rows.filter((r) => r.mismatches > 0);
    console.log(`${what}: ${db.frameCount} rows (${candidateRows} candidates) x ${S} floats, ${n} queries per σ, ${roundCount} rounds; ${cc} ${FLAGS.join(' ')} (${version}); load average ${loadStart.toFixed(1)} → ${loadavg()[0].toFixed(1)} on ${cpus().length} cores\n`);
    console.log(table(rows));
    console.log('\n| σ | ratio of times, chunk by chunk | median (interquartile range) |\n|---|---|---|');
    for (const r of ratios) console.log(`| ${r.sigma} | ${LABEL[r.a] ?? r.a} / ${LABEL[r.b] ?? r.b} | ${r.median.toFixed(2)} (${r.q25.toFixed(2)}–${r.q75.toFixed(2)}) |`);
    for (const g of report.regime) {
      if (g.avx2Gain === null) continue;
      console.log(g.bandwidthBound
        ? `\nσ ${g.sigma}: native AVX2 (8 rows a pass) is no faster than SSE (${g.avx2Gain.toFixed(2)}x): memory bandwidth bound this run, not instructions. For the code's own speed, time a working set that stays in cache (--rows 8000).`
        : `\nσ ${g.sigma}: native AVX2 (8 rows a pass) is ${g.avx2Gain.toFixed(2)}x as fast as SSE: instructions bound this run, not memory bandwidth.`);
    }
    if (jsonFile) writeFileSync(jsonFile, JSON.stringify(report, null, 2) + '\n');
    else console.log(JSON.stringify(report));
    if (failed.length > 0) {
      console.error(`native-compare: ${failed.map((r) => `σ ${r.sigma} ${r.impl}`).join(', ')} disagree with the JS brute force`);
      process.exitCode = 1;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(`native-compare: ${(e as Error).message}`); process.exitCode = 1; });
