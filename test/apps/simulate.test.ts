import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';
import { runCli, runCliInProcess, tempDir } from '../helpers/cli.js';
import { parseBvh } from '../../src/import/bvh/bvh.js';

type SimJson = Record<string, number | string | object | null>;

describe('motionmatch simulate', () => {
  const dir = tempDir();
  let one: SimJson, again: SimJson, two: SimJson;
  beforeAll(async () => {
    const args = ['simulate', '--agents', '60', '--seconds', '3', '--seed', '7', '--json'];
    // The first as a process, the others in this one (runCliInProcess, without a process start):
    // the same hash either way.
    const a = runCli(args), b = await runCliInProcess(args), c = await runCliInProcess([...args, '--workers', '2', '--export-bvh', join(dir, 'agent.bvh'), '--agent', '5']);
    for (const r of [a, b, c]) expect(r.code, r.stderr).toBe(0);
    [one, again, two] = [a, b, c].map((r) => JSON.parse(r.stdout));
  });

  it('reports the documented fields', () => {
    for (const k of ['agents', 'seconds', 'hz', 'steps', 'wallSeconds', 'agentStepsPerSec', 'searches', 'searchesPerSec', 'searchUsMedian', 'searchUsP99',
      'transitionsPerSec', 'footSkateCmPerSec', 'trajectoryErrorCm', 'maxTransitionJump', 'hash']) {
      expect(one, k).toHaveProperty(k);
    }
    expect(one.steps).toBe(90);
    expect(one.agents).toBe(60);
    expect(one.hash).toMatch(/^[0-9a-f]{16}$/);
    // A search every 0.1 s per agent, less the regular ones minDwell skips after transitions (about 3/s).
    expect(Number(one.searches)).toBeGreaterThan(60 * 3 * 10 * (1 - 3 * 0.2) * 0.9);
    expect(Number(one.searches)).toBeLessThanOrEqual(60 * 3 * 10 + 60 * 3);
  });

  it('gives the same hash on every run and with two workers', () => {
    expect(again.hash).toBe(one.hash);
    expect(two.hash).toBe(one.hash);
    expect(two.workers).toBe(2);
    // (summed per group then merged: equal up to the order of floating-point additions)
    expect(two.footSkateCmPerSec as number).toBeCloseTo(one.footSkateCmPerSec as number, 9);
  });

  it('warms the JIT up before timing without changing any result', async () => {
    const cold = JSON.parse((await runCliInProcess(['simulate', '--agents', '60', '--seconds', '3', '--seed', '7', '--json', '--no-warmup'])).stdout);
    expect(cold.hash).toBe(one.hash);
    expect(cold.footSkateCmPerSec).toBe(one.footSkateCmPerSec);
    expect(cold.warmupSeconds).toBe(0);
    for (const r of [one, two]) {
      expect(r.warmupSeconds as number).toBeGreaterThan(0);
      expect(r.warmupSeconds as number).toBeLessThan(r.setupSeconds as number);
    }
  });

  it('gives a different hash for a different seed or scenario', async () => {
    const other = JSON.parse((await runCliInProcess(['simulate', '--agents', '60', '--seconds', '3', '--seed', '8', '--json'])).stdout);
    expect(other.hash).not.toBe(one.hash);
  });

  it('keeps quality within the runtime targets on the built-in database', async () => {
    const r = JSON.parse((await runCliInProcess(['simulate', '--agents', '100', '--seconds', '10', '--scenario', 'path', '--json'])).stdout);
    // Foot skate near the ground, from the output joints (docs/quality.md): the built-in data's target is 3 cm/s.
    expect(r.footSkateCmPerSec).toBeLessThan(3);
    expect(r.quality.belowGroundMaxCm).toBeLessThan(3);
    expect(r.trajectoryErrorCm).toBeLessThan(20);
  });

  it('exports an agent as BVH that the importer and three.js read back', () => {
    const text = readFileSync(join(dir, 'agent.bvh'), 'utf8');
    const back = parseBvh(text, { file: 'agent.bvh' });
    expect(back.clip.frameCount).toBe(90);
    expect(back.skeleton.names.length).toBe(22);
    const three = new BVHLoader().parse(text);
    expect(three.skeleton.bones.length).toBeGreaterThanOrEqual(22);
    expect(three.clip.tracks.length).toBeGreaterThan(0);
    // the agent walked somewhere: its root moved
    const J = back.skeleton.names.length;
    const dx = back.clip.translations[(89 * J) * 3] - back.clip.translations[0];
    const dz = back.clip.translations[(89 * J) * 3 + 2] - back.clip.translations[2];
    expect(Math.hypot(dx, dz)).toBeGreaterThan(0.5);
  });

  it('rejects bad arguments with usage errors', async () => {
    expect(runCli(['simulate', '--agents', '0']).code).toBe(2);
    expect((await runCliInProcess(['simulate', '--scenario', 'dance'])).code).toBe(2);
    expect((await runCliInProcess(['simulate', '--agent', '3'])).code).toBe(2);
    expect((await runCliInProcess(['simulate', '--hz', 'fast'])).code).toBe(2);
    const missing = await runCliInProcess(['simulate', '--db', join(dir, 'nope.mmdb')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope\.mmdb/);
  });

  it('refuses a run of no step (usage error naming --seconds and --hz), and prints n/a for figures a short run has none of', async () => {
    const none = await runCliInProcess(['simulate', '--seconds', '0.001', '--agents', '2']);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr.split('\n')[0]).toMatch(/--seconds 0\.001 at --hz 30 makes no step/);
    // The library refuses it too (every quality figure of such a run was NaN).
    const { runSimulation } = await import('../../src/sim/simulation.js');
    const { builtinDatabase } = await import('../../src/apps/builtin-database.js');
    await expect(runSimulation(builtinDatabase(), { agents: 2, seconds: 0.001, hz: 30, seed: 1, workers: 1, scenario: 'mixed', method: 'kdtree', backend: 'auto', footIK: true, recordAgent: -1 })).rejects.toThrow(/at least one step/);
    // One step: no velocity change to measure (it takes three steps), no foot skate yet.
    const one = await runCliInProcess(['simulate', '--seconds', '0.02', '--agents', '2', '--no-warmup']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).not.toMatch(/NaN/);
    expect(one.stdout).toMatch(/largest velocity change of a joint n\/a m\/s \(p99\.9 n\/a\)/);
  });

  it('refuses a crowd too large for the machine up front, with the figure, in seconds', () => {
    const t0 = Date.now();
    const r = runCli(['simulate', '--agents', '1000000', '--seconds', '1'], { timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/1,000,000 agents need about [0-9.]+ GB/);
    expect(r.stderr.trim().split('\n').length).toBe(1);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });
});
