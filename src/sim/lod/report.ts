/**
 * The `lod` section of a simulation report (`simulate --lod`, docs/lod.md): the levels, how many
 * agent-steps each level took, each level's motion quality (as `quality` measures the whole run),
 * and what the levels and the budget did to the searches.
 */
import { DEFAULT_LOD_HYSTERESIS, DEFAULT_LOD_LEVELS, type LodLevel } from '../../runtime/lod/levels.js';
import { emptyLodCounts, mergeLodCounts, type LodCounts } from '../../runtime/crowd/crowd-lod.js';
import { QualityStats } from '../../runtime/quality/meter.js';
import type { LodCamera } from './camera.js';
import { figureText } from '../../util/figure-text.js';

/** What the report reads of a group's result (GroupResult in sim/agents.ts, declared here: agents.ts imports lod/). */
export interface GroupLodResult {
  lod: { counts: LodCounts; levelStats: QualityStats[] } | null;
}

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
  /** Feet below the ground, 99th percentile (cm), and the largest per-step velocity change of a joint (m/s). */
  belowGroundP99Cm: number;
  popMax: number;
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

/** What the groups' levels did, added up in agent order: the crowd's counts and each level's quality. */
export function mergedGroupLod(groups: readonly GroupLodResult[], levels: number = DEFAULT_LOD_LEVELS.length): { counts: LodCounts; levelStats: QualityStats[] } {
  const counts: LodCounts = emptyLodCounts(levels);
  const levelStats = Array.from({ length: levels }, () => new QualityStats());
  for (const g of groups) {
    if (!g.lod) continue;
    mergeLodCounts(counts, g.lod.counts);
    g.lod.levelStats.forEach((s, l) => levelStats[l].merge(QualityStats.from(s)));
  }
  return { counts, levelStats };
}

/** The `lod` section of the report of a simulation whose groups returned `groups`. */
export function lodReport(groups: readonly GroupLodResult[], camera: LodCamera, budget: number, dt: number, baseSearchInterval: number, levels: readonly LodLevel[] = DEFAULT_LOD_LEVELS, hysteresis = DEFAULT_LOD_HYSTERESIS): LodReport {
  const { counts, levelStats } = mergedGroupLod(groups, levels.length);
  return lodReportOf(counts, levelStats, camera, budget, dt, baseSearchInterval, levels, hysteresis);
}

/**
 * The `lod` section from the crowd's counts and each level's quality statistics, however they were
 * gathered (one run's groups, or the shards of a run: shard/merge.ts).
 */
export function lodReportOf(counts: LodCounts, levelStats: readonly QualityStats[], camera: LodCamera, budget: number, dt: number, baseSearchInterval: number, levels: readonly LodLevel[] = DEFAULT_LOD_LEVELS, hysteresis = DEFAULT_LOD_HYSTERESIS): LodReport {
  const total = counts.levelSteps.reduce((a, b) => a + b, 0);
  return {
    camera, hysteresisM: hysteresis, budget,
    levels: levels.map((l, i) => {
      const q = levelStats[i].report();
      return {
        level: i, fromM: i === 0 ? 0 : levels[i - 1].maxDistance, toM: Number.isFinite(l.maxDistance) ? l.maxDistance : null,
        searchInterval: i === 0 ? baseSearchInterval : l.searchInterval, fullSearchInterval: l.fullSearchInterval, footIK: l.footIK, inertialization: l.inertialization, poseEvery: l.poseEvery,
        agentSteps: counts.levelSteps[i], share: total ? counts.levelSteps[i] / total : 0,
        searchesPerAgentSec: counts.levelSteps[i] ? counts.levelSearches[i] / (counts.levelSteps[i] * dt) : 0,
        footSkateCmPerSec: q.skateCmPerSec, belowGroundP99Cm: q.belowGroundP99Cm, popMax: q.popMax,
        trajectoryErrorCm: q.trajectoryError1Cm, trajectoryError05Cm: q.trajectoryError05Cm,
        transitionsPerSec: q.transitionsPerSec, maxTransitionJump: q.maxTransitionJump,
      };
    }),
    fullSearches: counts.fullSearches, localSearches: counts.localSearches, localFallbacks: counts.localFallbacks,
    deferred: counts.deferred, levelChanges: counts.levelChanges, maxSearchAgeSeconds: counts.maxSearchAgeSeconds,
  };
}

/** The text report's level-of-detail lines (simulate, merge). */
export function lodText(r: LodReport): string {
  const f = (x: number, d = 1) => figureText(x, d);
  const lines = r.levels.map((l) => `  level ${l.level}      ${l.toM === null ? `>= ${l.fromM}` : `${l.fromM}-${l.toM}`} m: ${f(100 * l.share)}% of agent-steps, ${f(l.searchesPerAgentSec, 2)} searches/s, skate ${f(l.footSkateCmPerSec, 2)} cm/s, trajectory error ${f(l.trajectoryErrorCm)} cm, ${f(l.transitionsPerSec, 2)} transitions/s`);
  return lines.join('\n') + '\n' +
    `  lod          camera (${f(r.camera.x)}, ${f(r.camera.z)}) m; ${r.fullSearches.toLocaleString('en-US')} full + ${r.localSearches.toLocaleString('en-US')} local searches; ${r.levelChanges.toLocaleString('en-US')} level changes` +
    (r.budget > 0 ? `; budget ${r.budget}/step: ${r.deferred.toLocaleString('en-US')} deferred, oldest query served at ${f(r.maxSearchAgeSeconds, 2)} s` : '') + '\n';
}
