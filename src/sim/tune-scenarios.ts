/**
 * The quality scenarios under given controller options: what `motionmatch quality --options FILE`
 * runs and what `motionmatch tune` measures every candidate with. It is runQualityScenarios
 * (quality-run.ts) plus the simulation's `controller` options, which that runner does not take;
 * with no options the two give the same figures and hashes (tested).
 */
import type { Database } from '../database/database.js';
import { QUALITY_SCENARIOS, targetVerdicts, type QualityRunOptions, type ScenarioQuality } from './quality-run.js';
import { runSimulation } from './simulation.js';
import type { ControllerSettings } from './options-file.js';

export interface SettingsRunOptions extends QualityRunOptions {
  /** Controller options other than the defaults (as in a settings file). */
  controller?: ControllerSettings;
  /** Warm the JIT up before the first scenario (default true; a sweep warms up once). */
  warmup?: boolean;
}

export async function runScenariosWithSettings(db: Database, o: SettingsRunOptions): Promise<ScenarioQuality[]> {
  const scenarios = o.scenarios ?? QUALITY_SCENARIOS;
  const controller = o.controller ?? {};
  const out: ScenarioQuality[] = [];
  for (let i = 0; i < scenarios.length; i++) {
    const scenario = scenarios[i];
    const r = await runSimulation(db, {
      agents: o.agents, seconds: o.seconds, hz: o.hz, seed: o.seed, scenario,
      workers: o.workers ?? 1, backend: o.backend ?? 'auto', method: o.method ?? 'kdtree',
      // The file may switch foot IK off; the quality run has it on otherwise.
      footIK: controller.footIK ?? true, recordAgent: -1, controller,
      warmup: i === 0 && o.warmup !== false,
      onProgress: (done, total) => o.onProgress?.(i, scenarios.length, done, total),
    });
    out.push({
      scenario, quality: r.quality, meetsTargets: targetVerdicts(r.quality), hash: r.hash,
      searches: r.searches, wallSeconds: r.wallSeconds, agentStepsPerSec: r.agentStepsPerSec,
    });
  }
  return out;
}
