import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, runCliInProcess, tempDir, HAS_MOCAP, MOCAP_DIR, MOCAP_SKIP_REASON } from '../helpers/cli.js';
import { retimeSchedule, retimeClip, enlargeSources, resolveMocapDir } from '../../src/bench/datasets.js';
import { candidateRuns, costsAgree, median, percentile, MIN_QUERIES } from '../../src/bench/search-bench.js';
import { escapeXml } from '../../src/bench/svg-chart.js';
import type { Clip } from '../../src/anim/clip.js';
import type { Skeleton } from '../../src/anim/skeleton.js';
import type { Database } from '../../src/database/database.js';

/** Temporary folders of this file, removed when it ends (reports, charts, empty mocap folders). */
const scratchDirs: string[] = [];
function scratchDir(prefix: string): string {
  const dir = tempDir(prefix);
  scratchDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

// Speed is reported, never asserted: these tests check shapes, agreement and files only.

interface Row {
  set: string; method: string; backend: string; frames: number; dims: number; sigma: number; queries: number;
  medianUs: number; p99Us: number; speedupVsJsBrute: number; mismatches: number; checked: number; reference: boolean; capped: boolean;
}
interface BatchRow {
  set: string; method: string; backend: string; sigma: number; mode: string; threads: number; batchSize: number;
  queriesPerSecond: number; medianBatchMs: number; mismatches: number; checked: number;
}
interface Report {
  machine: { cpu: string; cores: number; node: string; v8: string; os: string; simd: boolean; sharedMemory: boolean; date: string };
  config: Record<string, unknown>;
  rows: Row[];
  batch: BatchRow[];
  build: Record<string, { frames: number; kdtreeMs: number; aabbMs: number; databaseMs: number; kdNodes: number }>;
  skipped: Array<{ set: string; reason: string }>;
  notes: string[];
  seconds: number;
}

/** Balanced tags, quoted attributes, escaped text: enough to call the chart well-formed XML. */
function expectWellFormedSvg(svg: string): void {
  expect(svg.startsWith('<svg')).toBe(true);
  expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = tag.exec(svg)) !== null) {
    const between = svg.slice(last, m.index);
    expect(between, `stray markup before offset ${m.index}`).not.toMatch(/[<>]/);
    expect(between).not.toMatch(/&(?!amp;|lt;|gt;|quot;|apos;)/);
    last = tag.lastIndex;
    const [, closing, name, , selfClosing] = m;
    if (closing) expect(stack.pop(), `closing </${name}>`).toBe(name);
    else if (!selfClosing) stack.push(name);
  }
  expect(svg.slice(last).trim()).toBe('');
  expect(stack).toEqual([]);
}

function expectReportShape(r: Report): void {
  for (const k of ['cpu', 'node', 'v8', 'os', 'date'] as const) expect(typeof r.machine[k]).toBe('string');
  expect(r.machine.cores).toBeGreaterThanOrEqual(1);
  expect(typeof r.machine.simd).toBe('boolean');
  expect(typeof r.machine.sharedMemory).toBe('boolean');
  expect(Number.isNaN(Date.parse(r.machine.date))).toBe(false);
  expect(Array.isArray(r.notes)).toBe(true);
  for (const row of r.rows) {
    for (const k of ['medianUs', 'p99Us', 'speedupVsJsBrute'] as const) {
      expect(Number.isFinite(row[k]), `${k} of ${row.backend} ${row.method}`).toBe(true);
      expect(row[k]).toBeGreaterThan(0);
    }
    expect(row.p99Us).toBeGreaterThanOrEqual(row.medianUs);
    expect(row.dims).toBeGreaterThan(0);
    expect(row.frames).toBeGreaterThan(0);
    expect(row.queries).toBeGreaterThan(0);
    expect(row.checked).toBeGreaterThan(0);
    expect(row.mismatches, `${row.set} ${row.sigma} ${row.backend} ${row.method}`).toBe(0);
  }
  for (const b of r.batch) {
    expect(b.queriesPerSecond).toBeGreaterThan(0);
    expect(b.medianBatchMs).toBeGreaterThan(0);
    expect(b.mismatches, `${b.set} ${b.sigma} ${b.mode}(${b.threads}) ${b.method}`).toBe(0);
    expect(b.checked).toBe(b.batchSize);
  }
}

