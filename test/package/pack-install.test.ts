/**
 * The package as a user receives it: `npm pack` the repository, install the tarball into an empty
 * project outside it, and use the engine through the package's public entry points only (the
 * `motionmatch` import and the `motionmatch` bin), with nothing but its `dependencies` installed.
 *
 * Packing (prebuilt outputs, checked by prepack) and the offline install: test/helpers/pack.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { NPX, cleanNpmEnv, describeFailure, installTarball, npmMissingReason, packRepository, repoPackage, run, type PackReport } from '../helpers/pack.js';

const npmMissing = npmMissingReason();
const HAVE_NPM = npmMissing === null;
if (!HAVE_NPM) console.log(`package install test skipped: ${npmMissing}`);

/** Every TypeScript source under src/, relative to src/ (what dist/src/ must hold compiled). */
function sourceModules(): string[] {
  const src = join(REPO_ROOT, 'src');
  return readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => relative(src, join(e.parentPath ?? e.path, e.name)).split('\\').join('/'));
}

/** Runs an ES module snippet inside the project (bare `motionmatch` resolves to the install). */
function runModule(project: string, code: string): { out: string; r: SpawnSyncReturns<string> } {
  const r = run(process.execPath, ['--input-type=module', '-e', code], project);
  return { out: r.stdout, r };
}

