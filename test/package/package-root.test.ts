import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../helpers/cli.js';

/** Runs a snippet as an ES module inside the repository, importing the built package by its name. */
function runModule(code: string): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

describe("the package root ('motionmatch')", () => {
  it('exports blendRootDelta reproducing the root-motion contract', () => {
    const r = runModule(`
      import { blendRootDelta, blendRootPositionsNaive } from 'motionmatch';
      const out = {
        delta: blendRootDelta({ start: 0, end: 0.1 }, { start: 10, end: 10.3 }, 0.5),
        offsets: [-100, -10, 0, 10, 100].flatMap((oa) => [-100, -10, 0, 10, 100].map((ob) =>
          blendRootDelta({ start: oa, end: oa + 0.1 }, { start: 10 + ob, end: 10.3 + ob }, 0.5))),
        naive: blendRootPositionsNaive({ start: 0, end: 0.1 }, { start: 10, end: 10.3 }, 0.4, 0.6),
        naiveShifted: blendRootPositionsNaive({ start: 0, end: 0.1 }, { start: 0, end: 0.3 }, 0.4, 0.6),
      };
      const errors = [];
      for (const bad of [[NaN, 0.5], [Infinity, 0.5], [0, -0.1], [0, 1.1], [0, NaN]]) {
        try { blendRootDelta({ start: bad[0], end: 1 }, { start: 0, end: 1 }, bad[1]); errors.push('no error'); }
        catch (e) { errors.push(e.name); }
      }
      try { blendRootDelta({ start: -1.7e308, end: 1.7e308 }, { start: 0, end: 1 }, 0.5); errors.push('no error'); } catch (e) { errors.push(e.name); }
      console.log(JSON.stringify({ ...out, errors }));
    `);
    expect(r.code, r.err).toBe(0);
    const o = JSON.parse(r.out);
    expect(o.delta).toBeCloseTo(0.2, 12);
    expect(o.offsets).toHaveLength(25);
    for (const d of o.offsets) expect(d).toBeCloseTo(0.2, 12);
    expect(o.naive).toBeCloseTo(2.22, 12);
    expect(o.naiveShifted).toBeCloseTo(0.22, 12);
    expect(o.errors).toEqual(Array(6).fill('RangeError'));
  });

  it('exports the engine: build the built-in database, match and animate a character', () => {
    const r = runModule(`
      import { buildDatabase, builtinSources, Matcher, MatcherSearchPort, MotionMatchingController, createInput } from 'motionmatch';
      const db = buildDatabase(builtinSources());
      const search = new MatcherSearchPort(await Matcher.create(db), 'kdtree');
      const c = new MotionMatchingController(db);
      const input = createInput();
      input.velocityZ = 1.4;
      for (let i = 0; i < 300; i++) c.update(1 / 60, input, search);
      console.log(JSON.stringify({ z: c.rootPosition[2], frames: db.frameCount }));
    `);
    expect(r.code, r.err).toBe(0);
    const o = JSON.parse(r.out);
    expect(o.z).toBeGreaterThan(5);
    expect(o.frames).toBeGreaterThan(1000);
  });

  it('exports the ground, the terrains, height field files and the search options', () => {
    const r = runModule(`
      import {
        buildDatabase, builtinSources, Matcher, MatcherSearchPort, MotionMatchingController, createInput,
        hillsField, groundFromFunctions, HeightField, parseHeightFieldFile, heightFieldToJson, SEARCH_METHODS,
      } from 'motionmatch';
      const db = buildDatabase(builtinSources());
      const search = new MatcherSearchPort(await Matcher.create(db), 'kdtree');
      const hills = hillsField(1);
      const c = new MotionMatchingController(db, { ground: hills });
      const input = createInput();
      input.velocityZ = 1.4;
      for (let i = 0; i < 300; i++) c.update(1 / 60, input, search);
      const at = new Float64Array([c.rootPosition[0], 0, c.rootPosition[2]]), out = new Float64Array(4);
      hills.sample(at, out);
      const groundY = out[0];
      const field = HeightField.fromFunction((x, z) => 0.1 * x + 0.2 * z, { columns: 3, rows: 2, spacing: 0.5 });
      const back = parseHeightFieldFile(new TextEncoder().encode(heightFieldToJson(field.toSpec())), 'f.json');
      const plane = groundFromFunctions({ height: (x, z) => 2 + 0 * x * z });
      plane.sample(at, out.fill(0));
      console.log(JSON.stringify({ z: c.rootPosition[2], rootY: c.rootPosition[1], groundY, heights: Array.from(back.heights), plane: out[0], methods: SEARCH_METHODS }));
    `);
    expect(r.code, r.err).toBe(0);
    const o = JSON.parse(r.out);
    expect(o.z).toBeGreaterThan(5);
    // On the hills the root stands on the ground (a spring follows it: within a centimetre on a walk).
    expect(Math.abs(o.groundY)).toBeGreaterThan(0.05);
    expect(Math.abs(o.rootY - o.groundY)).toBeLessThan(0.01);
    expect(o.heights).toEqual(Array.from(new Float32Array([0, 0.05, 0.1, 0.1, 0.15, 0.2])));
    expect(o.plane).toBe(2);
    expect(o.methods).toContain('kdtree');
  });

  it('exports the levels of detail: a crowd of far characters searches less', () => {
    const r = runModule(`
      import { buildDatabase, builtinSources, Matcher, MotionMatchingController, createInput, CrowdLod, DEFAULT_LOD_LEVELS, selectLodLevel, lodDistance, inLodView, viewCosHalfAngle } from 'motionmatch';
      const db = buildDatabase(builtinSources());
      const matcher = await Matcher.create(db);
      const options = MotionMatchingController.resolveOptions({});
      const cs = [0, 1, 2, 3].map((i) => { const c = new MotionMatchingController(db, options); c.reset(c.frame, 3 * i, 0, 0); return c; });
      const input = createInput(); input.velocityZ = 1.4;
      const lod = new CrowdLod(db, options, cs.length, 'kdtree');
      for (let s = 0; s < 60; s++) {
        lod.beginBlock();
        cs.forEach((c, i) => { lod.choose(c, i, lodDistance(i * 40, 1)); if (c.prepare(1 / 30, input)) lod.due(c, i); });
        lod.schedule(cs, Infinity);
        lod.search(matcher);
        cs.forEach((c, i) => lod.finish(c, i));
      }
      const view = { x: 0, z: 0, forwardX: 0, forwardZ: 1, cosHalfAngle: viewCosHalfAngle(Math.PI / 3, 1) };
      console.log(JSON.stringify({ levels: Array.from(lod.level), searches: cs.map((c) => c.searchCount), next: selectLodLevel(DEFAULT_LOD_LEVELS, 0, 16, 2), seen: [inLodView(view, 0, 10), inLodView(view, 0, -10)] }));
    `);
    expect(r.code, r.err).toBe(0);
    const o = JSON.parse(r.out) as { levels: number[]; searches: number[]; next: number; seen: boolean[] };
    expect(o.levels).toEqual([0, 2, 3, 3]);
    expect(o.seen).toEqual([true, false]);
    expect(o.searches[3]).toBeLessThan(o.searches[0]);
    expect(o.next).toBe(0);
  });
});
