#!/usr/bin/env node
// Search micro-benchmark (measures, asserts nothing). Needs `npm run build` (dist/ and build/).
// Usage: node scripts/bench-search.mjs [--rows 41000] [--dims 27] [--queries 300] [--leaf 16] [--threads 2]
// (--threads N also times a 2000-query batch on one thread vs a MatcherPool of N workers)
// Prints the median microseconds per query for each backend / method on two synthetic sets:
//   gaussian: i.i.d. N(0, 1) features (hard for trees), queries = database rows + N(0, sigma^2) noise;
//   manifold: a smooth 4-dimensional manifold embedded in `dims` dims (closer to mocap features).
import { Matcher } from '../dist/src/search/matcher.js';
import { MatcherPool } from '../dist/src/search/pool/pool.js';
import { parseToolArgs } from '../dist/src/apps/args.js';

const USAGE = 'usage: node scripts/bench-search.mjs [--rows 41000] [--dims 27] [--queries 300] [--leaf 16] [--threads 2]';
const { values } = parseToolArgs('bench-search', process.argv.slice(2), {
  rows: { type: 'string' }, dims: { type: 'string' }, queries: { type: 'string' }, leaf: { type: 'string' }, threads: { type: 'string' }, help: { type: 'boolean', short: 'h' },
}, USAGE);
if (values.help) { console.log(USAGE); process.exit(0); }
const arg = (name, def) => (values[name] === undefined ? def : Number(values[name]));
const ROWS = arg('rows', 41000);
const DIMS = arg('dims', 27);
const QUERIES = arg('queries', 300);
const LEAF = arg('leaf', undefined);
const THREADS = arg('threads', 0);
const STRIDE = (DIMS + 3) & ~3;

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const gauss = (r) => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());

function makeDb(raw) {
  const features = new Float32Array(ROWS * STRIDE);
  for (let i = 0; i < ROWS; i++) for (let j = 0; j < DIMS; j++) features[i * STRIDE + j] = raw[i * DIMS + j];
  return {
    frameCount: ROWS, dims: DIMS, stride: STRIDE, fps: 30, features, rawFeatures: features,
    mean: new Float32Array(STRIDE), scale: new Float32Array(STRIDE).fill(1),
    candidates: new Uint8Array(ROWS).fill(1), tagBits: new Uint32Array(ROWS), tagNames: [],
    clips: [{ name: 'all', source: '', start: 0, count: ROWS, loop: false, mirrored: false, tags: [] }],
  };
}

function gaussianSet(r) {
  const raw = new Float32Array(ROWS * DIMS);
  for (let i = 0; i < raw.length; i++) raw[i] = gauss(r);
  return raw;
}

// Random Fourier map of a 4-d latent walk: smooth, low intrinsic dimension, unit-variance dims.
function manifoldSet(r) {
  const L = 4;
  const W = Array.from({ length: DIMS * L }, () => gauss(r) * 1.5);
  const B = Array.from({ length: DIMS }, () => r() * 2 * Math.PI);
  const raw = new Float32Array(ROWS * DIMS);
  const t = new Float64Array(L);
  for (let i = 0; i < ROWS; i++) {
    // clips of 300 frames: a smooth random walk in latent space, restarted per clip
    if (i % 300 === 0) for (let l = 0; l < L; l++) t[l] = r() * 4 - 2;
    for (let l = 0; l < L; l++) t[l] += 0.03 * gauss(r);
    for (let j = 0; j < DIMS; j++) {
      let a = B[j];
      for (let l = 0; l < L; l++) a += W[j * L + l] * t[l];
      raw[i * DIMS + j] = Math.SQRT2 * Math.sin(a) + 0.01 * gauss(r);
    }
  }
  return raw;
}

function queries(raw, sigma, r) {
  const q = new Float32Array(QUERIES * DIMS);
  for (let k = 0; k < QUERIES; k++) {
    const i = Math.floor(r() * ROWS);
    for (let j = 0; j < DIMS; j++) q[k * DIMS + j] = raw[i * DIMS + j] + sigma * gauss(r);
  }
  return q;
}

