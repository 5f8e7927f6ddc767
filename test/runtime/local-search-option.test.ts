/**
 * Local searches as a controller option of their own (ControllerOptions.fullSearchInterval,
 * localSearchSeconds): between full searches, regular searches scan only a window around the
 * playing frame (lod/local-search.ts), through a single controller's MatcherSearchPort and through
 * a crowd's batch (sim/agents.ts), with their share in the reports.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Matcher } from '../../src/search/matcher.js';
import { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { resolveControllerOptions } from '../../src/runtime/controller/options.js';
import { LocalSearchWindow } from '../../src/runtime/lod/local-search.js';
import { AgentGroup } from '../../src/sim/agents.js';
import { ScriptedDriver } from '../../src/sim/scenarios.js';
import { runSimulation } from '../../src/sim/simulation.js';
import type { PoseSearchPort, PoseSearchRequest, PoseSearchResult } from '../../src/runtime/search-port.js';
import type { Database } from '../../src/database/database.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliInProcess } from '../helpers/cli.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

let db: Database;
let matcher: Matcher;
beforeAll(async () => {
  db = builtinDatabase();
  matcher = await Matcher.create(db);
});

/** Drives one controller over `steps` of a walk that turns; every search goes through `port`. */
function drive(c: MotionMatchingController, port: PoseSearchPort, steps: number): void {
  const input = createInput();
  for (let s = 0; s < steps; s++) {
    const t = s / 60, heading = 0.9 * t, speed = t % 6 < 4 ? 1.4 : 0.5;
    input.velocityX = speed * Math.sin(heading); input.velocityZ = speed * Math.cos(heading);
    c.update(1 / 60, input, port);
  }
}

