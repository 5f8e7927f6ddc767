/**
 * The `lod` section of a simulation report (`simulate --lod`, docs/lod.md): the levels, how many
 * agent-steps each level took, each level's motion quality (as `quality` measures the whole run),
 * and what the levels and the budget did to the searches.
 */
import { DEFAULT_LOD_HYSTERESIS, DEFAULT_LOD_LEVELS, type LodLevel } from '../runtime/lod.js';
import { emptyLodCounts, mergeLodCounts, type LodCounts } from '../runtime/crowd-lod.js';
import { QualityStats } from '../runtime/metrics.js';
import type { GroupResult } from './agents.js';
import type { LodCamera } from './lod-camera.js';

export interface LodLevelReport {
  level: number;
  /** The level's distance band (m): [from, to). */
  fromM: number;
  toM: number | null;
  searchInterval: number;
  fullSearchInterval: number;
  footIK: boolean;
  inertialization: boolean;
  poseEvery: number;
  agentSteps: number;
  /** Share of all agent-steps. */
  share: number;
  /** Searches per agent-second at this level. */
  searchesPerAgentSec: number;
  footSkateCmPerSec: number;
  ankleSkateCmPerSec: number;
  trajectoryErrorCm: number;
  trajectoryError05Cm: number;
  transitionsPerSec: number;
  maxTransitionJump: number;
}

/** The whole crowd's counts (LodCounts, its per-level arrays turned into `levels`) and its settings. */
export interface LodReport extends Omit<LodCounts, 'levelSteps' | 'levelSearches'> {
  camera: LodCamera;
  hysteresisM: number;
  /** Searches per step for the crowd (0: no budget). */
  budget: number;
  levels: LodLevelReport[];
}

export function lodReport(groups: readonly GroupResult[], camera: LodCamera, budget: number, dt: number, baseSearchInterval: number, levels: readonly LodLevel[] = DEFAULT_LOD_LEVELS): LodReport {
  const counts: LodCounts = emptyLodCounts(levels.length);
  const stats = levels.map(() => new QualityStats());
  for (const g of groups) {
    if (!g.lod) continue;
    mergeLodCounts(counts, g.lod.counts);
    g.lod.levelStats.forEach((s, l) => stats[l].merge(QualityStats.from(s)));
  }
  const total = counts.levelSteps.reduce((a, b) => a + b, 0);
  return {
    camera, hysteresisM: DEFAULT_LOD_HYSTERESIS, budget,
    levels: levels.map((l, i) => {
      const q = stats[i].report();
      return {
        level: i, fromM: i === 0 ? 0 : levels[i - 1].maxDistance, toM: Number.isFinite(l.maxDistance) ? l.maxDistance : null,
        searchInterval: i === 0 ? baseSearchInterval : l.searchInterval, fullSearchInterval: l.fullSearchInterval, footIK: l.footIK, inertialization: l.inertialization, poseEvery: l.poseEvery,
        agentSteps: counts.levelSteps[i], share: total ? counts.levelSteps[i] / total : 0,
        searchesPerAgentSec: counts.levelSteps[i] ? counts.levelSearches[i] / (counts.levelSteps[i] * dt) : 0,
        footSkateCmPerSec: q.footSkateCmPerSec, ankleSkateCmPerSec: q.ankleSkateCmPerSec,
        trajectoryErrorCm: q.trajectoryError1Cm, trajectoryError05Cm: q.trajectoryError05Cm,
        transitionsPerSec: q.transitionsPerSec, maxTransitionJump: q.maxTransitionJump,
      };
    }),
    fullSearches: counts.fullSearches, localSearches: counts.localSearches, localFallbacks: counts.localFallbacks,
    deferred: counts.deferred, levelChanges: counts.levelChanges, maxSearchAgeSeconds: counts.maxSearchAgeSeconds,
  };
}
