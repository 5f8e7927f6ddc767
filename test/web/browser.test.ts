/**
 * The browser demo end to end, in headless Chromium (Debian's /usr/bin/chromium through
 * playwright-core): `motionmatch demo --port 0 --json` builds the web bundle when stale and serves
 * it with the cross-origin isolation headers; the page is opened as a new user would.
 *
 * Checks: no console errors; `window.motionmatch.ready`; cross-origin isolated with >= 2 search
 * threads; holding W walks the player forward; 500 agents keep frames coming; dropped files (a
 * generated BVH, a .mmdb, a broken file, real mocap when present) load or fail cleanly; the
 * static server's headers, MIME types and path-traversal safety; the single-thread fallback
 * without the headers. A screenshot goes to test-artifacts/browser.png.
 *
 * Needs the compiled CLI (`npm test` builds it first) and vite (a devDependency).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { REPO_ROOT, HAS_MOCAP, MOCAP_DIR } from '../helpers/cli.js';
import { startDemoServer, type DemoServer } from '../../src/web/serve-node.js';
import { TEST_VIEWPORT, drawnScreenshot, launchChromium, setDrawing, type Drawing } from '../helpers/demo-browser.js';
import { generateBuiltinClips } from '../../src/builtin/generate.js';
import { buildDatabase } from '../../src/database/build.js';
import { encodeDatabase } from '../../src/database/mmdb/mmdb.js';
import { writeBvh } from '../../src/import/bvh/write.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const SKIP_REASON = `browser tests skipped: ${CHROMIUM} not found (Debian: apt-get install chromium)`;
if (!HAVE_CHROMIUM) console.log(SKIP_REASON);

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'];
const ARTIFACTS = join(REPO_ROOT, 'test-artifacts');
/** The new user's window (the first page, until its screenshot); every other page is TEST_VIEWPORT's. */
const NEW_USER = { width: 1280, height: 720 };
const SMALL = TEST_VIEWPORT;

/** What the tests read from `window.motionmatch` (web/src/handle.ts). */
interface Handle {
  ready: boolean;
  error: string | null;
  agents: number;
  database: { name: string; frames: number; clips: number };
  player: { position: [number, number, number]; forward: [number, number, number]; clip: string };
  stats: { updateMsMedian: number; frames: number; threads: number; backend: string; mode: string; crossOriginIsolated: boolean; fps: number };
  setAgents(n: number): Promise<void>;
  setMode(m: 'split' | 'batched'): Promise<void>;
  loadFiles(files: File[]): Promise<{ ok: boolean; message: string }>;
  loadBuiltin(): Promise<{ ok: boolean; message: string }>;
}
type W = { motionmatch: Handle };

/** Starts `motionmatch demo --port 0 --json` and resolves with its URL. */
function startCli(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/motionmatch.js'), 'demo', '--port', '0', '--json', ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PORT: '' },
    });
    let out = '', err = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`demo server did not start in time\n${err}`)); }, 80_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) {
        clearTimeout(timer);
        try {
          resolvePromise({ child, url: (JSON.parse(line) as { url: string }).url });
        } catch {
          reject(new Error(`unexpected output from motionmatch demo --json: ${line}\n${err}`));
        }
      }
    });
    child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`motionmatch demo exited with ${code}\n${err}`)); });
  });
}

function stopCli(child: ChildProcess): Promise<number | null> {
  return new Promise((r) => {
    if (child.exitCode !== null) { r(child.exitCode); return; }
    child.once('exit', (code) => r(code));
    child.kill('SIGINT');
  });
}

