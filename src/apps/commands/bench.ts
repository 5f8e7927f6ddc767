import { writeFileSync } from 'node:fs';
import { tuneJitForCrowds } from '../../util/jit-node.js';
import { dirname, resolve } from 'node:path';
import { parseCommandArgs, numberOption, integerOption, UsageError } from '../args.js';
import { createProgress } from '../../util/progress.js';
import { nodePackageRoot, simdSupported } from '../../search/wasm/load.js';
import type { Backend, SearchMethod } from '../../search/matcher.js';
import { runBench, ALL_BACKENDS, ALL_METHODS, DEFAULT_PROBES, type BenchConfig } from '../../bench/search-bench.js';
import { BENCH_SETS, defaultMocapDir, resolveMocapDir, type BenchSetName } from '../../bench/datasets.js';
import { renderMarkdown } from '../../bench/report.js';
import { renderSvgChart } from '../../bench/svg-chart.js';
import { benchControllerStep, benchSimulationScaling, type ControllerBenchOptions, type ControllerBenchRow, type ScalingRow } from '../../bench/controller-bench.js';
import { builtinDatabase } from '../builtin-database.js';
import { checkOutputFile } from '../output-file.js';
import { makeFolder } from '../../util/files-node.js';

const SECTIONS = ['search', 'runtime'] as const;
type Section = (typeof SECTIONS)[number];

/** Runtime figures on the built-in database: the controller's step cost and the crowd simulation's throughput. */
async function runRuntimeBench(quick: boolean, agentCounts: number[], log: (m: string) => void): Promise<{ controller: ControllerBenchRow[]; simulation: ScalingRow[] }> {
  const db = builtinDatabase();
  const controller: ControllerBenchRow[] = [];
  const variants: ControllerBenchOptions[] = [
    { footIK: true, inertialization: true }, { footIK: false, inertialization: true }, { footIK: false, inertialization: false },
    // What an active overlay and uneven ground add to the first row (the built-in data's gesture-like tag: idle).
    { footIK: true, inertialization: true, overlay: 'idle' }, { footIK: true, inertialization: true, terrain: { kind: 'hills', seed: 1 } },
  ];
  for (const o of variants) {
    log(`controller step, ${controllerRowLabel({ footIK: o.footIK ?? true, inertialization: o.inertialization ?? true, overlay: o.overlay ?? null, terrain: o.terrain ? o.terrain.kind : null })}`);
    controller.push(await benchControllerStep(db, { ...o, agents: quick ? 20 : 200, seconds: quick ? 1.5 : 6 }));
  }
  log(`simulation scaling (${agentCounts.join(', ')} agents x 1, 2 workers)`);
  const simulation = await benchSimulationScaling(db, agentCounts, [1, 2], quick ? 1 : 4);
  return { controller, simulation };
}

/** A controller row's settings in words: "IK on, inertialization on, overlay idle on upper body..., on hills (seed 1)". */
function controllerRowLabel(c: Pick<ControllerBenchRow, 'footIK' | 'inertialization' | 'overlay' | 'terrain'>): string {
  return `IK ${c.footIK ? 'on' : 'off'}, inertialization ${c.inertialization ? 'on' : 'off'}${c.overlay ? `, overlay ${c.overlay}` : ''}${c.terrain ? `, on ${c.terrain}` : ''}`;
}

function renderRuntimeMarkdown(r: { controller: ControllerBenchRow[]; simulation: ScalingRow[] }): string {
  const lines = [
    '', '## Runtime (built-in database)', '',
    '| controller step (search excluded) | joints | median us/step | p99 us/step |', '|---|---|---|---|',
    ...r.controller.map((c) => `| ${controllerRowLabel(c)}, ${c.hz} Hz | ${c.joints} | ${c.usPerStep.toFixed(2)} | ${c.p99UsPerStep.toFixed(2)} |`),
    '', '| simulation agents | workers | agent-steps/s | search share |', '|---|---|---|---|',
    ...r.simulation.map((x) => `| ${x.agents} | ${x.workers} | ${Math.round(x.agentStepsPerSec).toLocaleString('en-US')} | ${(100 * x.searchShare).toFixed(1)}% |`),
    '',
  ];
  return lines.join('\n');
}

