/**
 * Where the caches go (src/util/files-node.ts): the first folder that can be made, and a folder of
 * the temporary folder per user, so that on a shared machine another user's cache file (the demo's
 * compact copies, the built-in database) is never read as ours.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { firstUsableFolder, userTemporaryFolder } from '../../src/util/files-node.js';
import { tempDir } from '../helpers/cli.js';

const dir = tempDir('mm-cache-folders-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cache folders', () => {
  it('takes the first folder that can be made, skipping one under a file, and none when none can', () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const wanted = join(dir, 'made', 'deep');
    expect(firstUsableFolder([join(file, 'below'), wanted])).toBe(wanted);
    expect(existsSync(wanted)).toBe(true);
    expect(firstUsableFolder([join(file, 'below'), '/proc/motionmatch-cache'])).toBeNull();
  });

  it("names the temporary folder per user", () => {
    const folder = userTemporaryFolder('motionmatch-cache');
    expect(dirname(folder)).toBe(tmpdir());
    expect(basename(folder)).toBe(`motionmatch-cache-${process.getuid!()}`);
  });
});
