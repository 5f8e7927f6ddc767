/**
 * WASM SIMD brute force next to a native SSE loop (bench/native/brute.c, compiled here with the
 * system C compiler) on the same database and queries: the "within 10% of native" check.
 * Usage: node dist/bench/native-compare.js [--db FILE] [--queries N]   (default: the real bench set, mirrored)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDatabase } from '../src/database/build.js';
import { loadBvhSources, builtinSources } from '../src/database/sources-node.js';
import { readDatabaseFile } from '../src/database/mmdb-node.js';
import { Matcher } from '../src/search/matcher.js';
import { nodePackageRoot } from '../src/search/wasm.js';
import { createRandom, gaussian } from '../src/util/prng.js';

/** Mean µs per query of bench/native/brute.c, compiled and run in a temporary folder (removed after). */
function timeNativeBrute(root: string, features: Float32Array, rows: number, stride: number, queries: Float32Array, n: number): number {
  const dir = mkdtempSync(join(tmpdir(), 'mm-native-'));
  try {
    const data = join(dir, 'data.bin'), exe = join(dir, 'brute');
    const header = new Int32Array([rows, stride, n]);
    writeFileSync(data, Buffer.concat([Buffer.from(header.buffer), Buffer.from(features.buffer, features.byteOffset, rows * stride * 4), Buffer.from(queries.buffer)]));
    execFileSync('cc', ['-O3', '-march=native', '-ffp-contract=off', '-o', exe, join(root, 'bench', 'native', 'brute.c')]);
    return Number(execFileSync(exe, [data], { encoding: 'utf8' }).trim().split(' ')[0]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
  const root = await nodePackageRoot();
  const mocap = join(root, '..', 'shared', 'data', 'mocap', 'bench');
  const dbFile = opt('--db');
  const db = dbFile ? readDatabaseFile(dbFile) : existsSync(mocap) ? buildDatabase(loadBvhSources([mocap]), { mirror: true }) : buildDatabase(builtinSources());
  const n = Number(opt('--queries') ?? 300);
  const S = db.stride, rand = createRandom(7);
  const queries = new Float32Array(n * S);
  for (let i = 0; i < n; i++) {
    const f = Math.floor(rand() * db.frameCount);
    for (let k = 0; k < db.dims; k++) queries[i * S + k] = db.features[f * S + k] + 0.1 * gaussian(rand);
  }
  const nativeUs = timeNativeBrute(root, db.features, db.frameCount, S, queries, n);
  // WASM SIMD brute force over all rows (candidates included, as the native loop) via a full-range window.
  const matcher = await Matcher.create(db, { backend: 'wasm-simd' });
  const candidates = db.candidates.slice();
  db.candidates.fill(1);
  matcher.load(db);
  db.candidates.set(candidates);
  const res = { frame: -1, clip: -1, clipTime: 0, cost: 0 };
  for (let i = 0; i < Math.min(n, 20); i++) matcher.search(queries.subarray(i * S, (i + 1) * S), { method: 'brute', normalized: true }, res);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) matcher.search(queries.subarray(i * S, (i + 1) * S), { method: 'brute', normalized: true }, res);
  const wasmUs = ((performance.now() - t0) * 1000) / n;
  const gbps = (db.frameCount * S * 4) / (wasmUs * 1e-6) / 1e9;
  const out = { rows: db.frameCount, stride: S, queries: n, nativeUsPerQuery: nativeUs, wasmSimdUsPerQuery: wasmUs, ratio: wasmUs / nativeUs, wasmGBps: gbps };
  console.log(`| rows | native SSE us/query | WASM SIMD us/query | WASM / native | WASM GB/s |\n|---|---|---|---|---|\n| ${out.rows} | ${nativeUs.toFixed(1)} | ${wasmUs.toFixed(1)} | ${out.ratio.toFixed(2)} | ${gbps.toFixed(1)} |`);
  console.log(JSON.stringify(out));
}

main().catch((e) => { console.error(`native-compare: ${(e as Error).message}`); process.exitCode = 1; });
