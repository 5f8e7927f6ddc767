/**
 * The browser crowd's agents out of view (web/src/crowd.ts, src/runtime/lod/view.ts restsUnseen),
 * in Node: with levels of detail, an agent that was unseen at its last step and is still out of the
 * camera's view steps only every 4th frame (staggered over the crowd), with the time gathered;
 * one coming into view steps that very frame; agents in view or near the camera step every frame.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { Matcher } from '../../src/search/matcher.js';
import { UNSEEN_MAX_GATHERED, inLodView, restsUnseen, viewCosHalfAngle } from '../../src/runtime/lod/view.js';
import { Crowd, crowdRadius, type BatchSearcher, type CrowdOptions, type PoseChunk } from '../../web/src/crowd.js';
import type { Database } from '../../src/database/database.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

const DT = 1 / 60;
const AGENTS = 300;
let db: Database;
let searcher: BatchSearcher;

beforeAll(async () => {
  db = builtinDatabase();
  const matcher = await Matcher.create(db);
  searcher = { matcher, searchBatch: (q, k, o, out) => matcher.searchBatch(q, k, o, out) };
});

/** A crowd of AGENTS agents (no player) with levels, the camera at the middle looking along +Z. */
function crowdOf(options: Partial<CrowdOptions> = {}): Crowd {
  const c = new Crowd(db, { footIK: true, inertialization: true, lod: true, ...options }, 5, false);
  c.setAgentCount(AGENTS, searcher, 'kdtree', crowdRadius(4 * AGENTS));
  Object.assign(c.camera, { x: 0, z: 0, forwardX: 0, forwardZ: 1, cosHalfAngle: viewCosHalfAngle((50 * Math.PI) / 180, 16 / 9) });
  return c;
}

interface Frame {
  /** Per agent: whether its controller stepped this frame, and elapsed minus the seconds it stepped. */
  stepped: boolean[];
  behind: number[];
  /** Per agent, before the frame: unseen at its last step, in the view now, distance to the camera. */
  unseenBefore: boolean[];
  inView: boolean[];
  distance: number[];
  held: Float32Array;
}

/** Runs `frames` frames (think, step, writePoses); `before(f)` may move the camera. */
async function run(crowd: Crowd, frames: number, before: (f: number) => void = () => {}): Promise<Frame[]> {
  const chars = crowd.characters;
  const start = chars.map((c) => c.counters.seconds);
  const chunk: PoseChunk = { count: 0, roots: new Float32Array(0), poses: new Float32Array(0), held: new Float32Array(0) };
  const out: Frame[] = [];
  for (let f = 0; f < frames; f++) {
    before(f);
    const steps = chars.map((c) => c.counters.steps);
    const unseenBefore = chars.map((c) => c.unseen);
    const inView = chars.map((c) => inLodView(crowd.camera, c.rootPosition[0], c.rootPosition[2]));
    const distance = chars.map((c) => Math.hypot(c.rootPosition[0] - crowd.camera.x, c.rootPosition[2] - crowd.camera.z));
    crowd.think(DT);
    await crowd.step(DT, searcher, 'kdtree');
    crowd.writePoses(chunk, true);
    out.push({
      stepped: chars.map((c, i) => c.counters.steps > steps[i]),
      behind: chars.map((c, i) => (f + 1) * DT - (c.counters.seconds - start[i])),
      unseenBefore, inView, distance,
      held: chunk.held.slice(0, chars.length),
    });
  }
  return out;
}

