/**
 * A knee on uneven ground bends or straightens no more suddenly than the captures' own knees change
 * the speed they bend at (runtime/foot-ik/knee-bend.ts; foot IK's bend beyond the animated one). A leg held at full stretch
 * whose target came back within reach in one step went from straight to bent within the step: on
 * the real captures' strafe on the steps (seed 1, 60 Hz, agent 26 at 7.77 s) a foot dragged after the
 * body walking backwards up the steps was lifted 13 cm over a step's edge at once, and the straight
 * knee jumped 9.57 m/s (quality's limit there: 1.5 x the data's own 4.18). Measured from the output
 * joint positions: the largest change of any joint's velocity between steps.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import { limitKneeBend, shownKneeBend } from '../../src/runtime/foot-ik/knee-bend.js';
import { IK_TARGET, KNEE_ANIM, KNEE_BEND, KNEE_BEND_RATE, LEG_SIZE, STEP_DT } from '../../src/runtime/foot-ik/state.js';
import type { LegJoints } from '../../src/runtime/foot-ik/rig.js';
import type { Database } from '../../src/database/database.js';
import { buildDatabase } from '../../src/database/build.js';
import { loadBvhSources } from '../../src/database/sources-node.js';
import { Matcher } from '../../src/search/matcher.js';
import { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { capturedData } from '../../src/runtime/captured-data.js';
import { ScriptedDriver } from '../../src/sim/scenarios.js';
import { terrainGround } from '../../src/sim/terrain/terrain.js';
import { HAS_MOCAP, MOCAP_DIR, MOCAP_SKIP_REASON } from '../helpers/cli.js';
import { JointPops } from '../helpers/velocity-change.js';

if (!HAS_MOCAP) console.log(`knee-bend: ${MOCAP_SKIP_REASON}`);

/** A straight leg of two 0.45 m bones hanging from a hip at 0.9 m (joints 0 hip, 1 knee, 2 ankle). */
const LEG = { hip: 0, knee: 1, foot: 2, length: 0.9 } as unknown as LegJoints;
const STRAIGHT = Float64Array.of(0, 0.9, 0, 0, 0.45, 0, 0, 0, 0);

/** The bend a two-bone solve gives for IK_TARGET (the law of cosines with 0.45 m bones). */
function bendForTarget(): number {
  const d = Math.hypot(IK_TARGET[0], IK_TARGET[1] - 0.9, IK_TARGET[2]);
  return Math.PI - Math.acos((2 * 0.45 * 0.45 - d * d) / (2 * 0.45 * 0.45));
}

/** A target `bend` radians of bend away from the hip, straight below it. */
function targetAtBend(bend: number): void {
  const d = Math.sqrt(2 * 0.45 * 0.45 * (1 + Math.cos(bend)));
  IK_TARGET[0] = 0; IK_TARGET[1] = 0.9 - d; IK_TARGET[2] = 0;
}

