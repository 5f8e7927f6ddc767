/**
 * A rig without toe joints plants its ankles (contactJoints): there is no heel to raise about a
 * planted toe, which is what keeps a toe rig's planted leg within its soft reach. Its planted leg is
 * softened like a free one (foot-ik.ts solveLeg), so letting go of the lock moves nothing: held at
 * full stretch, the leg was pulled in by the soft reach the step the lock let go (3 cm up in one
 * step, the straight knee 7 m/s). Measured from the output joint positions as `motionmatch quality`
 * measures pops, on the shared captures' `core/` clips with their toe joints removed, against the
 * data's own largest velocity change (the same figure of the captures played plainly).
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { HAS_MOCAP, MOCAP_DIR, MOCAP_SKIP_REASON } from '../helpers/cli.js';
import { withoutLeafJoints } from '../helpers/drop-joints.js';
import { loadBvhSources } from '../../src/database/sources-node.js';
import { buildDatabase } from '../../src/database/build.js';
import { Matcher } from '../../src/search/matcher.js';
import { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { ScriptedDriver } from '../../src/sim/scenarios.js';
import { playbackQuality } from '../../src/runtime/quality/playback-quality.js';

const HZ = 60, DT = 1 / HZ;

describe.skipIf(!HAS_MOCAP)('foot locks on a rig without toe joints', () => {
  it('let go without a jump: the largest velocity change within 1.5 times the data\'s own', async () => {
    const db = buildDatabase(withoutLeafJoints(loadBvhSources([join(MOCAP_DIR, 'core')]), /^Toes_[LR]$/), { mirror: true });
    expect(db.roles.leftToe).toBe(-1);
    const port = new MatcherSearchPort(await Matcher.create(db), 'kdtree');
    const J = db.skeleton.names.length, dataLargest = playbackQuality(db, HZ).popMax;
    let largest = 0, where = '';
    for (const scenario of ['wander', 'stop-go'] as const) {
      for (let a = 0; a < 12; a++) {
        const c = new MotionMatchingController(db, {});
        c.reset(c.frame, 3 * a, 0, 0);
        const driver = new ScriptedDriver(scenario, 1, a, DT), input = createInput();
        const p1 = new Float64Array(3 * J), p2 = new Float64Array(3 * J);
        for (let t = 0; t < 20 * HZ; t++) {
          driver.drive(c.rootPosition, input);
          c.update(DT, input, port);
          const wp = c.worldPositions;
          if (t >= 2) {
            for (let j = 0; j < J; j++) {
              let d = 0;
              for (let k = 0; k < 3; k++) { const v = (wp[3 * j + k] - 2 * p1[3 * j + k] + p2[3 * j + k]) / DT; d += v * v; }
              if (Math.sqrt(d) > largest) { largest = Math.sqrt(d); where = `${scenario}, agent ${a}, step ${t}, ${db.skeleton.names[j]}`; }
            }
          }
          p2.set(p1); p1.set(wp);
        }
      }
    }
    console.log(`core/ without toes: largest velocity change ${largest.toFixed(2)} m/s (${where}), the data's own ${dataLargest.toFixed(2)}`);
    expect(largest).toBeLessThanOrEqual(1.5 * dataLargest);
  }, 120_000);
});

if (!HAS_MOCAP) console.log(`foot locks on a rig without toe joints: ${MOCAP_SKIP_REASON}`);
