/**
 * The read-only parts of the automation handle (`window.motionmatch.player`, `.stats`): live views
 * of the player's controller and of the frame statistics, over accessors so that they follow the
 * engine the page runs now (a database load or a mode change replaces it).
 */
import type { MotionMatchingController } from '../../src/runtime/controller/controller.js';
import { quatYaw } from '../../src/math/quat.js';
import type { CrowdEngine, EngineConfig } from './engines.js';
import type { MotionmatchPlayer, MotionmatchStats } from './handle.js';
import type { FrameStats } from './stats.js';

/** `window.motionmatch.player` over the player's controller (null: none running yet). */
export function playerReader(controller: () => MotionMatchingController | null): MotionmatchPlayer {
  const player: MotionmatchPlayer = {
    get position(): [number, number, number] {
      const p = controller()?.rootPosition;
      return p ? [p[0], p[1], p[2]] : [0, 0, 0];
    },
    get facing(): number {
      const c = controller();
      return c ? quatYaw(c.rootRotation, 0) : 0;
    },
    get forward(): [number, number, number] {
      const y = player.facing;
      return [Math.sin(y), 0, Math.cos(y)];
    },
    get clip(): string {
      const c = controller();
      return c ? c.db.clips[c.clipIndex].name : '';
    },
    get frame(): number {
      return controller()?.frame ?? -1;
    },
  };
  return player;
}

/** What the statistics view reads of the page besides its frame statistics. */
export interface StatsSources {
  engine(): CrowdEngine | null;
  config(): EngineConfig;
  /** Agents drawn in the last frame. */
  drawnAgents(): number;
  softwareWebGL(): boolean;
}

/** `window.motionmatch.stats` over the page's frame statistics (medians of the last 60 frames). */
export function statsReader(s: FrameStats, page: StatsSources): MotionmatchStats {
  return {
    get updateMsMedian() { return s.update.median(60); },
    get updateMsMean() { return s.update.mean(60); },
    get updateMsP95() { return s.update.quantile(0.95, 60); },
    get prepareMsMedian() { return s.prepare.median(60); },
    get searchMsMedian() { return s.search.median(60); },
    get completeMsMedian() { return s.complete.median(60); },
    get searchUsMedian() { return s.perQuery.median(60); },
    get searchesPerFrame() { return s.searches.mean(60); },
    get renderMsMedian() { return s.render.median(60); },
    get fps() { return s.fps; },
    get frames() { return s.frames; },
    get mode() { return page.engine()?.mode ?? page.config().mode; },
    get backend() { return page.engine()?.backend ?? page.config().backend; },
    get method() { return page.config().method; },
    get threads() { return page.engine()?.threads ?? 1; },
    get workerPolicy() { return page.config().policy; },
    get workerShare() { return page.engine()?.workerShare ?? 0; },
    get crossOriginIsolated() { return (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true; },
    get agents() { return page.engine()?.agentCount ?? 0; },
    get drawnAgents() { return page.drawnAgents(); },
    get softwareWebGL() { return page.softwareWebGL(); },
    get lodLevels() { return s.levels.slice(); },
    window: (n: number) => s.window(n),
  };
}
