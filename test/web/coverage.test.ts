/**
 * The demo's coverage panel (web/src/coverage-panel.ts) in headless Chromium: it computes a small
 * report for the running database, loads a report `motionmatch coverage` wrote (JSON or HTML),
 * refuses a file that is neither, and shows the player's current request as a dot on the map
 * that moves with the input. Needs the compiled CLI and the web bundle (`npm test` builds both).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HAVE_CHROMIUM, TEST_VIEWPORT, chromiumSkipReason, drawnScreenshot, launchChromium, setDrawing, startDemo, stopDemo, type DemoProcess } from '../helpers/demo-browser.js';
import type { Browser, Page } from 'playwright-core';
import { REPO_ROOT, runCliInProcess, tempDir } from '../helpers/cli.js';
import { generateBuiltinClips } from '../../src/builtin/generate.js';
import { buildDatabase } from '../../src/database/build.js';
import { encodeDatabase } from '../../src/database/mmdb/mmdb.js';

if (!HAVE_CHROMIUM) console.log(chromiumSkipReason('coverage panel tests'));
const ARTIFACTS = join(REPO_ROOT, 'test-artifacts');

interface PlayerRequest { speed: number; direction: number; turnRate: number; band: number; cell: number; verdict: string; x: number; y: number }
interface CoverageHandle {
  report: { name: string; source: string; cells: number; summary: Record<string, number>; requests: string[]; speeds: number[] } | null;
  visible: boolean;
  show(on: boolean): void;
  compute(o?: object): Promise<{ ok: boolean; message: string }>;
  load(text: string, name?: string): Promise<{ ok: boolean; message: string }>;
  player: PlayerRequest | null;
  setBand(speed: number | 'follow'): void;
  setMeasure(key: string): void;
}
type W = { motionmatch: { ready: boolean; coverage: CoverageHandle; setAgents(n: number): Promise<void> } };

describe.skipIf(!HAVE_CHROMIUM)('the coverage panel (headless Chromium)', () => {
  let browser: Browser;
  let demo: DemoProcess;
  let page: Page;
  const errors: string[] = [];
  let dir: string;
  /** `motionmatch coverage` on a small database: its JSON (stdout) and HTML page, made before the page opens (it draws all the while). */
  let written: { json: string; html: string };

  beforeAll(async () => {
    dir = tempDir('mm-coverage-web-');
    mkdirSync(ARTIFACTS, { recursive: true });
    const { skeleton, clips } = generateBuiltinClips();
    const db = buildDatabase(clips.filter((c) => /^(idle|walk_1\.2|run_3\.5)$/.test(c.name)).map((clip) => ({ skeleton, clip })));
    const file = join(dir, 'three.mmdb');
    writeFileSync(file, encodeDatabase(db));
    const html = join(dir, 'three.html');
    const r = await runCliInProcess(['coverage', file, '--cost-only', '--speeds', '1,2', '--directions', '8', '--out', html, '--json']);
    expect(r.code, r.stderr).toBe(0);
    written = { json: r.stdout, html: readFileSync(html, 'utf8') };
    demo = await startDemo();
    browser = await launchChromium(); // the run's shared Chromium (test/helpers/browser-setup.ts)
    page = await browser.newPage({ viewport: TEST_VIEWPORT });
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    await page.goto(demo.url);
    await page.waitForFunction(() => (window as unknown as Partial<W>).motionmatch?.ready === true, null, { timeout: 60_000 });
    await setDrawing(page, 'none'); // (the panel is read, not the scene: drawn for the screenshot only)
    await page.evaluate(() => (window as unknown as W).motionmatch.setAgents(10));
  }, 120_000);

  /** Waits until `predicate` holds on the page or `ms` have passed; the expects after it say what was wrong. */
  async function within<A>(ms: number, predicate: (arg: A) => boolean, arg: A): Promise<void> {
    try {
      await page.waitForFunction(predicate, arg, { timeout: ms });
    } catch (e) {
      if (!(e instanceof Error && e.name === 'TimeoutError')) throw e;
    }
  }

  afterAll(async () => {
    await browser?.close();
    await stopDemo(demo);
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens from the panel button and computes a small report for the running database', async () => {
    expect(await page.evaluate(() => (window as unknown as W).motionmatch.coverage.visible)).toBe(false);
    await page.click('#coverage-btn');
    expect(await page.evaluate(() => (window as unknown as W).motionmatch.coverage.visible)).toBe(true);
    const r = await page.evaluate(() => (window as unknown as W).motionmatch.coverage.compute());
    expect(r, r.message).toMatchObject({ ok: true });
    expect(r.message).toMatch(/^computed 75 requests for built-in locomotion in [\d.]+ s$/);
    const report = await page.evaluate(() => (window as unknown as W).motionmatch.coverage.report);
    expect(report).toMatchObject({ name: 'built-in locomotion', source: 'computed', cells: 75 });
    expect(report!.summary.covered + report!.summary.thin + report!.summary.uncovered).toBe(75);
    // The map: one polar SVG with a sector per cell of the band and the player's dot.
    const map = await page.evaluate(() => ({ svgs: document.querySelectorAll('.mm-coverage svg.polar').length, dots: document.querySelectorAll('.mm-coverage circle.mm-cov-player').length }));
    expect(map).toEqual({ svgs: 1, dots: 1 });
  }, 120_000);

  it('puts the player\'s request on the map: standing, then walking forward, then strafing right', async () => {
    const read = () => page.evaluate(() => (window as unknown as W).motionmatch.coverage.player);
    const standing = await read();
    expect(standing).not.toBeNull();
    expect(standing!.speed).toBe(0);
    expect(standing!.band).toBe(0);
    await page.focus('#viewport');
    await page.keyboard.down('w');
    // Up to 1.5 s for the request to be walking forward (the wait ends as soon as it is).
    await within(1500, () => {
      const p = (window as unknown as W).motionmatch.coverage.player;
      return p !== null && Math.abs(p.speed - 1.5) < 5e-6 && Math.abs(p.direction) < 5e-6 && p.band === 1.5;
    }, null);
    const forward = (await read())!;
    expect(forward.speed).toBeCloseTo(1.5, 5);
    expect(forward.direction).toBeCloseTo(0, 5);
    expect(forward.band).toBe(1.5);
    await page.keyboard.up('w');
    await page.keyboard.down('e');
    // Up to 1.5 s for the request to be strafing right and the dot drawn for it (likewise).
    await within(1500, (fx) => {
      const p = (window as unknown as W).motionmatch.coverage.player;
      const c = document.querySelector('.mm-coverage circle.mm-cov-player');
      return p !== null && c !== null && Math.abs(p.direction + 90) < 5e-6 && p.band === 1.5 && p.x > fx + 20 && Math.abs(Number(c.getAttribute('cx')) - p.x) < 30;
    }, forward.x);
    // The handle's request and the dot drawn for it, read together while the key is still held
    // (once it is released the request goes back to standing and the dot follows).
    const [strafeRead, dot] = await page.evaluate(() => {
      const c = document.querySelector('.mm-coverage circle.mm-cov-player')!;
      return [(window as unknown as W).motionmatch.coverage.player, [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))]] as const;
    });
    const strafe = strafeRead!;
    await drawnScreenshot(page, join(ARTIFACTS, 'coverage-panel.png'));
    await page.keyboard.up('e');
    expect(strafe.direction).toBeCloseTo(-90, 5);
    // Right of the map's centre (the map shows left on the left), on the band of 1.5 m/s.
    expect(strafe.x).toBeGreaterThan(forward.x + 20);
    expect(strafe.band).toBe(1.5);
    // The dot on the page is where the handle says.
    expect(Math.abs(dot[0] - strafe.x)).toBeLessThan(30);
    expect(errors).toEqual([]);
  }, 60_000);

  it('loads a report `motionmatch coverage` wrote (JSON and HTML) and refuses anything else', async () => {
    const loadedJson = await page.evaluate((text) => (window as unknown as W).motionmatch.coverage.load(text, 'three.json'), written.json);
    expect(loadedJson, loadedJson.message).toMatchObject({ ok: true });
    expect(loadedJson.message).toMatch(/loaded three\.json: 85 requests \(made for three\.mmdb/);
    const report = await page.evaluate(() => (window as unknown as W).motionmatch.coverage.report);
    expect(report).toMatchObject({ name: 'three.json', source: 'loaded', cells: 85, speeds: [0, 1, 2] });
    const loadedHtml = await page.evaluate((text) => (window as unknown as W).motionmatch.coverage.load(text, 'three.html'), written.html);
    expect(loadedHtml, loadedHtml.message).toMatchObject({ ok: true });
    await page.evaluate(() => { const c = (window as unknown as W).motionmatch.coverage; c.setBand(2); c.setMeasure('bestCost'); });
    expect(await page.evaluate(() => document.querySelector('.mm-coverage svg.polar')!.getAttribute('data-speed'))).toBe('2');
    const bad = await page.evaluate(() => (window as unknown as W).motionmatch.coverage.load('hello', 'notes.txt'));
    expect(bad.ok).toBe(false);
    expect(bad.message).toMatch(/^notes\.txt: neither the JSON of `motionmatch coverage --json` nor an HTML page/);
    // The report shown before stays.
    expect(await page.evaluate(() => (window as unknown as W).motionmatch.coverage.report?.name)).toBe('three.html');
    expect(errors).toEqual([]);
  }, 60_000);
});
