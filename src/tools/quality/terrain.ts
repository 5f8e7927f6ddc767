/**
 * `motionmatch quality --terrain T`: every scenario twice, on flat ground and on the terrain, with
 * the same crowd, length and seed, so that each terrain row reads next to its flat twin; the
 * terrain rows add how much more the feet skate than on flat ground, and are judged on the uneven
 * ground's targets too (tools/quality/targets.ts, TERRAIN_QUALITY_TARGETS).
 */
import type { Database } from '../../database/database.js';
import { dataLevel, runQualityScenarios, QUALITY_SCENARIOS, type QualityRunOptions, type ScenarioQuality } from './run.js';
import { runSimulation, simulationMatcher } from '../../sim/simulation.js';
import { qualityColumns, targetVerdicts } from './columns.js';
import type { DataLevel, QualityFigures } from './targets.js';
import type { TerrainSpec } from '../../sim/terrain/terrain.js';

/** A row's name on the terrain: "wander on hills". */
export function terrainRowName(scenario: string, terrainName: string): string {
  return `${scenario} on ${terrainName}`;
}

/** Which of a row's columns (the terrain table's) meet their targets. */
function verdicts(figures: QualityFigures, data: DataLevel): Record<string, boolean> {
  return targetVerdicts(figures, data, qualityColumns(true));
}

/**
 * The quality rows of every scenario on flat ground and on `terrain` (named `terrainName` in the
 * rows), flat first, then terrain, scenario by scenario, on o.workers threads (default 1).
 */
export async function runTerrainQuality(db: Database, o: QualityRunOptions, terrain: TerrainSpec, terrainName: string): Promise<ScenarioQuality[]> {
  const scenarios = o.scenarios ?? QUALITY_SCENARIOS;
  const n = scenarios.length;
  // One upload and set of indexes for the flat and the terrain runs.
  const workers = o.workers ?? 1, backend = o.backend ?? 'auto';
  const matcher = o.matcher ?? await simulationMatcher(db, { workers, backend });
  const flat = await runQualityScenarios(db, { ...o, matcher, onProgress: (i, _n, done, total) => o.onProgress?.(i, 2 * n, done, total) });
  const controller = o.controller ?? {};
  const data = dataLevel(db, o.hz);
  const rows: ScenarioQuality[] = [];
  for (let i = 0; i < n; i++) {
    const scenario = scenarios[i];
    const r = await runSimulation(db, {
      agents: o.agents, seconds: o.seconds, hz: o.hz, seed: o.seed, scenario,
      workers, backend, matcher, method: o.method ?? 'kdtree',
      footIK: controller.footIK ?? true, recordAgent: -1, controller, terrain, warmup: false, tags: o.tags ?? null,
      onProgress: (done, total) => o.onProgress?.(n + i, 2 * n, done, total),
    });
    const quality: QualityFigures = { ...r.quality, skateOverFlatCmPerSec: r.quality.skateCmPerSec - flat[i].quality.skateCmPerSec };
    // The flat twin as the plain run judges it: the terrain's targets judge the terrain row (columns.ts terrainOnly).
    rows.push(flat[i]);
    rows.push({
      scenario: terrainRowName(scenario, terrainName), quality, meetsTargets: verdicts(quality, data), hash: r.hash,
      searches: r.searches, localSearches: r.localSearches, wallSeconds: r.wallSeconds, agentStepsPerSec: r.agentStepsPerSec,
    });
  }
  return rows;
}
