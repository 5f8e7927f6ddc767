/**
 * Browser benchmark: how many characters the engine updates per frame in headless Chromium.
 *
 * Serves the demo (web-dist/, built when stale) with the cross-origin isolation headers, opens it
 * in Chromium (playwright-core) and, for each thread count and crowd size, reads the page's own
 * per-frame timings through `window.motionmatch`: the engine update (prepare + batched search +
 * complete, which includes playback, inertialization, root motion and foot IK), split into its
 * parts. WebGL drawing is off by default so the numbers are the engine's alone (software WebGL
 * competes for the same cores); --draw measures with drawing on as well. Every frame steps the
 * world by 1/60 s, so each frame carries the load of a 60 Hz frame however fast the page runs.
 *
 *   node dist/bench/browser-bench.js [--agents 100,500,1000,2000,5000] [--threads 1,2]
 *        [--seconds 3] [--rounds 3] [--draw] [--lod] [--profile] [--out bench-results/browser.json] [--chromium PATH]
 *
 * --lod adds the batched and split engines with levels of detail (docs/lod.md) beside the others, and
 * the split engine with levels while the camera turns at 2.5 rad/s (a gamepad's full turn).
 *
 * Other work on the machine skews single runs: each configuration runs `rounds` times, interleaved
 * with the others, and its best run (lowest median) is reported.
 *
 * Prints a table and writes the JSON to bench-results/browser.json.
 */
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { buildWebBundle } from '../src/web/bundle-node.js';
import { startDemoServer } from '../src/web/serve-node.js';
import { nodePackageRoot } from '../src/search/wasm/load.js';

export interface Summary { median: number; mean: number; p95: number; min: number; max: number }

export interface BrowserBenchRow {
  /** What differs from the default engine (e.g. "no foot IK", "brute force"). */
  variant: string;
  agents: number;
  /** 1 = search on the main thread; n >= 2 = n worker threads. */
  threads: number;
  /** 'batched': the main thread steps everyone, searches go to a pool; 'split': agents divided among workers. */
  mode: string;
  /** Batched with workers: 'workers' = every batch goes to them; 'auto' = only when faster than the main thread. */
  policy: string;
  /** Fraction of batches the workers answered at the end of the run. */
  workerShare: number;
  backend: string;
  method: string;
  drawing: boolean;
  frames: number;
  updateMs: Summary;
  prepareMs: Summary;
  searchMs: Summary;
  completeMs: Summary;
  /** Split engine: the slower worker's own step (AI, step, pose copy), its lead over the faster one, its pose copy (NaN otherwise). */
  workerMs: Summary;
  imbalanceMs: Summary;
  copyMs: Summary;
  /** With levels of detail: agents whose pose was held out of view (NaN without levels). */
  held: Summary;
  searchesPerFrame: number;
  searchUsPerQuery: number;
  fps: number;
  /** Engine update per character (µs), from the median frame. */
  usPerCharacter: number;
}

export interface BrowserBenchResult {
  date: string;
  machine: { cpus: number; model: string; memoryGB: number; loadAverageStart: number[]; loadAverageEnd: number[] };
  browser: { version: string; crossOriginIsolated: boolean; softwareWebGL: boolean; database: { name: string; frames: number; clips: number } };
  settings: { seconds: number; warmupSeconds: number; rounds: number };
  targetMs: number;
  rows: BrowserBenchRow[];
}

export interface BrowserBenchOptions {
  agents?: number[];
  threads?: number[];
  seconds?: number;
  draw?: boolean;
  /** Also measure the engines with levels of detail (docs/lod.md). */
  lod?: boolean;
  /** Also measure worker threads with auto routing (default true). */
  auto?: boolean;
  profile?: boolean;
  /** Runs per configuration, interleaved; the one with the lowest median is kept (default 3). */
  rounds?: number;
  chromium?: string;
  log?: (line: string) => void;
}

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--disable-quic', '--no-first-run',
];

const TARGET_MS = 8;

