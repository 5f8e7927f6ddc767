/**
 * The simulation's parts used directly: scripted drivers (src/sim/scenarios.ts), agent groups
 * (src/sim/agents.ts) and the up-front memory check (src/sim/memory-node.ts).
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { Matcher } from '../../src/search/matcher.js';
import { createInput } from '../../src/runtime/controller/controller.js';
import { ScriptedDriver, SCENARIOS, QUALITY_SCENARIOS } from '../../src/sim/scenarios.js';
import { AgentGroup, agentHashesInOrder, type SimulationConfig } from '../../src/sim/agents.js';
import { evenRanges, workerRanges, WORKER_BLOCK } from '../../src/sim/worker-split.js';
import { estimateSimulationMemory, requireSimulationFits } from '../../src/sim/memory-node.js';
import type { Database } from '../../src/database/database.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

let db: Database;
let matcher: Matcher;
beforeAll(async () => {
  db = builtinDatabase();
  matcher = await Matcher.create(db);
});

/** The inputs a driver writes over n steps while its agent moves as asked. */
function drive(d: ScriptedDriver, n: number, dt: number): number[] {
  const pos = new Float64Array(3), input = createInput(), out: number[] = [];
  for (let s = 0; s < n; s++) {
    d.drive(pos, input);
    pos[0] += input.velocityX * dt; pos[2] += input.velocityZ * dt;
    out.push(input.velocityX, input.velocityZ, input.facing);
  }
  return out;
}

describe('ScriptedDriver', () => {
  it('depends only on (scenario, seed, agent): repeatable, and different agents differ', () => {
    for (const scenario of SCENARIOS) {
      const a = drive(new ScriptedDriver(scenario, 5, 3, 1 / 30), 300, 1 / 30);
      expect(drive(new ScriptedDriver(scenario, 5, 3, 1 / 30), 300, 1 / 30)).toEqual(a);
      expect(drive(new ScriptedDriver(scenario, 5, 4, 1 / 30), 300, 1 / 30)).not.toEqual(a);
      expect(drive(new ScriptedDriver(scenario, 6, 3, 1 / 30), 300, 1 / 30)).not.toEqual(a);
    }
  });

  it("'mixed' gives each agent one of the quality scenarios", () => {
    const kinds = new Set(Array.from({ length: 64 }, (_, i) => new ScriptedDriver('mixed', 1, i, 1 / 30).kind));
    expect([...kinds].sort()).toEqual([...QUALITY_SCENARIOS].sort());
  });

  it("'crowd' keeps an agent that follows its input within reach of the disc", () => {
    for (let agent = 0; agent < 20; agent++) {
      const d = new ScriptedDriver('crowd', 9, agent, 1 / 30);
      d.radius = 6;
      const pos = new Float64Array(3), input = createInput();
      let far = 0;
      for (let s = 0; s < 30 * 120; s++) {
        d.drive(pos, input);
        pos[0] += input.velocityX / 30; pos[2] += input.velocityZ / 30;
        far = Math.max(far, Math.hypot(pos[0], pos[2]));
      }
      // An agent turns back once outside; at the fastest gait (4.3 m/s) it overshoots by a few metres at most.
      expect(far).toBeLessThan(6 + 12);
    }
  });

  it('refuses a bad dt, radius or storage', () => {
    expect(() => new ScriptedDriver('wander', 1, 0, 0)).toThrow(/dt/);
    expect(() => new ScriptedDriver('wander', 1, 0, 1 / 30, new Float64Array(2))).toThrow(/storage/);
    const d = new ScriptedDriver('crowd', 1, 0, 1 / 30);
    expect(() => { d.radius = -1; }).toThrow(/radius/);
    expect(() => { d.stepSeconds = NaN; }).toThrow(/dt/);
  });
});

