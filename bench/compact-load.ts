/**
 * Load time of a compact database against the float32 file of the same set (docs/compact.md),
 * side by side in one process, alternating so that the machine's noise hits both:
 *   float32 — readDatabaseFile (read, check, decode) + Matcher.create (search index);
 *   compact — readDatabaseFile (read, check, decode poses, mirror, rebuild root track, features,
 *             contacts, normalisation) + Matcher.create.
 * Medians over the rounds (the first round of each is a warm-up and not counted).
 *
 * With --fresh, every load runs in a Node process of its own (still alternating, still after one
 * warm-up pair for the file cache): what a command or a server pays when it starts. In one process
 * the decoder's code is compiled and optimised by the second round; a fresh process runs most of a
 * compact load in V8's interpreter and baseline tiers, while a float32 load is mostly bulk copies,
 * a native checksum and typed-array views, the same cold or warm.
 *
 * With --chromium, the same in headless Chromium (playwright-core): the demo served over HTTP with
 * `--db FILE` (web-dist/, rebuilt when stale), from navigation to the page's `window.motionmatch.ready`
 * (downloaded, decoded in the page's database worker, matchers built, a first frame with its searches
 * drawn), a fresh page per load.
 *
 * --mbps N emulates a network link of N megabits per second (DevTools' throttling; 0, the default:
 * localhost, no limit).
 *
 *   node --expose-gc dist/bench/compact-load.js FLOAT32.mmdb COMPACT.mmdb [--rounds 5] [--fresh] [--chromium [--mbps N] [--chromium-path P]] [--json]
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { basename, resolve } from 'node:path';
import { readDatabaseBytes } from '../src/database/mmdb/mmdb-node.js';
import { decodeDatabase } from '../src/database/mmdb/decode.js';
import { Matcher } from '../src/search/matcher.js';
import { parseToolArgs } from '../src/apps/args.js';

interface Timing { read: number; decode: number; index: number; total: number }

async function loadOnce(file: string): Promise<Timing> {
  // Each load from a collected heap (with --expose-gc), as in a fresh process: the other file's database, still
  // to be collected, would otherwise charge its collection to whichever load comes next.
  (globalThis as { gc?: () => void }).gc?.();
  const t0 = performance.now();
  const bytes = readDatabaseBytes(file);
  const t1 = performance.now();
  // As readDatabaseFile decodes the bytes it read (a float32 file's arrays are views of them).
  const db = decodeDatabase(bytes, file, { viewsOfBytes: true });
  const t2 = performance.now();
  await Matcher.create(db);
  const t3 = performance.now();
  return { read: t1 - t0, decode: t2 - t1, index: t3 - t2, total: t3 - t0 };
}

/** loadOnce in a new Node process (this script with --load-once FILE, which prints the timing as JSON). */
function loadInFreshProcess(file: string): Timing {
  let out: string;
  try {
    out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--load-once', file], { encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    // The child's own one-line message (it prints "compact-load: ..."), not the command line.
    const said = String((e as { stderr?: unknown }).stderr ?? '').split('\n').find((l) => l.trim() !== '');
    throw new Error(said ? said.replace(/^compact-load: /, '') : (e as Error).message);
  }
  return JSON.parse(out) as Timing;
}

/** Milliseconds from navigation to `window.motionmatch.ready` for the demo serving `file`. */
async function chromiumLoadOnce(browser: import('playwright-core').Browser, file: string, mbps: number): Promise<number> {
  const { startDemoServer } = await import('../src/web/serve-node.js');
  const server = await startDemoServer({ port: 0, host: '127.0.0.1', database: { file: resolve(file), name: basename(file) } });
  const page = await browser.newPage({ viewport: { width: 640, height: 360 } });
  try {
    if (mbps > 0) {
      // A network link of `mbps` megabits per second down (and 20 ms latency), as DevTools emulates one.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: (mbps * 1e6) / 8, uploadThroughput: (mbps * 1e6) / 8 });
    }
    await page.goto(server.url);
    const ready = await page.waitForFunction(() => {
      const mm = (window as unknown as { motionmatch?: { ready: boolean; error?: string } }).motionmatch;
      if (mm?.error) throw new Error(mm.error);
      return mm?.ready === true ? performance.now() : false;
    }, null, { timeout: 180_000 });
    return (await ready.jsonValue()) as number;
  } finally {
    await page.close();
    await server.close();
  }
}

