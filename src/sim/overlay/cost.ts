/**
 * What an active overlay costs per agent-step: the layer's step (OverlayLayer.apply) timed alone
 * over a crowd of controllers, best of several rounds (the machine may be shared and noisy), in
 * the states it goes through: playing at full weight (the usual case); fading (every masked joint
 * blended, large turns slerped); just after a switch, while the inertialization offsets decay (an
 * exp per masked joint on top); and, once per overlay, the first step of a tag source (its search).
 */
import type { Database } from '../../database/database.js';
import { MotionMatchingController, createInput } from '../../runtime/controller/controller.js';
import { OverlayLayer, type OverlaySource } from '../../runtime/overlay/overlay.js';
import type { BoneMask } from '../../runtime/overlay/bone-mask.js';
import type { PoseSearchPort } from '../../runtime/search-port.js';

export interface OverlayCostOptions {
  mask: BoneMask;
  source: OverlaySource;
  mode?: 'override' | 'additive';
  agents?: number;
  /** Steps timed per round, and rounds (the best round counts). */
  steps?: number;
  rounds?: number;
  hz?: number;
}

export interface OverlayCost {
  /** µs per agent-step, playing at full weight. */
  playingUs: number;
  /** µs per agent-step while fading in. */
  fadingUs: number;
  /** µs per agent-step in the 0.3 s after a switch to another part of the clip (offsets decaying). */
  switchingUs: number;
  /** µs for the first step of an overlay from a tag (the overlay's own search), once per overlay; 0 for clips. */
  entryUs: number;
  agents: number;
  maskedJoints: number;
  joints: number;
}

const keepPlaying: PoseSearchPort = { searchPose(_request, out) { out.frame = -1; out.cost = Infinity; } };

export function measureOverlayCost(db: Database, o: OverlayCostOptions): OverlayCost {
  const agents = o.agents ?? 200, steps = o.steps ?? 30, rounds = o.rounds ?? 7, dt = 1 / (o.hz ?? 30);
  const controllers: MotionMatchingController[] = [];
  const layers: OverlayLayer[] = [];
  const storage = new Float64Array(OverlayLayer.storageSize(o.mask) * agents);
  const input = createInput();
  input.velocityZ = 1.2;
  for (let a = 0; a < agents; a++) {
    const c = new MotionMatchingController(db, { footIK: false });
    const size = OverlayLayer.storageSize(o.mask);
    const layer = new OverlayLayer(db, { mask: o.mask, mode: o.mode ?? 'override', fadeIn: 0.1 }, storage.subarray(a * size, (a + 1) * size));
    c.setOverlay(layer);
    c.update(dt, input, keepPlaying); // sets the step's dt the layer reads
    controllers.push(c);
    layers.push(layer);
  }
  const time = (n: number): number => {
    const t0 = performance.now();
    for (let s = 0; s < n; s++) for (let a = 0; a < agents; a++) layers[a].apply(controllers[a]);
    return ((performance.now() - t0) * 1000) / (n * agents);
  };
  let playing = Infinity, fading = Infinity, switching = Infinity, entry = Infinity;
  const fadeSteps = Math.max(1, Math.round(0.4 / dt)), switchSteps = Math.max(1, Math.round(0.3 / dt));
  for (let r = 0; r < rounds; r++) {
    for (const l of layers) l.play(o.source, { loop: true, fadeIn: 0.4 });
    entry = Math.min(entry, time(1));
    fading = Math.min(fading, time(fadeSteps - 1));
    time(3); // the fade-in is over
    playing = Math.min(playing, time(steps));
    // A switch at full weight to the start of the clip playing: offsets from then on.
    for (const l of layers) l.play('rotations' in o.source ? o.source : { clip: l.clipName as string }, { loop: true, fadeIn: 0, start: 0 });
    switching = Math.min(switching, time(switchSteps));
    for (const l of layers) l.reset();
  }
  const tag = 'tag' in o.source;
  return { playingUs: playing, fadingUs: fading, switchingUs: switching, entryUs: tag ? Math.max(0, entry - fading) : 0, agents, maskedJoints: o.mask.joints.length, joints: db.skeleton.names.length };
}