describe('AgentGroup', () => {
  const cfg: SimulationConfig = { agents: 40, seconds: 2, hz: 30, seed: 3, scenario: 'mixed', method: 'kdtree', footIK: true, recordAgent: -1 };

  it('gives every agent the same digest however the crowd is split into groups (what workers rely on)', () => {
    const whole = new AgentGroup(db, matcher, [[0, 40]], cfg);
    const a = new AgentGroup(db, matcher, [[0, 15]], cfg), b = new AgentGroup(db, matcher, [[15, 25]], cfg);
    for (let s = 0; s < 60; s++) { whole.step(); a.step(); b.step(); }
    const split = [...a.result().hashes, ...b.result().hashes];
    expect(split).toEqual(whole.result().hashes);
    expect(new Set(split).size).toBe(40);
  });

  it('steps interleaved blocks (a thread\'s share, worker-split.ts) to the same digests, put back in agent order', () => {
    const lodCfg: SimulationConfig = { ...cfg, agents: 300, seconds: 1, lod: { budget: 20 } };
    const whole = new AgentGroup(db, matcher, [[0, 300]], lodCfg);
    const [even, odd] = workerRanges(0, 300, 2);
    expect(even).toEqual([[0, 128], [256, 44]]);
    expect(odd).toEqual([[128, 128]]);
    const a = new AgentGroup(db, matcher, even, lodCfg), b = new AgentGroup(db, matcher, odd, lodCfg);
    for (let s = 0; s < 30; s++) { whole.step(); a.step(); b.step(); }
    const ra = a.result(), rb = b.result(), rw = whole.result();
    expect(ra.ranges).toEqual(even);
    const ordered = agentHashesInOrder([rb, ra]);
    expect(ordered.first).toBe(0);
    expect(ordered.hashes).toEqual(rw.hashes);
    // the same searches, deferred or not, in the same steps
    expect(ra.searches + rb.searches).toBe(rw.searches);
    expect(ra.lod!.counts.deferred + rb.lod!.counts.deferred).toBe(rw.lod!.counts.deferred);
    expect(() => agentHashesInOrder([ra])).toThrow(/contiguous/);
  });

  it('refuses ranges that are empty, overlapping or out of order', () => {
    expect(() => new AgentGroup(db, matcher, [], cfg)).toThrow(/no agents/);
    expect(() => new AgentGroup(db, matcher, [[10, 5], [12, 5]], cfg)).toThrow(/increasing order/);
    expect(() => new AgentGroup(db, matcher, [[0, 0]], cfg)).toThrow(/increasing order/);
    expect(() => new AgentGroup(db, matcher, [[0, 1.5]], cfg)).toThrow(/increasing order/);
  });
});

describe('workerRanges', () => {
  it('deals blocks bounded by multiples of the block size round robin, and covers every agent once', () => {
    expect(workerRanges(0, 10, 2, 4)).toEqual([[[0, 4], [8, 2]], [[4, 4]]]);
    // a shard starting mid-block keeps the absolute block bounds
    expect(workerRanges(6, 7, 3, 4)).toEqual([[[6, 2]], [[8, 4]], [[12, 1]]]);
    // fewer blocks than threads: only threads with agents
    expect(workerRanges(0, 3, 4, 4)).toEqual([[[0, 3]]]);
    expect(workerRanges(0, 0, 2)).toEqual([]);
    for (const [first, count, workers] of [[0, 20000, 2], [333, 9001, 3], [5, 1, 8]]) {
      const seen = workerRanges(first, count, workers).flat().sort((x, y) => x[0] - y[0]);
      let next = first;
      for (const [f, n] of seen) { expect(f).toBe(next); expect(f % WORKER_BLOCK === 0 || f === first).toBe(true); next = f + n; }
      expect(next).toBe(first + count);
    }
  });

  it('refuses bad arguments', () => {
    expect(() => workerRanges(-1, 5, 2)).toThrow(RangeError);
    expect(() => workerRanges(0, 5, 0)).toThrow(/workers/);
    expect(() => workerRanges(0, 5, 2, 0)).toThrow(/block/);
  });
});

describe('evenRanges (crowds without levels of detail)', () => {
  it('splits the agents into contiguous runs whose sizes differ by one at most, one per thread with agents', () => {
    // A 100-agent quality run on two threads: 50 each (in 128-agent blocks, all on one).
    expect(evenRanges(0, 100, 2)).toEqual([[[0, 50]], [[50, 50]]]);
    expect(evenRanges(7, 10, 3)).toEqual([[[7, 4]], [[11, 3]], [[14, 3]]]);
    expect(evenRanges(0, 2, 4)).toEqual([[[0, 1]], [[1, 1]]]);
    expect(evenRanges(0, 0, 2)).toEqual([]);
    expect(() => evenRanges(0, 5, 0)).toThrow(/workers/);
    expect(() => evenRanges(0, -1, 2)).toThrow(RangeError);
  });
});

describe('simulation memory check', () => {
  it('accepts an ordinary crowd and refuses one that cannot fit, with the figure', () => {
    expect(() => requireSimulationFits(estimateSimulationMemory(db, 1000, 300, 30, 1, false), 1000)).not.toThrow();
    expect(() => requireSimulationFits(estimateSimulationMemory(db, 1_000_000, 300, 30, 1, false), 1_000_000))
      .toThrow(/1,000,000 agents need about [0-9.]+ GB/);
  });
});