/** The part of the page's `window.motionmatch` handle (web/src/handle.ts) the benchmark uses. */
interface Handle {
  ready: boolean;
  database: { name: string; frames: number; clips: number };
  stats: {
    frames: number; threads: number; mode: string; workerPolicy: string; workerShare: number; backend: string; method: string; crossOriginIsolated: boolean; softwareWebGL: boolean;
    window(n: number): {
      frames: number; updateMs: Summary; prepareMs: Summary; searchMs: Summary; completeMs: Summary; intervalMs: Summary;
      workerMs: Summary; imbalanceMs: Summary; copyMs: Summary; held: Summary;
      searchesPerFrame: number; searchUsPerQuery: number;
    };
  };
  setRendering(on: boolean | 'none'): void;
  setFixedStep(seconds: number | null): void;
  setThreads(n: number): Promise<void>;
  setMode(m: string): Promise<void>;
  setWorkerPolicy(p: string): Promise<void>;
  setAgents(n: number): Promise<void>;
  lod: boolean;
  setLod(on: boolean): Promise<void>;
  unseenStepEvery: number;
  setUnseenStepEvery(n: number): Promise<void>;
  setCameraTurn(radiansPerSecond: number): void;
}
type WithHandle = { motionmatch: Handle };

interface Page {
  evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<R>;
  waitForTimeout(ms: number): Promise<void>;
}