describe('local searches (controller option)', () => {
  it('are off by default; out-of-range settings are refused naming the option', () => {
    expect(resolveControllerOptions({}).fullSearchInterval).toBe(0);
    expect(() => resolveControllerOptions({ fullSearchInterval: -1 })).toThrow(/fullSearchInterval/);
    expect(() => resolveControllerOptions({ fullSearchInterval: 1e9 })).toThrow(/fullSearchInterval must be in \[0, 60\] seconds/);
    expect(() => resolveControllerOptions({ localSearchSeconds: Number.NaN })).toThrow(/localSearchSeconds/);
    expect(() => resolveControllerOptions({ localSearchSeconds: 1e9 })).toThrow(/localSearchSeconds/);
  });

  it('a single controller searches its window between full searches, and each local answer is the best frame of the window (brute force)', () => {
    const port = new MatcherSearchPort(matcher, 'kdtree');
    const window = new LocalSearchWindow(db);
    const pairs = new Int32Array(16);
    let local = 0, full = 0, checked = 0;
    // Checks every local answer against a brute-force search restricted to the same window.
    const checking: PoseSearchPort = {
      searchPose(r: PoseSearchRequest, out: PoseSearchResult): void {
        port.searchPose(r, out);
        if (!out.local) { full++; expect(r.localFrame === -1 || window.exclusions(r.localFrame, r.localHalfFrames, r.excludeStart, r.excludeEnd, pairs) < 0).toBe(true); return; }
        local++;
        const n = window.exclusions(r.localFrame, r.localHalfFrames, r.excludeStart, r.excludeEnd, pairs);
        const excluded = Array.from({ length: n }, (_, k): [number, number] => [pairs[2 * k], pairs[2 * k + 1]]);
        const ref = matcher.search(r.query, { method: 'brute', normalized: true, bestCost: r.bestCost, excludeRanges: excluded });
        expect(out.frame).toBe(ref.frame);
        if (ref.frame >= 0) { expect(out.cost).toBeCloseTo(ref.cost, 5); checked++; }
        // The answer lies in the window: the playing clip within ±half frames, or a neighbouring clip.
        if (out.frame >= 0) expect(excluded.every(([s, e]) => out.frame < s || out.frame >= e)).toBe(true);
      },
    };
    const c = new MotionMatchingController(db, { fullSearchInterval: 0.5, localSearchSeconds: 1 });
    drive(c, checking, 900);
    expect(local).toBeGreaterThan(20);
    expect(full).toBeGreaterThan(5);
    expect(checked).toBeGreaterThan(0);
    expect(c.localSearchCount).toBe(local);
    expect(c.searchCount).toBe(local + full);
    // Without the option every search is full.
    const plain = new MotionMatchingController(db);
    let plainLocal = 0;
    drive(plain, { searchPose: (r, out) => { port.searchPose(r, out); if (out.local) plainLocal++; } }, 300);
    expect(plainLocal).toBe(0);
    expect(plain.localSearchCount).toBe(0);
  });

  it('a port that answers every search in full keeps the count honest (no local search counted)', () => {
    const full = new MatcherSearchPort(matcher, 'kdtree');
    const c = new MotionMatchingController(db, { fullSearchInterval: 0.5 });
    // Hides the local request from the port: it answers in full and says so.
    drive(c, { searchPose: (r, out) => { const f = r.localFrame; r.localFrame = -1; full.searchPose(r, out); r.localFrame = f; } }, 300);
    expect(c.searchCount).toBeGreaterThan(10);
    expect(c.localSearchCount).toBe(0);
  });

  it('a crowd runs them in its batch: the same motion as one controller per agent through the port, and the share in the simulation report', async () => {
    const cfg = { agents: 24, seconds: 4, hz: 30, seed: 3, scenario: 'wander' as const, method: 'kdtree' as const, footIK: true, recordAgent: -1, controller: { fullSearchInterval: 0.4 } };
    const group = new AgentGroup(db, matcher, [[0, cfg.agents]], cfg);
    for (let s = 0; s < cfg.seconds * cfg.hz; s++) group.step();
    // Agents 0 and 13 again, each alone through a MatcherSearchPort: bit-identical.
    const port = new MatcherSearchPort(matcher, 'kdtree');
    for (const a of [0, 13]) {
      const c = new MotionMatchingController(db, { ...cfg.controller, footIK: true });
      c.reset(c.frame, 3 * (a % 64), 3 * Math.floor(a / 64), 0);
      const driver = new ScriptedDriver(cfg.scenario, cfg.seed, a, 1 / cfg.hz), input = createInput();
      for (let s = 0; s < cfg.seconds * cfg.hz; s++) { driver.drive(c.rootPosition, input); c.update(1 / cfg.hz, input, port); }
      const g = group.controllers[a];
      expect(c.localSearchCount).toBe(g.localSearchCount);
      expect(c.localSearchCount).toBeGreaterThan(0);
      expect(Array.from(c.rootPosition)).toEqual(Array.from(g.rootPosition));
      expect(Array.from(c.rotations)).toEqual(Array.from(g.rotations));
    }
    const r = group.result();
    expect(r.localSearches).toBeGreaterThan(0.3 * r.searches);
    expect(r.localSearches).toBeLessThan(r.searches);
    const sim = await runSimulation(db, { ...cfg, workers: 1, backend: 'auto', warmup: false });
    expect(sim.localSearches).toBe(r.localSearches);
    expect(sim.hash).not.toBe((await runSimulation(db, { ...cfg, controller: {}, workers: 1, backend: 'auto', warmup: false })).hash);
    expect((await runSimulation(db, { ...cfg, controller: {}, workers: 1, backend: 'auto', warmup: false })).localSearches).toBe(0);
  });

  it('simulate prints their share; shards record them and merge adds them up to the unsharded count', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mm-local-'));
    try {
      const options = join(dir, 'local.json');
      writeFileSync(options, JSON.stringify({ controller: { fullSearchInterval: 0.4 } }));
      const common = ['simulate', '--agents', '16', '--seconds', '3', '--seed', '5', '--options', options, '--no-warmup'];
      const whole = await runCliInProcess([...common, '--json']);
      expect(whole.code, whole.stderr).toBe(0);
      const w = JSON.parse(whole.stdout) as { localSearches: number; searches: number; hash: string };
      expect(w.localSearches).toBeGreaterThan(0);
      const text = await runCliInProcess(common);
      expect(text.stdout).toMatch(new RegExp(`searches +${w.searches.toLocaleString('en-US')} \\(.*, ${Math.round((100 * w.localSearches) / w.searches)}% local\\)`));
      for (const i of [0, 1]) {
        const r = await runCliInProcess([...common, '--shard', `${i}/2`, '--out', join(dir, `part-${i}.json`)]);
        expect(r.code, r.stderr).toBe(0);
      }
      const merged = await runCliInProcess(['merge', join(dir, 'part-0.json'), join(dir, 'part-1.json'), '--json']);
      expect(merged.code, merged.stderr).toBe(0);
      const m = JSON.parse(merged.stdout) as { localSearches: number; hash: string };
      expect(m.hash).toBe(w.hash);
      expect(m.localSearches).toBe(w.localSearches);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
