/**
 * The quality run behind `motionmatch quality`: one simulation per scripted scenario on the same
 * database, with the same crowd size, length and seed, so that the scenarios compare with each
 * other and a run compares with the next one (deterministic: the same seed gives the same hashes).
 */
import type { Database } from '../../database/database.js';
import type { QualityReport } from '../../runtime/quality/meter.js';
import type { Backend, Matcher, SearchMethod } from '../../search/matcher.js';
import { QUALITY_SCENARIOS, type ScenarioName } from '../../sim/scenarios.js';
import { runSimulation, simulationMatcher } from '../../sim/simulation.js';
import type { ControllerSettings } from '../../sim/settings/options-file.js';
import type { SearchTags } from '../../sim/search-tags.js';
import { targetVerdicts } from './columns.js';
import { dataLevel } from './data-level.js';

export { QUALITY_SCENARIOS, dataLevel };

export interface QualityRunOptions {
  agents: number;
  seconds: number;
  hz: number;
  seed: number;
  workers?: number;
  method?: SearchMethod;
  backend?: Backend | 'auto';
  scenarios?: readonly Exclude<ScenarioName, 'mixed'>[];
  /** Steps done in scenario `index` (of `count`). */
  onProgress?: (index: number, count: number, stepsDone: number, stepsTotal: number) => void;
  /** Controller options other than the defaults (as in a settings file). */
  controller?: ControllerSettings;
  /** Warm the JIT up before the first scenario (default true; a sweep warms up once). */
  warmup?: boolean;
  /** Tags the locomotion searches keep to (`--require-tag`, `--exclude-tag`; sim/search-tags.ts). */
  tags?: SearchTags | null;
  /** The matcher every scenario searches with (sim/simulation.ts simulationMatcher for these workers and backend); default: one made for the run. */
  matcher?: Matcher;
}

export interface ScenarioQuality {
  scenario: string;
  /** The simulation's full quality report. */
  quality: QualityReport;
  /** Per column with a target: whether the scenario meets it. */
  meetsTargets: Record<string, boolean>;
  /** The simulation's digest (bit-identical runs give the same one). */
  hash: string;
  searches: number;
  /** Of `searches`, the local ones (controller option fullSearchInterval). */
  localSearches: number;
  wallSeconds: number;
  agentStepsPerSec: number;
}

export async function runQualityScenarios(db: Database, o: QualityRunOptions): Promise<ScenarioQuality[]> {
  const scenarios = o.scenarios ?? QUALITY_SCENARIOS;
  const controller = o.controller ?? {};
  const data = dataLevel(db, o.hz);
  const out: ScenarioQuality[] = [];
  // One upload of the database and one set of indexes for every scenario (each run built its own:
  // a quarter of a tuning sweep's time on the real captures).
  const workers = o.workers ?? 1, backend = o.backend ?? 'auto';
  const matcher = o.matcher ?? await simulationMatcher(db, { workers, backend });
  for (let i = 0; i < scenarios.length; i++) {
    const scenario = scenarios[i];
    const r = await runSimulation(db, {
      agents: o.agents, seconds: o.seconds, hz: o.hz, seed: o.seed, scenario,
      workers, backend, matcher, method: o.method ?? 'kdtree',
      // A settings file may switch foot IK off; the quality run has it on otherwise.
      footIK: controller.footIK ?? true, recordAgent: -1, controller, tags: o.tags ?? null,
      // The figures do not depend on timing: warming the JIT up once is enough (a sweep, not even that).
      warmup: i === 0 && o.warmup !== false,
      onProgress: (done, total) => o.onProgress?.(i, scenarios.length, done, total),
    });
    out.push({
      scenario, quality: r.quality, meetsTargets: targetVerdicts(r.quality, data), hash: r.hash,
      searches: r.searches, localSearches: r.localSearches, wallSeconds: r.wallSeconds, agentStepsPerSec: r.agentStepsPerSec,
    });
  }
  return out;
}
