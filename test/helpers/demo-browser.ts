/**
 * What the browser tests share: Debian's Chromium (playwright-core drives it; browser downloads fail
 * here), the flags it runs with, and `motionmatch demo` started on a free port and stopped again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './cli.js';

export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'];

/**
 * The window of a browser test that reads no pixel: 800x450 rather than 1280x720. The demo draws with
 * software WebGL (SwiftShader), which keeps every core busy however small the window; smaller, it
 * draws 1.3-1.6 times the frames per second (100 and 10 agents), so waits on frames, and each
 * page.evaluate (it waits for the busy main thread), end sooner. The canvas's centre stays clear of
 * the panels (tests click it), and the panels keep their size (their buttons scroll into view).
 */
export const TEST_VIEWPORT = { width: 800, height: 450 } as const;

/** "<what> skipped: /usr/bin/chromium not found (...)", printed once by each test file that needs it. */
export function chromiumSkipReason(what: string): string {
  return `${what} skipped: ${CHROMIUM} not found (Debian: apt-get install chromium)`;
}

export interface DemoProcess {
  child: ChildProcess;
  url: string;
}

/**
 * `motionmatch demo --port 0 --json [args]`, resolved with the URL of its first output line; rejected
 * with its stderr when it exits first or prints nothing within 80 s (it builds the page when needed).
 */
export function startDemo(args: readonly string[] = []): Promise<DemoProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/motionmatch.js'), 'demo', '--port', '0', '--json', ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PORT: '' } });
    let out = '', err = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`demo server did not start in time\n${err}`)); }, 80_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      try { resolve({ child, url: (JSON.parse(out.split('\n')[0]) as { url: string }).url }); } catch { reject(new Error(`unexpected output: ${out}\n${err}`)); }
    });
    child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`motionmatch demo exited with ${code}\n${err}`)); });
  });
}

/** Stops a demo with SIGINT (as Ctrl-C would) and resolves with its exit code (null: none was started). */
export function stopDemo(demo: DemoProcess | undefined): Promise<number | null> {
  return new Promise((r) => {
    if (!demo) { r(null); return; }
    const { child } = demo;
    if (child.exitCode !== null) { r(child.exitCode); return; }
    child.once('exit', (code) => r(code));
    child.kill('SIGINT');
  });
}

/**
 * Debian's Chromium through playwright-core, with CHROMIUM_ARGS. Under `vitest run` this is a
 * connection to the run's one shared Chromium (test/helpers/browser-setup.ts launches it on the first
 * request); a file run some other way (no broker provided) launches its own. Either way the caller
 * closes what it gets: close() on a connected browser closes the file's contexts and disconnects,
 * leaving the shared Chromium to the other files.
 */
export async function launchChromium(): Promise<import('playwright-core').Browser> {
  const { chromium } = await import('playwright-core');
  let broker: string | undefined;
  try {
    const { inject } = await import('vitest');
    broker = inject('chromiumBroker');
  } catch { broker = undefined; }
  if (!broker) return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const res = await fetch(broker);
  const body = await res.text();
  if (!res.ok) throw new Error(`the shared Chromium (test/helpers/browser-setup.ts) failed to start: ${body}`);
  return chromium.connect(body);
}

/**
 * A new page on the demo at `url`, once its automation handle says ready (60 s at most), and the list
 * its console errors and page errors go into (a test expects it empty at the end). `drawing`: what
 * the page draws from then on (setDrawing); the first frame, before ready, is always drawn.
 */
export async function openDemoPage(browser: import('playwright-core').Browser, url: string, viewport: { width: number; height: number }, drawing: Drawing = true): Promise<{ page: import('playwright-core').Page; errors: string[] }> {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { motionmatch?: { ready: boolean } }).motionmatch?.ready === true, null, { timeout: 60_000 });
  if (drawing !== true) await setDrawing(page, drawing);
  return { page, errors };
}

/** The handle's setRendering: true draws everything, false the player only, 'none' no WebGL at all. */
export type Drawing = boolean | 'none';

type DrawingHandle = { motionmatch: { setRendering(on: Drawing): void; stats: { frames: number } } };

/**
 * What the page draws while a test waits on it. A test that reads no pixel sets 'none': software
 * WebGL (SwiftShader, in Chromium's GPU process) kept 1.7-1.8 of this VM's 2 cores busy for as long
 * as a page drew, however little it drew (the default crowd of 100: 15-18 frames/s; the player
 * alone: 44), starving the test files running beside it; the browser test files cost about 200 s
 * of Chromium's CPU per run, which `time npm test` does not even count (2026-12-07). Not drawing,
 * a page steps at 60 frames/s on 0.3-0.4 of a core. The engine steps the same either way.
 */
export async function setDrawing(page: import('playwright-core').Page, on: Drawing): Promise<void> {
  await page.evaluate((v) => (window as unknown as DrawingHandle).motionmatch.setRendering(v), on);
}

/**
 * A screenshot of the scene as drawn, on a page that does not draw otherwise: everything is drawn
 * for three frames (the screenshot shows the last), then the page goes back to `after`.
 */
export async function drawnScreenshot(page: import('playwright-core').Page, path: string, after: Drawing = 'none'): Promise<void> {
  await setDrawing(page, true);
  const f0 = await page.evaluate(() => (window as unknown as DrawingHandle).motionmatch.stats.frames);
  await page.waitForFunction((f) => (window as unknown as DrawingHandle).motionmatch.stats.frames >= f + 3, f0, { timeout: 30_000 });
  await page.screenshot({ path });
  await setDrawing(page, after);
}
