/**
 * The controller's own cost per character step, search excluded (issue target: under 5 µs with
 * 22 bones), also with an overlay playing all the time and on uneven ground (what each adds per
 * agent-step is the difference from the plain row), and the simulation's agent-steps per second
 * for several crowd sizes and thread counts.
 */
import type { Database } from '../database/database.js';
import { Matcher } from '../search/matcher.js';
import { MotionMatchingController, createInput } from '../runtime/controller/controller.js';
import { ScriptedDriver } from '../sim/scenarios.js';
import { runSimulation } from '../sim/simulation.js';
import { OverlayLayer } from '../runtime/overlay/overlay.js';
import { parseBoneMaskSpec } from '../runtime/overlay/bone-mask.js';
import { describeTerrain, terrainGround, type TerrainSpec } from '../sim/terrain/terrain.js';

export interface ControllerBenchRow {
  footIK: boolean;
  inertialization: boolean;
  hz: number;
  agents: number;
  joints: number;
  /** With an overlay playing on every character: "TAG on MASK" (null: none). */
  overlay: string | null;
  /** The ground walked on (describeTerrain; null: flat). */
  terrain: string | null;
  /** Median over rounds of the mean controller time per agent-step (µs), search excluded. */
  usPerStep: number;
  p99UsPerStep: number;
}

export interface ScalingRow {
  agents: number;
  workers: number;
  agentStepsPerSec: number;
  searchShare: number;
}

/** Times prepare() + complete() of `agents` controllers over `seconds` of mixed scripted input. */
export interface ControllerBenchOptions {
  agents?: number;
  seconds?: number;
  hz?: number;
  footIK?: boolean;
  inertialization?: boolean;
  /** Every character plays overlays of this tag (looping, restarted when one ends) on `overlayMask`. */
  overlay?: string;
  /** Bone mask spec of the overlay (parseBoneMaskSpec; default upper:2). */
  overlayMask?: string;
  /** The ground the characters walk on (default flat). */
  terrain?: TerrainSpec;
}

export async function benchControllerStep(db: Database, opts: ControllerBenchOptions = {}): Promise<ControllerBenchRow> {
  const agents = opts.agents ?? 200, hz = opts.hz ?? 30, seconds = opts.seconds ?? 6;
  const matcher = await Matcher.create(db);
  const ground = opts.terrain ? terrainGround(opts.terrain) : null;
  const mask = opts.overlay !== undefined ? parseBoneMaskSpec(opts.overlayMask ?? 'upper:2', db) : null;
  const layers: OverlayLayer[] = [];
  const cs = Array.from({ length: agents }, (_, i) => {
    const c = new MotionMatchingController(db, { footIK: opts.footIK ?? true, inertialization: opts.inertialization ?? true, ground });
    c.reset(c.frame, 3 * i, 0, 0);
    if (mask) {
      const layer = new OverlayLayer(db, { mask });
      c.setOverlay(layer);
      layers.push(layer);
    }
    return c;
  });
  const source = { tag: opts.overlay ?? '' };
  const dt = 1 / hz, steps = Math.round(seconds * hz);
  const drivers = cs.map((_, i) => new ScriptedDriver('mixed', 1, i, dt));
  const inputs = cs.map(() => createInput());
  const res = { frame: -1, clip: -1, clipTime: 0, cost: 0 };
  const opt = { method: 'kdtree' as const, normalized: true, bestCost: Infinity, excludeRanges: [[0, 0] as [number, number]] };
  const perRound: number[] = [];
  for (let s = 0; s < steps; s++) {
    let t = 0;
    for (let i = 0; i < agents; i++) {
      const c = cs[i];
      drivers[i].drive(c.rootPosition, inputs[i]);
      // Outside the timing: an overlay always plays (its entry search then counts once per start).
      if (mask && !layers[i].playing) layers[i].play(source, { loop: true });
      const t0 = performance.now();
      const wants = c.prepare(dt, inputs[i]);
      t += performance.now() - t0;
      if (wants) {
        opt.bestCost = c.request.bestCost;
        opt.excludeRanges[0][0] = c.request.excludeStart; opt.excludeRanges[0][1] = c.request.excludeEnd;
        matcher.search(c.request.query, opt, res);
      }
      const t1 = performance.now();
      c.complete(wants ? res.frame : -1, wants ? res.cost : Infinity);
      t += performance.now() - t1;
    }
    if (s >= hz) perRound.push((t * 1000) / agents); // after one second of warm-up
  }
  perRound.sort((a, b) => a - b);
  return {
    footIK: opts.footIK ?? true, inertialization: opts.inertialization ?? true, hz, agents, joints: db.skeleton.names.length,
    overlay: mask ? `${opts.overlay} on ${mask.label}` : null,
    terrain: opts.terrain ? describeTerrain(opts.terrain) : null,
    usPerStep: perRound[Math.floor(perRound.length / 2)],
    p99UsPerStep: perRound[Math.min(perRound.length - 1, Math.floor(perRound.length * 0.99))],
  };
}

/** Agent-steps per second of the simulation for each crowd size and worker count. */
export async function benchSimulationScaling(db: Database, agentCounts: number[], workerCounts: number[], seconds = 4): Promise<ScalingRow[]> {
  const rows: ScalingRow[] = [];
  for (const agents of agentCounts) {
    for (const workers of workerCounts) {
      const r = await runSimulation(db, { agents, seconds, hz: 30, seed: 1, scenario: 'mixed', method: 'kdtree', footIK: true, recordAgent: -1, workers, backend: 'auto' });
      rows.push({ agents, workers, agentStepsPerSec: r.agentStepsPerSec, searchShare: r.searchShare });
    }
  }
  return rows;
}
