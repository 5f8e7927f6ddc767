/**
 * The package in a user's own bundled browser app: `npm pack` the repository, install the tarball
 * offline into a fresh Vite app outside it (test/helpers/pack.ts), build the app with the
 * repository's vite (nothing configured: `import ... from 'motionmatch'` must pick the browser entry
 * and the WASM builds by itself), serve the output from a small static server and run it in Chromium.
 *
 * The page builds the built-in database, animates a MotionMatchingController for 120 steps of 1/60 s
 * with a constant input, searching with the SIMD build and with the scalar build, and reports the
 * root position. It is served twice: with the cross-origin isolation headers (SharedArrayBuffer:
 * the shared-memory builds) and without (the ordinary-memory builds). Node runs the same code from
 * the install (the Node entry, the shared builds read from disk) for the reference.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../helpers/cli.js';
import { CHROMIUM, HAVE_CHROMIUM, launchChromium } from '../helpers/demo-browser.js';
import { describeFailure, installTarball, npmMissingReason, packRepository, run } from '../helpers/pack.js';

const npmMissing = npmMissingReason();
const skipReason = !HAVE_CHROMIUM ? `${CHROMIUM} not found (Debian: apt-get install chromium)` : npmMissing;
if (skipReason) console.log(`browser bundle test skipped: ${skipReason}`);

const BACKENDS = ['wasm-simd', 'wasm-scalar'] as const;
const STEPS = 120;
const POOL_QUERIES = 64;

/** The computation, as an ES module body: `import ... from 'motionmatch'`, then `run()` resolves with one result per backend. */
const ENGINE_RUN = `
import { buildDatabase, builtinSources, Matcher, MatcherPool, MatcherSearchPort, MotionMatchingController, createInput } from 'motionmatch';

export async function run() {
  const db = buildDatabase(builtinSources());
  const out = [];
  for (const backend of ${JSON.stringify(BACKENDS)}) {
    const matcher = await Matcher.create(db, { backend });
    const search = new MatcherSearchPort(matcher, 'kdtree');
    const character = new MotionMatchingController(db);
    const input = createInput();
    input.velocityX = 0.5;
    input.velocityZ = 1.4;
    for (let i = 0; i < ${STEPS}; i++) character.update(1 / 60, input, search);
    out.push({
      backend: matcher.backend,
      shared: typeof SharedArrayBuffer !== 'undefined' && matcher.memory.buffer instanceof SharedArrayBuffer,
      root: Array.from(character.rootPosition),
    });
  }
  // A batch of searches spread over a pool of two workers (Web Workers in a browser, worker threads
  // in Node), against the same batch searched on the calling thread.
  const pool = await MatcherPool.create(db, { threads: 2, backend: 'wasm-simd' });
  const k = ${POOL_QUERIES}, dims = db.dims, queries = new Float32Array(k * dims);
  for (let q = 0; q < k; q++) for (let d = 0; d < dims; d++) queries[q * dims + d] = db.features[((q * 173) % db.frameCount) * db.stride + d] + 0.25 * Math.sin(q * 7 + d);
  const pooled = await pool.searchBatch(queries, k, { method: 'kdtree' });
  const single = pool.matcher.searchBatch(queries, k, { method: 'kdtree' });
  const poolRun = {
    threads: pool.threads,
    frames: Array.from(pooled.frames),
    costs: Array.from(pooled.costs),
    sameAsCallingThread: pooled.frames.every((f, i) => f === single.frames[i] && pooled.costs[i] === single.costs[i]),
  };
  await pool.close();
  return { engines: out, pool: poolRun };
}
`;

const MAIN = `
import { run } from './engine.js';
run().then(
  (results) => { window.__result = { results, isolated: window.crossOriginIsolated === true }; },
  (e) => { window.__result = { error: String(e && e.message || e) }; },
);
`;

const INDEX_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>motionmatch in a bundled app</title></head>
<body><script type="module" src="./main.js"></script></body></html>
`;

interface EngineResult { backend: string; shared: boolean; root: number[] }
interface PoolRun { threads: number; frames: number[]; costs: number[]; sameAsCallingThread: boolean }
interface RunResult { engines: EngineResult[]; pool: PoolRun }
interface PageResult { results?: RunResult; isolated?: boolean; error?: string }

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };

/** A static server for `dir` on 127.0.0.1 (404 for anything but a file inside it), with or without the isolation headers. */
function serve(dir: string, isolated: boolean): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = normalize(join(dir, decodeURIComponent((req.url ?? '/').split('?')[0])));
    const file = path.endsWith(sep) ? join(path, 'index.html') : path;
    if (isolated) {
      res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
      res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
    }
    if (!file.startsWith(dir + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const address = server.address() as { port: number };
    resolve({ server, url: `http://127.0.0.1:${address.port}/` });
  }));
}