describe('motionmatch bench --quick (built-in database)', () => {
  const dir = scratchDir('mm-bench-');
  const jsonFile = join(dir, 'results', 'quick.json');
  let run: ReturnType<typeof runCli>;
  let report: Report;
  beforeAll(() => {
    // Shorter time budgets than --quick's (per row 0.05 s, batch rows 0.02 s): a row still checks every
    // query it times. The reference (JS brute force) has 2 s, which it never needs for 30 queries: a
    // batch searches all 30 and is checked against the reference's answers, and with 0.2 s a loaded
    // machine (the whole suite with its browser tests) stopped the reference after 20.
    run = runCli(['bench', '--quick', '--queries', '30', '--row-seconds', '0.05', '--ref-seconds', '2', '--batch-seconds', '0.02', '--json', jsonFile], { timeoutMs: 300_000 });
    if (run.code === 0) report = JSON.parse(readFileSync(jsonFile, 'utf8')) as Report;
  });

  it('exits 0 and prints Markdown tables', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\| set \| frames \| sigma \| backend \| method \| queries \| median µs \| p99 µs \| × JS brute \| mismatches \|/);
    expect(run.stdout).toContain('## Batch throughput');
    expect(run.stdout).toContain(jsonFile);
  });

  it('writes the JSON report: every backend x method x sigma, zero mismatches', () => {
    expectReportShape(report);
    expect(report.config.quick).toBe(true);
    const sigmas = [0.1, 0.5];
    expect([...new Set(report.rows.map((r) => r.sigma))]).toEqual(sigmas);
    expect(new Set(report.rows.map((r) => r.set))).toEqual(new Set(['builtin']));
    for (const sigma of sigmas) {
      for (const backend of ['js', 'wasm-scalar', 'wasm-simd']) {
        for (const method of ['brute', 'early', 'window', 'aabb', 'kdtree']) {
          const rows = report.rows.filter((r) => r.sigma === sigma && r.backend === backend && r.method === method);
          expect(rows.length, `${sigma} ${backend} ${method}`).toBe(1);
        }
      }
      const ref = report.rows.filter((r) => r.sigma === sigma && r.reference);
      expect(ref.map((r) => [r.backend, r.method, r.speedupVsJsBrute])).toEqual([['js', 'brute', 1]]);
    }
    // quick: every row times at least MIN_QUERIES of the 30 queries (its time budget may end it early on a
    // loaded machine) and checks every query it timed against the reference
    for (const r of report.rows) {
      expect(r.queries).toBeGreaterThanOrEqual(MIN_QUERIES);
      expect(r.queries).toBeLessThanOrEqual(30);
      expect(r.checked).toBe(r.queries);
    }
    const b = report.build.builtin;
    expect(b.frames).toBe(report.rows[0].frames);
    expect(b.kdtreeMs).toBeGreaterThan(0);
    expect(b.aabbMs).toBeGreaterThan(0);
    expect(b.kdNodes).toBeGreaterThan(0);
  });

  it('reports the opt-in approximate searches beside their recall, apart from the exact rows', () => {
    type Approx = { sigma: number; method: string; probes?: number; recallAt1: number; checked: number; medianUs: number; explainedVariance?: number };
    const a = (report as unknown as { approximate: Approx[] }).approximate;
    // Per sigma: the PCA tree, then the clustered search with 1, 4 and 16 probes.
    expect(a.map((x) => `${x.sigma} ${x.method} ${x.probes ?? ''}`)).toEqual([0.1, 0.5].flatMap((s) => [`${s} pca-kdtree `, `${s} cluster-u8 1`, `${s} cluster-u8 4`, `${s} cluster-u8 16`]));
    for (const x of a) {
      expect(x.recallAt1).toBeGreaterThan(0.3);
      expect(x.recallAt1).toBeLessThanOrEqual(1);
      expect(x.checked).toBeGreaterThan(0);
      expect(x.medianUs).toBeGreaterThan(0);
      if (x.method === 'pca-kdtree') expect(x.explainedVariance).toBeGreaterThan(0.5);
    }
    expect(report.rows.some((r) => r.method.includes('approx'))).toBe(false);
    expect(run.stdout).toContain('## Approximate search');
    expect(run.stdout).toMatch(/cluster-u8 \| wasm-simd \| probes 4 of \d+ clusters/);
  });

  it('reports bytes per row and the share of rows re-scored for the compact and clustered methods', () => {
    type Compact = { method: string; bytesPerRow: number; rowsPerQuery?: number; rescoredPerQuery?: number; rescoredShare?: number; mismatches: number };
    const rows = report.rows as unknown as Compact[];
    for (const method of ['brute-u8', 'brute-f16', 'aabb-u8', 'kdtree-u8', 'cluster', 'cluster-u8']) {
      const mine = rows.filter((r) => r.method === method);
      expect(mine.length, method).toBe(6); // 3 backends x 2 sigmas
      for (const r of mine) {
        expect(r.mismatches).toBe(0);
        expect(r.bytesPerRow).toBe(method.endsWith('u8') ? 32 : method === 'brute-f16' ? 64 : 112);
        expect(r.rowsPerQuery).toBeGreaterThan(0);
        expect(r.rescoredShare).toBeGreaterThanOrEqual(0);
        expect(r.rescoredShare).toBeLessThanOrEqual(1);
        expect(r.rescoredPerQuery! / r.rowsPerQuery!).toBeCloseTo(r.rescoredShare!, 12);
      }
      // Identical work on every backend: the thresholds are the same float64 arithmetic.
      for (const sigma of [0.1, 0.5]) {
        const bySigma = (rows as unknown as Array<Compact & { sigma: number; queries: number }>).filter((r) => r.method === method && r.sigma === sigma && r.queries === 40);
        expect(new Set(bySigma.map((r) => r.rescoredPerQuery)).size, `${method} ${sigma}`).toBeLessThanOrEqual(1);
      }
    }
    expect(rows.find((r) => r.method === 'kdtree')!.rescoredShare).toBeUndefined();
    expect(run.stdout).toMatch(/\| bytes\/row \| rows looked at \/ re-scored per query \|/);
    expect(run.stdout).toMatch(/\| 8-bit bytes\/row \|/);
  });

  it('adds the runtime section: controller step cost and simulation scaling', () => {
    const rt = (report as unknown as { runtime: { controller: Array<{ usPerStep: number; joints: number }>; simulation: Array<{ agents: number; workers: number; agentStepsPerSec: number }> } }).runtime;
    expect(rt.controller).toHaveLength(5);
    const extra = rt.controller.slice(3) as unknown as Array<{ overlay: string | null; terrain: string | null }>;
    expect(extra.map((c) => [c.overlay, c.terrain])).toEqual([['idle on upper body (spine_01) falloff 2', null], [null, 'hills (seed 1)']]);
    for (const c of rt.controller) { expect(c.joints).toBe(22); expect(Number.isFinite(c.usPerStep) && c.usPerStep > 0).toBe(true); }
    expect(rt.simulation.map((x) => x.workers)).toEqual([1, 2]);
    for (const x of rt.simulation) expect(x.agentStepsPerSec).toBeGreaterThan(0);
    expect(run.stdout).toContain('## Runtime');
  });

  it('times searchBatch and MatcherPool with 1 and 2 threads', () => {
    const modes = new Set(report.batch.map((b) => `${b.mode}/${b.threads}/${b.method}/${b.sigma}`));
    for (const sigma of [0.1, 0.5]) {
      for (const method of ['brute', 'kdtree']) {
        for (const m of ['searchBatch/1', 'pool/1', 'pool/2']) expect(modes.has(`${m}/${method}/${sigma}`), `${m} ${method} ${sigma}`).toBe(true);
      }
    }
  });

  it('writes a well-formed SVG chart beside the JSON', () => {
    const svgFile = jsonFile.replace(/\.json$/, '.svg');
    expect(existsSync(svgFile)).toBe(true);
    const svg = readFileSync(svgFile, 'utf8');
    expectWellFormedSvg(svg);
    for (const label of ['brute', 'early', 'window', 'aabb', 'kdtree', 'wasm-simd', 'queries/s']) expect(svg).toContain(label);
  });
});