export const DEFAULT_BENCH_JSON = 'bench-results/bench.json';

export const BENCH_USAGE = `usage: motionmatch bench [--sets builtin,real,real4x,real16x | --db FILE] [--mocap DIR]
                         [--queries N] [--noise 0.1,0.5] [--methods brute,early,window,aabb,kdtree,...]
                         [--backends js,wasm-scalar,wasm-simd] [--threads 1,2] [--batch-methods brute,kdtree]
                         [--probes 1,4,16]
                         [--row-seconds S] [--ref-seconds S] [--batch-seconds S] [--seed N]
                         [--json [FILE]] [--quick]

  Times the search methods on every backend and database: median and p99 microseconds per query
  (single Matcher.search calls), speedup over the JS brute force, results that differ from it, and
  batch throughput (searchBatch on one thread, MatcherPool with N workers). Prints a Markdown
  table; writes JSON and an SVG chart (default ${DEFAULT_BENCH_JSON} and .svg).

  --sets LIST        databases (default all): builtin = the built-in clips; real = the real mocap
                     bench set, mirrored; real4x / real16x = that set enlarged 4x / 16x by re-timed
                     resampling of its clips. Real sets are skipped when the mocap folder is absent.
  --db FILE          benchmark this .mmdb database instead of the sets
  --mocap DIR        folder of BVH files for the real sets (or a folder holding bench/);
                     default <package>/../shared/data/mocap/bench
  --queries N        queries per database and sigma (default 500; --quick 40)
  --noise LIST       Gaussian noise sigmas in normalised units added to database rows (default 0.1,0.5)
  --methods LIST     search methods (default all: brute, early, window, aabb, kdtree, and over compact
                     data brute-u8, brute-f16, aabb-u8, kdtree-u8, cluster, cluster-u8; the compact
                     copies and the clustered index are built only when a listed method needs them)
  --backends LIST    js, wasm-scalar, wasm-simd, auto (default all the engine supports)
  --threads LIST     MatcherPool worker counts for the batch rows (default 1,2; 0 = no pool rows)
  --batch-methods L  methods timed in batch mode (default brute,kdtree among --methods)
  --probes LIST      probe counts of the approximate clustered rows, reported with their recall@1
                     (default 1,4,16; 0 = none; needs cluster or cluster-u8 in --methods)
  --row-seconds S    time budget per table row; slower rows time fewer queries (default 2; --quick 0.2)
  --ref-seconds S    time budget of the JS brute-force reference per database and sigma (default 15)
  --batch-seconds S  tinybench time per batch row (default 1)
  --seed N           query PRNG seed (default 1)
  --json FILE        write the JSON report to FILE and the chart beside it (FILE with .svg)
  --json             print the JSON report on stdout only (no table, no files)
  --sections LIST    search, runtime (default both): runtime = the controller's cost per step and
                     the crowd simulation's agent-steps/s for --agents (default 100,1000,5000,10000)
                     with 1 and 2 workers, on the built-in database
  --agents LIST      crowd sizes for the runtime section
  --quick            a small, fast configuration (builtin set, 40 queries, short budgets)`;

function listOption<T extends string>(value: string | undefined, name: string, allowed: readonly T[]): T[] | undefined {
  if (value === undefined) return undefined;
  const items = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (items.length === 0) throw new UsageError(`--${name} needs at least one value (${allowed.join(', ')})`, BENCH_USAGE);
  for (const it of items) {
    if (!(allowed as readonly string[]).includes(it)) throw new UsageError(`--${name}: unknown value "${it}" (expected ${allowed.join(', ')})`, BENCH_USAGE);
  }
  return [...new Set(items)] as T[];
}

