/**
 * A compact database loaded by the browser demo (`motionmatch demo --db FILE`, decoded and rebuilt
 * in the page's database worker) holds, bit for bit, what Node's readDatabaseFile of the same file
 * holds: poses, root track, contacts, raw and normalised features, normalisation (CRC-32s of each
 * array, `window.motionmatch.databaseChecksums()`). Headless Chromium (test/helpers/demo-browser.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { HAVE_CHROMIUM, chromiumSkipReason, launchChromium, startDemo, stopDemo, type DemoProcess } from '../helpers/demo-browser.js';
import { buildDatabase } from '../../src/database/build.js';
import { builtinSources } from '../../src/database/sources-node.js';
import { encodeCompactDatabase } from '../../src/database/mmdb/encode-compact.js';
import { readDatabaseFile } from '../../src/database/mmdb/mmdb-node.js';
import { databaseChecksums, type DatabaseChecksums } from '../../src/web/database-checksums.js';

if (!HAVE_CHROMIUM) console.log(chromiumSkipReason('compact browser test'));

describe.skipIf(!HAVE_CHROMIUM)('compact database: browser load equals Node load', () => {
  let dir: string;
  let file: string;
  let browser: Browser;
  let demo: DemoProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mm-compact-browser-'));
    file = join(dir, 'small-compact.mmdb');
    writeFileSync(file, encodeCompactDatabase(buildDatabase(builtinSources().slice(0, 6), { mirror: true })).bytes);
    demo = await startDemo(['--db', file]);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stopDemo(demo);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('every derived array bit-identical', async () => {
    const node = databaseChecksums(readDatabaseFile(file));
    const page = await browser.newPage({ viewport: { width: 480, height: 270 } });
    try {
      await page.goto(demo!.url);
      await page.waitForFunction(() => {
        const mm = (window as unknown as { motionmatch?: { ready: boolean; error: string | null } }).motionmatch;
        if (mm?.error) throw new Error(mm.error);
        return mm?.ready === true;
      }, null, { timeout: 120_000 });
      const seen = await page.evaluate(() => {
        const mm = (window as unknown as { motionmatch: { database: { name: string; frames: number }; databaseChecksums(): DatabaseChecksums | null } }).motionmatch;
        return { name: mm.database.name, frames: mm.database.frames, sums: mm.databaseChecksums() };
      });
      expect(seen.name).toBe('small-compact.mmdb');
      expect(seen.frames).toBe(readDatabaseFile(file).frameCount);
      expect(seen.sums).toEqual(node);
    } finally {
      await page.close();
    }
  }, 180_000);
});
