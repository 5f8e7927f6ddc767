/**
 * The tuning sweep behind `motionmatch tune`: the defaults first, then a seeded Latin hypercube
 * over the parameters of tune-space.ts, then local refinement around the best points so far, each
 * point measured over the quality scenarios (runQualityScenarios in quality-run.ts). It stops at a wall-clock budget
 * or an evaluation count, whichever comes first, with the Pareto front of what it measured.
 *
 * Deterministic for a seed: the sequence of points depends only on the seed and on the (bit-
 * reproducible) measurements, so two runs evaluate the same points in the same order; a run
 * stopped by its budget has evaluated a prefix of that sequence (--evaluations N fixes the length).
 */
import type { Database } from '../database/database.js';
import { createRandom, gaussian } from '../util/prng.js';
import { applySchemaWeights, type EngineSettings } from './options-file.js';
import type { ScenarioQuality } from './quality-run.js';
import { QUALITY_SCENARIOS, type ScenarioName } from './scenarios.js';
import { runQualityScenarios } from './quality-run.js';
import { TUNE_PARAMETERS, defaultValues, latinHypercube, settingsOf, unitsOf, valuesAt, valuesKey, type TuneValues } from './tune-space.js';
import { front2d, objectivesOf, paretoFront, qualityIndex, recommend, type TuneObjectives } from './tune-front.js';

export interface TuneOptions {
  seed: number;
  /** Wall-clock seconds: no evaluation starts that would likely end after it. */
  budgetSeconds: number;
  /** Evaluations at most, the defaults included (default: no limit but the budget). */
  maxEvaluations?: number;
  /** Points of the Latin hypercube (default 16). */
  designPoints?: number;
  /** Each evaluation's simulations: agents, seconds, rate, scenarios (default the quality scenarios). */
  agents: number;
  seconds: number;
  hz: number;
  scenarios?: readonly Exclude<ScenarioName, 'mixed'>[];
  workers?: number;
  onProgress?: (p: TuneProgress) => void;
  /** Asked before every evaluation: true stops the sweep there (e.g. after Ctrl-C), with what it has. */
  shouldStop?: () => boolean;
  /** Clock in seconds (tests pass a fake one). */
  now?: () => number;
}

export interface TuneProgress {
  evaluations: number;
  elapsedSeconds: number;
  budgetSeconds: number;
  phase: TuneEvaluation['phase'];
  /** Quality index of the recommendation so far (1 = the defaults). */
  bestQualityIndex: number;
}

export interface TuneEvaluation {
  index: number;
  phase: 'defaults' | 'design' | 'refine';
  values: TuneValues;
  settings: EngineSettings;
  objectives: TuneObjectives;
  /** Quality relative to the defaults (tune-front.ts). */
  qualityIndex: number;
  scenarios: Array<Pick<ScenarioQuality, 'scenario' | 'quality' | 'hash'>>;
  seconds: number;
}

export interface TuneResult {
  evaluations: TuneEvaluation[];
  /** Indices of the Pareto front over the four objectives, and of the 2-D front (trajectory error vs quality index), sorted by trajectory error. */
  front: number[];
  front2d: number[];
  /** The recommended evaluation (null: nothing beat the defaults; they stand). */
  recommended: number | null;
  stoppedBy: 'budget' | 'evaluations' | 'interrupted';
  elapsedSeconds: number;
}

export const DEFAULT_DESIGN_POINTS = 16;

function clock(): number {
  return performance.now() / 1000;
}

/** One point measured over the scenarios. */
async function evaluate(db: Database, values: TuneValues, o: TuneOptions, index: number): Promise<Omit<TuneEvaluation, 'phase' | 'qualityIndex'>> {
  const now = o.now ?? clock;
  const t0 = now();
  const settings = settingsOf(db, values);
  const rows = await runQualityScenarios(applySchemaWeights(db, settings), {
    agents: o.agents, seconds: o.seconds, hz: o.hz, seed: o.seed, workers: o.workers,
    scenarios: o.scenarios ?? QUALITY_SCENARIOS, controller: settings.controller,
    // The JIT warms up once, for the first evaluation (the figures never depend on it).
    warmup: index === 0,
  });
  return { index, values, settings, objectives: objectivesOf(rows), scenarios: rows.map((r) => ({ scenario: r.scenario, quality: r.quality, hash: r.hash })), seconds: now() - t0 };
}