function median(a) {
  const s = [...a].sort((x, y) => x - y);
  return s[s.length >> 1];
}

function timeMethod(m, qs, method, n) {
  const times = [];
  const out = { frame: 0, clip: 0, clipTime: 0, cost: 0 };
  const q = new Float32Array(DIMS);
  // warm-up
  for (let k = 0; k < Math.min(n, 20); k++) m.search(qs.subarray(k * DIMS, (k + 1) * DIMS), { method }, out);
  for (let k = 0; k < n; k++) {
    q.set(qs.subarray(k * DIMS, (k + 1) * DIMS));
    const t0 = performance.now();
    m.search(q, { method, normalized: true }, out);
    times.push((performance.now() - t0) * 1000);
  }
  return median(times);
}

const r = rng(42);
const sets = { gaussian: gaussianSet(r), manifold: manifoldSet(r) };
for (const [name, raw] of Object.entries(sets)) {
  const db = makeDb(raw);
  const js = await Matcher.create(db, { backend: 'js' });
  const scalar = await Matcher.create(db, { backend: 'wasm-scalar' });
  const simd = await Matcher.create(db, { backend: 'wasm-simd', kdLeafSize: LEAF });
  console.log(`\n${name}: ${ROWS} x ${DIMS} (stride ${STRIDE}); build (simd matcher): aabb ${simd.buildStats.aabbMs.toFixed(1)} ms, kdtree ${simd.buildStats.kdtreeMs.toFixed(1)} ms (${simd.buildStats.kdNodes} nodes, depth ${simd.buildStats.kdDepth})`);
  for (const sigma of [0.1, 0.5]) {
    const qs = queries(raw, sigma, r);
    const row = {
      'js brute': timeMethod(js, qs, 'brute', Math.min(QUERIES, 60)),
      'wasm-scalar brute': timeMethod(scalar, qs, 'brute', Math.min(QUERIES, 100)),
      'wasm-simd brute': timeMethod(simd, qs, 'brute', QUERIES),
      'wasm-simd early': timeMethod(simd, qs, 'early', QUERIES),
      'wasm-simd aabb': timeMethod(simd, qs, 'aabb', QUERIES),
      'wasm-simd kdtree': timeMethod(simd, qs, 'kdtree', QUERIES),
      'js kdtree': timeMethod(js, qs, 'kdtree', QUERIES),
    };
    const base = row['wasm-simd brute'];
    console.log(`  sigma ${sigma}: median us/query`);
    for (const [k, v] of Object.entries(row)) console.log(`    ${k.padEnd(18)} ${v.toFixed(1).padStart(9)}   (${(base / v).toFixed(2)}x vs simd brute)`);
  }
}

if (THREADS > 0) {
  const raw = sets.manifold;
  const db = makeDb(raw);
  const single = await Matcher.create(db, { backend: 'wasm-simd' });
  const pool = await MatcherPool.create(db, { threads: THREADS });
  const k = 2000;
  const qs = queries(raw, 0.3, r);
  const batch = new Float32Array(k * DIMS);
  for (let i = 0; i < k; i++) batch.set(qs.subarray((i % QUERIES) * DIMS, (i % QUERIES + 1) * DIMS), i * DIMS);
  console.log(`\nbatch of ${k} (manifold, sigma 0.3): ms per batch, median of 5`);
  for (const method of ['brute', 'kdtree']) {
    const t1 = [];
    const tp = [];
    for (let rep = 0; rep < 5; rep++) {
      let t0 = performance.now();
      single.searchBatch(batch, k, { method, normalized: true });
      t1.push(performance.now() - t0);
      t0 = performance.now();
      await pool.searchBatch(batch, k, { method, normalized: true });
      tp.push(performance.now() - t0);
    }
    console.log(`  ${method.padEnd(7)} 1 thread ${median(t1).toFixed(1)} ms   pool(${THREADS}) ${median(tp).toFixed(1)} ms   (${(median(t1) / median(tp)).toFixed(2)}x)`);
  }
  await pool.close();
}