/** A raw GET whose path is sent exactly as given (fetch would normalise "../"). */
function rawGet(url: string, path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const u = new URL(url);
  return new Promise((resolvePromise, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A page on the demo, once ready; after its first frame it draws what `drawing` says (setDrawing: the new user's page is drawn, the others are not). */
async function openPage(browser: Browser, url: string, viewport: { width: number; height: number } = SMALL, drawing: Drawing = 'none'): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as Partial<W>).motionmatch?.ready === true, null, { timeout: 60_000 });
  if (drawing !== true) await setDrawing(page, drawing);
  return { page, errors };
}

/**
 * Frames stepped from now until `atLeast` have been, or `ms` have passed: at least `atLeast` when
 * that many came within `ms` (returning as soon as they have, instead of always waiting `ms`),
 * else the fewer that came in `ms`.
 */
async function framesWithin(page: Page, atLeast: number, ms: number): Promise<number> {
  const f0 = await page.evaluate(() => (window as unknown as W).motionmatch.stats.frames);
  try {
    await page.waitForFunction(([start, n]) => (window as unknown as W).motionmatch.stats.frames >= start + n, [f0, atLeast] as const, { timeout: ms });
  } catch (e) {
    if (!(e instanceof Error && e.name === 'TimeoutError')) throw e;
  }
  return (await page.evaluate(() => (window as unknown as W).motionmatch.stats.frames)) - f0;
}

/** Loads files into the page as if dropped (name + text or bytes). */
function dropFiles(page: Page, files: Array<{ name: string; text?: string; base64?: string }>): Promise<{ ok: boolean; message: string }> {
  return page.evaluate((list) => {
    const made = list.map((f) => {
      if (f.text !== undefined) return new File([f.text], f.name);
      const bin = atob(f.base64!);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      return new File([bytes], f.name);
    });
    return (window as unknown as W).motionmatch.loadFiles(made);
  }, files);
}

describe.skipIf(!HAVE_CHROMIUM)('browser demo (headless Chromium)', () => {
  let browser: Browser;
  let cli: { child: ChildProcess; url: string };
  /** The new user's page once its test passed, taken over by the next test (a page open costs 3-4 s). */
  let handedOn: { page: Page; errors: string[] } | undefined;
  /**
   * The files the tests drop or serve, made here before any page is open (a page left waiting on
   * Node's work keeps software WebGL busy on every core all the while).
   */
  let files: {
    bvh: Array<{ name: string; text: string }>;
    small: Uint8Array;
    mocap: Array<{ name: string; text: string }>;
    served: { db: ReturnType<typeof buildDatabase>; bytes: Uint8Array };
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const { skeleton, clips } = generateBuiltinClips();
    const pick = ['walk_1.2', 'idle', 'run_3.5'].map((n) => clips.find((c) => c.name === n) ?? clips[0]);
    // A small database unlike the built-in one (the --db test): three clips, one of them mirrored.
    const servedPick = ['walk_1.2', 'run_3.5', 'idle'].map((n) => clips.find((c) => c.name === n) ?? clips[0]);
    const servedDb = buildDatabase(servedPick.map((clip) => ({ skeleton, clip })), { mirror: true });
    const mocapDir = join(MOCAP_DIR, 'core');
    files = {
      bvh: pick.map((clip) => ({ name: `${clip.name}.bvh`, text: writeBvh(skeleton, clip) })),
      small: encodeDatabase(buildDatabase(pick.map((clip) => ({ skeleton, clip })))),
      mocap: HAS_MOCAP ? readdirSync(mocapDir).filter((f) => f.endsWith('.bvh')).map((name) => ({ name, text: readFileSync(join(mocapDir, name), 'utf8') })) : [],
      served: { db: servedDb, bytes: encodeDatabase(servedDb) },
    };
    cli = await startCli([]);
    browser = await launchChromium(); // the run's shared Chromium (test/helpers/browser-setup.ts)
  }, 120_000);

  afterAll(async () => {
    await handedOn?.page.close();
    await browser?.close();
    if (cli) expect(await stopCli(cli.child)).toBe(0); // Ctrl-C stops the server cleanly
  });

  it('serves the bundle with isolation headers, the right MIME types and no way out of web-dist/', async () => {
    const index = await fetch(cli.url);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(index.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(index.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    const assets = readdirSync(join(REPO_ROOT, 'web-dist', 'assets'));
    const wasm = assets.find((f) => f.endsWith('.wasm'))!;
    const js = assets.find((f) => f.endsWith('.js'))!;
    expect((await fetch(new URL(`assets/${wasm}`, cli.url))).headers.get('content-type')).toBe('application/wasm');
    expect((await fetch(new URL(`assets/${js}`, cli.url))).headers.get('content-type')).toMatch(/^text\/javascript/);
    for (const path of ['/../package.json', '/assets/../../package.json', '/%2e%2e/package.json', '/..%2fpackage.json', '/%2e%2e%5cpackage.json', '/assets/%00.js']) {
      const r = await rawGet(cli.url, path);
      expect([403, 404], path).toContain(r.status);
      expect(r.body).not.toContain('"devDependencies"');
    }
    expect((await fetch(new URL('no-such-file.js', cli.url))).status).toBe(404);
  });

  it('runs for a new user: ready, isolated, walks with W, takes 500 agents, no console errors', async () => {
    const opened = await openPage(browser, cli.url, NEW_USER, true);
    const { page, errors } = opened;
    let passed = false;
    try {
      const info = await page.evaluate(() => {
        const m = (window as unknown as W).motionmatch;
        return { isolated: crossOriginIsolated, threads: m.stats.threads, backend: m.stats.backend, mode: m.stats.mode, db: m.database, text: document.getElementById('isolation')!.textContent };
      });
      expect(info.isolated).toBe(true);
      expect(info.threads).toBeGreaterThanOrEqual(2);
      expect(info.backend).toBe('wasm-simd');
      expect(info.db.frames).toBeGreaterThan(1000);
      expect(info.text).toMatch(/cross-origin isolated/);

      // Hold W for two seconds at most: the player walks forward along the way it faced (more than
      // a metre; the wait ends as soon as it has).
      await page.focus('#viewport');
      const before = await page.evaluate(() => { const p = (window as unknown as W).motionmatch.player; return { pos: p.position, fwd: p.forward }; });
      await page.keyboard.down('w');
      try {
        await page.waitForFunction((b) => {
          const p = (window as unknown as W).motionmatch.player.position;
          return (p[0] - b.pos[0]) * b.fwd[0] + (p[2] - b.pos[2]) * b.fwd[2] > 1;
        }, before, { timeout: 2000 });
      } catch (e) {
        if (!(e instanceof Error && e.name === 'TimeoutError')) throw e;
      }
      const after = await page.evaluate(() => (window as unknown as W).motionmatch.player.position);
      await page.keyboard.up('w');
      const along = (after[0] - before.pos[0]) * before.fwd[0] + (after[2] - before.pos[2]) * before.fwd[2];
      expect(along, `moved ${JSON.stringify(before.pos)} -> ${JSON.stringify(after)}`).toBeGreaterThan(1);

      // A crowd of 500 keeps the frames coming with a finite engine time.
      await page.evaluate(() => (window as unknown as W).motionmatch.setAgents(500));
      expect(await page.evaluate(() => (window as unknown as W).motionmatch.agents)).toBe(500);
      expect(await framesWithin(page, 5, 3000)).toBeGreaterThanOrEqual(5);
      const update = await page.evaluate(() => (window as unknown as W).motionmatch.stats.updateMsMedian);
      expect(Number.isFinite(update)).toBe(true);
      expect(update).toBeGreaterThan(0);
      await page.screenshot({ path: join(ARTIFACTS, 'browser.png') });
      await page.setViewportSize(SMALL); // (the screenshot was the last look at the window)
      await setDrawing(page, 'none'); // (and at the scene: the rest reads the engine, not pixels)

      // The other engine: agents split over worker threads (each steps its share completely).
      const other = info.mode === 'split' ? 'batched' : 'split';
      await page.evaluate((m) => (window as unknown as W).motionmatch.setMode(m), other);
      const now = await page.evaluate(() => { const s = (window as unknown as W).motionmatch.stats; return { mode: s.mode, threads: s.threads, agents: (window as unknown as W).motionmatch.agents }; });
      expect(now).toEqual({ mode: other, threads: info.threads, agents: 500 });
      expect(await framesWithin(page, 3, 3000)).toBeGreaterThanOrEqual(3);
      expect(Number.isFinite(await page.evaluate(() => (window as unknown as W).motionmatch.stats.updateMsMedian))).toBe(true);
      expect(errors).toEqual([]);
      passed = true;
      handedOn = opened;
    } finally {
      if (!passed) await page.close();
    }
  }, 90_000);

  it('loads dropped BVH and .mmdb files, and rejects bad ones without disturbing the scene', async () => {
    // The page the test above left running (its errors still collected), else a new one.
    const { page, errors } = handedOn ?? await openPage(browser, cli.url);
    handedOn = undefined;
    try {
      // Databases swap under the agent-worker engine too (the first test covers the other one).
      await page.evaluate(async () => {
        const m = (window as unknown as W).motionmatch;
        await m.setMode('split');
        await m.setAgents(20);
      });
      expect(await page.evaluate(() => (window as unknown as W).motionmatch.stats.mode)).toBe('split');
      const { bvh, small } = files;

      // Bad input: the message names the problem, the running scene stays as it was.
      const db0 = await page.evaluate(() => (window as unknown as W).motionmatch.database);
      const bad = [
        { files: [{ name: 'broken.bvh', text: 'HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0\n' }], expect: /broken\.bvh/ },
        { files: [{ name: 'broken.mmdb', text: 'not a database at all' }], expect: /broken\.mmdb/ },
        { files: [{ name: 'notes.txt', text: 'hello' }], expect: /unsupported file.*notes\.txt/ },
        { files: [bvh[0], { name: 'x.mmdb', base64: Buffer.from(small).toString('base64') }], expect: /not both/ },
      ];
      for (const b of bad) {
        const r = await dropFiles(page, b.files);
        expect(r.ok).toBe(false);
        expect(r.message).toMatch(b.expect);
        const banner = await page.evaluate(() => document.getElementById('banner')!.textContent ?? '');
        expect(banner).toMatch(/could not load/);
        expect(await page.evaluate(() => (window as unknown as W).motionmatch.database)).toEqual(db0);
        expect(await framesWithin(page, 1, 500)).toBeGreaterThan(0);
      }

      // BVH files (built in the page's worker with the same pipeline as the CLI).
      const r1 = await dropFiles(page, bvh);
      expect(r1, r1.message).toMatchObject({ ok: true });
      const db1 = await page.evaluate(() => (window as unknown as W).motionmatch.database);
      expect(db1).toMatchObject({ name: '3 BVH files', clips: 3 });
      expect(await framesWithin(page, 1, 800)).toBeGreaterThan(0);
      expect(await page.evaluate(() => (window as unknown as W).motionmatch.agents)).toBe(20);

      // A .mmdb database.
      const r2 = await dropFiles(page, [{ name: 'small.mmdb', base64: Buffer.from(small).toString('base64') }]);
      expect(r2, r2.message).toMatchObject({ ok: true });
      expect(await page.evaluate(() => (window as unknown as W).motionmatch.database)).toMatchObject({ name: 'small.mmdb', clips: 3 });
      expect(await framesWithin(page, 1, 800)).toBeGreaterThan(0);

      // Real mocap (a different skeleton, centimetres, a reference root above the hips), when present.
      if (HAS_MOCAP) {
        const r3 = await dropFiles(page, files.mocap);
        expect(r3, r3.message).toMatchObject({ ok: true });
        expect(await framesWithin(page, 1, 1000)).toBeGreaterThan(0);
        await drawnScreenshot(page, join(ARTIFACTS, 'browser-mocap.png'));
      }

      const back = await page.evaluate(() => (window as unknown as W).motionmatch.loadBuiltin());
      expect(back.ok).toBe(true);
      expect(await page.evaluate(() => (window as unknown as W).motionmatch.stats.mode)).toBe('split');
      expect(await framesWithin(page, 1, 800)).toBeGreaterThan(0);
      expect(await page.evaluate(() => (window as unknown as W).motionmatch.database)).toEqual(db0);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);

  it('says so and searches on one thread when served without the isolation headers', async () => {
    let plain: DemoServer | null = null;
    try {
      plain = await startDemoServer({ port: 0, host: '127.0.0.1', isolation: false });
      const res = await fetch(plain.url);
      expect(res.headers.get('cross-origin-embedder-policy')).toBeNull();
      const { page, errors } = await openPage(browser, plain.url);
      try {
        const info = await page.evaluate(() => ({
          isolated: crossOriginIsolated,
          threads: (window as unknown as W).motionmatch.stats.threads,
          text: document.getElementById('isolation')!.textContent ?? '',
        }));
        expect(info.isolated).toBe(false);
        expect(info.threads).toBe(1);
        expect(info.text).toMatch(/not cross-origin isolated.*ONE thread/);
        expect(await framesWithin(page, 1, 1000)).toBeGreaterThan(0);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    } finally {
      await plain?.close();
    }
  }, 60_000);

  it('starts on the database given with --db (demo --db FILE), and can still go back to the built-in one', async () => {
    // A small database unlike the built-in one: three clips, one of them mirrored (made in beforeAll).
    const { db, bytes } = files.served;
    const dir = mkdtempSync(join(tmpdir(), 'mm-demo-db-'));
    const file = join(dir, 'my crowd.mmdb');
    writeFileSync(file, bytes);
    const served = await startCli(['--db', file]);
    try {
      const { page, errors } = await openPage(browser, served.url);
      try {
        const seen = await page.evaluate(() => {
          const m = (window as unknown as W).motionmatch;
          return { db: m.database, clip: m.player.clip, name: document.getElementById('db-name')!.textContent, error: m.error };
        });
        expect(seen.error).toBeNull();
        expect(seen.db).toEqual({ name: 'my crowd.mmdb', frames: db.frameCount, clips: db.clips.length });
        expect(seen.name).toBe('my crowd.mmdb');
        expect(db.clips.map((c) => c.name)).toContain(seen.clip);
        // It runs on it: frames come, and the player plays clips of this database only.
        await page.evaluate(() => (window as unknown as W).motionmatch.setAgents(20));
        await page.focus('#viewport');
        await page.keyboard.down('w');
        expect(await framesWithin(page, 1, 1500)).toBeGreaterThan(0);
        const playing = await page.evaluate(() => (window as unknown as W).motionmatch.player.clip);
        await page.keyboard.up('w');
        expect(db.clips.map((c) => c.name)).toContain(playing);
        // The built-in database is one click away.
        const back = await page.evaluate(() => (window as unknown as W).motionmatch.loadBuiltin());
        expect(back.ok, back.message).toBe(true);
        const builtin = await page.evaluate(() => (window as unknown as W).motionmatch.database);
        expect(builtin.name).toBe('built-in locomotion');
        expect(builtin.frames).toBeGreaterThan(db.frameCount);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
      // A database that changed into garbage after the server started: the page says so and runs the built-in one.
      writeFileSync(file, 'not a database any more');
      const { page: page2, errors: errors2 } = await openPage(browser, served.url);
      try {
        const after = await page2.evaluate(() => ({ db: (window as unknown as W).motionmatch.database, error: (window as unknown as W).motionmatch.error, banner: document.getElementById('banner')!.textContent ?? '' }));
        expect(after.db.name).toBe('built-in locomotion');
        expect(after.error).toMatch(/could not load my crowd\.mmdb/);
        expect(after.banner).toMatch(/built-in database instead/);
        expect(errors2).toEqual([]);
      } finally {
        await page2.close();
      }
    } finally {
      expect(await stopCli(served.child)).toBe(0);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
