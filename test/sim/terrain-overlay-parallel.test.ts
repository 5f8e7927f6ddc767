/**
 * Terrain and overlays through worker threads and shards: `--terrain steps --overlay idle` (the
 * built-in database has no wave-tagged frames; idle is the tag the other overlay tests use) gives
 * the same hash and the same terrain and overlay figures on 1, 2 and 3 workers and as two shards
 * merged; merge refuses shards whose terrain or overlay settings differ, and a height field counts
 * by its contents, not by its file's name.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import type { Database } from '../../src/database/database.js';
import { runAgentGroups, runSimulation, type SimulationOptions, type SimulationResult } from '../../src/sim/simulation.js';
import { stepCount } from '../../src/sim/agents.js';
import { overlaySimulation } from '../../src/sim/overlay/schedule.js';
import { describeOverlay } from '../../src/sim/overlay/report.js';
import { shardAgentRange } from '../../src/sim/shard/plan.js';
import { parsePartialReport, partialReport, partialReportText, runIdentity, terrainIdentity } from '../../src/sim/shard/report.js';
import { mergePartialReports, type MergedReport } from '../../src/sim/shard/merge.js';
import { HeightField } from '../../src/runtime/ground/height-field.js';
import type { TerrainSpec } from '../../src/sim/terrain/terrain.js';
import type { QualityReport } from '../../src/runtime/quality/meter.js';
import { runCli, runCliInProcess, tempDir } from '../helpers/cli.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

/** Feet against the ground: means add floats (equal up to the order of the sums), the rest exactly. */
const GROUND_MEANS = ['footGroundErrorCm', 'footFloatCm', 'footPenetrationCm'] as const;
const GROUND_EXACT = ['footGroundErrorP95Cm', 'footFloatP95Cm', 'footPenetrationP95Cm', 'swingPenetrationP99Cm', 'swingPenetrationMaxCm', 'steps'] as const;

function expectSameGround(a: QualityReport, b: QualityReport, what: string): void {
  for (const k of GROUND_MEANS) expect(a[k], `${what} ${k}`).toBeCloseTo(b[k], 10);
  for (const k of GROUND_EXACT) expect(a[k], `${what} ${k}`).toBe(b[k]);
  expect(a.footGroundErrorCm, what).toBeGreaterThan(0);
}

/** Overlay figures without the measured costs (timings, which no two runs share). */
function overlayCounts(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !k.startsWith('costUs')));
}

let db: Database;
beforeAll(() => { db = builtinDatabase(); });

// 8 s: every agent starts its first overlay within 3-8 s (the default schedule).
const base = (o: Partial<SimulationOptions> = {}): SimulationOptions => ({
  agents: 10, seconds: 8, hz: 30, seed: 3, scenario: 'mixed', method: 'kdtree', footIK: true, recordAgent: -1, workers: 1, backend: 'auto', warmup: false,
  terrain: { kind: 'steps', seed: 3 }, overlay: overlaySimulation('idle'), ...o,
});

async function shardTexts(o: SimulationOptions, count: number, terrain: TerrainSpec | null = o.terrain ?? null): Promise<string[]> {
  const texts: string[] = [];
  for (let index = 0; index < count; index++) {
    const shard = { index, count };
    const run = await runAgentGroups(db, { ...o, agentRange: shardAgentRange(o.agents, shard) });
    const t = new Date(0);
    texts.push(partialReportText(partialReport({
      run: runIdentity(db, o, stepCount(o), count, '0.0.0-test'), shard, source: 'builtin', host: 'test', startedAt: t, finishedAt: t, workers: o.workers,
      terrain, overlay: o.overlay ? describeOverlay(db, o.overlay, o.hz) : null,
    }, run)));
  }
  return texts;
}

const merge = (texts: string[]): MergedReport => mergePartialReports(texts.map((t, i) => parsePartialReport(t, `part-${i}.json`)));

