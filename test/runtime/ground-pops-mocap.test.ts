/**
 * Pops of the legs on the real captures on the steps, each replayed from the output joint positions
 * as `motionmatch quality` measures them (the largest change of any joint's velocity between steps;
 * quality's limit: 1.5 x the data's own largest, 4.18 m/s at 60 Hz, 3.35 at 144 Hz). Skipped with a
 * printed reason without the captures.
 * - A knee bends no more suddenly than the captured knees (runtime/foot-ik/knee-bend.ts): a foot
 *   lifted over a step's edge while its leg is at full stretch snapped the straight knee (the
 *   strafe's agent 26 at 7.77 s, 60 Hz: 9.57 m/s); a planted leg at full stretch flickered between
 *   straight and bent as its heel rose (the stop-go's agent 26 at 16.97 s, 144 Hz: 8.90 m/s).
 * - A foot is planted at the heading it is shown with (runtime/foot-ik/planted-turn.ts
 *   shownBearing): let go of and planted again a step later, it swung its ankle round the toe by the
 *   rest of its held turn (the strafe's agent 69 at 0.60 s, 144 Hz: 7.30 m/s).
 * - A foot let go of with its ankle under its planted height over the ground (its heel risen over a
 *   riser's upper level) rises to that height by the clearance's spring, out of the ground at once
 *   (runtime/foot-ik/ground-step.ts clearGround): lifted whole in one step, 7.26 m/s (the path's
 *   agent 78 at 0.71 s, 144 Hz).
 * - A running foot starts rising for a riser beyond its near look-ahead in time to clear it
 *   (runtime/foot-ik/foot-ground.ts stepsBeyondReach): seen 0.06 s ahead, its clearance reached 15 of
 *   21 cm by the edge and the foot was held there for a step (the wander's agent 74 at 2.90 s, 144
 *   Hz: 6.44 m/s).
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import type { Database } from '../../src/database/database.js';
import { buildDatabase } from '../../src/database/build.js';
import { loadBvhSources } from '../../src/database/sources-node.js';
import { Matcher } from '../../src/search/matcher.js';
import { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { capturedData } from '../../src/runtime/captured-data.js';
import { terrainGround } from '../../src/sim/terrain/terrain.js';
import { HAS_MOCAP, MOCAP_DIR, MOCAP_SKIP_REASON } from '../helpers/cli.js';
import { agentLargestChange } from '../helpers/scenario-pops.js';

if (!HAS_MOCAP) console.log(`ground-pops-mocap: ${MOCAP_SKIP_REASON}`);

describe.skipIf(!HAS_MOCAP)('on the real captures on the steps', () => {
  let db: Database;
  let port: MatcherSearchPort;
  beforeAll(async () => {
    db = buildDatabase(loadBvhSources(['bench', 'locomotion'].map((f) => join(MOCAP_DIR, f))), { mirror: true });
    port = new MatcherSearchPort(await Matcher.create(db), 'kdtree');
  }, 120_000);

  /** The largest joint velocity change of `scenario`'s agent `agent` on the steps (seed 1) at `hz`, from `from` to `to` seconds. */
  const largestChange = (scenario: 'wander' | 'strafe' | 'stop-go' | 'path', agent: number, hz: number, from: number, to: number): number =>
    agentLargestChange(db, port, scenario, agent, hz, terrainGround({ kind: 'steps', seed: 1 }), from, to);

  it('a foot lifted over a step edge while its leg is at full stretch does not snap the knee', () => {
    const change = largestChange('strafe', 26, 60, 7.4, 7.9), limit = capturedData(db).kneeBendAccelerationMax;
    console.log(`real captures, strafe on the steps, agent 26, 7.4-7.9 s at 60 Hz: largest joint velocity change ${change.toFixed(2)} m/s (9.57 before the knee's limit; the captured knees' bend changes at up to ${limit.toFixed(0)} rad/s²)`);
    // quality's limit at 60 Hz: 1.5 x the data's own largest (4.18 m/s)
    expect(change).toBeLessThan(1.5 * 4.18);
  }, 60_000);

  it('a foot let go of and planted again a step later keeps the heading it is shown with', () => {
    // The strafe's agent 69 at 0.60 s: a planted foot whose heading was held is let go of as its
    // contact ends, and the next step's transition lands on a frame that has it down. Planted at the
    // animated heading, its ankle swung round the toe by the rest of the held turn in one step.
    const change = largestChange('strafe', 69, 144, 0.5, 0.7);
    console.log(`real captures, strafe on the steps, agent 69, 0.5-0.7 s at 144 Hz: largest joint velocity change ${change.toFixed(2)} m/s (7.30 at the ankle when planted at the animated heading)`);
    expect(change).toBeLessThan(1.5 * 3.35);
  }, 60_000);

  it('a planted leg at full stretch whose heel rises does not flicker between straight and bent', () => {
    const change = largestChange('stop-go', 26, 144, 16.85, 17.05);
    console.log(`real captures, stop-go on the steps, agent 26, 16.85-17.05 s at 144 Hz: largest joint velocity change ${change.toFixed(2)} m/s (8.90 at the planted knee before the knee's limit)`);
    // quality's limit at 144 Hz: 1.5 x the data's own largest (3.35 m/s)
    expect(change).toBeLessThan(1.5 * 3.35);
  }, 60_000);

  it('a planted foot whose heel rose over a riser is let go of without lifting its ankle at once', () => {
    // The path's agent 78 at 0.71 s (144 Hz): the left toe planted on a lower level, its heel risen
    // over the step above (the ankle 4 cm over it, under its own planted height). Let go of, the
    // ankle was lifted the 9 cm left in one step (clearGround's ankle term, all at once): 7.26 m/s.
    // Now the ankle is kept out of the ground at once and rises to its planted height by the spring.
    const change = largestChange('path', 78, 144, 0.6, 0.8);
    console.log(`real captures, path on the steps, agent 78, 0.6-0.8 s at 144 Hz: largest joint velocity change ${change.toFixed(2)} m/s (7.26 at the ankle lifted at once)`);
    expect(change).toBeLessThan(1.5 * 3.35);
  }, 60_000);

  it('a running foot rises in time for a riser beyond its near look-ahead', () => {
    // The wander's agent 74 at 2.90 s (144 Hz): a foot swinging at 7-8 m/s over the steps saw a 21 cm
    // riser when it came within half a leg length (0.06 s away); its clearance had risen 15 cm by the
    // edge, and the foot was stopped there for a step (holdAtEdge) and let go the next: 6.44 m/s in this replay.
    const change = largestChange('wander', 74, 144, 2.8, 2.95);
    console.log(`real captures, wander on the steps, agent 74, 2.8-2.95 s at 144 Hz: largest joint velocity change ${change.toFixed(2)} m/s (6.44 in this replay before: the toe held at the riser's edge)`);
    expect(change).toBeLessThan(1.5 * 3.35);
  }, 60_000);
});