function numberList(value: string | undefined, name: string, min: number, max: number, integer: boolean): number[] | undefined {
  if (value === undefined) return undefined;
  const items = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (items.length === 0) throw new UsageError(`--${name} needs at least one number`, BENCH_USAGE);
  const out = items.map((s) => (integer ? integerOption(s, name, BENCH_USAGE, min, max) : numberOption(s, name, BENCH_USAGE, min, max))!);
  return [...new Set(out)];
}

/** `--json` with no value (last, or followed by another option) means "JSON on stdout". */
function normalizeJsonFlag(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json' && (i === argv.length - 1 || argv[i + 1].startsWith('--'))) out.push('--json=-');
    else out.push(a);
  }
  return out;
}

function svgPathFor(jsonPath: string): string {
  return /\.json$/i.test(jsonPath) ? jsonPath.replace(/\.json$/i, '.svg') : `${jsonPath}.svg`;
}

export async function benchCommand(argv: string[]): Promise<number> {
  tuneJitForCrowds(); // as `simulate` runs (src/util/jit-node.ts); JS kernels are timed with it too
  const { values, positionals } = parseCommandArgs(normalizeJsonFlag(argv), {
    sets: { type: 'string' },
    db: { type: 'string' },
    mocap: { type: 'string' },
    queries: { type: 'string' },
    noise: { type: 'string' },
    methods: { type: 'string' },
    backends: { type: 'string' },
    threads: { type: 'string' },
    'batch-methods': { type: 'string' },
    probes: { type: 'string' },
    'row-seconds': { type: 'string' },
    'ref-seconds': { type: 'string' },
    'batch-seconds': { type: 'string' },
    seed: { type: 'string' },
    json: { type: 'string' },
    quick: { type: 'boolean' },
    sections: { type: 'string' },
    agents: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  }, BENCH_USAGE);
  const sections: Section[] = listOption(values.sections, 'sections', SECTIONS) ?? [...SECTIONS];
  const agentCounts = numberList(values.agents, 'agents', 1, 100_000, true) ?? (values.quick ? [20] : [100, 1000, 5000, 10000]);
  if (values.help) { process.stdout.write(BENCH_USAGE + '\n'); return 0; }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}" (a database goes after --db)`, BENCH_USAGE);
  if (values.db !== undefined && values.sets !== undefined) throw new UsageError('give either --db FILE or --sets, not both', BENCH_USAGE);
  if (values.db !== undefined && values.mocap !== undefined) throw new UsageError('--mocap is for the real sets; it has no effect with --db', BENCH_USAGE);
  const quick = !!values.quick;

  const backendList = listOption(values.backends, 'backends', [...ALL_BACKENDS, 'auto'] as const);
  let backends: Backend[];
  if (backendList) {
    backends = [...new Set(backendList.map((b): Backend => (b === 'auto' ? (simdSupported() ? 'wasm-simd' : 'wasm-scalar') : b)))];
    if (backends.includes('wasm-simd') && !simdSupported()) throw new Error('backend wasm-simd requested but this engine has no WebAssembly SIMD');
  } else {
    backends = ALL_BACKENDS.filter((b) => b !== 'wasm-simd' || simdSupported());
  }
  const methods: SearchMethod[] = listOption(values.methods, 'methods', ALL_METHODS) ?? [...ALL_METHODS];
  const defaultBatch = methods.filter((m) => m === 'brute' || m === 'kdtree');
  const batchMethods: SearchMethod[] = listOption(values['batch-methods'], 'batch-methods', ALL_METHODS) ?? (defaultBatch.length ? defaultBatch : [methods[0]]);
  let threads = numberList(values.threads, 'threads', 0, 256, true) ?? [1, 2];
  if (threads.includes(0)) {
    if (threads.length > 1) throw new UsageError('--threads 0 (no pool rows) cannot be combined with other counts', BENCH_USAGE);
    threads = [];
  }
  let probes = numberList(values.probes, 'probes', 0, 1_048_576, true) ?? [...DEFAULT_PROBES];
  if (probes.includes(0)) {
    if (probes.length > 1) throw new UsageError('--probes 0 (no approximate clustered rows) cannot be combined with other counts', BENCH_USAGE);
    probes = [];
  }
  const sets: BenchSetName[] = listOption(values.sets, 'sets', BENCH_SETS) ?? (quick ? ['builtin'] : [...BENCH_SETS]);

  let mocapDir: string | null = null;
  if (values.db === undefined) {
    if (values.mocap !== undefined) {
      mocapDir = resolveMocapDir(values.mocap);
      if (mocapDir === null) throw new Error(`--mocap ${values.mocap}: no .bvh files there (nor in ${values.mocap}/bench)`);
    } else if (sets.some((s) => s !== 'builtin')) {
      mocapDir = resolveMocapDir(defaultMocapDir(await nodePackageRoot()));
    }
  }

  const config: BenchConfig = {
    sets,
    dbFile: values.db,
    mocapDir,
    queries: integerOption(values.queries, 'queries', BENCH_USAGE, 1, 1_000_000) ?? (quick ? 40 : 500),
    noise: numberList(values.noise, 'noise', 0, 1000, false) ?? [0.1, 0.5],
    methods,
    backends,
    batchMethods,
    probes,
    threads,
    rowSeconds: numberOption(values['row-seconds'], 'row-seconds', BENCH_USAGE, 0, 3600) ?? (quick ? 0.2 : 2),
    refSeconds: numberOption(values['ref-seconds'], 'ref-seconds', BENCH_USAGE, 0, 36000) ?? (quick ? 1 : 15),
    batchSeconds: numberOption(values['batch-seconds'], 'batch-seconds', BENCH_USAGE, 0, 3600) ?? (quick ? 0.05 : 1),
    seed: integerOption(values.seed, 'seed', BENCH_USAGE, 0, 0xffffffff) ?? 1,
    quick,
  };

  const jsonTarget = values.json;
  const jsonStdout = jsonTarget === '-';
  const jsonPath = jsonStdout ? null : resolve(jsonTarget ?? DEFAULT_BENCH_JSON);
  if (jsonPath !== null) {
    // Before the benchmark, not after it: its folder made, the report and the chart writable there
    // and neither of them the --db file.
    if (jsonTarget !== undefined && jsonTarget.trim() === '') throw new UsageError('--json needs a file name (or - for stdout)', BENCH_USAGE);
    makeFolder(dirname(jsonPath), "the bench report's");
    const inputs = [{ path: values.db, label: 'the --db file' }];
    checkOutputFile(jsonPath, '--json', 'the bench report', BENCH_USAGE, inputs);
    checkOutputFile(svgPathFor(jsonPath), '--json', 'the bench chart', BENCH_USAGE, inputs);
  }
  const bar = createProgress('bench', !jsonStdout && !!process.stderr.isTTY);
  const log = (msg: string) => {
    bar.done();
    process.stderr.write(`motionmatch bench: ${msg}\n`);
  };
  const report = sections.includes('search')
    ? await runBench(config, { progress: (d, t, l) => bar.update(Math.floor(d), t, l), log })
    : null;
  bar.done();
  // Runtime steps are announced on a terminal only (stderr is kept for problems otherwise).
  const runtime = sections.includes('runtime') ? await runRuntimeBench(quick, agentCounts, (m) => { if (process.stderr.isTTY && !jsonStdout) log(m); }) : null;
  const full = { ...(report ?? {}), ...(runtime ? { runtime } : {}) };

  if (jsonStdout) {
    process.stdout.write(JSON.stringify(full, null, 2) + '\n');
    return 0;
  }
  writeFileSync(jsonPath!, JSON.stringify(full, null, 2) + '\n');
  if (report) {
    const svgPath = svgPathFor(jsonPath!);
    writeFileSync(svgPath, renderSvgChart(report));
    process.stdout.write(renderMarkdown(report));
    process.stdout.write(`\nchart: ${svgPath}\n`);
  }
  if (runtime) process.stdout.write(renderRuntimeMarkdown(runtime));
  process.stdout.write(`\nJSON: ${jsonPath}\n`);
  return 0;
}