export async function runTune(db: Database, o: TuneOptions): Promise<TuneResult> {
  if (!(Number.isFinite(o.budgetSeconds) && o.budgetSeconds > 0)) throw new RangeError(`tune: the budget must be > 0 seconds, got ${o.budgetSeconds}`);
  if (o.maxEvaluations !== undefined && !(Number.isInteger(o.maxEvaluations) && o.maxEvaluations >= 1)) throw new RangeError(`tune: evaluations must be an integer >= 1, got ${o.maxEvaluations}`);
  const designPoints = o.designPoints ?? DEFAULT_DESIGN_POINTS;
  if (!(Number.isInteger(designPoints) && designPoints >= 1 && designPoints <= 10_000)) throw new RangeError(`tune: design points must be an integer in [1, 10000], got ${designPoints}`);
  const now = o.now ?? clock;
  const t0 = now();
  const random = createRandom(o.seed ^ 0x5eed7);
  const evaluations: TuneEvaluation[] = [];
  const seen = new Set<string>();
  let stoppedBy: TuneResult['stoppedBy'] = 'budget';
  let recommended: number | null = null;

  const mayContinue = (): boolean => {
    if (o.shouldStop?.()) { stoppedBy = 'interrupted'; return false; }
    if (o.maxEvaluations !== undefined && evaluations.length >= o.maxEvaluations) { stoppedBy = 'evaluations'; return false; }
    const elapsed = now() - t0;
    // The next evaluation takes about as long as the last one.
    const next = evaluations.length ? evaluations[evaluations.length - 1].seconds : 0;
    if (elapsed + next > o.budgetSeconds) { stoppedBy = 'budget'; return false; }
    return true;
  };
  const run = async (values: TuneValues, phase: TuneEvaluation['phase']): Promise<void> => {
    seen.add(valuesKey(values));
    // An evaluation never yields to the event loop (its simulations step synchronously): give
    // timers and signals (Ctrl-C -> shouldStop) their turn between evaluations.
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    const e = await evaluate(db, values, o, evaluations.length);
    const reference = evaluations.length ? evaluations[0].objectives : e.objectives;
    evaluations.push({ ...e, phase, qualityIndex: qualityIndex(e.objectives, reference) });
    recommended = recommend(evaluations.map((x) => x.objectives), evaluations[0].objectives);
    o.onProgress?.({
      evaluations: evaluations.length, elapsedSeconds: now() - t0, budgetSeconds: o.budgetSeconds, phase,
      bestQualityIndex: recommended === null ? 1 : evaluations[recommended].qualityIndex,
    });
  };

  await run(defaultValues(), 'defaults');
  for (const u of latinHypercube(designPoints, TUNE_PARAMETERS.length, random)) {
    if (!mayContinue()) break;
    const values = valuesAt(u);
    if (seen.has(valuesKey(values))) continue;
    await run(values, 'design');
  }
  // Local refinement: perturb the incumbent (every other round) or a front point, with a step that
  // shrinks as the rounds go by. The incumbent is the recommendation, or the defaults while nothing
  // beats them: good defaults sit where the design's coarse points rarely land, and a better point is
  // most likely found next to them.
  for (let round = 0; mayContinue(); round++) {
    const front = paretoFront(evaluations.map((e) => e.objectives));
    const base = round % 2 === 0 ? (recommended ?? 0) : front[Math.floor(random() * front.length)];
    const sigma = Math.max(0.04, 0.2 * 0.9 ** round);
    const u0 = unitsOf(evaluations[base].values);
    let values: TuneValues | null = null;
    for (let attempt = 0; attempt < 20 && values === null; attempt++) {
      const step = sigma * (1 + attempt / 4);
      const candidate = valuesAt(u0.map((x) => x + step * gaussian(random)));
      if (!seen.has(valuesKey(candidate))) values = candidate;
    }
    if (values === null) break; // the neighbourhood is exhausted at this resolution
    await run(values, 'refine');
  }
  const objectives = evaluations.map((e) => e.objectives);
  return {
    evaluations,
    front: paretoFront(objectives),
    front2d: front2d(objectives.map((x) => x.trajectoryErrorCm), evaluations.map((e) => e.qualityIndex)),
    recommended,
    stoppedBy,
    elapsedSeconds: now() - t0,
  };
}

export interface HoldoutComparison {
  defaults: { objectives: TuneObjectives; scenarios: ScenarioQuality[] };
  recommended: { objectives: TuneObjectives; scenarios: ScenarioQuality[] };
  /** Quality measures the recommendation improves, and whether the trajectory error is no worse. */
  improved: string[];
  trajectoryNoWorse: boolean;
}

/** Defaults against `settings` on another database (held-back captures), over the quality scenarios. */
export async function compareOnHoldout(db: Database, settings: EngineSettings, o: { agents: number; seconds: number; hz: number; seed: number; workers?: number; source?: string }): Promise<HoldoutComparison> {
  const run = (s: EngineSettings | null) => runQualityScenarios(s ? applySchemaWeights(db, s, o.source) : db, {
    agents: o.agents, seconds: o.seconds, hz: o.hz, seed: o.seed, workers: o.workers, controller: s?.controller,
  });
  const d = await run(null), r = await run(settings);
  const dObj = objectivesOf(d), rObj = objectivesOf(r);
  const improved = (['footSkateCmPerSec', 'transitionsPerSec', 'maxTransitionJump'] as const).filter((k) => rObj[k] < dObj[k]);
  return { defaults: { objectives: dObj, scenarios: d }, recommended: { objectives: rObj, scenarios: r }, improved, trajectoryNoWorse: rObj.trajectoryErrorCm <= dObj.trajectoryErrorCm };
}
