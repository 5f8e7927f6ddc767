/**
 * Two databases of the same captures on two rigs (one with joints added: segments, links, a pelvis),
 * stepped side by side with the same scripted input: how far apart (m) the joints both rigs have end
 * up, from the output world positions. An engine that does not depend on how a rig is built keeps
 * them together to rounding.
 */
import type { Database } from '../../src/database/database.js';
import { Matcher } from '../../src/search/matcher.js';
import { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { ScriptedDriver, type ScenarioName } from '../../src/sim/scenarios.js';

export interface RigGap {
  /** The largest distance between a joint of `plain` and the same-named joint of `rigged` (m). */
  worst: number;
  /** Transitions the plain rig's controllers made, and steps on which one of its feet was locked. */
  transitions: number;
  lockedSteps: number;
}

export async function gapToPlainRig(rigged: Database, plain: Database, scenarios: readonly ScenarioName[], agents: number, steps: number, hz = 60): Promise<RigGap> {
  const ports = await Promise.all([rigged, plain].map(async (db) => new MatcherSearchPort(await Matcher.create(db), 'kdtree')));
  const same = plain.skeleton.names.map((n) => rigged.skeleton.names.indexOf(n));
  if (same.some((j) => j < 0)) throw new Error('gapToPlainRig: the rigged skeleton lacks joints of the plain one');
  const dt = 1 / hz, gap: RigGap = { worst: 0, transitions: 0, lockedSteps: 0 };
  for (const scenario of scenarios) {
    for (let a = 0; a < agents; a++) {
      const cs = [rigged, plain].map((db) => { const c = new MotionMatchingController(db, {}); c.reset(c.frame, 3 * a, 0, 0); return c; });
      const drivers = [0, 1].map(() => new ScriptedDriver(scenario, 1, a, dt)), inputs = [createInput(), createInput()];
      for (let t = 0; t < steps; t++) {
        for (let k = 0; k < 2; k++) { drivers[k].drive(cs[k].rootPosition, inputs[k]); cs[k].update(dt, inputs[k], ports[k]); }
        const p = cs[0].worldPositions, q = cs[1].worldPositions;
        same.forEach((j, i) => { gap.worst = Math.max(gap.worst, Math.hypot(p[3 * j] - q[3 * i], p[3 * j + 1] - q[3 * i + 1], p[3 * j + 2] - q[3 * i + 2])); });
        if (cs[1].footIK.legs.some((l) => l.locked)) gap.lockedSteps++;
      }
      gap.transitions += cs[1].transitionCount;
    }
  }
  return gap;
}
