/**
 * Sharded simulations in process: the shard plan (src/sim/shard/plan.ts), the search-time
 * histogram (shard/timing.ts), the generic QualityStats encoding (shard/quality.ts), and partial
 * reports written, read back and merged (shard/report.ts, shard/merge.ts) against an unsharded run,
 * also with levels of detail and a search budget (shards cut at the budget's blocks).
 * The same over separate processes and the CLI is in test/apps/merge.test.ts.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import fc from 'fast-check';
import { buildDatabase } from '../../src/database/build.js';
import { builtinSources } from '../../src/database/sources-node.js';
import { QualityStats } from '../../src/runtime/quality/meter.js';
import { runAgentGroups, runSimulation, type SimulationOptions, type SimulationResult } from '../../src/sim/simulation.js';
import { stepCount } from '../../src/sim/agents.js';
import { parseShardSpec, shardAgentRange, shardBlock, ShardSpecError } from '../../src/sim/shard/plan.js';
import { BUDGET_BLOCK } from '../../src/runtime/lod/search-budget.js';
import { digestOfAgentHashes } from '../../src/sim/hash.js';
import { timingHistogram, addTimingHistograms, timingQuantile, TIMING_RATIO } from '../../src/sim/shard/timing.js';
import { encodeQualityStats, decodeQualityStats, encodeField, decodeField } from '../../src/sim/shard/quality.js';
import { partialReport, partialReportText, parsePartialReport, runIdentity, databaseFingerprint, PartialReportError, type PartialReport, type ParsedPartial } from '../../src/sim/shard/report.js';
import { mergePartialReports } from '../../src/sim/shard/merge.js';
import { crc32 } from '../../src/util/crc32.js';
import type { Database } from '../../src/database/database.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

describe('shard plan', () => {
  it('parses I/N and auto/N (index from JOB_COMPLETION_INDEX)', () => {
    expect(parseShardSpec('2/4', {})).toEqual({ index: 2, count: 4 });
    expect(parseShardSpec(' 0/1 ', {})).toEqual({ index: 0, count: 1 });
    expect(parseShardSpec('auto/8', { JOB_COMPLETION_INDEX: '7' })).toEqual({ index: 7, count: 8 });
  });

  it('refuses malformed specifications and bad indices with the reason', () => {
    const bad: Array<[string, Record<string, string>, RegExp]> = [
      ['4/4', {}, /below the shard count/],
      ['1', {}, /must be I\/N/],
      ['1/2/3', {}, /must be I\/N/],
      ['-1/4', {}, /non-negative integer/],
      ['1.5/4', {}, /non-negative integer/],
      ['01/4', {}, /non-negative integer/],
      ['0/0', {}, /shard count N/],
      ['0/x', {}, /shard count N/],
      ['auto/4', {}, /JOB_COMPLETION_INDEX is not set/],
      ['auto/4', { JOB_COMPLETION_INDEX: 'one' }, /not a non-negative integer/],
      ['auto/4', { JOB_COMPLETION_INDEX: '4' }, /is not below 4/],
    ];
    for (const [text, env, message] of bad) {
      expect(() => parseShardSpec(text, env), text).toThrow(ShardSpecError);
      expect(() => parseShardSpec(text, env), text).toThrow(message);
    }
  });

  it('splits the agents into contiguous, balanced ranges that cover each agent once', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 300 }), (agents, n) => {
      const count = Math.min(n, agents);
      let next = 0;
      const sizes: number[] = [];
      for (let i = 0; i < count; i++) {
        const r = shardAgentRange(agents, { index: i, count });
        expect(r.first).toBe(next);
        next = r.first + r.count;
        sizes.push(r.count);
      }
      expect(next).toBe(agents);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      expect(Math.min(...sizes)).toBeGreaterThanOrEqual(1);
    }));
    expect(() => shardAgentRange(3, { index: 0, count: 4 })).toThrow(/4 shards for 3 agents/);
  });

  it('cuts in blocks: whole blocks per shard, balanced in blocks, block 1 the per-agent formula', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 200 }), (agents, n, block) => {
      const blocks = Math.ceil(agents / block);
      const count = Math.min(n, blocks);
      let next = 0;
      const sizes: number[] = [];
      for (let i = 0; i < count; i++) {
        const r = shardAgentRange(agents, { index: i, count }, block);
        expect(r.first).toBe(next);
        expect(r.first % block).toBe(0);
        next = r.first + r.count;
        sizes.push(Math.ceil(r.count / block));
        // Block 1 is the formula of partial reports written before blocks: their ranges do not move.
        expect(shardAgentRange(agents, { index: i, count: Math.min(n, agents) }, 1)).toEqual({
          first: Math.floor((i * agents) / Math.min(n, agents)), count: Math.floor(((i + 1) * agents) / Math.min(n, agents)) - Math.floor((i * agents) / Math.min(n, agents)),
        });
      }
      expect(next).toBe(agents);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      expect(Math.min(...sizes)).toBeGreaterThanOrEqual(1);
    }));
    expect(shardAgentRange(300, { index: 2, count: 3 }, BUDGET_BLOCK)).toEqual({ first: 256, count: 44 });
    expect(() => shardAgentRange(300, { index: 0, count: 4 }, BUDGET_BLOCK)).toThrow(ShardSpecError);
    expect(() => shardAgentRange(300, { index: 0, count: 4 }, BUDGET_BLOCK)).toThrow('--shard 0/4: 4 shards for 300 agents in 3 blocks of 128 (a search budget is shared out per block); use at most 3 shards');
  });

  it('takes the search budget\'s blocks as the unit only with a budget', () => {
    expect(shardBlock(null)).toBe(1);
    expect(shardBlock(undefined)).toBe(1);
    expect(shardBlock({ budget: 0 })).toBe(1);
    expect(shardBlock({ budget: 40 })).toBe(BUDGET_BLOCK);
  });
});

describe('search-time histogram', () => {
  it('reads quantiles within half a bin of the exact nearest-rank value, and adds up across shards', () => {
    fc.assert(fc.property(fc.array(fc.double({ min: 0.01, max: 5000, noNaN: true }), { minLength: 1, maxLength: 400 }), fc.integer({ min: 0, max: 399 }), (samples, cut) => {
      const sorted = [...samples].sort((a, b) => a - b);
      const h = timingHistogram([...samples, NaN]);
      for (const p of [0, 0.5, 0.99]) {
        const exact = sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
        const approx = timingQuantile(h, p);
        expect(approx / exact).toBeGreaterThan(1 / Math.sqrt(TIMING_RATIO) - 1e-9);
        expect(approx / exact).toBeLessThan(Math.sqrt(TIMING_RATIO) + 1e-9);
      }
      const k = cut % samples.length;
      expect(addTimingHistograms([timingHistogram(samples.slice(0, k)), timingHistogram(samples.slice(k))])).toEqual(h);
    }));
    expect(timingQuantile([], 0.5)).toBe(0);
  });
});

/** A QualityStats with every field set to something other than its initial value. */
function filledStats(seed: number): QualityStats {
  const s = new QualityStats();
  let x = seed;
  const next = () => { x = (x * 1103515245 + 12345) % 2 ** 31; return x / 2 ** 31; };
  for (const [k, v] of Object.entries(s)) {
    if (typeof v === 'number') (s as unknown as Record<string, number>)[k] = next() * 100;
    else if (ArrayBuffer.isView(v)) { const a = v as Float64Array; for (let i = 0; i < a.length; i++) a[i] = Math.floor(next() * 5); }
  }
  return s;
}

