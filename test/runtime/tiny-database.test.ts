/**
 * A database of one very short clip (a single-frame capture, say, or two frames): every search the
 * controller asks for excludes the frames around the playing one, which are all of its candidates.
 * The controller then plays on, as when a search finds nothing better; it threw "no frame can be
 * returned: the candidate set is empty … (excludeRangesPerQuery[0] leave no candidate frame)" from
 * update() (and `motionmatch simulate --db` with such a file stopped with it).
 */
import { describe, expect, it } from 'vitest';
import { buildDatabase, type SourceMotion } from '../../src/database/build.js';
import { builtinSources } from '../../src/database/builtin-sources.js';
import { Matcher } from '../../src/search/matcher.js';
import { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { runSimulation } from '../../src/sim/simulation.js';

/** The first built-in clip cut to its first `frames` frames, not looping. */
function cut(frames: number): SourceMotion {
  const { skeleton, clip } = builtinSources()[0];
  const J = skeleton.names.length;
  return { skeleton, loop: false, clip: { ...clip, name: `first${frames}`, frameCount: frames, loop: false, rotations: clip.rotations.slice(0, frames * J * 4), translations: clip.translations.slice(0, frames * J * 3) } };
}

describe('a database of one very short clip', () => {
  it.each([1, 2])('%i frame(s): the controller plays on where no search can land, under any input', async (frames) => {
    const db = buildDatabase([cut(frames)]);
    const port = new MatcherSearchPort(await Matcher.create(db, { backend: 'js' }), 'brute');
    const c = new MotionMatchingController(db, {});
    const input = createInput();
    for (let t = 0; t < 90; t++) {
      input.velocityX = Math.sin(t / 7) * 2; input.velocityZ = Math.cos(t / 5) * 2; // a sharp change now and then: forced searches too
      c.update(1 / 30, input, port);
      for (const x of c.worldPositions) expect(Number.isFinite(x)).toBe(true);
    }
    expect(c.searchCount).toBe(0);
    expect(c.transitionCount).toBe(0);
  });

  it('a crowd on it runs (simulate), and a second clip makes searches possible again', async () => {
    const one = buildDatabase([cut(1)]);
    const r = await runSimulation(one, { agents: 3, seconds: 1, hz: 30, seed: 1, workers: 1, scenario: 'mixed', method: 'kdtree', backend: 'js', footIK: true, recordAgent: -1, warmup: false });
    expect(r.searches).toBe(0);
    const mirrored = buildDatabase([cut(1)], { mirror: true });
    const m = await runSimulation(mirrored, { agents: 3, seconds: 1, hz: 30, seed: 1, workers: 1, scenario: 'mixed', method: 'kdtree', backend: 'js', footIK: true, recordAgent: -1, warmup: false });
    expect(m.searches).toBeGreaterThan(0);
  });
});
