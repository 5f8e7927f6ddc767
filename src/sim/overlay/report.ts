/**
 * The overlay part of a simulation report (`simulate --overlay TAG`): the settings, the figures
 * the agents' meters gathered (overlay/metrics.ts) and the measured cost per agent-step of an
 * active overlay (overlay/cost.ts).
 */
import type { Database } from '../../database/database.js';
import { parseBoneMaskSpec } from '../../runtime/overlay/bone-mask.js';
import type { OverlaySimulation } from './schedule.js';
import type { OverlayReport, OverlayStats } from './metrics.js';
import { measureOverlayCost } from './cost.js';
import { figureText } from '../../util/figure-text.js';

export interface OverlayFigures extends OverlayReport {
  tag: string;
  mode: string;
  mask: { spec: string; label: string; joints: string[] };
  every: [number, number];
  duration: [number, number];
  /**
   * µs per agent-step of the layer's step (best of rounds): playing at full weight, fading, in the
   * 0.3 s after a switch; and once per overlay, its entry search.
   */
  costUsPlaying: number;
  costUsFading: number;
  costUsSwitching: number;
  costUsEntrySearch: number;
}

/** The figures that do not come from the agents' meters: the settings, the mask and the measured cost. */
export type OverlayDescription = Omit<OverlayFigures, keyof OverlayReport>;

/** The settings and mask as the report names them, and the cost measured on this machine now. */
export function describeOverlay(db: Database, settings: OverlaySimulation, hz: number): OverlayDescription {
  const mask = parseBoneMaskSpec(settings.mask, db);
  const cost = measureOverlayCost(db, { mask, source: { tag: settings.tag }, mode: settings.mode, hz });
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    tag: settings.tag, mode: settings.mode,
    mask: { spec: settings.mask, label: mask.label, joints: Array.from(mask.joints, (j) => db.skeleton.names[j]) },
    every: settings.every, duration: settings.duration,
    costUsPlaying: round(cost.playingUs), costUsFading: round(cost.fadingUs), costUsSwitching: round(cost.switchingUs), costUsEntrySearch: round(cost.entryUs),
  };
}

/** The report's overlay part: the description and the meters' figures (the same key order for simulate and merge). */
export function overlayFiguresOf(d: OverlayDescription, stats: OverlayStats): OverlayFigures {
  return {
    tag: d.tag, mode: d.mode, mask: d.mask, every: d.every, duration: d.duration,
    ...stats.report(),
    costUsPlaying: d.costUsPlaying, costUsFading: d.costUsFading, costUsSwitching: d.costUsSwitching, costUsEntrySearch: d.costUsEntrySearch,
  };
}

export function overlayFigures(db: Database, settings: OverlaySimulation, stats: OverlayStats, hz: number): OverlayFigures {
  return overlayFiguresOf(describeOverlay(db, settings, hz), stats);
}

/** The lines the text report adds. */
export function overlayText(o: OverlayFigures): string {
  const f = (x: number) => figureText(x, 2);
  return [
    `  overlay      '${o.tag}' (${o.mode}) on ${o.mask.label}: ${o.entries.toLocaleString('en-US')} entries, ${o.exits.toLocaleString('en-US')} exits, active ${(100 * o.activeShare).toFixed(0)}% of agent-steps`,
    `               joint velocity jump at entry ${f(o.entryJumpMax)} m/s max (p95 ${f(o.entryJumpP95)}), exit ${f(o.exitJumpMax)} (p95 ${f(o.exitJumpP95)}); while playing p95 ${f(o.playingJumpP95)}, without overlay p95 ${f(o.withoutJumpP95)} (max ${f(o.withoutJumpMax)})`,
    `               cost per agent-step ${o.costUsPlaying.toFixed(3)} us playing, ${o.costUsFading.toFixed(3)} us fading, ${o.costUsSwitching.toFixed(3)} us after a switch; ${o.costUsEntrySearch.toFixed(1)} us per entry search`,
  ].join('\n') + '\n';
}