describe('QualityStats in a partial report', () => {
  it('round-trips every field through JSON exactly, and merges like the original', () => {
    const a = filledStats(1), b = filledStats(2);
    const back = decodeQualityStats(JSON.parse(JSON.stringify(encodeQualityStats(a))), 'test');
    expect(back).toBeInstanceOf(QualityStats);
    expect(back).toEqual(a);
    const m1 = new QualityStats(), m2 = new QualityStats();
    m1.merge(a); m1.merge(b);
    m2.merge(back); m2.merge(decodeQualityStats(JSON.parse(JSON.stringify(encodeQualityStats(b))), 'test'));
    expect(m2.report()).toEqual(m1.report());
  });

  it('keeps NaN, infinities and -0, which JSON cannot', () => {
    for (const x of [NaN, Infinity, -Infinity, -0, 0, 1e-320, 1.7976931348623157e308]) {
      expect(Object.is(decodeField(0, JSON.parse(JSON.stringify(encodeField(x, 'x'))), 'x'), x)).toBe(true);
    }
  });

  it('carries fields it was not written for (nested objects, lists, other typed arrays)', () => {
    const o = { a: 1, t: new Int32Array([1, -2, 3]), l: [1.5, 2.5], n: { b: true, s: 'x', u: new Uint8Array([7]) } };
    const template = { a: 0, t: new Int32Array(3), l: [0], n: { b: false, s: '', u: new Uint8Array(1) } };
    expect(decodeField(template, JSON.parse(JSON.stringify(encodeField(o, 'o'))), 'o')).toEqual(o);
  });

  it('refuses, by name, a kind of field that JSON would not carry intact', () => {
    expect(() => encodeField({ seen: new Map([[1, 2]]) }, 'quality')).toThrow('quality.seen: a Map cannot go into a partial report');
    expect(() => encodeField({ when: () => 1 }, 'quality')).toThrow('quality.when: a function cannot go into a partial report');
    expect(() => decodeField({ seen: new Set() }, { seen: {} }, 'quality')).toThrow('quality.seen: this version keeps a Set here');
  });

  it('refuses a report whose fields are not this version\'s, naming the field', () => {
    const enc = JSON.parse(JSON.stringify(encodeQualityStats(filledStats(3)))) as Record<string, unknown>;
    const first = Object.keys(enc)[0];
    const { [first]: _gone, ...missing } = enc;
    expect(() => decodeQualityStats(missing, 'p.json')).toThrow(`p.json: quality.${first} is missing`);
    expect(() => decodeQualityStats({ ...enc, extra: 1 }, 'p.json')).toThrow('quality.extra is not a field this version knows');
    const arrayField = Object.keys(enc).find((k) => (enc[k] as { typedArray?: string }).typedArray)!;
    const shorter = { ...enc, [arrayField]: { ...(enc[arrayField] as object), values: [1, 2] } };
    expect(() => decodeQualityStats(shorter, 'p.json')).toThrow(`quality.${arrayField} has 2 values`);
    expect(() => decodeQualityStats({ ...enc, [first]: 'many' }, 'p.json')).toThrow(`quality.${first} must be a number`);
  });
});

