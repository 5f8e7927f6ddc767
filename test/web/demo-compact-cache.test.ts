/**
 * `motionmatch demo --db FILE` serves a compact encoding of a float32 file (src/web/compact-cache-node.ts):
 * encoded once, cached by the file's CRC and size, re-encoded when the file changes, a compact file
 * served as it is; --serve-float32 without --db is a usage error.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDatabase } from '../../src/database/build.js';
import { builtinSources } from '../../src/database/sources-node.js';
import { encodeDatabase, decodeDatabase } from '../../src/database/mmdb/mmdb.js';
import { encodeCompactDatabase } from '../../src/database/mmdb/encode-compact.js';
import { compactCopyOf, mmdbVersion, MAX_CACHED } from '../../src/web/compact-cache-node.js';
import { SERVED_DATABASE_PATH } from '../../src/web/served-database.js';
import { MMDB_COMPACT_VERSION, MMDB_FORMAT_VERSION } from '../../src/database/mmdb/format.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';

describe('demo: compact encoding of a float32 --db file', () => {
  it('encodes once, serves the cache after, encodes again when the file changes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mm-demo-cache-'));
    try {
      const cache = join(dir, 'cache');
      const db = buildDatabase(builtinSources().slice(0, 3), { mirror: true });
      const file = join(dir, 'small.mmdb');
      writeFileSync(file, encodeDatabase(db));
      expect(mmdbVersion(readFileSync(file))).toBe(MMDB_FORMAT_VERSION);
      mkdirSync(cache);
      const progress: number[] = [];
      const first = compactCopyOf(file, db, cache, (d) => progress.push(d));
      expect(first).toMatchObject({ encoded: true, wasCompact: false });
      expect(progress.length).toBeGreaterThan(0);
      const served = readFileSync(first.file);
      expect(mmdbVersion(served)).toBe(MMDB_COMPACT_VERSION);
      expect(served.length).toBe(first.bytes);
      expect(served.length * 5).toBeLessThan(readFileSync(file).length);
      // The same database, compact: same clips and frames.
      const back = decodeDatabase(served, first.file);
      expect(back.clips.map((c) => c.name)).toEqual(db.clips.map((c) => c.name));
      expect(back.frameCount).toBe(db.frameCount);

      const second = compactCopyOf(file, db, cache);
      expect(second).toMatchObject({ file: first.file, encoded: false, wasCompact: false });

      // A damaged cache entry is encoded again, not served.
      writeFileSync(first.file, served.subarray(0, 100));
      expect(compactCopyOf(file, db, cache)).toMatchObject({ file: first.file, encoded: true });

      // Another database in the same file: a new entry, the old one removed.
      const db2 = buildDatabase(builtinSources().slice(0, 2), { mirror: true });
      writeFileSync(file, encodeDatabase(db2));
      const third = compactCopyOf(file, db2, cache);
      expect(third.encoded).toBe(true);
      expect(third.file).not.toBe(first.file);
      expect(readdirSync(cache)).toEqual([third.file.slice(cache.length + 1)]);

      // A compact file is served as it is.
      const compactFile = join(dir, 'c.mmdb');
      writeFileSync(compactFile, encodeCompactDatabase(db2).bytes);
      expect(compactCopyOf(compactFile, db2, cache)).toMatchObject({ file: compactFile, encoded: false, wasCompact: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(`keeps the ${MAX_CACHED} most recently used encodings`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'mm-demo-cache-'));
    try {
      const cache = join(dir, 'cache');
      mkdirSync(cache);
      const db = buildDatabase(builtinSources().slice(0, 1));
      const bytes = encodeDatabase(db);
      writeFileSync(join(cache, 'mine.compact.mmdb'), 'a user file that looks like a compact database by its name');
      for (let i = 0; i < MAX_CACHED + 3; i++) {
        const file = join(dir, `db${i}.mmdb`);
        writeFileSync(file, bytes);
        compactCopyOf(file, db, cache);
      }
      const left = readdirSync(cache).sort().filter((n) => n !== 'mine.compact.mmdb');
      expect(left).toHaveLength(MAX_CACHED);
      // The user's own files in the cache folder are never removed, the database served included.
      expect(readdirSync(cache)).toContain('mine.compact.mmdb');
      // The oldest went first.
      expect(left.some((n) => n.startsWith('db0.'))).toBe(false);
      expect(left.some((n) => n.startsWith(`db${MAX_CACHED + 2}.`))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the demo server sends the compact encoding of a float32 --db file, the file itself once it changes, and the file as it is with --serve-float32', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mm-demo-cache-'));
    try {
      const db = buildDatabase(builtinSources().slice(0, 3), { mirror: true });
      const file = join(dir, 'served.mmdb');
      const float32 = encodeDatabase(db);
      writeFileSync(file, float32);
      const env = { MOTIONMATCH_CACHE_DIR: join(dir, 'cache') };
      await withDemo(['--db', file], env, async (url, out) => {
        expect(out.database).toMatchObject({ file, kind: 'compact' });
        const sent = await fetchBytes(url);
        expect(mmdbVersion(sent)).toBe(MMDB_COMPACT_VERSION);
        expect(sent.length * 5).toBeLessThan(float32.length);
        expect(decodeDatabase(sent, 'sent').frameCount).toBe(db.frameCount);
        // Rebuilt after the server started: the stale encoding is not served.
        writeFileSync(file, 'not a database any more');
        expect(Buffer.from(await fetchBytes(url)).toString()).toBe('not a database any more');
      });
      expect(readdirSync(join(dir, 'cache'))).toHaveLength(1);
      writeFileSync(file, float32);
      await withDemo(['--db', file, '--serve-float32'], env, async (url, out) => {
        expect(out.database).toMatchObject({ file, kind: 'float32' });
        const sent = await fetchBytes(url);
        expect(mmdbVersion(sent)).toBe(MMDB_FORMAT_VERSION);
        expect(Buffer.compare(Buffer.from(sent), Buffer.from(float32))).toBe(0);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('--serve-float32 needs --db', () => {
    const r = runCli(['demo', '--serve-float32', '--no-build', '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--serve-float32 .*--db/);
  });
});


/** Runs `motionmatch demo --port 0 --json --no-build ARGS` while `body` runs; then Ctrl-C, which must end it with 0. */
async function withDemo(args: string[], env: Record<string, string>, body: (url: string, out: { database: unknown }) => Promise<void>): Promise<void> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/motionmatch.js'), 'demo', '--port', '0', '--json', '--no-build', ...args], {
    cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env, PORT: '' },
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  let err = '';
  child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
  const line = await new Promise<string>((resolveLine, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { out += d.toString(); if (out.includes('\n')) resolveLine(out.split('\n')[0]); });
    void exited.then((code) => reject(new Error(`demo exited with ${code}: ${err}`)));
  });
  try {
    const out = JSON.parse(line) as { url: string; database: unknown };
    await body(out.url, out);
  } finally {
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }
}

async function fetchBytes(url: string): Promise<Uint8Array> {
  const r = await fetch(new URL(SERVED_DATABASE_PATH, url));
  expect(r.status).toBe(200);
  return new Uint8Array(await r.arrayBuffer());
}