describe('terrain and overlays on worker threads and shards (library)', () => {
  let one: SimulationResult;
  beforeAll(async () => { one = await runSimulation(db, base()); });

  it('gives the same hash, ground and overlay figures on 1, 2 and 3 workers', async () => {
    expect(one.overlayStats!.report().entries).toBeGreaterThan(5);
    expect(one.overlayStats!.report().exits).toBeGreaterThan(0);
    for (const workers of [2, 3]) {
      const r = await runSimulation(db, base({ workers }));
      expect(r.hash, `${workers} workers`).toBe(one.hash);
      expectSameGround(r.quality, one.quality, `${workers} workers`);
      expect(r.overlayStats!.report(), `${workers} workers`).toEqual(one.overlayStats!.report());
    }
    // The terrain and the overlays are really there: without either the hash differs.
    expect((await runSimulation(db, base({ terrain: null }))).hash).not.toBe(one.hash);
    expect((await runSimulation(db, base({ overlay: undefined }))).hash).not.toBe(one.hash);
  });

  it('merges shards into the unsharded hash, ground and overlay figures', async () => {
    const merged = merge(await shardTexts(base(), 2));
    expect(merged.hash).toBe(one.hash);
    expectSameGround(merged.quality, one.quality, 'merged');
    expect(merged.terrain).toEqual({ kind: 'steps', seed: 3 });
    expect(overlayCounts(merged.overlay as unknown as Record<string, unknown>)).toEqual(overlayCounts({ ...one.overlayStats!.report(), ...describeOverlay(db, base().overlay!, 30) }));
  });

  it('records a height field by its contents: another file name merges, another height does not', async () => {
    const field = HeightField.fromFunction((x, z) => 0.2 * Math.sin(0.5 * x) * Math.cos(0.4 * z), { columns: 81, rows: 81, spacing: 0.5, originX: -5, originZ: -5 }).toSpec();
    const a: TerrainSpec = { kind: 'field', name: 'yard.json', field };
    const b: TerrainSpec = { kind: 'field', name: 'yard-copy.mmhf', field: { ...field, heights: field.heights.slice() } };
    const bumped = field.heights.slice();
    bumped[100] += 0.01;
    const c: TerrainSpec = { kind: 'field', name: 'yard.json', field: { ...field, heights: bumped } };
    expect(terrainIdentity(b)).toEqual(terrainIdentity(a));
    expect(terrainIdentity(c)).not.toEqual(terrainIdentity(a));
    const o = base({ overlay: undefined, seconds: 2 });
    const [a0] = await shardTexts({ ...o, terrain: a }, 2);
    const [, b1] = await shardTexts({ ...o, terrain: b }, 2);
    const [, c1] = await shardTexts({ ...o, terrain: c }, 2);
    const merged = merge([a0, b1]);
    expect(merged.hash).toBe((await runSimulation(db, { ...o, terrain: a })).hash);
    expect(merged.terrain).toMatchObject({ kind: 'file', file: 'yard.json', columns: 81, rows: 81 });
    expect(() => merge([a0, c1])).toThrow(/part-1\.json and part-0\.json are shards of different runs \(terrains, crc32: "[0-9a-f]{8}" vs "[0-9a-f]{8}"\)/);
  });

  it('writes the terrain and the overlay into partial reports (null without them), and refuses mixing', async () => {
    const [t0] = await shardTexts(base({ seconds: 1 }), 2);
    expect(JSON.parse(t0)).toMatchObject({
      run: { terrain: { kind: 'steps', seed: 3 }, overlay: { tag: 'idle', mask: 'upper:2', mode: 'override' } },
      terrain: { kind: 'steps', seed: 3 }, overlay: { description: { tag: 'idle' }, stats: { entries: expect.any(Number) } },
    });
    const [, flat1] = await shardTexts(base({ seconds: 1, overlay: undefined, terrain: null }), 2);
    expect(JSON.parse(flat1)).toMatchObject({ terrain: null, overlay: null, run: { terrain: null, overlay: null } });
    expect(() => merge([t0, flat1])).toThrow(/shards of different runs \(terrains: null vs \{"kind":"steps","seed":3\}\)/);
  });
});

describe('motionmatch simulate --terrain --overlay with --workers and --shard, and merge', () => {
  const dir = tempDir('mm-wire-');
  const run = (terrain: string, ...extra: string[]) => ['simulate', '--agents', '10', '--seconds', '8', '--seed', '3', '--terrain', terrain, '--overlay', 'idle', ...extra];
  const part = (name: string) => join(dir, name);

  it('gives the unsharded hash and figures on 3 workers and as 2 shards, and refuses mismatched shards', async () => {
    const whole = await runCliInProcess([...run('steps'), '--workers', '3', '--json']);
    expect(whole.code, whole.stderr).toBe(0);
    const w = JSON.parse(whole.stdout) as { hash: string; workers: number; quality: QualityReport; terrain: unknown; overlay: Record<string, unknown> };
    expect(w.workers).toBe(3);
    const s0 = await runCliInProcess([...run('steps'), '--shard', '0/2', '--out', part('p0.json')]);
    const s1 = await runCliInProcess([...run('steps'), '--shard', '1/2', '--workers', '2', '--json']);
    for (const r of [s0, s1]) expect(r.code, r.stderr).toBe(0);
    writeFileSync(part('p1.json'), s1.stdout);
    const m = await runCliInProcess(['merge', part('p1.json'), part('p0.json'), '--json']);
    expect(m.code, m.stderr).toBe(0);
    const merged = JSON.parse(m.stdout) as typeof w;
    expect(merged.hash).toBe(w.hash);
    expect(merged.terrain).toEqual(w.terrain);
    expectSameGround(merged.quality, w.quality, 'merged');
    expect(overlayCounts(merged.overlay)).toEqual(overlayCounts(w.overlay));
    expect(w.overlay.entries).toBeGreaterThan(5);
    const text = runCli(['merge', part('p0.json'), part('p1.json')]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/terrain {6}steps \(seed 3\)\n {2}ground {7}feet labelled in contact/);
    expect(text.stdout).toMatch(/overlay {6}'idle' \(override\)/);

    // Shard 1 of other runs: another terrain, flat ground, other overlay settings.
    const other: Array<[string[], RegExp]> = [
      [run('hills'), /shards of different runs \(terrains, kind: "hills" vs "steps"\)/],
      [run('steps', '--overlay-mode', 'additive'), /shards of different runs \(overlay settings, mode: "additive" vs "override"\)/],
    ];
    for (const [args, message] of other) {
      const r = await runCliInProcess([...args, '--shard', '1/2', '--out', part('odd.json')]);
      expect(r.code, r.stderr).toBe(0);
      const refused = await runCliInProcess(['merge', part('p0.json'), part('odd.json')]);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toMatch(message);
    }
  }, 120_000);
});