/** Runs the benchmark; the caller prints or stores the result. */
export async function runBrowserBench(options: BrowserBenchOptions = {}): Promise<BrowserBenchResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const agents = options.agents ?? [100, 500, 1000, 2000, 5000];
  const threads = options.threads ?? [1, 2];
  const seconds = options.seconds ?? 3;
  const warmup = 2;
  const executablePath = options.chromium ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`Chromium not found at ${executablePath} (apt-get install chromium, or pass --chromium PATH)`);
  const { chromium } = await import('playwright-core');

  await buildWebBundle({ log });
  const server = await startDemoServer({ port: 0, host: '127.0.0.1' });
  const loadStart = loadavg();
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(server.url);
    await page.waitForFunction(() => (window as unknown as Partial<WithHandle>).motionmatch?.ready === true, null, { timeout: 60_000 });
    const info = await page.evaluate(() => {
      const m = (window as unknown as WithHandle).motionmatch;
      return { crossOriginIsolated: m.stats.crossOriginIsolated, softwareWebGL: m.stats.softwareWebGL, database: m.database };
    });
    const p = page as unknown as Page;
    const rows: BrowserBenchRow[] = [];
    const measure = async (variant: string, n: number, t: number, drawing: boolean, policy = 'workers', mode = 'batched', lod = false, turn = 0, unseen = 4): Promise<BrowserBenchRow> => {
      await p.evaluate(async ([count, th, draw, pol, md, lv, tr, un]) => {
        const m = (window as unknown as WithHandle).motionmatch;
        if (m.stats.mode !== md) await m.setMode(md);
        if (m.lod !== lv) await m.setLod(lv);
        if (m.unseenStepEvery !== un) await m.setUnseenStepEvery(un);
        m.setCameraTurn(tr);
        m.setRendering(draw ? true : 'none');
        // Every frame carries a 60 Hz step's load (searches every 0.1 s = 1/6 of the crowd per frame).
        m.setFixedStep(1 / 60);
        if (m.stats.workerPolicy !== pol) await m.setWorkerPolicy(pol);
        if (m.stats.threads !== th) await m.setThreads(th);
        await m.setAgents(count);
      }, [n, t, drawing, policy, mode, lod, turn, unseen] as const);
      await p.waitForTimeout(warmup * 1000);
      const f0 = await p.evaluate(() => (window as unknown as WithHandle).motionmatch.stats.frames);
      await p.waitForTimeout(seconds * 1000);
      const r = await p.evaluate((start: number) => {
        const s = (window as unknown as WithHandle).motionmatch.stats;
        const frames = s.frames - start;
        return { w: s.window(Math.min(240, frames)), backend: s.backend, method: s.method, threads: s.threads, mode: s.mode, policy: s.workerPolicy, share: s.workerShare, frames };
      }, f0);
      const fps = r.w.intervalMs.median > 0 ? 1000 / r.w.intervalMs.median : Number.NaN;
      const row: BrowserBenchRow = {
        variant, agents: n, threads: r.threads, mode: r.mode, policy: r.threads > 1 && r.mode === 'batched' ? r.policy : '-', workerShare: r.threads > 1 && r.mode === 'batched' ? r.share : 0, backend: r.backend, method: r.method, drawing,
        frames: r.w.frames,
        updateMs: r.w.updateMs, prepareMs: r.w.prepareMs, searchMs: r.w.searchMs, completeMs: r.w.completeMs,
        workerMs: r.w.workerMs, imbalanceMs: r.w.imbalanceMs, copyMs: r.w.copyMs, held: r.w.held,
        searchesPerFrame: r.w.searchesPerFrame, searchUsPerQuery: r.w.searchUsPerQuery, fps,
        usPerCharacter: (1000 * r.w.updateMs.median) / (n + 1),
      };
      if (errors.length) throw new Error(`the page reported errors: ${errors.join(' | ')}`);
      return row;
    };
    // Other work on the machine comes and goes: run every configuration of a crowd size in turn,
    // `rounds` times, and keep each configuration's best run (lowest median).
    type Config = [variant: string, threads: number, drawing: boolean, policy: string, mode: string, lod?: boolean, turn?: number, unseen?: number];
    const rounds = Math.max(1, options.rounds ?? 3);
    const runAll = async (configs: Config[], sizes: number[]): Promise<void> => {
      for (const n of sizes) {
        const best = new Map<string, BrowserBenchRow>();
        for (let r = 0; r < rounds; r++) {
          for (const [variant, t, drawing, policy, mode, lod, turn, unseen] of configs) {
            const row = await measure(variant, n, t, drawing, policy, mode, lod === true, turn ?? 0, unseen ?? 4);
            const key = `${variant}/${t}`;
            const prev = best.get(key);
            if (!prev || row.updateMs.median < prev.updateMs.median) best.set(key, row);
          }
        }
        for (const row of best.values()) {
          rows.push(row);
          log(formatRow(row));
        }
      }
    };

    log(header());
    const configs: Config[] = [];
    for (const t of threads) {
      // The reference design: prepare all -> one batched search (on t pool workers) -> complete all.
      configs.push(['batched', t, false, 'workers', 'batched']);
      if (t > 1 && options.auto !== false) configs.push(['batched, auto routing', t, false, 'auto', 'batched']);
      // Agents split over t workers, each stepping its share completely.
      if (t > 1) configs.push(['split', t, false, 'workers', 'split']);
    }
    if (options.lod) {
      for (const t of threads) {
        configs.push(['batched + lod', t, false, 'workers', 'batched', true]);
        if (t > 1) configs.push(['split + lod', t, false, 'workers', 'split', true]);
        // The camera turning as fast as the gamepad turns it: agents come into view all the time.
        if (t > 1) configs.push(['split + lod, turning', t, false, 'workers', 'split', true, 2.5]);
        // Agents out of view stepping every frame (the default steps them every 4th): what that saves.
        if (t > 1) configs.push(['split + lod, unseen 1', t, false, 'workers', 'split', true, 0, 1]);
      }
    }
    if (options.draw) {
      for (const t of threads) {
        configs.push(['batched + drawing', t, true, t > 1 ? 'auto' : 'workers', 'batched']);
        if (t > 1) configs.push(['split + drawing', t, true, 'workers', 'split']);
      }
    }
    await runAll(configs, agents);
    if (options.profile) {
      // Where the time goes at 1000 agents on one thread: switch parts off one at a time.
      const set = (code: string): Promise<unknown> => p.evaluate((c: string) => (0, eval)(c), code);
      const one = async (variant: string, setup: string, undo: string): Promise<void> => {
        await set(setup);
        const best: BrowserBenchRow[] = [];
        for (let r = 0; r < rounds; r++) best.push(await measure(variant, 1000, 1, false, 'workers', 'batched'));
        best.sort((a, b) => a.updateMs.median - b.updateMs.median);
        rows.push(best[0]);
        log(formatRow(best[0]));
        await set(undo);
      };
      await one('no foot IK', 'window.motionmatch.setFootIK(false)', 'window.motionmatch.setFootIK(true)');
      await one('no inertialization', 'window.motionmatch.setInertialization(false)', 'window.motionmatch.setInertialization(true)');
      await one('no IK, no inertializ.', 'window.motionmatch.setFootIK(false).then(() => window.motionmatch.setInertialization(false))',
        'window.motionmatch.setFootIK(true).then(() => window.motionmatch.setInertialization(true))');
      for (const method of ['aabb', 'brute']) await one(`method ${method}`, `window.motionmatch.setMethod('${method}')`, "window.motionmatch.setMethod('kdtree')");
      for (const backend of ['wasm-scalar', 'js']) await one(`backend ${backend}`, `window.motionmatch.setBackend('${backend}')`, "window.motionmatch.setBackend('wasm-simd')");
    }
    const cpu = cpus();
    return {
      date: new Date().toISOString(),
      machine: { cpus: cpu.length, model: cpu[0]?.model ?? 'unknown', memoryGB: +(totalmem() / 2 ** 30).toFixed(1), loadAverageStart: loadStart, loadAverageEnd: loadavg() },
      browser: { version: browser.version(), ...info },
      settings: { seconds, warmupSeconds: warmup, rounds },
      targetMs: TARGET_MS,
      rows,
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

function f(v: number, digits = 2): string {
  return Number.isFinite(v) ? v.toFixed(digits) : '–';
}

export function header(): string {
  return [
    'variant'.padEnd(22), 'agents'.padStart(6), 'thr'.padStart(4), 'wrk%'.padStart(5), 'draw'.padStart(5),
    'update med'.padStart(11), 'mean'.padStart(7), 'p95'.padStart(7), 'prepare'.padStart(8), 'search'.padStart(8),
    'complete'.padStart(9), 'srch/fr'.padStart(8), 'µs/query'.padStart(9), 'µs/char'.padStart(8), 'fps'.padStart(5), 'frames'.padStart(7),
  ].join(' ');
}

export function formatRow(r: BrowserBenchRow): string {
  const row = formatMain(r);
  if (!Number.isFinite(r.workerMs.median)) return row;
  // Split engine: where the frame's time goes beyond the slower worker's own step.
  return `${row}\n${''.padEnd(22)} slower worker ${f(r.workerMs.median)} ms (pose copy ${f(r.copyMs.median)}), ahead of the other by ${f(r.imbalanceMs.median)}, ` +
    `messaging and waiting ${f(r.updateMs.median - r.workerMs.median)}${Number.isFinite(r.held.median) ? `; poses held out of view: ${f(r.held.median, 0)} agents` : ''}`;
}

function formatMain(r: BrowserBenchRow): string {
  return [
    r.variant.padEnd(22), String(r.agents).padStart(6), String(r.threads).padStart(4),
    (r.threads > 1 ? f(100 * r.workerShare, 0) : '-').padStart(5), (r.drawing ? 'yes' : 'no').padStart(5),
    f(r.updateMs.median).padStart(11), f(r.updateMs.mean).padStart(7), f(r.updateMs.p95).padStart(7),
    f(r.prepareMs.median).padStart(8), f(r.searchMs.median).padStart(8), f(r.completeMs.median).padStart(9),
    f(r.searchesPerFrame, 1).padStart(8), f(r.searchUsPerQuery, 1).padStart(9), f(r.usPerCharacter, 1).padStart(8),
    f(r.fps, 0).padStart(5), String(r.frames).padStart(7),
  ].join(' ');
}

function list(v: string | undefined): number[] | undefined {
  if (v === undefined) return undefined;
  const out = v.split(',').map((x) => Number(x.trim()));
  if (out.some((x) => !Number.isInteger(x) || x < 0)) throw new Error(`expected a comma-separated list of non-negative integers, got "${v}"`);
  return out;
}

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      agents: { type: 'string' }, threads: { type: 'string' }, seconds: { type: 'string' }, rounds: { type: 'string' },
      draw: { type: 'boolean' }, lod: { type: 'boolean' }, profile: { type: 'boolean' }, out: { type: 'string' }, chromium: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write('usage: node dist/bench/browser-bench.js [--agents 100,500,1000,2000,5000] [--threads 1,2] [--seconds 3] [--rounds 3] [--draw] [--lod] [--profile] [--out FILE] [--chromium PATH]\n');
    return 0;
  }
  const result = await runBrowserBench({
    agents: list(values.agents), threads: list(values.threads),
    seconds: values.seconds !== undefined ? Number(values.seconds) : undefined,
    rounds: values.rounds !== undefined ? Number(values.rounds) : undefined,
    draw: values.draw, lod: values.lod, profile: values.profile, chromium: values.chromium,
    log: (line) => process.stdout.write(line + '\n'),
  });
  const out = resolve(values.out ?? join(await nodePackageRoot(), 'bench-results', 'browser.json'));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  const at1000 = result.rows.filter((r) => (r.variant === 'batched' || r.variant === 'split') && r.agents === 1000);
  for (const r of at1000) {
    process.stdout.write(`1000 agents, ${r.variant}, ${r.threads} thread${r.threads > 1 ? 's' : ''}: ${f(r.updateMs.median)} ms per frame (target <= ${TARGET_MS} ms: ${r.updateMs.median <= TARGET_MS ? 'met' : 'NOT met'})\n`);
  }
  process.stdout.write(`machine: ${result.machine.cpus} cpus, load average ${result.machine.loadAverageStart.map((x) => x.toFixed(2)).join(' ')} -> ${result.machine.loadAverageEnd.map((x) => x.toFixed(2)).join(' ')}; ${result.browser.version}\n`);
  process.stdout.write(`wrote ${out}\n`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (e: Error) => { process.stderr.write(`browser-bench: ${e.message}\n`); process.exitCode = 1; },
  );
}
