/**
 * The demo's terrain toggle in headless Chromium (Debian's /usr/bin/chromium through
 * playwright-core), driven through the automation handle: `setTerrain('hills' | 'steps' | 'off')`
 * puts every character on that ground and draws it, the player walks over it on its surface, a
 * crowd keeps stepping, and the page logs no console error. Screenshots go to
 * test-artifacts/terrain-*.png: the scene on each ground is drawn for them, and otherwise only in
 * the first frame (setDrawing in test/helpers/demo-browser.ts).
 *
 * Needs the compiled CLI and vite (`npm test` builds both first).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { HAVE_CHROMIUM, TEST_VIEWPORT, chromiumSkipReason, drawnScreenshot, launchChromium, openDemoPage, startDemo, stopDemo, type DemoProcess } from '../helpers/demo-browser.js';
import type { Browser, Page } from 'playwright-core';
import { REPO_ROOT } from '../helpers/cli.js';
import { hillsField } from '../../src/sim/terrain/terrain.js';

if (!HAVE_CHROMIUM) console.log(chromiumSkipReason('terrain browser test'));
const ARTIFACTS = join(REPO_ROOT, 'test-artifacts');

/** What the test reads from `window.motionmatch` (web/src/handle.ts, web/src/terrain.ts). */
interface Handle {
  ready: boolean;
  error: string | null;
  terrain: string;
  player: { position: [number, number, number] };
  stats: { frames: number; agents: number };
  setAgents(n: number): Promise<void>;
  setTerrain(choice: string): Promise<void>;
}
type W = { motionmatch: Handle };

const position = (page: Page) => page.evaluate(() => (window as unknown as W).motionmatch.player.position);
const frames = (page: Page) => page.evaluate(() => (window as unknown as W).motionmatch.stats.frames);

describe.skipIf(!HAVE_CHROMIUM)('the demo on uneven ground (headless Chromium)', () => {
  let browser: Browser;
  let demo: DemoProcess;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    demo = await startDemo();
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (demo) expect(await stopDemo(demo)).toBe(0);
  });

  it('switches the crowd onto hills and steps and back through the handle, walking on the ground, with no console error', async () => {
    const { page, errors } = await openDemoPage(browser, demo.url, TEST_VIEWPORT, 'none');
    expect(await page.evaluate(() => (window as unknown as W).motionmatch.terrain)).toBe('off');
    await page.evaluate(() => (window as unknown as W).motionmatch.setAgents(100));

    await page.evaluate(() => (window as unknown as W).motionmatch.setTerrain('hills'));
    expect(await page.evaluate(() => (window as unknown as W).motionmatch.terrain)).toBe('hills');
    expect(await page.locator('#terrain').inputValue()).toBe('hills');
    // Walk: the player's root rides the hills (the same seeded hills `simulate --terrain hills` uses).
    const hills = hillsField(1);
    await page.locator('#viewport').click();
    await page.keyboard.down('w');
    const heights: number[] = [], gaps: number[] = [];
    for (let k = 0; k < 12; k++) {
      await page.waitForTimeout(250);
      const [x, y, z] = await position(page);
      heights.push(y);
      gaps.push(Math.abs(y - hills.height(x, z)));
    }
    await page.keyboard.up('w');
    const [x1, , z1] = await position(page);
    expect(Math.hypot(x1, z1)).toBeGreaterThan(1); // it walked
    expect(Math.max(...heights) - Math.min(...heights)).toBeGreaterThan(0.05); // up and down the hills
    expect(Math.max(...gaps.slice(4))).toBeLessThan(0.3); // on the ground (a spring over steps)
    // 100 agents on hills keep frames coming (how fast is the benchmark's business, not a test's:
    // a loaded machine draws a few a second).
    const f0 = await frames(page);
    await page.waitForFunction((f) => (window as unknown as W).motionmatch.stats.frames - f > 3, f0, { timeout: 20_000 });
    expect((await frames(page)) - f0).toBeGreaterThan(3);
    expect(await page.evaluate(() => (window as unknown as W).motionmatch.error)).toBeNull();
    await drawnScreenshot(page, join(ARTIFACTS, 'terrain-hills.png'));

    await page.evaluate(() => (window as unknown as W).motionmatch.setTerrain('steps'));
    await page.keyboard.down('w');
    await page.waitForTimeout(1500);
    await page.keyboard.up('w');
    await drawnScreenshot(page, join(ARTIFACTS, 'terrain-steps.png'));

    // Back to flat: the root settles on y = 0.
    await page.evaluate(() => (window as unknown as W).motionmatch.setTerrain('off'));
    await page.waitForFunction(() => Math.abs((window as unknown as W).motionmatch.player.position[1]) < 1e-6, null, { timeout: 20_000 });
    expect(await page.locator('#terrain').inputValue()).toBe('off');

    // The control itself drives the same thing.
    await page.locator('#terrain').selectOption('steps');
    await page.waitForFunction(() => (window as unknown as W).motionmatch.terrain === 'steps', null, { timeout: 10_000 });
    // A bad choice is refused and changes nothing.
    const refused = await page.evaluate(() => (window as unknown as W).motionmatch.setTerrain('lava').then(() => 'accepted', (e: Error) => e.message));
    expect(refused).toMatch(/terrain must be one of off, hills, steps, got lava/);
    expect(await page.evaluate(() => (window as unknown as W).motionmatch.terrain)).toBe('steps');
    expect(await page.evaluate(() => (window as unknown as W).motionmatch.error)).toBeNull();
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
