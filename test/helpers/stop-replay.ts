/**
 * One stop of the stop-go scenario replayed from the output joint positions, as `motionmatch
 * quality` measures a stop: the stop request is the requested speed dropping to 0 from above
 * 0.1 m/s; one second later, the speed of the lowest foot joint (over its own planted height, over
 * the ground under it) over the last step.
 */
import type { Database } from '../../src/database/database.js';
import type { PoseSearchPort } from '../../src/runtime/search-port.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { qualityRig } from '../../src/runtime/quality/quality-rig.js';
import { ScriptedDriver } from '../../src/sim/scenarios.js';
import { sampleGround, type Ground } from '../../src/runtime/ground/ground.js';

export interface StopReplay {
  /** When the stop was requested (s). */
  stopAt: number;
  /** The lowest foot joint's speed one second later (m/s). */
  footSpeed: number;
}

/**
 * Agent `agent` of the stop-go scenario (seed 1, placed as `simulate` places it) at `hz`, until one
 * second after its first stop request later than `after` seconds (at most `until` seconds); on
 * `ground` when given (as `simulate --terrain` runs it, seed 1).
 */
export function replayStop(db: Database, port: PoseSearchPort, agent: number, hz: number, after: number, until: number, ground: Ground | null = null): StopReplay {
  const dt = 1 / hz, c = new MotionMatchingController(db, { footIK: true, ...(ground ? { ground } : {}) }), input = createInput(), rig = qualityRig(db);
  const under = new Float64Array(4);
  c.reset(c.frame, 3 * (agent % 64), 3 * Math.floor(agent / 64), 0);
  const driver = new ScriptedDriver('stop-go', 1, agent, dt);
  const prev = new Float64Array(3 * c.joints);
  let requested = 0, stopAt = Number.NaN, footSpeed = Number.NaN;
  for (let s = 0; s < until * hz && Number.isNaN(footSpeed); s++) {
    driver.drive(c.rootPosition, input);
    c.update(dt, input, port);
    const time = (s + 1) * dt, speed = Math.hypot(input.velocityX, input.velocityZ);
    if (time > after && Number.isNaN(stopAt) && speed <= 1e-3 && requested > 0.1) stopAt = time - dt;
    requested = speed;
    const wp = c.worldPositions;
    if (!Number.isNaN(stopAt) && time - stopAt >= 1 - 1e-9) {
      let low = Infinity, j = -1;
      rig.feet.forEach((f, k) => {
        if (ground) sampleGround(ground, wp, 3 * f, under);
        const h = wp[3 * f + 1] - (ground ? under[0] : 0) - rig.restHeights[k];
        if (h < low) { low = h; j = f; }
      });
      footSpeed = Math.hypot(wp[3 * j] - prev[3 * j], wp[3 * j + 1] - prev[3 * j + 1], wp[3 * j + 2] - prev[3 * j + 2]) / dt;
    }
    prev.set(wp);
  }
  return { stopAt, footSpeed };
}
