/**
 * A foot shown above the ground band is not planted (runtime/foot-ik/foot-ik.ts, `landed`): on the
 * shared real captures (bench + locomotion, mirrored; skipped with a printed reason without them),
 * the stop-go's agent 35 at 144 Hz asks to stop at 12.7 s; the search's last transition lands on a
 * standing frame (a bow) while the left foot is 13 cm up in its swing, carried by the transition's
 * blend. Planted there, 21 cm from where the frame puts it, the foot came down onto its lock, which
 * the leg could no longer reach once the blend had run out, and stepped into place right at the
 * second after the request: 35 cm/s. Measured from the output joint positions as `motionmatch
 * quality` measures a stop: the lowest foot joint's speed one second after the request.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import { buildDatabase } from '../../src/database/build.js';
import { loadBvhSources } from '../../src/database/sources-node.js';
import { Matcher } from '../../src/search/matcher.js';
import { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import type { Database } from '../../src/database/database.js';
import { HAS_MOCAP, MOCAP_DIR, MOCAP_SKIP_REASON } from '../helpers/cli.js';
import { replayStop } from '../helpers/stop-replay.js';

if (!HAS_MOCAP) console.log(`stop-landing-mocap: ${MOCAP_SKIP_REASON}`);

describe.skipIf(!HAS_MOCAP)('a stop on the shared real captures at 144 Hz', () => {
  let db: Database;
  let port: MatcherSearchPort;
  beforeAll(async () => {
    db = buildDatabase(loadBvhSources([join(MOCAP_DIR, 'bench'), join(MOCAP_DIR, 'locomotion')]), { mirror: true });
    port = new MatcherSearchPort(await Matcher.create(db), 'kdtree');
  }, 60_000);

  it('has its feet still a second after the request: a foot high in a transition\'s blend is not planted in the air', () => {
    const a = 35;
    const { stopAt, footSpeed } = replayStop(db, port, a, 144, 12, 14);
    console.log(`stop-go at 144 Hz, agent ${a}: stop requested at ${stopAt.toFixed(2)} s, lowest foot ${(100 * footSpeed).toFixed(2)} cm/s one second later`);
    expect(stopAt).toBeGreaterThan(12);
    // A foot stepping moves at tens of cm/s; a foot at rest, a few at most (the stop target is 1
    // cm/s on average over all stops). Planted in the air, 34.7 cm/s.
    expect(footSpeed).toBeLessThan(0.05);
  });
});