describe('motionmatch bench options', () => {
  const dir = scratchDir('mm-bench-opts-');

  it('--json without a file prints only JSON on stdout', () => {
    // (the search section alone: the runtime section's JSON is the first describe's; 1.7 against 4.0 s of CPU)
    const r = runCli(['bench', '--quick', '--queries', '8', '--noise', '0.3', '--methods', 'kdtree,brute', '--backends', 'js,auto', '--threads', '0', '--sections', 'search', '--json']);
    expect(r.code).toBe(0);
    const rep = JSON.parse(r.stdout) as Report;
    expectReportShape(rep);
    expect(rep.rows.map((x) => `${x.backend} ${x.method}`).sort()).toEqual(['js brute', 'js kdtree', `${rep.machine.simd ? 'wasm-simd' : 'wasm-scalar'} brute`, `${rep.machine.simd ? 'wasm-simd' : 'wasm-scalar'} kdtree`].sort());
    expect(rep.batch.every((b) => b.mode === 'searchBatch')).toBe(true);
  });

  it('--db FILE benchmarks a given database', async () => {
    const dbFile = join(dir, 'mine.mmdb');
    expect((await runCliInProcess(['build', '--builtin', '--out', dbFile])).code).toBe(0);
    const jsonFile = join(dir, 'db.json');
    // --sections search: the runtime section runs on the built-in database whatever --db says (2.4 s;
    // checked on the --quick run above).
    const r = await runCliInProcess(['bench', '--db', dbFile, '--quick', '--queries', '8', '--noise', '0.2', '--methods', 'aabb', '--backends', 'wasm-scalar', '--threads', '1', '--sections', 'search', '--json', jsonFile]);
    expect(r.code).toBe(0);
    const rep = JSON.parse(readFileSync(jsonFile, 'utf8')) as Report;
    expectReportShape(rep);
    expect(Object.keys(rep.build)).toEqual(['mine']);
    expect(rep.rows.map((x) => `${x.backend} ${x.method}`)).toEqual(['js brute', 'wasm-scalar aabb']);
    expect(rep.batch.map((b) => `${b.mode}/${b.threads}/${b.method}`).sort()).toEqual(['pool/1/aabb', 'searchBatch/1/aabb']);
    expectWellFormedSvg(readFileSync(join(dir, 'db.svg'), 'utf8'));
  });

  it('rejects bad options with exit code 2', async () => {
    for (const args of [['--methods', 'fastest'], ['--sets', 'everything'], ['--db', 'x.mmdb', '--sets', 'builtin'], ['--noise', 'abc'], ['--queries', '0'], ['--threads', '0,2'], ['extra']]) {
      const r = await runCliInProcess(['bench', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/usage: motionmatch bench/);
    }
  });

  it('checks where --json FILE goes before benchmarking: its folder made, or one line and exit 1 at once', () => {
    // Its own process with a time limit: the folder under /proc once hung mkdirSync's recursive mode
    // for good, after the whole benchmark, deaf to SIGTERM.
    const cases: Array<[string, RegExp]> = [
      ['/proc/motionmatch-bench/x.json', /cannot make the bench report's folder '\/proc\/motionmatch-bench': cannot make '\/proc\/motionmatch-bench' \(the file system there takes no new folders\)/],
      [join(dir, 'file.json', 'x.json'), /cannot make the bench report's folder '.*file\.json': '.*file\.json' is not a folder/],
    ];
    writeFileSync(join(dir, 'file.json'), '{}');
    for (const [out, message] of cases) {
      const t0 = performance.now();
      const r = runCli(['bench', '--quick', '--json', out], { timeoutMs: 30_000 });
      expect(r.code, `${out}: ${r.stderr}`).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
      expect(performance.now() - t0).toBeLessThan(20_000);
    }
    const made = join(dir, 'made', 'deeper', 'b.json');
    expect(runCli(['bench', '--quick', '--sections', 'search', '--methods', 'brute', '--backends', 'js', '--threads', '0', '--queries', '4', '--noise', '0.1', '--json', made]).code).toBe(0);
    expect(existsSync(made)).toBe(true);
  });

  it('fails clearly for a missing --db file or an empty --mocap folder', async () => {
    const r = await runCliInProcess(['bench', '--db', join(dir, 'nope.mmdb'), '--quick']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no such file/);
    const m = await runCliInProcess(['bench', '--mocap', dir, '--sets', 'real', '--quick']);
    expect(m.code).toBe(1);
    expect(m.stderr).toMatch(/no \.bvh files/);
  });
});

describe.skipIf(!HAS_MOCAP)('motionmatch bench on real mocap (small folder)', () => {
  if (!HAS_MOCAP) console.log(MOCAP_SKIP_REASON);
  it('builds the real and re-timed 4x sets from --mocap and agrees with JS brute force', async () => {
    const dir = scratchDir('mm-bench-real-');
    const jsonFile = join(dir, 'real.json');
    // --sections search: the runtime section runs on the built-in database, not on these sets.
    const r = await runCliInProcess(['bench', '--mocap', join(MOCAP_DIR, 'core'), '--sets', 'real,real4x', '--quick', '--queries', '12',
      '--methods', 'brute,aabb,kdtree', '--threads', '2', '--sections', 'search', '--json', jsonFile], { timeoutMs: 300_000 });
    expect(r.code, r.stderr).toBe(0);
    const rep = JSON.parse(readFileSync(jsonFile, 'utf8')) as Report;
    expectReportShape(rep);
    expect(rep.skipped).toEqual([]);
    const real = rep.build.real.frames;
    const x4 = rep.build.real4x.frames;
    expect(x4 / real).toBeGreaterThan(3.8);
    expect(x4 / real).toBeLessThan(4.3);
    expect(new Set(rep.rows.map((x) => x.set))).toEqual(new Set(['real', 'real4x']));
  });
});

describe('re-timed resampling (enlarged sets)', () => {
  const J = 2;
  function rampClip(frames: number, loop = false): Clip {
    const rot = new Float64Array(frames * J * 4);
    const pos = new Float64Array(frames * J * 3);
    for (let f = 0; f < frames; f++) {
      const a = 0.05 * f; // rotation about y grows linearly with the frame
      for (let j = 0; j < J; j++) {
        rot.set([0, Math.sin(a / 2), 0, Math.cos(a / 2)], (f * J + j) * 4);
        pos.set([f, j, 0], (f * J + j) * 3);
      }
    }
    return { name: 'ramp', source: 'test', fps: 30, frameCount: frames, rotations: rot, translations: pos, loop, tags: ['t'] };
  }

  it('schedules the original plus distinct speeds (durations x0.85..1.15) and sub-frame phases', () => {
    const s = retimeSchedule(16);
    expect(s.length).toBe(16);
    expect(s[0]).toEqual({ speed: 1, phase: 0 });
    for (const v of s.slice(1)) {
      expect(v.speed).toBeGreaterThanOrEqual(0.86);
      expect(v.speed).toBeLessThanOrEqual(1.18);
      expect(v.phase).toBeGreaterThanOrEqual(0);
      expect(v.phase).toBeLessThan(1);
    }
    expect(new Set(s.map((v) => `${v.speed}/${v.phase}`)).size).toBe(16);
    const mean = s.reduce((a, v) => a + 1 / v.speed, 0) / s.length;
    expect(mean).toBeGreaterThan(0.995);
    expect(mean).toBeLessThan(1.005);
    const s4 = retimeSchedule(4);
    expect(s4.map((v) => v.speed)).toEqual([1, Math.round(1000 / 0.9) / 1000, Math.round(1000 / 1.1) / 1000, 1]);
    expect(new Set(s4.map((v) => v.phase)).size).toBe(4);
  });

  it('samples genuine in-between poses at phase + n * speed', () => {
    const clip = rampClip(100);
    const v = { speed: 0.9, phase: 0.25 };
    const out = retimeClip(clip, J, v);
    expect(out.frameCount).toBe(Math.floor((99 - 0.25) / 0.9) + 1);
    expect(out.fps).toBe(30);
    expect(out.name).not.toBe(clip.name);
    for (const n of [0, 1, 17, out.frameCount - 1]) {
      const t = 0.25 + n * 0.9;
      expect(out.translations[(n * J + 1) * 3]).toBeCloseTo(t, 9);
      expect(out.translations[(n * J + 1) * 3 + 1]).toBeCloseTo(1, 12);
      const qy = out.rotations[(n * J) * 4 + 1];
      const qw = out.rotations[(n * J) * 4 + 3];
      expect(2 * Math.atan2(qy, qw)).toBeCloseTo(0.05 * t, 5);
    }
    expect(retimeClip(clip, J, { speed: 1, phase: 0 })).toBe(clip);
    const loop = retimeClip(rampClip(10, true), J, { speed: 1.1, phase: 0.5 });
    expect(loop.frameCount).toBe(Math.ceil((10 - 0.5) / 1.1));
  });

  it('enlarges a source list k times, keeping the skeleton', () => {
    const skeleton = { names: ['a', 'b'], parents: new Int32Array([-1, 0]) } as unknown as Skeleton;
    const sources = [{ skeleton, clip: rampClip(40) }, { skeleton, clip: rampClip(25) }];
    const big = enlargeSources(sources, 4);
    expect(big.length).toBe(8);
    expect(big.every((s) => s.skeleton === skeleton)).toBe(true);
    expect(big[0].clip).toBe(sources[0].clip);
    const frames = big.reduce((n, s) => n + s.clip.frameCount, 0);
    // each re-timed copy of these short clips may lose a frame to its phase offset
    expect(frames / 65).toBeGreaterThan(3.6);
    expect(frames / 65).toBeLessThan(4.3);
  });

  it('resolves a mocap folder or its bench/ subfolder', () => {
    expect(resolveMocapDir(scratchDir('mm-empty-'))).toBeNull();
    if (HAS_MOCAP) {
      expect(resolveMocapDir(MOCAP_DIR)).toBe(join(MOCAP_DIR, 'bench'));
      expect(resolveMocapDir(join(MOCAP_DIR, 'core'))).toBe(join(MOCAP_DIR, 'core'));
    }
  });
});

describe('bench helpers', () => {
  it('median, nearest-rank p99, cost tolerance, escaping', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    const xs = Array.from({ length: 200 }, (_, i) => i + 1);
    expect(percentile(xs, 99)).toBe(198);
    expect(percentile(xs, 100)).toBe(200);
    expect(costsAgree(1, 1 + 5e-6)).toBe(true);
    expect(costsAgree(1, 1 + 5e-5)).toBe(false);
    expect(costsAgree(0, 0)).toBe(true);
    expect(escapeXml('a<b & "c">')).toBe('a&lt;b &amp; &quot;c&quot;&gt;');
  });

  it('window ranges cover exactly the candidate frames', () => {
    const candidates = Uint8Array.from([1, 1, 0, 0, 1, 1, 1, 0, 1]);
    const db = { frameCount: candidates.length, candidates } as unknown as Database;
    expect(candidateRuns(db)).toEqual([[0, 2], [4, 7], [8, 9]]);
  });
});