describe('agents out of view in the browser crowd', () => {
  it('step every 4th frame, staggered, with the time gathered; in view or near, every frame', async () => {
    const frames = await run(crowdOf(), 48);
    let rests = 0;
    const restsPerFrame: number[] = [];
    for (const [f, fr] of frames.entries()) {
      let n = 0;
      for (let i = 0; i < AGENTS; i++) {
        if (fr.stepped[i]) {
          // A step takes every second gathered: the agent is exactly on time again.
          expect(Math.abs(fr.behind[i])).toBeLessThan(1e-9);
          continue;
        }
        n++;
        // Only an agent unseen at its last step, still out of view and beyond level 0 rests.
        expect(fr.unseenBefore[i]).toBe(true);
        expect(fr.inView[i]).toBe(false);
        expect(fr.distance[i]).toBeGreaterThan(13);
        // Not drawn, and never more than three frames behind.
        expect(fr.held[i]).toBe(1);
        expect(fr.behind[i]).toBeGreaterThan(0);
        expect(fr.behind[i]).toBeLessThan(3.5 * DT);
      }
      rests += n;
      if (f >= 8) restsPerFrame.push(n);
    }
    // Most of the crowd is behind the camera: it rests three frames of four, evenly every frame.
    expect(rests).toBeGreaterThan(0.3 * AGENTS * frames.length);
    const lo = Math.min(...restsPerFrame), hi = Math.max(...restsPerFrame);
    expect(hi - lo).toBeLessThan(0.15 * hi);
    // An agent steps at least once in four frames; most of the resting ones exactly that (the
    // others came into view or near the camera for some frames).
    let quarter = 0;
    for (let i = 0; i < AGENTS; i++) {
      const late = frames.slice(8).map((fr) => fr.stepped[i]);
      const count = late.filter(Boolean).length;
      expect(count).toBeGreaterThanOrEqual(late.length / 4);
      if (count === late.length / 4) quarter++;
    }
    expect(quarter).toBeGreaterThan(0.3 * AGENTS);
  });

  it('steps an agent coming into view in that very frame, with the time it gathered', async () => {
    const crowd = crowdOf();
    const frames = await run(crowd, 20, (f) => { if (f === 12) crowd.camera.forwardZ = -1; });
    // Frame 12 turns the camera around: everything that rested behind it is ahead now.
    const revealed = frames[11].stepped.map((s, i) => !s && frames[12].inView[i]);
    expect(revealed.filter(Boolean).length).toBeGreaterThan(0.2 * AGENTS);
    for (let i = 0; i < AGENTS; i++) {
      if (!revealed[i]) continue;
      expect(frames[12].stepped[i]).toBe(true);
      expect(Math.abs(frames[12].behind[i])).toBeLessThan(1e-9);
    }
  });

  it('steps every agent every frame with unseenStepEvery 1, or without levels', async () => {
    for (const options of [{ unseenStepEvery: 1 }, { lod: false }]) {
      const frames = await run(crowdOf(options), 12);
      for (const fr of frames) expect(fr.stepped.every(Boolean)).toBe(true);
    }
  });

  it('moves the agents as stepping every frame does, give or take a few centimetres', async () => {
    const a = crowdOf(), b = crowdOf({ unseenStepEvery: 1 });
    // 2 s, ending on a frame where everyone steps in both (a multiple of four frames, plus the turn).
    await run(a, 119, (f) => { if (f === 118) a.camera.forwardZ = -1; });
    await run(b, 119, (f) => { if (f === 118) b.camera.forwardZ = -1; });
    const d = a.characters.map((c, i) => Math.hypot(c.rootPosition[0] - b.characters[i].rootPosition[0], c.rootPosition[2] - b.characters[i].rootPosition[2]));
    d.sort((x, y) => x - y);
    expect(d[Math.floor(0.5 * d.length)]).toBeLessThan(0.05);
    expect(d[Math.floor(0.9 * d.length)]).toBeLessThan(0.3);
  });

  it('refuses a step rate that is not an integer from 1 to 60, and keeps its options', () => {
    for (const bad of [0, -1, 1.5, 61, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new Crowd(db, { footIK: true, inertialization: true, lod: true, unseenStepEvery: bad }, 1, false)).toThrow(/unseenStepEvery must be an integer from 1/);
    }
    const crowd = new Crowd(db, { footIK: true, inertialization: true, lod: true, unseenStepEvery: 8 }, 1, false);
    expect(() => crowd.setOptions({ unseenStepEvery: 0 })).toThrow(RangeError);
    expect(crowd.options.unseenStepEvery).toBe(8);
  });

  it('rests by the turn of the step and the index, and never past the longest gathered time', () => {
    const turns = [0, 1, 2, 3, 4, 5, 6, 7].map((step) => restsUnseen(step, 2, 0, DT));
    expect(turns).toEqual([true, true, false, true, true, true, false, true]);
    expect(restsUnseen(1, 2, UNSEEN_MAX_GATHERED - DT, DT)).toBe(true);
    expect(restsUnseen(1, 2, UNSEEN_MAX_GATHERED, DT)).toBe(false);
    expect([0, 1, 2].map((step) => restsUnseen(step, 0, 0, DT, 1))).toEqual([false, false, false]);
  });
});
