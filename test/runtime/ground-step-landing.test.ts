/**
 * On uneven ground as on flat, a foot stepping after the body (let go of where its leg could not
 * hold it) is planted only once the leg holds it again and it is back near the ground
 * (runtime/foot-ik/ground-step.ts; the rule foot-ik.ts applies on flat ground, STEP_LANDED_HOLD).
 * Planted in mid-step, as its contact label came on, a foot stopped dead from 2.6 m/s in one step
 * and the knee jumped 7.2 m/s (the shared real captures' strafe on hills; the data's own largest
 * change is 4.2 m/s). Measured from the output joint positions as `motionmatch quality` measures its
 * pops: the largest change of a joint's velocity between consecutive steps. Such a foot also rises
 * for a step's edge on its way back to the animated one (foot-ik/foot-ground.ts).
 */
import { describe, it, expect, beforeAll } from 'vitest';
import type { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import type { Ground } from '../../src/runtime/ground/ground.js';
import { terrainGround } from '../../src/sim/terrain/terrain.js';
import type { Database } from '../../src/database/database.js';
import { builtinSearch } from '../helpers/builtin-search.js';
import { agentLargestChange } from '../helpers/scenario-pops.js';

let db: Database;
let port: MatcherSearchPort;
beforeAll(async () => {
  ({ db, port } = await builtinSearch());
});

/** The largest change of any joint's velocity between consecutive steps (m/s) of the built-in strafe's agent `a` from `from` to `to` seconds at 60 Hz, on `ground` (null: flat). */
const largestChange = (a: number, ground: Ground | null, from: number, to: number): number => agentLargestChange(db, port, 'strafe', a, 60, ground, from, to);

describe('a stepping foot on uneven ground', () => {
  it('is planted once its leg holds it again, not in mid-step (the built-in strafe on hills)', () => {
    // The built-in strafe's agent 27 on hills, 18.27 s in: its right foot, let go of and stepping
    // after the body, came to its contact label in mid-step and was planted there; the calf's
    // velocity jumped 6.45 m/s (the data's own largest change is 4.92). Planted once the leg holds
    // it, the foot lands first. Compared with the same second on flat ground.
    const hills = largestChange(27, terrainGround({ kind: 'hills', seed: 1 }), 17.8, 18.8);
    const flat = largestChange(27, null, 17.8, 18.8);
    console.log(`strafe on hills, agent 27, 17.8-18.8 s: largest joint velocity change per step ${hills.toFixed(2)} m/s (flat ground ${flat.toFixed(2)})`);
    expect(hills).toBeLessThan(1.5 * flat);
  });

  it('rises for a step it is going over before it gets there (the built-in strafe on the steps)', () => {
    // Agent 18 on the steps, 19.55 s in: its left foot, let go of and held behind the body, caught
    // up at 2.7 m/s into a 21 cm step; judged by its own velocity it saw the riser three steps
    // before, and was lifted 16.6 cm in one step (7.71 m/s at the ankle; the data's own largest is
    // 4.92, the target 7.38). Looking along its way to the animated foot, it rises from 0.2 s before.
    const steps = largestChange(18, terrainGround({ kind: 'steps', seed: 1 }), 19.5, 19.9);
    const flat = largestChange(18, null, 19.5, 19.9);
    console.log(`strafe on steps, agent 18, 19.5-19.9 s: largest joint velocity change per step ${steps.toFixed(2)} m/s (flat ground ${flat.toFixed(2)})`);
    expect(steps).toBeLessThan(1.5 * Math.max(flat, 2));
  });
});
