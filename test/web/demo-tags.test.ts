/**
 * `motionmatch demo --require-tag/--exclude-tag` (issue 28 §3): the filters reach the page in its
 * address (#tags=...) and every locomotion search of the player and the crowd keeps to them; the
 * handle reads and replaces them. Without the filter the same walk plays frames the filter keeps out
 * (so the check can fail).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Database } from '../../src/database/database.js';
import { HAVE_CHROMIUM, chromiumSkipReason, launchChromium, openDemoPage, startDemo, stopDemo, type DemoProcess } from '../helpers/demo-browser.js';
import { runCli } from '../helpers/cli.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

if (!HAVE_CHROMIUM) console.log(chromiumSkipReason('demo tag filters'));

type Handle = {
  player: { frame: number; clip: string };
  searchTags: { require: string[]; exclude: string[] };
  setSearchTags(t: { require?: string[]; exclude?: string[] } | null): Promise<void>;
  setAgents(n: number): Promise<void>;
  resetPlayer(): Promise<void>;
};

let db: Database;
let demo: DemoProcess | undefined;
let browser: Browser | undefined;
beforeAll(async () => {
  db = builtinDatabase();
  if (!HAVE_CHROMIUM) return;
  demo = await startDemo(['--no-build', '--exclude-tag', 'walk']);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  expect(await stopDemo(demo)).toBe(demo ? 0 : null);
});

/** Frames the player plays while W is held for `ms` (sampled every 50 ms), or until `enough` says so. */
async function framesWalking(page: Page, ms: number, enough: (frames: number[]) => boolean = () => false): Promise<number[]> {
  await page.evaluate(() => (window as unknown as { motionmatch: Handle }).motionmatch.resetPlayer());
  await page.focus('#viewport');
  await page.keyboard.down('w');
  const frames: number[] = [];
  const start = Date.now();
  while (Date.now() - start < ms && !enough(frames)) {
    frames.push(await page.evaluate(() => (window as unknown as { motionmatch: Handle }).motionmatch.player.frame));
    await page.waitForTimeout(50);
  }
  await page.keyboard.up('w');
  return frames;
}

describe.skipIf(!HAVE_CHROMIUM)('demo tag filters', () => {
  it('--exclude-tag walk: the page has the filter and the player never plays a frame tagged walk; without it, it does', async () => {
    const walk = 1 << db.tagNames.indexOf('walk');
    const { page, errors } = await openDemoPage(browser!, demo!.url, { width: 800, height: 600 }, 'none');
    try {
      await page.evaluate(() => (window as unknown as { motionmatch: Handle }).motionmatch.setAgents(10));
      const tags = await page.evaluate(() => (window as unknown as { motionmatch: Handle }).motionmatch.searchTags);
      expect(tags).toEqual({ require: [], exclude: ['walk'] });
      const filtered = await framesWalking(page, 2500);
      expect(filtered.filter((f) => (db.tagBits[f] & walk) !== 0)).toEqual([]);
      // The handle replaces the filters: without them the same walk plays walk frames.
      await page.evaluate(() => (window as unknown as { motionmatch: Handle }).motionmatch.setSearchTags(null));
      expect(await page.evaluate(() => (window as unknown as { motionmatch: Handle }).motionmatch.searchTags)).toEqual({ require: [], exclude: [] });
      // (until a walk frame shows, 15 s at most: a loaded machine steps slowly)
      const free = await framesWalking(page, 15_000, (f) => f.some((x) => (db.tagBits[x] & walk) !== 0));
      expect(free.filter((f) => (db.tagBits[f] & walk) !== 0).length).toBeGreaterThan(0);
      // A tag both required and excluded is refused, and the filters stay as they were.
      const refused = await page.evaluate(() => (window as unknown as { motionmatch: Handle }).motionmatch.setSearchTags({ require: ['run'], exclude: ['run'] }).then(() => 'accepted', (e: Error) => e.message));
      expect(refused).toMatch(/both required and excluded/);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);

  it('refuses a tag the database lacks, or one both required and excluded, before serving (exit 2)', () => {
    const r = runCli(['demo', '--no-build', '--port', '0', '--require-tag', 'nosuch']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--require-tag nosuch: the database has no frames tagged 'nosuch' \(its tags: .*walk/);
    const both = runCli(['demo', '--no-build', '--port', '0', '--require-tag', 'run', '--exclude-tag', 'run']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/tag 'run' is both required/);
  });
});
