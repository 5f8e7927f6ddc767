/**
 * The built-in database kept on disk between processes (src/apps/builtin-cache-node.ts): written by
 * the first command that builds it, read by the next with the same results, built again when the
 * file is damaged, left alone with MOTIONMATCH_NO_CACHE, and never touching files it did not write.
 * Each case runs the compiled CLI as a process: within one process the database is built once anyway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';

const dir = tempDir('mm-builtin-cache-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SIMULATE = ['simulate', '--agents', '3', '--seconds', '0.5', '--seed', '4', '--no-warmup', '--json'];

/** Runs the small simulation with `env`; its hash and the cache folder's builtin files. */
function run(cache: string, env: Record<string, string> = {}): { hash: string; files: string[] } {
  const r = runCli(SIMULATE, { env: { MOTIONMATCH_CACHE_DIR: cache, ...env } });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  return { hash: (JSON.parse(r.stdout) as { hash: string }).hash, files: readdirSync(cache).filter((n) => n.startsWith('builtin-')) };
}

describe('the built-in database cache', () => {
  // The first process on an empty cache folder: it builds the database and writes the file. Both
  // cases start from it (the second needs the name and hash of this engine's file).
  const cache = join(dir, 'a');
  let first: { hash: string; files: string[] };
  beforeAll(() => { first = run(cache); });

  it('is written by the first process, read by the next with the same result, and built again when damaged', () => {
    const r = runCli(SIMULATE, { env: { MOTIONMATCH_CACHE_DIR: join(dir, 'off'), MOTIONMATCH_NO_CACHE: '1' } });
    expect(r.code, r.stderr).toBe(0);
    const uncached = { hash: (JSON.parse(r.stdout) as { hash: string }).hash };
    expect(existsSync(join(dir, 'off'))).toBe(false);

    expect(first.hash).toBe(uncached.hash);
    expect(first.files).toHaveLength(1);
    const file = join(cache, first.files[0]);
    expect(first.files[0]).toMatch(/^builtin-[0-9a-f]{8}-[0-9a-f]{16}\.mmdb$/);
    const size = statSync(file).size, written = statSync(file).mtimeMs;
    expect(readFileSync(file).subarray(0, 4).toString('latin1')).toBe('MMDB');

    // Read, not written again.
    const second = run(cache);
    expect(second).toEqual(first);
    expect(statSync(file).mtimeMs).toBe(written);

    // Cut short: built again, the same motion, the file whole again.
    truncateSync(file, 100);
    const third = run(cache);
    expect(third).toEqual(first);
    expect(statSync(file).size).toBe(size);
  });

  it('replaces only its own older files', () => {
    const otherCache = join(dir, 'b');
    mkdirSync(otherCache);
    const own = first.files[0];
    // An older build of the same engine (same folder hash, another code hash), another engine's, a
    // user's file; this engine's own file is not there, so the process builds and writes it.
    const older = own.replace(/-[0-9a-f]{16}\.mmdb$/, '-0000000000000000.mmdb');
    const other = 'builtin-00000000-1111111111111111.mmdb';
    for (const name of [older, other, 'mine.mmdb']) writeFileSync(join(otherCache, name), 'not a database');
    const again = run(otherCache);
    expect(again.hash).toBe(first.hash);
    expect(readdirSync(otherCache).sort()).toEqual([other, own, 'mine.mmdb'].sort());
  });
});