describe('partial reports merged', () => {
  let db: Database;
  let whole: SimulationResult;
  const N = 3;
  const base: SimulationOptions = { agents: 14, seconds: 1, hz: 30, seed: 11, scenario: 'mixed', method: 'kdtree', footIK: true, recordAgent: -1, workers: 1, backend: 'auto', warmup: false };
  const texts: string[] = [];

  async function shardText(o: SimulationOptions, index: number, count: number): Promise<string> {
    const shard = { index, count };
    const range = shardAgentRange(o.agents, shard);
    const run = await runAgentGroups(db, { ...o, agentRange: range });
    const t = new Date(0);
    return partialReportText(partialReport({ run: runIdentity(db, o, stepCount(o), count, '0.0.0-test'), shard, source: 'builtin', host: 'test', startedAt: t, finishedAt: t, workers: 1 }, run));
  }
  const parse = (text: string, i: number): ParsedPartial => parsePartialReport(text, `part-${i}.json`);
  /** A report changed by `edit`, with its checksum recomputed (a well-formed file that lies). */
  const resealed = (text: string, edit: (r: PartialReport) => void): string => {
    const r = JSON.parse(text) as PartialReport;
    edit(r);
    const { checksum: _old, ...body } = r;
    return JSON.stringify({ ...body, checksum: crc32(new TextEncoder().encode(JSON.stringify(body))).toString(16).padStart(8, '0') });
  };

  beforeAll(async () => {
    db = builtinDatabase();
    whole = await runSimulation(db, base);
    for (let i = 0; i < N; i++) texts.push(await shardText(base, i, N));
  });

  it('gives the unsharded hash, counts and quality, in any order of the files', () => {
    const parts = texts.map(parse);
    const merged = mergePartialReports([parts[2], parts[0], parts[1]]);
    expect(merged.hash).toBe(whole.hash);
    expect(merged.searches).toBe(whole.searches);
    expect(merged.agents).toBe(whole.agents);
    expect(merged.steps).toBe(whole.steps);
    expect(merged.quality.steps).toBe(whole.quality.steps);
    expect(merged.maxTransitionJump).toBe(whole.maxTransitionJump);
    expect(merged.transitionsPerSec).toBeCloseTo(whole.transitionsPerSec, 9);
    expect(merged.footSkateCmPerSec).toBeCloseTo(whole.footSkateCmPerSec, 9);
    expect(merged.trajectoryErrorCm).toBeCloseTo(whole.trajectoryErrorCm, 9);
    expect(merged.shards.map((s) => [s.index, s.firstAgent, s.agents])).toEqual([[0, 0, 4], [1, 4, 5], [2, 9, 5]]);
    expect(merged.workers).toBe(N);
    expect(merged.searchUsMedian).toBeGreaterThan(0);
  });

  it('merges one shard into the run itself', async () => {
    const one = mergePartialReports([parse(await shardText(base, 0, 1), 0)]);
    expect(one.hash).toBe(whole.hash);
  });

  it('refuses shards of different runs, naming what differs', async () => {
    const otherSeed = await shardText({ ...base, seed: 12 }, 1, N);
    expect(() => mergePartialReports([parse(texts[0], 0), parse(otherSeed, 1), parse(texts[2], 2)])).toThrow(/part-1.json and part-0.json are shards of different runs \(seeds: 12 vs 11\)/);
    const otherCount = await shardText(base, 1, 2);
    expect(() => mergePartialReports([parse(texts[0], 0), parse(otherCount, 1)])).toThrow(/shard counts: 2 vs 3/);
    const otherDb = resealed(texts[1], (r) => { r.run.db.fingerprint = '00000000'; });
    expect(() => mergePartialReports([parse(texts[0], 0), parse(otherDb, 1), parse(texts[2], 2)])).toThrow(/databases/);
    const otherMethod = resealed(texts[1], (r) => { r.run.method = 'brute'; });
    expect(() => mergePartialReports([parse(texts[0], 0), parse(otherMethod, 1), parse(texts[2], 2)])).toThrow(/run\.method: "brute" vs "kdtree"/);
  });

  it('refuses duplicate and missing shards', () => {
    expect(() => mergePartialReports([parse(texts[0], 0), parse(texts[1], 1), parse(texts[1], 5), parse(texts[2], 2)])).toThrow('part-1.json and part-5.json are both shard 1/3');
    expect(() => mergePartialReports([parse(texts[0], 0), parse(texts[2], 2)])).toThrow('shard 1 of 3 missing (got 2 partial reports)');
    expect(() => mergePartialReports([parse(texts[1], 1)])).toThrow('shards 0, 2 of 3 missing');
    expect(() => mergePartialReports([])).toThrow(PartialReportError);
  });

  it('refuses damaged, edited, foreign and inconsistent files', () => {
    expect(() => parse(texts[0].slice(0, texts[0].length / 2), 0)).toThrow(/part-0.json: not a partial report: invalid JSON/);
    expect(() => parse(JSON.stringify({ agents: 4, hash: 'x' }), 0)).toThrow(/looks like a whole-run report/);
    expect(() => parse(texts[0].replace('"seed":11', '"seed":12'), 0)).toThrow(/part-0.json: checksum mismatch/);
    expect(() => parse(resealed(texts[0], (r) => { r.version = 1; }), 0)).toThrow(/format version 1; this motionmatch reads version 6/);
    expect(() => parse(resealed(texts[0], (r) => { r.version = 2; }), 0)).toThrow(/part-0.json: partial report format version 2; this motionmatch reads version 6/);
    expect(() => parse(resealed(texts[0], (r) => { r.version = 3; }), 0)).toThrow(/part-0.json: partial report format version 3; this motionmatch reads version 6/);
    expect(() => parse(resealed(texts[0], (r) => { r.lod = { counts: JSON.parse(JSON.stringify(r.quality)), levelStats: [] }; }), 0)).toThrow(/part-0.json: lod must be null \(the run has no levels of detail\)/);
    expect(() => parse(resealed(texts[0], (r) => { r.agentHashes[1] = '0123456789abcdef'; }), 0)).toThrow(/shardHash does not match/);
    expect(() => parse(resealed(texts[0], (r) => { r.agentHashes.pop(); }), 0)).toThrow(/must list the shard's 4 agents/);
    expect(() => parse(resealed(texts[1], (r) => { r.shard.firstAgent = 5; }), 1)).toThrow(/must hold agents 4\.\.8/);
    expect(() => parse(resealed(texts[1], (r) => { r.shard.index = 3; }), 1)).toThrow(/shard\.index must be an integer in \[0, 2\]/);
    expect(() => parse(resealed(texts[1], (r) => { (r.result as unknown as Record<string, unknown>).searchUsHistogram = [[5, 1], [5, 2]]; }), 1)).toThrow(/malformed entry/);
    expect(() => parse(resealed(texts[1], (r) => { delete (r as unknown as Record<string, unknown>).quality; }), 1)).toThrow(/report\.quality is missing/);
  });

  it('fingerprints the database contents, not where it came from', () => {
    const again = buildDatabase(builtinSources());
    expect(databaseFingerprint(again)).toBe(databaseFingerprint(db));
    again.clips[0].source = '/elsewhere/clip.bvh';
    expect(databaseFingerprint(again)).toBe(databaseFingerprint(db));
    again.features[5] += 1e-3;
    expect(databaseFingerprint(again)).not.toBe(databaseFingerprint(db));
  });
});

describe('partial reports merged with levels of detail', () => {
  let db: Database;
  // 260 agents are three budget blocks (128, 128, 4): three shards, one block each.
  const base: SimulationOptions = { agents: 260, seconds: 0.5, hz: 30, seed: 5, scenario: 'mixed', method: 'kdtree', footIK: true, recordAgent: -1, workers: 1, backend: 'auto', warmup: false, lod: { budget: 20 } };
  const N = 3;
  let whole: SimulationResult;
  let texts: string[];
  let noBudgetWhole: SimulationResult;
  let noBudgetTexts: string[];

  async function shardText(o: SimulationOptions, index: number, count: number): Promise<string> {
    const shard = { index, count };
    const run = await runAgentGroups(db, { ...o, agentRange: shardAgentRange(o.agents, shard, shardBlock(o.lod)) });
    const t = new Date(0);
    return partialReportText(partialReport({ run: runIdentity(db, o, stepCount(o), count, '0.0.0-test'), shard, source: 'builtin', host: 'test', startedAt: t, finishedAt: t, workers: 1 }, run));
  }
  const parse = (text: string, i: number): ParsedPartial => parsePartialReport(text, `lod-${i}.json`);
  const resealed = (text: string, edit: (r: PartialReport) => void): string => {
    const r = JSON.parse(text) as PartialReport;
    edit(r);
    const { checksum: _old, ...body } = r;
    return JSON.stringify({ ...body, checksum: crc32(new TextEncoder().encode(JSON.stringify(body))).toString(16).padStart(8, '0') });
  };
  /** The lod section's counts: exact in any split (the quality figures may differ in the last digits). */
  const countsOf = (r: Pick<SimulationResult, 'lod'>) => {
    const { camera, budget, fullSearches, localSearches, localFallbacks, deferred, levelChanges, maxSearchAgeSeconds, levels } = r.lod!;
    return { camera, budget, fullSearches, localSearches, localFallbacks, deferred, levelChanges, maxSearchAgeSeconds, levels: levels.map((l) => [l.agentSteps, l.searchesPerAgentSec]) };
  };

  beforeAll(async () => {
    db = builtinDatabase();
    whole = await runSimulation(db, base);
    texts = [];
    for (let i = 0; i < N; i++) texts.push(await shardText(base, i, N));
    const noBudget = { ...base, agents: 14, seconds: 1, lod: { budget: 0 } };
    noBudgetWhole = await runSimulation(db, noBudget);
    noBudgetTexts = [];
    for (let i = 0; i < N; i++) noBudgetTexts.push(await shardText(noBudget, i, N));
  }, 60_000);

  it('gives the unsharded hash and lod counts, with a budget (blocks) and without (agents)', () => {
    const merged = mergePartialReports(texts.map(parse).reverse());
    expect(merged.shards.map((s) => [s.firstAgent, s.agents])).toEqual([[0, 128], [128, 128], [256, 4]]);
    expect(merged.hash).toBe(whole.hash);
    expect(whole.lod!.deferred).toBeGreaterThan(0);
    expect(countsOf(merged)).toEqual(countsOf(whole));
    merged.lod!.levels.forEach((l, i) => {
      const w = whole.lod!.levels[i];
      expect(Object.keys(l)).toEqual(Object.keys(w));
      expect(l.footSkateCmPerSec).toBeCloseTo(w.footSkateCmPerSec, 9);
      expect(l.trajectoryErrorCm).toBeCloseTo(w.trajectoryErrorCm, 9);
      expect(l.maxTransitionJump).toBe(w.maxTransitionJump);
    });
    expect(Object.keys(merged.lod!)).toEqual(Object.keys(whole.lod!));
    const plain = mergePartialReports(noBudgetTexts.map(parse));
    expect(plain.shards.map((s) => [s.firstAgent, s.agents])).toEqual([[0, 4], [4, 5], [9, 5]]);
    expect(plain.hash).toBe(noBudgetWhole.hash);
    expect(countsOf(plain)).toEqual(countsOf(noBudgetWhole));
  });

  it('needs the blocks: cut per agent, a budgeted run defers other searches', async () => {
    const hashes: string[] = [];
    for (let i = 0; i < N; i++) {
      const run = await runAgentGroups(db, { ...base, agentRange: shardAgentRange(base.agents, { index: i, count: N }, 1) });
      for (const g of run.groups) hashes.push(...g.hashes);
    }
    expect(digestOfAgentHashes(hashes)).not.toBe(whole.hash);
  }, 30_000);

  it('refuses shards with other level-of-detail settings, naming them', () => {
    const otherBudget = resealed(texts[1], (r) => { r.run.lod = { ...r.run.lod!, budget: 30 }; });
    expect(() => mergePartialReports([parse(texts[0], 0), parse(otherBudget, 1), parse(texts[2], 2)])).toThrow('lod-1.json and lod-0.json are shards of different runs (level-of-detail settings, budget: 30 vs 20)');
    const noLod = resealed(noBudgetTexts[1], (r) => { r.run.lod = null; r.lod = null; });
    expect(() => mergePartialReports([parse(noBudgetTexts[0], 0), parse(noLod, 1), parse(noBudgetTexts[2], 2)])).toThrow(/\(level-of-detail settings: null vs \{"budget":0,"levels":\[\{"maxDistance":15,.{20,40}\.\.\.\)$/);
  });

  it('refuses a damaged or edited lod section, naming the file and the field', () => {
    const firstStat = Object.keys((JSON.parse(texts[0]) as PartialReport).lod!.levelStats[0])[0];
    const cases: Array<[(r: PartialReport) => void, RegExp | string]> = [
      [(r) => { r.lod = null; }, 'lod-0.json: lod must be an object'],
      [(r) => { delete (r.lod as unknown as Record<string, unknown>).counts; }, 'lod-0.json: lod.counts is missing'],
      [(r) => { r.lod!.counts.levelSteps.pop(); }, 'lod-0.json: lod.counts.levelSteps must list 4 levels'],
      [(r) => { r.lod!.counts.levelSteps[0] += 1; r.lod!.counts.levelSteps[1] -= 2; }, /lod-0.json: lod.counts.levelSteps add up to \d+ agent-steps, not the shard's 1920/],
      [(r) => { r.lod!.counts.deferred = -1; }, 'lod-0.json: lod.counts.deferred must be an integer in [0, 9007199254740991], got -1'],
      [(r) => { r.lod!.counts.maxSearchAgeSeconds = 'long' as unknown as number; }, 'lod-0.json: lod.counts.maxSearchAgeSeconds must be a number >= 0'],
      [(r) => { r.lod!.counts.fullSearches += 1; }, /lod-0.json: lod.counts: \d+ full \+ \d+ local searches, not the shard's \d+ \(result.searches\)/],
      [(r) => { r.lod!.counts.levelSearches[3] += 1; r.lod!.counts.levelSearches[0] -= 1; r.lod!.counts.levelSearches[1] += 1; }, /lod-0.json: lod.counts.levelSearches add up to/],
      [(r) => { r.lod!.levelStats.pop(); }, 'lod-0.json: lod.levelStats must list 4 levels'],
      [(r) => { delete r.lod!.levelStats[2][firstStat]; }, `lod-0.json: lod.levelStats[2].${firstStat} is missing`],
      [(r) => { r.lod!.levelStats[1][firstStat] = 'many'; }, `lod-0.json: lod.levelStats[1].${firstStat} must be a number`],
      [(r) => { r.run.lod = { ...r.run.lod!, budget: -3 }; }, 'lod-0.json: run.lod.budget must be an integer in [0, 100000000], got -3'],
      [(r) => { r.run.lod = { ...r.run.lod!, hysteresis: 30 }; }, /lod-0.json: run.lod: LOD level 0: maxDistance 15 m leaves no room for the hysteresis \(30 m\)/],
      [(r) => { r.run.lod!.levels[1].poseEvery = 0.5; }, /lod-0.json: run.lod: LOD level 1: poseEvery must be an integer in \[1, 60\], got 0.5/],
      [(r) => { r.run.lod = { ...r.run.lod!, budget: 0 }; }, /lod-0.json: shard 0\/3 of 260 agents must hold agents 0\.\.85, not 0\.\.127/],
    ];
    for (const [edit, message] of cases) expect(() => parse(resealed(texts[0], edit), 0), String(message)).toThrow(message);
    const plain = (r: PartialReport) => { r.lod!.counts.deferred = 1; };
    expect(() => parse(resealed(noBudgetTexts[0], plain), 0)).toThrow('lod-0.json: lod.counts.deferred must be 0 without a search budget, got 1');
    expect(() => parse(resealed(texts[0], (r) => { r.run.shards = 4; r.shard.index = 0; }), 0)).toThrow('lod-0.json: run.shards (4) exceeds the run\'s 3 blocks of 128 agents (a search budget is shared out per block)');
  });
});