describe.skipIf(!HAVE_NPM)('the packed package, installed into an empty project', () => {
  let work = '';
  let project = '';
  let installed = '';
  let pack: PackReport;
  let paths: Set<string>;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'mm-pack-'));
    pack = packRepository(work);
    paths = new Set(pack.files.map((f) => f.path));
    project = installTarball(work, pack, 'project', 'motionmatch-pack-check');
    installed = join(project, 'node_modules', 'motionmatch');
  }, 240_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /**
   * The command the install links (node_modules/.bin/motionmatch), run with this Node: what `npx
   * motionmatch` runs (the simulate case goes through npx itself) without npm's own start-up, 0.55 s
   * of CPU a call.
   */
  const bin = () => join(project, 'node_modules', '.bin', 'motionmatch');

  it('packs the compiled engine, the four kernel builds, the built demo, the CLI, docs and licence', () => {
    const required = ['package.json', 'README.md', 'LICENSE', 'bin/motionmatch.js', 'web-dist/index.html', 'web-dist/.motionmatch-build'];
    const asconfig = JSON.parse(readFileSync(join(REPO_ROOT, 'asconfig.json'), 'utf8')) as { targets: Record<string, { outFile: string }> };
    const wasm = Object.values(asconfig.targets).map((t) => t.outFile);
    expect(wasm).toHaveLength(4);
    required.push(...wasm);
    for (const m of sourceModules()) {
      const base = `dist/src/${m.replace(/\.ts$/, '')}`;
      required.push(`src/${m}`, `${base}.js`, `${base}.d.ts`);
    }
    for (const doc of readdirSync(join(REPO_ROOT, 'docs'))) required.push(`docs/${doc}`);
    expect(required.filter((p) => !paths.has(p))).toEqual([]);
    // The demo page's script, its workers and the kernels it fetches.
    const assets = [...paths].filter((p) => p.startsWith('web-dist/assets/'));
    expect(assets.some((p) => p.endsWith('.js'))).toBe(true);
    expect(assets.filter((p) => p.endsWith('.wasm')).length).toBeGreaterThanOrEqual(2);
  });

  it('leaves out tests, sources that are not the engine, results, CI files and source maps of the demo', () => {
    const forbidden = /^(test|test-artifacts|bench-results|\.ci|node_modules|web|assembly|bench|scripts|dist\/bench|out)\/|\.mmdb$|^web-dist\/.*\.map$|^(tsconfig|vitest\.config|vite\.config|asconfig)\./;
    expect([...paths].filter((p) => forbidden.test(p))).toEqual([]);
    // Nothing but the listed top-level entries.
    const top = new Set([...paths].map((p) => p.split('/')[0]));
    expect([...top].sort()).toEqual(['LICENSE', 'README.md', 'bin', 'build', 'dist', 'docs', 'package.json', 'src', 'web-dist']);
  });

  it('installs offline with its dependencies only, and carries the MIT licence', () => {
    const installedTop = readdirSync(join(project, 'node_modules'))
      .filter((n) => !n.startsWith('.'))
      .flatMap((n) => (n.startsWith('@') ? readdirSync(join(project, 'node_modules', n)).map((s) => `${n}/${s}`) : [n]));
    expect(installedTop.sort()).toEqual(['motionmatch', ...Object.keys(repoPackage.dependencies)].sort());
    expect(installedTop).not.toContain('vite');
    expect(installedTop).not.toContain('three');
    const licence = readFileSync(join(installed, 'LICENSE'), 'utf8');
    expect(licence).toMatch(/^MIT License\n\nCopyright \(c\) 2026 the motionmatch authors\n/);
    expect(licence).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
    expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).license).toBe('MIT');
  });

  it('ships a package.json whose scripts run from the package, and leaves the repository\'s as it was', () => {
    const shipped = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { scripts: Record<string, string>; dependencies: unknown; exports: unknown };
    expect(Object.keys(shipped.scripts).sort()).toEqual(['bench', 'start']);
    // Each runs a file the package holds.
    for (const cmd of Object.values(shipped.scripts)) {
      const file = /^node (\S+)/.exec(cmd)?.[1];
      expect(file, cmd).toBeDefined();
      expect(existsSync(join(installed, file!)), cmd).toBe(true);
    }
    // Everything else as in the repository, whose own package.json (scripts and all) is back.
    expect(shipped.dependencies).toEqual(repoPackage.dependencies);
    expect(shipped.exports).toEqual(repoPackage.exports);
    const repo = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(repo.scripts.prepack).toBe('node scripts/prepack.mjs');
    expect(repo.scripts.test).toBeDefined();
    expect(existsSync(join(REPO_ROOT, '.package.json.prepack'))).toBe(false);
  });

  it("imports 'motionmatch' as an ES module, builds the built-in database and runs one search", () => {
    const { out, r } = runModule(project, `
      import { buildDatabase, builtinSources, Matcher } from 'motionmatch';
      const db = buildDatabase(builtinSources());
      const matcher = await Matcher.create(db);
      const js = await Matcher.create(db, { backend: 'js' });
      let frame = db.frameCount >> 1;
      while (!db.candidates[frame]) frame++;
      const query = db.rawFeatures.slice(frame * db.stride, frame * db.stride + db.dims);
      const hit = matcher.search(query, { method: 'kdtree' });
      const ref = js.search(query, { method: 'brute' });
      console.log(JSON.stringify({ resolved: import.meta.resolve('motionmatch'), frames: db.frameCount, backend: matcher.backend, frame, hit, ref }));
    `);
    expect(r.status, describeFailure('the ESM import', r)).toBe(0);
    const o = JSON.parse(out);
    expect(o.resolved).toBe(pathToFileURL(join(installed, 'dist', 'src', 'index.js')).href);
    expect(o.frames).toBeGreaterThan(1000);
    expect(o.backend).toMatch(/^wasm-/); // build/*.wasm found inside node_modules/motionmatch
    expect(o.hit.frame).toBe(o.ref.frame);
    expect(o.hit.cost).toBeCloseTo(0, 3);
    expect(o.ref.cost).toBeCloseTo(0, 3);
  });

  it('starts a MatcherPool from the install (the worker script in dist/) with the results of one thread', () => {
    // A module file, not --input-type=module -e: Node 20 workers inherit --input-type and then
    // refuse to load their script (fixed in later Node lines; see the pool's spawn).
    writeFileSync(join(project, 'pool-check.mjs'), `
      import { buildDatabase, builtinSources, Matcher, MatcherPool } from 'motionmatch';
      const db = buildDatabase(builtinSources());
      const k = 64;
      const batch = new Float32Array(k * db.dims);
      for (let i = 0; i < k; i++) {
        const f = (i * 131 + 7) % db.frameCount;
        batch.set(db.rawFeatures.subarray(f * db.stride, f * db.stride + db.dims), i * db.dims);
        batch[i * db.dims] += 0.05 * Math.sin(i);
      }
      const pool = await MatcherPool.create(db, { threads: 2 });
      const pooled = await pool.searchBatch(batch, k, { method: 'kdtree' });
      await pool.close();
      const single = (await Matcher.create(db)).searchBatch(batch, k, { method: 'brute' });
      console.log(JSON.stringify({ threads: pool.threads, pooled: Array.from(pooled.frames), single: Array.from(single.frames) }));
    `);
    const r = run(process.execPath, ['pool-check.mjs'], project);
    expect(r.status, describeFailure('the pool check', r)).toBe(0);
    const o = JSON.parse(r.stdout);
    expect(o.threads).toBe(2);
    expect(o.pooled).toEqual(o.single);
    expect(new Set(o.single).size).toBeGreaterThan(10);
  });

  it('runs `npx motionmatch simulate --json` and reproduces the repository build', () => {
    const args = ['simulate', '--agents', '10', '--seconds', '1', '--json'];
    const r = run(NPX, ['--no', 'motionmatch', ...args], project);
    expect(r.status, describeFailure('npx motionmatch simulate', r)).toBe(0);
    const o = JSON.parse(r.stdout);
    expect(o).toMatchObject({ agents: 10, seconds: 1, steps: 30, workers: 1, db: { source: 'builtin' } });
    expect(o.backend).toMatch(/^wasm-/);
    expect(o.hash).toMatch(/^[0-9a-f]{16}$/);
    expect(o.agentStepsPerSec).toBeGreaterThan(0);
    const repo = runCli(args);
    expect(repo.code, repo.stderr).toBe(0);
    expect(o.hash).toBe(JSON.parse(repo.stdout).hash);
  });

  it('runs `motionmatch build` and `motionmatch search` from the install', () => {
    const built = run(process.execPath, [bin(), 'build', '--builtin', '--out', 'builtin.mmdb', '--json'], project);
    expect(built.status, describeFailure('motionmatch build', built)).toBe(0);
    expect(existsSync(join(project, 'builtin.mmdb'))).toBe(true);
    const { r } = runModule(project, `
      import { readDatabaseFile } from 'motionmatch';
      import { writeFileSync } from 'node:fs';
      const db = await readDatabaseFile('builtin.mmdb');
      const frames = [];
      for (let f = 100; frames.length < 3; f += 997) if (db.candidates[f]) frames.push(f);
      const q = new Float32Array(frames.length * db.dims);
      frames.forEach((f, i) => q.set(db.rawFeatures.subarray(f * db.stride, f * db.stride + db.dims), i * db.dims));
      writeFileSync('q.f32', new Uint8Array(q.buffer));
      console.log(JSON.stringify(frames));
    `);
    expect(r.status, describeFailure('writing queries', r)).toBe(0);
    const found = run(process.execPath, [bin(), 'search', 'builtin.mmdb', '--queries', 'q.f32', '--method', 'kdtree', '--json'], project);
    expect(found.status, describeFailure('motionmatch search', found)).toBe(0);
    const o = JSON.parse(found.stdout);
    expect(o.results).toHaveLength(3);
    for (const res of o.results) expect(res.cost).toBeCloseTo(0, 3);
  });

  it('runs `motionmatch bench` with tinybench and the worker pool', () => {
    const r = run(process.execPath, [bin(), 'bench', '--quick', '--sections', 'search', '--methods', 'brute,kdtree', '--backends', 'js,wasm-scalar',
      '--threads', '1', '--queries', '20', '--noise', '0.5', '--row-seconds', '0.05', '--ref-seconds', '0.2', '--batch-seconds', '0.02', '--json'], project);
    expect(r.status, describeFailure('motionmatch bench', r)).toBe(0);
    const o = JSON.parse(r.stdout);
    expect(Object.keys(o)).toEqual(['machine', 'config', 'rows', 'batch', 'approximate', 'build', 'skipped', 'notes', 'seconds']);
    expect(o.rows).toHaveLength(4);
    for (const row of o.rows) expect(row.mismatches).toBe(0);
    expect(o.batch.map((b: { mode: string }) => b.mode)).toContain('pool');
    for (const b of o.batch) expect(b.timer).toBe('tinybench'); // a dependency, so installed
  });

  it('serves the prebuilt demo with `motionmatch demo` (no vite, no web sources)', async () => {
    expect(existsSync(join(installed, 'web'))).toBe(false);
    const child = spawn(process.execPath, [join(project, 'node_modules', '.bin', 'motionmatch'), 'demo', '--port', '0', '--json'], {
      cwd: project, env: { ...cleanNpmEnv(), PORT: '' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    try {
      const url = await new Promise<string>((resolveUrl, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`demo did not start\n${stderr}`)), 60_000);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) { clearTimeout(timer); resolveUrl((JSON.parse(out.split('\n')[0]) as { url: string }).url); }
        });
        child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`demo exited with ${code}\n${stderr}`)); });
      });
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      expect(page.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
      const html = await page.text();
      const script = /<script[^>]+src="([^"]+\.js)"/.exec(html);
      expect(script, html).not.toBeNull();
      const js = await fetch(new URL(script![1], url));
      expect(js.status).toBe(200);
      expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
      const wasmAsset = [...paths].find((p) => p.startsWith('web-dist/assets/') && p.endsWith('.wasm'))!;
      const wasm = await fetch(new URL(wasmAsset.slice('web-dist/'.length), url));
      expect(wasm.status).toBe(200);
      expect(wasm.headers.get('content-type')).toBe('application/wasm');
      expect(stderr).not.toMatch(/building the web bundle/);
    } finally {
      const exited = new Promise<number | null>((r) => (child.exitCode !== null ? r(child.exitCode) : child.once('exit', (c) => r(c))));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    }
  });
});
