/**
 * A free foot is not carried into a step's riser (runtime/foot-ik/ground-step.ts holdAtEdge), on
 * the shared real captures' `locomotion/` folder (mirrored; skipped with a printed reason when
 * ../shared/data/mocap is absent): a strafing foot moving sideways across a riser's edge with its
 * toe clear of the upper level and its ankle not. Only the toe's way was checked: the ankle went
 * into the level and the foot was lifted out of it at once (the strafe's agent 26 on the steps,
 * 8.05 s in: 9.18 m/s at the knee). Its ankle's way counts too now.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import { buildDatabase } from '../../src/database/build.js';
import { loadBvhSources } from '../../src/database/sources-node.js';
import type { Database } from '../../src/database/database.js';
import { Matcher } from '../../src/search/matcher.js';
import { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import type { Ground } from '../../src/runtime/ground/ground.js';
import { ScriptedDriver } from '../../src/sim/scenarios.js';
import { terrainGround } from '../../src/sim/terrain/terrain.js';
import { HAS_MOCAP, MOCAP_DIR, MOCAP_SKIP_REASON } from '../helpers/cli.js';

const HZ = 60, DT = 1 / HZ;
if (!HAS_MOCAP) console.log(`ground-edge-mocap: ${MOCAP_SKIP_REASON}`);

describe.skipIf(!HAS_MOCAP)('a strafing foot at a riser (shared locomotion captures, steps)', () => {
  let db: Database;
  let port: MatcherSearchPort;
  beforeAll(async () => {
    db = buildDatabase(loadBvhSources([join(MOCAP_DIR, 'locomotion')]), { mirror: true });
    port = new MatcherSearchPort(await Matcher.create(db), 'kdtree');
  }, 120_000);

  it('stops short of an edge its ankle would go into, not only its toe', () => {
    const largest = (ground: Ground | null): number => {
      const a = 26, c = new MotionMatchingController(db, ground ? { ground } : {}), input = createInput();
      c.reset(c.frame, 3 * (a % 64), 3 * Math.floor(a / 64), 0);
      const driver = new ScriptedDriver('strafe', 1, a, DT), n = 3 * c.joints, p1 = new Float64Array(n), p2 = new Float64Array(n);
      // The quality command's pops: every joint's change of velocity between consecutive steps.
      let most = 0;
      for (let s = 0; s < 8.5 * HZ; s++) {
        driver.drive(c.rootPosition, input);
        c.update(DT, input, port);
        const wp = c.worldPositions;
        if (s >= 2) {
          for (let j = 0; j < n; j += 3) {
            let d = 0;
            for (let k = 0; k < 3; k++) { const v = (wp[j + k] - 2 * p1[j + k] + p2[j + k]) / DT; d += v * v; }
            most = Math.max(most, Math.sqrt(d));
          }
        }
        p2.set(p1); p1.set(wp);
      }
      return most;
    };
    const flat = largest(null), steps = largest(terrainGround({ kind: 'steps', seed: 1 }));
    console.log(`strafe on steps (locomotion/), agent 26, first 8.5 s: largest joint velocity change per step ${steps.toFixed(2)} m/s (flat ground ${flat.toFixed(2)})`);
    expect(steps).toBeLessThan(1.5 * flat);
  });
});
