/**
 * A crowd's overlays (`simulate --overlay TAG`, the demo's crowd): for every agent an overlay layer
 * attached to its controller, its seeded schedule (overlay/schedule.ts) and its meter
 * (overlay/metrics.ts), the state of all of them in one buffer. Built only when overlays are asked
 * for: a run without them steps exactly as before.
 */
import type { Database } from '../../database/database.js';
import type { MotionMatchingController } from '../../runtime/controller/controller.js';
import { OverlayLayer } from '../../runtime/overlay/overlay.js';
import { parseBoneMaskSpec, type BoneMask } from '../../runtime/overlay/bone-mask.js';
import { overlayIndex } from '../../runtime/overlay/search.js';
import { OverlaySchedule, type OverlaySimulation } from './schedule.js';
import { OverlayMeter, OverlayStats } from './metrics.js';

export class OverlayAgents {
  readonly mask: BoneMask;
  readonly layers: OverlayLayer[] = [];
  private readonly schedules: OverlaySchedule[] = [];
  private readonly meters: OverlayMeter[] = [];
  readonly stats = new OverlayStats();

  /**
   * Overlays for `controllers`, agents `agents[i]` of a run seeded `seed`. Checks the
   * settings against the database first (mask joints, the tag's frames): one clear error, not one
   * per agent.
   */
  constructor(db: Database, readonly settings: OverlaySimulation, seed: number, agents: ArrayLike<number>, controllers: readonly MotionMatchingController[]) {
    this.mask = parseBoneMaskSpec(settings.mask, db);
    overlayIndex(db, settings.tag, this.mask); // the tag exists and has gestures to enter
    const M = this.mask.joints.length;
    const per = OverlayLayer.storageSize(this.mask) + OverlaySchedule.storageSize + OverlayMeter.storageSize(M);
    const buffer = new Float64Array(per * controllers.length);
    controllers.forEach((c, i) => {
      let at = i * per;
      const take = (n: number): Float64Array => { const v = buffer.subarray(at, at + n); at += n; return v; };
      const layer = new OverlayLayer(db, { mask: this.mask, mode: settings.mode }, take(OverlayLayer.storageSize(this.mask)));
      c.setOverlay(layer);
      this.layers.push(layer);
      this.schedules.push(new OverlaySchedule(settings, seed, agents[i], take(OverlaySchedule.storageSize)));
      this.meters.push(new OverlayMeter(c, layer, this.stats, take(OverlayMeter.storageSize(M))));
    });
  }

  /** Before agent i's step of dt seconds: starts its overlay when its schedule says so. */
  beforeStep(i: number, dt: number): void {
    this.schedules[i].tick(this.layers[i], dt);
  }

  /** After agent i's step: its overlay figures. */
  afterStep(i: number, dt: number): void {
    this.meters[i].observe(dt);
  }
}