describe.skipIf(skipReason !== null)('the packed package in a bundled browser app (vite, Chromium)', () => {
  let work = '';
  let app = '';
  const warnings: string[] = [];
  let nodeResults: RunResult = { engines: [], pool: { threads: 0, frames: [], costs: [], sameAsCallingThread: false } };
  const pages = new Map<'isolated' | 'plain', PageResult>();
  const servers: Server[] = [];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mm-browser-app-'));
    const pack = packRepository(work);
    app = installTarball(work, pack, 'app', 'motionmatch-browser-app');
    writeFileSync(join(app, 'index.html'), INDEX_HTML);
    writeFileSync(join(app, 'engine.js'), ENGINE_RUN);
    writeFileSync(join(app, 'main.js'), MAIN);
    writeFileSync(join(app, 'node-run.mjs'), `import { run } from './engine.js';\nconsole.log(JSON.stringify(await run()));\n`);

    // The repository's vite, on the app as its root, with no configuration file, in its own
    // process as `vite build` would run: vitest's NODE_ENV=test silences vite's warnings about
    // Node built-ins, so the build gets NODE_ENV=production.
    writeFileSync(join(app, 'build.mjs'), `
      const vite = await import(${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'node_modules', 'vite', 'dist', 'node', 'index.js')).href)});
      const warnings = [];
      const logger = vite.createLogger('info', { allowClearScreen: false });
      logger.warn = (msg) => { warnings.push(msg); };
      logger.warnOnce = (msg) => { warnings.push(msg); };
      logger.info = () => {};
      await vite.build({ root: process.cwd(), configFile: false, logLevel: 'info', customLogger: logger, build: { outDir: 'dist', emptyOutDir: true } });
      console.log(JSON.stringify(warnings));
    `);
    const built = run(process.execPath, ['build.mjs'], app, { ...process.env, NODE_ENV: 'production' });
    if (built.status !== 0) throw new Error(describeFailure('vite build', built));
    warnings.push(...(JSON.parse(built.stdout.trim().split('\n').pop()!) as string[]));
    if (warnings.length) console.log(`browser bundle test: vite warned:\n${warnings.join('\n')}`);

    const node = run(process.execPath, ['node-run.mjs'], app);
    if (node.status !== 0) throw new Error(describeFailure('the Node run', node));
    nodeResults = JSON.parse(node.stdout) as RunResult;

    const browser = await launchChromium();
    try {
      for (const mode of ['isolated', 'plain'] as const) {
        const { server, url } = await serve(join(app, 'dist'), mode === 'isolated');
        servers.push(server);
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(url);
        await page.waitForFunction(() => (window as unknown as { __result?: unknown }).__result !== undefined, null, { timeout: 60_000 });
        const result = (await page.evaluate(() => (window as unknown as { __result: unknown }).__result)) as PageResult;
        if (errors.length) result.error = [result.error, ...errors].filter(Boolean).join('; ');
        pages.set(mode, result);
        await page.close();
      }
    } finally {
      await browser.close();
    }
  }, 240_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('bundles with no warning about node: modules and ships the four WASM builds', () => {
    expect(warnings.filter((w) => /node:|externalized for browser compatibility/.test(w))).toEqual([]);
    expect(warnings.filter((w) => /\.wasm|import\.meta\.url/.test(w))).toEqual([]);
    const assets = readdirSync(join(app, 'dist', 'assets'));
    expect(assets.filter((f) => f.endsWith('.wasm')).length).toBe(4);
    // No module was replaced by vite's empty stand-in for Node built-ins, and nothing imports one.
    const js = assets.filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(app, 'dist', 'assets', f), 'utf8')).join('\n');
    expect(js.match(/__vite-browser-external|(?:from|import)\s*\(?\s*["'`]node:[\w/]+/g) ?? []).toEqual([]);
  });

  it('runs in Node from the install (SIMD and scalar, shared memory; a pool of two worker threads)', () => {
    expect(nodeResults.engines.map((r) => [r.backend, r.shared])).toEqual([['wasm-simd', true], ['wasm-scalar', true]]);
    for (const r of nodeResults.engines) expect(Math.hypot(r.root[0], r.root[2])).toBeGreaterThan(1); // it walked
    expect(nodeResults.pool.threads).toBe(2);
    expect(nodeResults.pool.sameAsCallingThread).toBe(true);
    expect(nodeResults.pool.frames).toHaveLength(POOL_QUERIES);
    expect(new Set(nodeResults.pool.frames).size).toBeGreaterThan(POOL_QUERIES / 2); // the queries differ
  });

  it('bundles the pool worker: a worker script among the assets, and no other source of it', () => {
    const assets = readdirSync(join(app, 'dist', 'assets')).filter((f) => f.endsWith('.js'));
    expect(assets.filter((f) => /^worker/.test(f)).length).toBe(1);
  });

  for (const mode of ['isolated', 'plain'] as const) {
    it(`runs in Chromium ${mode === 'isolated' ? 'cross-origin isolated (shared-memory builds)' : 'without isolation (ordinary-memory builds)'} and agrees with Node to 1e-9 m`, () => {
      const page = pages.get(mode)!;
      expect(page.error).toBeUndefined();
      expect(page.isolated).toBe(mode === 'isolated');
      expect(page.results!.engines.map((r) => [r.backend, r.shared])).toEqual(BACKENDS.map((b) => [b, mode === 'isolated']));
      // The pool: two Web Workers where the page is isolated (shared memory), else the calling thread;
      // either way the same frames and costs as the calling thread's search and as Node's pool.
      const pool = page.results!.pool;
      console.log(`browser bundle test: ${mode} MatcherPool: ${pool.threads} worker(s), ${pool.frames.length} queries, same as the calling thread: ${pool.sameAsCallingThread}`);
      expect(pool.threads).toBe(mode === 'isolated' ? 2 : 0);
      expect(pool.sameAsCallingThread).toBe(true);
      expect(pool.frames).toEqual(nodeResults.pool.frames);
      pool.costs.forEach((c, i) => expect(Math.abs(c - nodeResults.pool.costs[i])).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(c))));
      page.results!.engines.forEach((r, i) => {
        const ref = nodeResults.engines[i].root;
        const gap = Math.max(...r.root.map((v, j) => Math.abs(v - ref[j])));
        console.log(`browser bundle test: ${mode} ${r.backend}: root (${r.root.map((v) => v.toFixed(6)).join(', ')}) m, largest gap to Node ${gap} m`);
        expect(gap, `${r.backend}: browser ${r.root.join(', ')} vs Node ${ref.join(', ')}`).toBeLessThanOrEqual(1e-9);
      });
    });
  }
});
