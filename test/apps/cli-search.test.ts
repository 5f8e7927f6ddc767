import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { runCli, runCliInProcess, tempDir, HAS_MOCAP, MOCAP_DIR, MOCAP_SKIP_REASON } from '../helpers/cli.js';
import { seededRandom } from '../helpers/random-database.js';
import { readDatabaseFile } from '../../src/database/mmdb/mmdb-node.js';
import type { Database } from '../../src/database/database.js';
import { MAX_QUERY_FILE_BYTES } from '../../src/apps/commands/search.js';

interface SearchJson {
  results: Array<{ frame: number; cost: number; clip: string | null; clipTime: number | null }>;
  method: string;
  backend: string;
  queries: number;
  ms: number;
}

const METHODS = ['brute', 'early', 'window', 'aabb', 'kdtree', 'brute-u8', 'brute-f16', 'aabb-u8', 'kdtree-u8', 'cluster', 'cluster-u8'] as const;
const BACKENDS = ['js', 'wasm-scalar', 'wasm-simd'] as const;

function gauss(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

function writeF32(path: string, values: ArrayLike<number>): string {
  const buf = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i++) buf.writeFloatLE(values[i], i * 4);
  writeFileSync(path, buf);
  return path;
}

/**
 * Raw queries (dims floats each): candidate database rows with noise in normalised units (sigma 0, 0.2, 1),
 * and random vectors the database has never seen (uniform in mean +- 4 scale).
 */
function rawQueries(db: Database, seed: number): Float32Array {
  const r = seededRandom(seed);
  const { dims, stride } = db;
  const rows: number[] = [];
  const candidates: number[] = [];
  for (let i = 0; i < db.frameCount; i++) if (db.candidates[i]) candidates.push(i);
  const sigmas = [0, 0, 0.2, 0.2, 0.2, 1, 1, 1];
  for (const sigma of sigmas) {
    const i = candidates[Math.floor(r() * candidates.length)];
    for (let j = 0; j < dims; j++) rows.push(db.rawFeatures[i * stride + j] + sigma * gauss(r) * db.scale[j]);
  }
  for (let k = 0; k < 6; k++) {
    for (let j = 0; j < dims; j++) rows.push(db.mean[j] + (r() * 8 - 4) * db.scale[j]);
  }
  return Float32Array.from(rows);
}

/**
 * `motionmatch search ... --json`, run in this process (runCliInProcess: the compiled CLI's own
 * command, several times faster than a process each; the tests below that use runCli check what
 * the process itself prints and exits with).
 */
