import type { Database } from '../../src/database/database.js';
import { MotionMatchingController, createInput, type ControllerOptions } from '../../src/runtime/controller/controller.js';
import { QualityMeter, type QualityReport } from '../../src/runtime/quality/meter.js';
import type { PoseSearchPort } from '../../src/runtime/search-port.js';

/** Scripted inputs (desired velocity x, z and facing; NaN = face the way of travel) over time. */
export const SCRIPTS: Record<string, (t: number) => [number, number, number]> = {
  straight: () => [0, 1.4, NaN],
  turns90: (t) => { const h = Math.floor(t / 4) * Math.PI / 2; return [Math.sin(h) * 1.4, Math.cos(h) * 1.4, NaN]; },
  uturns: (t) => { const h = Math.floor(t / 5) * Math.PI; return [Math.sin(h) * 2.5, Math.cos(h) * 2.5, NaN]; },
  stopgo: (t) => (Math.floor(t / 3) % 2 ? [0, 0, NaN] : [0, 1.6, NaN]),
  strafe: (t) => [Math.floor(t / 4) % 2 ? 1 : -1, 0, 0],
  run: () => [0, 3.5, NaN],
};

export function runScript(db: Database, port: PoseSearchPort, script: (t: number) => [number, number, number], seconds: number, options: Partial<ControllerOptions> = {}, dt = 1 / 30): { report: QualityReport; controller: MotionMatchingController } {
  const c = new MotionMatchingController(db, options);
  const meter = new QualityMeter(c);
  const input = createInput();
  for (let s = 0; s < Math.round(seconds / dt); s++) {
    const [vx, vz, f] = script(s * dt);
    input.velocityX = vx; input.velocityZ = vz; input.facing = f;
    c.update(dt, input, port);
    meter.observe(input, dt);
  }
  return { report: meter.report(), controller: c };
}
