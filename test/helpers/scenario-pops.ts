/**
 * One agent of a scripted scenario replayed as `simulate` and `quality` run it (placed on their
 * grid, the scenario's input for `seed`), with the quality command's pops measure over a window:
 * the largest change of any joint's velocity between consecutive output steps.
 */
import type { Database } from '../../src/database/database.js';
import type { PoseSearchPort } from '../../src/runtime/search-port.js';
import type { Ground } from '../../src/runtime/ground/ground.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { ScriptedDriver, type ScenarioName } from '../../src/sim/scenarios.js';
import { JointPops } from './velocity-change.js';

/**
 * The largest joint velocity change (m/s) of `scenario`'s agent `agent` at `hz`, on `ground` (null:
 * flat), measured from `from` to `to` seconds (the window's first two steps only start the measure).
 */
export function agentLargestChange(db: Database, port: PoseSearchPort, scenario: ScenarioName, agent: number, hz: number, ground: Ground | null, from: number, to: number, seed = 1): number {
  const dt = 1 / hz, c = new MotionMatchingController(db, ground ? { ground } : {}), input = createInput();
  c.reset(c.frame, 3 * (agent % 64), 3 * Math.floor(agent / 64), 0);
  const driver = new ScriptedDriver(scenario, seed, agent, dt), pops = new JointPops(c.joints, dt);
  for (let s = 0; s < to * hz; s++) {
    driver.drive(c.rootPosition, input);
    c.update(dt, input, port);
    if (s >= from * hz) pops.observe(c.worldPositions);
  }
  return pops.largest;
}