async function search(args: string[]): Promise<SearchJson> {
  const res = await runCliInProcess(['search', ...args, '--json']);
  if (res.code !== 0) throw new Error(`search ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return JSON.parse(res.stdout) as SearchJson;
}

function expectSameResults(got: SearchJson, ref: SearchJson, label: string): void {
  expect(got.results.length, label).toBe(ref.results.length);
  got.results.forEach((r, i) => {
    expect(r.frame, `${label} query ${i}`).toBe(ref.results[i].frame);
    expect(Math.abs(r.cost - ref.results[i].cost), `${label} query ${i} cost`).toBeLessThanOrEqual(1e-5 * Math.abs(ref.results[i].cost));
  });
}

/** Every backend and method must give the JS brute-force frames (window: against JS brute over the same window). */
async function agreementMatrix(dbFile: string, queryFile: string, extra: string[], windowSpec: string): Promise<void> {
  const ref = await search([dbFile, '--queries', queryFile, '--method', 'brute', '--backend', 'js', ...extra]);
  const refWindow = await search([dbFile, '--queries', queryFile, '--method', 'brute', '--backend', 'js', '--window', windowSpec, ...extra]);
  expect(ref.results.every((r) => r.frame >= 0 && r.clip !== null)).toBe(true);
  for (const backend of BACKENDS) {
    for (const method of METHODS) {
      const args = [dbFile, '--queries', queryFile, '--method', method, '--backend', backend, ...extra];
      if (method === 'window') args.push('--window', windowSpec);
      const got = await search(args);
      expect(got.method).toBe(method);
      expect(got.backend).toBe(backend);
      expect(got.queries).toBe(ref.queries);
      expectSameResults(got, method === 'window' ? refWindow : ref, `${backend} ${method}`);
    }
  }
  const ranges = windowSpec.split(',').map((p) => p.split(':').map(Number));
  for (const r of refWindow.results) expect(ranges.some(([s, e]) => r.frame >= s && r.frame < e)).toBe(true);
}

describe('motionmatch search (built-in database)', () => {
  const dir = tempDir('mm-search-');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const dbFile = join(dir, 'builtin.mmdb');
  let db: Database;
  let rawFile: string;

  beforeAll(async () => {
    const b = await runCliInProcess(['build', '--builtin', '--out', dbFile, '--json']);
    if (b.code !== 0) throw new Error(`build failed: ${b.stderr}`);
    db = readDatabaseFile(dbFile);
    rawFile = writeF32(join(dir, 'raw.f32'), rawQueries(db, 11));
  });

  it('every backend and method returns the JS brute-force frames for raw queries', async () => {
    const half = Math.floor(db.frameCount / 2);
    await agreementMatrix(dbFile, rawFile, [], `0:${Math.floor(half / 3)},${half}:${half + 400}`);
  });

  it('finds an exact database row at (near) zero cost and reports its clip and time', async () => {
    const r = await search([dbFile, '--queries', rawFile, '--backend', 'js', '--method', 'brute']);
    // The first two queries are database rows without noise.
    for (const res of r.results.slice(0, 2)) {
      expect(res.cost).toBeLessThan(1e-6);
      const clip = db.clips.find((c) => c.name === res.clip)!;
      expect(clip).toBeDefined();
      expect(res.frame).toBeGreaterThanOrEqual(clip.start);
      expect(res.frame).toBeLessThan(clip.start + clip.count);
      expect(res.clipTime).toBeCloseTo((res.frame - clip.start) / db.fps, 9);
    }
  });

  it('accepts normalised queries of stride floats with --normalized', async () => {
    const r = seededRandom(5);
    const k = 9;
    const q = new Float32Array(k * db.stride);
    for (let n = 0; n < k; n++) {
      const i = Math.floor(r() * db.frameCount);
      for (let j = 0; j < db.dims; j++) q[n * db.stride + j] = db.features[i * db.stride + j] + 0.3 * gauss(r);
    }
    const file = writeF32(join(dir, 'norm.f32'), q);
    const ref = await search([dbFile, '--queries', file, '--normalized', '--method', 'brute', '--backend', 'js']);
    expect(ref.queries).toBe(k);
    for (const backend of BACKENDS) {
      expectSameResults(await search([dbFile, '--queries', file, '--normalized', '--method', 'kdtree', '--backend', backend]), ref, `${backend} kdtree normalized`);
      expectSameResults(await search([dbFile, '--queries', file, '--normalized', '--method', 'aabb', '--backend', backend]), ref, `${backend} aabb normalized`);
    }
    // The same rows as raw features find the same frames.
    const raw = new Float32Array(k * db.dims);
    for (let n = 0; n < k; n++) for (let j = 0; j < db.dims; j++) raw[n * db.dims + j] = q[n * db.stride + j] * db.scale[j] + db.mean[j];
    const rawRes = await search([dbFile, '--queries', writeF32(join(dir, 'denorm.f32'), raw), '--method', 'brute', '--backend', 'js']);
    expect(rawRes.results.map((x) => x.frame)).toEqual(ref.results.map((x) => x.frame));
  });

  it('filters by tags, agreeing across methods', async () => {
    const tag = db.tagNames.includes('walk') ? 'walk' : db.tagNames[0];
    const other = db.tagNames.find((t) => t !== tag)!;
    const extra = ['--require-tags', tag, '--exclude-tags', other];
    const ref = await search([dbFile, '--queries', rawFile, '--method', 'brute', '--backend', 'js', ...extra]);
    for (const res of ref.results) {
      const clip = db.clips.find((c) => c.name === res.clip)!;
      expect(clip.tags).toContain(tag);
      expect(clip.tags).not.toContain(other);
    }
    for (const backend of BACKENDS) {
      for (const method of ['kdtree', 'aabb', 'early'] as const) {
        expectSameResults(await search([dbFile, '--queries', rawFile, '--method', method, '--backend', backend, ...extra]), ref, `${backend} ${method} tags`);
      }
    }
    const bad = await runCliInProcess(['search', dbFile, '--queries', rawFile, '--require-tags', 'no-such-tag']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/unknown tag 'no-such-tag'/);
  });

  it('prints a readable table without --json', () => {
    const r = runCli(['search', dbFile, '--queries', rawFile, '--backend', 'wasm-scalar']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/query\s+frame\s+cost\s+clip\s+time/);
    expect(lines.length).toBe(1 + 14 + 1);
    expect(lines[lines.length - 1]).toMatch(/14 queries .* method kdtree, backend wasm-scalar/);
  });

  it('refuses a file whose size is not a multiple of the row width', async () => {
    const file = writeF32(join(dir, 'bad-width.f32'), new Float32Array(db.dims * 2 + 3));
    const r = await runCliInProcess(['search', dbFile, '--queries', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not a multiple of the row width/);
    expect(r.stderr).toContain(`${db.dims} floats (dims) = ${db.dims * 4} bytes`);
    const odd = join(dir, 'odd.bin');
    writeFileSync(odd, Buffer.alloc(db.dims * 4 + 2));
    const r2 = await runCliInProcess(['search', dbFile, '--queries', odd]);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/not a whole number of float32 values/);
    const empty = join(dir, 'empty.bin');
    writeFileSync(empty, Buffer.alloc(0));
    const r3 = await runCliInProcess(['search', dbFile, '--queries', empty]);
    expect(r3.code).toBe(1);
    expect(r3.stderr).toMatch(/empty/);
  });

  it('asks which width when the size fits both dims and stride rows', async () => {
    const n = db.dims * db.stride; // db.stride rows of dims, or db.dims rows of stride
    const q = new Float32Array(n);
    for (let i = 0; i < n; i++) q[i] = db.mean[i % db.dims];
    const file = writeF32(join(dir, 'ambiguous.f32'), q);
    const r = await runCliInProcess(['search', dbFile, '--queries', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--row-floats/);
    const ok = await search([dbFile, '--queries', file, '--row-floats', String(db.dims)]);
    expect(ok.queries).toBe(db.stride);
  });

  it('names the row holding NaN or Infinity', async () => {
    const q = rawQueries(db, 3).slice(0, 4 * db.dims);
    q[2 * db.dims + 5] = NaN;
    const r = await runCliInProcess(['search', dbFile, '--queries', writeF32(join(dir, 'nan.f32'), q)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/row 2\b.*NaN.*column 5/);
    const q2 = rawQueries(db, 3).slice(0, 4 * db.dims);
    q2[0] = Infinity;
    const r2 = await runCliInProcess(['search', dbFile, '--queries', writeF32(join(dir, 'inf.f32'), q2), '--json']);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/row 0\b.*Infinity/);
    expect(JSON.parse(r2.stdout).error.message).toMatch(/row 0/);
  });

  it('explains usage mistakes with exit code 2', async () => {
    const window = runCli(['search', dbFile, '--queries', rawFile, '--method', 'window']);
    expect(window.code).toBe(2);
    expect(window.stderr).toMatch(/--method window needs --window/);
    const method = await runCliInProcess(['search', dbFile, '--queries', rawFile, '--method', 'fastest']);
    expect(method.code).toBe(2);
    expect(method.stderr).toMatch(/unknown --method "fastest"/);
    const backend = await runCliInProcess(['search', dbFile, '--queries', rawFile, '--backend', 'gpu']);
    expect(backend.code).toBe(2);
    expect(backend.stderr).toMatch(/unknown --backend "gpu"/);
    expect((await runCliInProcess(['search', dbFile])).stderr).toMatch(/--queries FILE is required/);
    expect((await runCliInProcess(['search', '--queries', rawFile])).code).toBe(2);
    const spec = await runCliInProcess(['search', dbFile, '--queries', rawFile, '--window', '10-20']);
    expect(spec.code).toBe(2);
    expect(spec.stderr).toMatch(/not START:END/);
    expect((await runCliInProcess(['search', dbFile, '--queries', rawFile, '--window', '20:10'])).code).toBe(2);
    const probes = await runCliInProcess(['search', dbFile, '--queries', rawFile, '--method', 'kdtree', '--probes', '3']);
    expect(probes.code).toBe(2);
    expect(probes.stderr).toMatch(/--probes applies to --method cluster or cluster-u8, not kdtree/);
    expect((await runCliInProcess(['search', dbFile, '--queries', rawFile, '--method', 'cluster', '--probes', '0'])).code).toBe(2);
  });

  it('--probes makes the clustered search approximate, and says so', async () => {
    const got = await search([dbFile, '--queries', rawFile, '--method', 'cluster-u8', '--probes', '2']) as SearchJson & { probes?: number; approximate?: boolean };
    expect(got.probes).toBe(2);
    expect(got.approximate).toBe(true);
    for (const r of got.results) expect(r.frame).toBeGreaterThanOrEqual(0);
    const text = await runCliInProcess(['search', dbFile, '--queries', rawFile, '--method', 'cluster-u8', '--probes', '2']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/method cluster-u8 \(approximate: 2 probes\)/);
  });

  it('reports missing files and an empty candidate window as errors', async () => {
    const missing = runCli(['search', join(dir, 'nope.mmdb'), '--queries', rawFile]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no such file/);
    const noQueries = await runCliInProcess(['search', dbFile, '--queries', join(dir, 'nope.f32')]);
    expect(noQueries.code).toBe(1);
    expect(noQueries.stderr).toMatch(/cannot read query file .*no such file/);
    const outside = await runCliInProcess(['search', dbFile, '--queries', rawFile, '--method', 'window', '--window', `${db.frameCount + 10}:${db.frameCount + 20}`]);
    expect(outside.code).toBe(1);
    expect(outside.stderr).toMatch(/candidate set is empty/);
  });
});

describe('motionmatch search (hostile query files)', () => {
  const dir = tempDir('mm-search-hostile-');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const dbFile = join(dir, 'builtin.mmdb');
  let db: Database;
  const fast = { timeout: 10_000 };
  const run = (args: string[]) => runCli(['search', dbFile, ...args], { timeoutMs: 10_000 });
  // In this process where a blocked read is not the failure to catch (devices and FIFOs keep a
  // process of their own, which the time limit can kill).
  const runHere = (args: string[]) => runCliInProcess(['search', dbFile, ...args], { timeoutMs: 10_000 });

  beforeAll(async () => {
    const b = await runCliInProcess(['build', '--builtin', '--out', dbFile, '--json']);
    if (b.code !== 0) throw new Error(`build failed: ${b.stderr}`);
    db = readDatabaseFile(dbFile);
  });

  it('refuses huge finite values with exit 1 and a message naming the dimension, never frame -1 and cost null', fast, async () => {
    const raw = new Float32Array(2 * db.dims).fill(0);
    for (let j = 0; j < db.dims; j++) raw[db.dims + j] = db.mean[j];
    raw[db.dims + 4] = 1e38;
    const r = await runHere(['--queries', writeF32(join(dir, 'huge.f32'), raw), '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/query file '.*huge\.f32': query 1 \[4\] is 1e\+38/);
    expect(JSON.parse(r.stdout).error.type).toBe('RangeError');
    // Within float32 once normalised, but every cost overflows.
    const norm = new Float32Array(db.stride);
    norm[2] = 3e19;
    for (const backend of ['js', 'wasm-simd']) {
      const o = await runHere(['--queries', writeF32(join(dir, 'far.f32'), norm), '--normalized', '--backend', backend]);
      expect(o.code).toBe(1);
      expect(o.stderr).toMatch(/query 0 \[2\] is 3e\+19: the query is too far from every allowed frame for a float32 cost/);
    }
    // Near the limit there is still an answer: a frame and a finite cost.
    norm[2] = 1e19;
    const ok = await search([dbFile, '--queries', writeF32(join(dir, 'near.f32'), norm), '--normalized']);
    expect(ok.results[0].frame).toBeGreaterThanOrEqual(0);
    expect(ok.results[0].cost).toBeGreaterThan(9e37);
  });

  it('refuses devices, FIFOs and directories as query files without blocking', fast, () => {
    if (existsSync('/dev/zero')) {
      const z = run(['--queries', '/dev/zero']);
      expect(z.code).toBe(1);
      expect(z.stderr).toMatch(/cannot read query file '\/dev\/zero': it is a device, not a regular file/);
    }
    const fifo = join(dir, 'queries.fifo');
    const made = spawnSync('mkfifo', [fifo]);
    if (made.status === 0) {
      const f = run(['--queries', fifo]);
      expect(f.code).toBe(1);
      expect(f.stderr).toMatch(/it is a FIFO \(named pipe\), not a regular file/);
    } else {
      console.log('mkfifo unavailable; FIFO case skipped');
    }
    const d = run(['--queries', dir]);
    expect(d.code).toBe(1);
    expect(d.stderr).toMatch(/it is a directory/);
  });

  it('refuses a query file above the size limit before reading it', fast, async () => {
    const big = join(dir, 'big.f32');
    writeFileSync(big, '');
    truncateSync(big, MAX_QUERY_FILE_BYTES + db.dims * 4); // sparse: nothing is written
    const r = await runHere(['--queries', big]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is larger than the 64.0 MiB a query file may have/);
  });
});

describe.skipIf(!HAS_MOCAP)('motionmatch search (real mocap, mirrored)', () => {
  if (!HAS_MOCAP) console.log(MOCAP_SKIP_REASON);
  const dir = tempDir('mm-search-real-');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const dbFile = join(dir, 'real.mmdb');
  let db: Database;

  beforeAll(async () => {
    const files = ['dataset-2_walk_normal_001.bvh', 'dataset-2_run_normal_040.bvh', 'dataset-2_walk-turn-left_normal_004.bvh'].map((f) => join(MOCAP_DIR, 'core', f));
    const b = await runCliInProcess(['build', ...files, '--mirror', '--out', dbFile, '--json']);
    if (b.code !== 0) throw new Error(`build failed: ${b.stderr}`);
    db = readDatabaseFile(dbFile);
  });

  it('every backend and method agrees with JS brute force', async () => {
    const file = writeF32(join(dir, 'q.f32'), rawQueries(db, 23));
    await agreementMatrix(dbFile, file, [], `10:200,${db.frameCount - 300}:${db.frameCount - 40}`);
  });
});