describe('the knee of a leg on uneven ground', () => {
  it('bends from straight no faster than the limit lets its rate change, and passes what it may through', () => {
    const S = new Float64Array(2 * LEG_SIZE + 20), most = 500, dt = 1 / 60;
    S[STEP_DT] = dt;
    // The animation holds the leg straight; the last step showed it straight and still.
    expect(shownKneeBend(LEG, STRAIGHT)).toBe(0);
    S[KNEE_ANIM] = 0; S[KNEE_BEND] = 0; S[KNEE_BEND_RATE] = 0;
    // A target that asks for 0.6 rad at once: the first step gets most·dt² of it.
    targetAtBend(0.6);
    limitKneeBend(S, 0, LEG, STRAIGHT, most);
    expect(bendForTarget()).toBeCloseTo(most * dt * dt, 9);
    // Already bending at 5 rad/s: up to (5 + most·dt)·dt more.
    S[KNEE_BEND_RATE] = 5;
    targetAtBend(0.6);
    limitKneeBend(S, 0, LEG, STRAIGHT, most);
    expect(bendForTarget()).toBeCloseTo((5 + most * dt) * dt, 9);
    // A target within what the rate may become is left as it is.
    S[KNEE_BEND_RATE] = 0;
    targetAtBend(0.05);
    limitKneeBend(S, 0, LEG, STRAIGHT, most);
    expect(bendForTarget()).toBeCloseTo(0.05, 9);
    // The animation's own bend is not foot IK's to limit: animated at 0.6 already, a target at 0.6 is left alone.
    S[KNEE_ANIM] = 0.6; S[KNEE_BEND] = 0;
    targetAtBend(0.6);
    limitKneeBend(S, 0, LEG, STRAIGHT, most);
    expect(bendForTarget()).toBeCloseTo(0.6, 9);
  });

  it('holds no faster than it can stop at what is wanted: a bend coming back does not overshoot into a fold', () => {
    const S = new Float64Array(2 * LEG_SIZE + 20), most = 500, dt = 1 / 60;
    S[STEP_DT] = dt; S[KNEE_ANIM] = 0;
    // 0.1 rad from what is wanted, bending at 20 rad/s: stopping takes √(2·most·0.1) = 10 rad/s at most now.
    S[KNEE_BEND] = 0.5; S[KNEE_BEND_RATE] = 20;
    targetAtBend(0.6);
    limitKneeBend(S, 0, LEG, STRAIGHT, most);
    expect(bendForTarget()).toBeCloseTo(0.5 + Math.max(Math.sqrt(2 * most * 0.1), 20 - most * dt) * dt, 9);
    expect(bendForTarget()).toBeLessThan(0.6 + 0.1);
  });
});

describe.skipIf(!HAS_MOCAP)('on the real captures on the steps', () => {
  let db: Database;
  let port: MatcherSearchPort;
  beforeAll(async () => {
    db = buildDatabase(loadBvhSources(['bench', 'locomotion'].map((f) => join(MOCAP_DIR, f))), { mirror: true });
    port = new MatcherSearchPort(await Matcher.create(db), 'kdtree');
  }, 120_000);

  /** The largest joint velocity change of `scenario`'s agent `agent` on the steps (seed 1) at `hz`, from `from` to `to` seconds. */
  function largestChange(scenario: 'strafe' | 'stop-go', agent: number, hz: number, from: number, to: number): number {
    const dt = 1 / hz, ground = terrainGround({ kind: 'steps', seed: 1 });
    const c = new MotionMatchingController(db, { ground }), input = createInput();
    c.reset(c.frame, 3 * (agent % 64), 3 * Math.floor(agent / 64), 0);
    const driver = new ScriptedDriver(scenario, 1, agent, dt), pops = new JointPops(c.joints, dt);
    for (let s = 0; s < to * hz; s++) {
      driver.drive(c.rootPosition, input);
      c.update(dt, input, port);
      if (s >= from * hz) pops.observe(c.worldPositions);
    }
    return pops.largest;
  }

  it('a foot lifted over a step edge while its leg is at full stretch does not snap the knee', () => {
    const change = largestChange('strafe', 26, 60, 7.4, 7.9), limit = capturedData(db).kneeBendAccelerationMax;
    console.log(`real captures, strafe on the steps, agent 26, 7.4-7.9 s at 60 Hz: largest joint velocity change ${change.toFixed(2)} m/s (9.57 before the knee's limit; the captured knees' bend changes at up to ${limit.toFixed(0)} rad/s²)`);
    // quality's limit at 60 Hz: 1.5 x the data's own largest (4.18 m/s)
    expect(change).toBeLessThan(1.5 * 4.18);
  }, 60_000);

  it('a planted leg at full stretch whose heel rises does not flicker between straight and bent', () => {
    const change = largestChange('stop-go', 26, 144, 16.85, 17.05);
    console.log(`real captures, stop-go on the steps, agent 26, 16.85-17.05 s at 144 Hz: largest joint velocity change ${change.toFixed(2)} m/s (8.90 at the planted knee before the knee's limit)`);
    // quality's limit at 144 Hz: 1.5 x the data's own largest (3.35 m/s)
    expect(change).toBeLessThan(1.5 * 3.35);
  }, 60_000);
});