async function chromiumRounds(f32: string, compact: string, rounds: number, executablePath: string, mbps: number): Promise<{ float32: number; compact: number; mbps: number }> {
  const { buildWebBundle } = await import('../src/web/bundle-node.js');
  await buildWebBundle();
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  try {
    const a: number[] = [], b: number[] = [];
    for (let r = 0; r <= rounds; r++) {
      const ta = await chromiumLoadOnce(browser, f32, mbps), tb = await chromiumLoadOnce(browser, compact, mbps);
      if (r > 0) { a.push(ta); b.push(tb); }
    }
    return { float32: median(a), compact: median(b), mbps };
  } finally {
    await browser.close();
  }
}

const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

function summary(ts: Timing[]): Timing {
  return { read: median(ts.map((t) => t.read)), decode: median(ts.map((t) => t.decode)), index: median(ts.map((t) => t.index)), total: median(ts.map((t) => t.total)) };
}

async function main(): Promise<void> {
  const usage = 'usage: node dist/bench/compact-load.js FLOAT32.mmdb COMPACT.mmdb [--rounds 5] [--fresh] [--chromium [--mbps N] [--chromium-path P]] [--json]\n' +
    '  --fresh   every load in a Node process of its own (a cold start: code not yet optimised)\n';
  const { values, positionals } = parseToolArgs('compact-load', process.argv.slice(2), { rounds: { type: 'string', default: '5' }, json: { type: 'boolean' }, fresh: { type: 'boolean' }, 'load-once': { type: 'string' }, chromium: { type: 'boolean' }, 'chromium-path': { type: 'string', default: '/usr/bin/chromium' }, mbps: { type: 'string', default: '0' }, help: { type: 'boolean', short: 'h' } }, usage, 2);
  if (values.help) { process.stdout.write(usage); return; }
  // (internal: the child process of --fresh)
  if (values['load-once'] !== undefined) { process.stdout.write(JSON.stringify(await loadOnce(values['load-once'] as string)) + '\n'); return; }
  if (positionals.length !== 2) {
    process.stderr.write(usage);
    process.exitCode = 2;
    return;
  }
  const [f32, compact] = positionals;
  const rounds = Math.max(1, Math.floor(Number(values.rounds)));
  if (!Number.isFinite(rounds)) throw new Error('--rounds must be a number');
  const fresh = values.fresh === true;
  const a: Timing[] = [], b: Timing[] = [];
  for (let r = 0; r <= rounds; r++) {
    const ta = fresh ? loadInFreshProcess(f32) : await loadOnce(f32), tb = fresh ? loadInFreshProcess(compact) : await loadOnce(compact);
    if (r > 0) { a.push(ta); b.push(tb); }
  }
  const chromium = values.chromium ? await chromiumRounds(f32, compact, rounds, values['chromium-path'] as string, Math.max(0, Number(values.mbps) || 0)) : undefined;
  const result = {
    float32: { file: f32, bytes: statSync(f32).size, ms: summary(a) },
    compact: { file: compact, bytes: statSync(compact).size, ms: summary(b) },
    rounds,
    fresh,
    ...(chromium ? { chromiumReadyMs: chromium } : {}),
  };
  if (values.json) { process.stdout.write(JSON.stringify(result) + '\n'); return; }
  const row = (name: string, x: typeof result.float32): string =>
    `${name.padEnd(8)} ${String(x.bytes).padStart(10)} bytes  read ${x.ms.read.toFixed(1).padStart(7)} ms  decode ${x.ms.decode.toFixed(1).padStart(7)} ms  index ${x.ms.index.toFixed(1).padStart(7)} ms  total ${x.ms.total.toFixed(1).padStart(7)} ms`;
  process.stdout.write(`medians of ${rounds} rounds (after a warm-up), alternating, ${fresh ? 'each load in a fresh Node process' : 'in one Node process'}\n${row('float32', result.float32)}\n${row('compact', result.compact)}\n` +
    `compact / float32 total: ${(result.compact.ms.total / result.float32.ms.total).toFixed(2)}\n` +
    (chromium ? `Chromium${chromium.mbps > 0 ? ` at ${chromium.mbps} Mbit/s` : ', localhost'}, navigation to ready (medians): float32 ${chromium.float32.toFixed(0)} ms, compact ${chromium.compact.toFixed(0)} ms, ratio ${(chromium.compact / chromium.float32).toFixed(2)}\n` : ''));
}

main().catch((e) => { process.stderr.write(`compact-load: ${(e as Error).message}\n`); process.exitCode = 1; });
