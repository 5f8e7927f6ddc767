/**
 * The size and floor of an imported character (issue 25 §3): the scale read from the body's
 * proportions, not from the first frame's extent snapped to a unit; files of one set that
 * disagree in size named; the floor found from the data's feet.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateBuiltinClips } from '../../src/builtin/generate.js';
import { writeBvh } from '../../src/import/bvh/write.js';
import { parseBvh, BVH_UNIT_SCALES, BVH_REFERENCE_LENGTH } from '../../src/import/bvh/bvh.js';
import { BVH_UNIT_TOLERANCE, unitForBodyLength } from '../../src/import/bvh/units.js';
import { loadBvhSources, scaleMismatchText, type ScaleMismatch } from '../../src/database/sources-node.js';
import { buildDatabase } from '../../src/database/build.js';
import { floorHeight, floorShift } from '../../src/database/floor.js';
import { forwardKinematics } from '../../src/anim/pose.js';
import type { Clip } from '../../src/anim/clip.js';
import type { Database } from '../../src/database/database.js';
import { runCli, tempDir } from '../helpers/cli.js';

const { skeleton, clips } = generateBuiltinClips();
const walk = clips.find((c) => c.name === 'walk_1.2')!;
/** The built-in body's length along its bones (m), as the importer measures it. */
const builtinLength = parseBvh(writeBvh(skeleton, walk, { unitScale: 100 })).bodyLength;

/** `clip` with frame 0's root turned a quarter about x: the figure lies on its back in the first frame. */
function lyingFirst(clip: Clip): Clip {
  const r = Float64Array.from(clip.rotations);
  r[0] = Math.SQRT1_2; r[1] = 0; r[2] = 0; r[3] = Math.SQRT1_2;
  return { ...clip, rotations: r };
}

/** A database's floor as the build finds it: floorHeight over its frames' world positions (m). */
function floorOf(db: Database): number {
  const J = db.skeleton.names.length, wr = new Float64Array(4 * J);
  const R = Float64Array.from(db.rotations), T = Float64Array.from(db.translations), world = new Float64Array(db.frameCount * J * 3);
  for (let f = 0; f < db.frameCount; f++) forwardKinematics(db.skeleton.parents, R, f * J * 4, T, f * J * 3, wr, world.subarray(f * J * 3, (f + 1) * J * 3));
  const r = db.roles;
  return floorHeight([world], [r.leftToe, r.rightToe, r.leftFoot, r.rightFoot].filter((j) => j >= 0), J);
}

describe('units from the body\'s proportions', () => {
  it('measures the body along its bones: about 1.2 times a person\'s height', () => {
    // (The procedural figure's bones run 2.5 m end to end: it is tall.)
    expect(builtinLength).toBeGreaterThan(0.75 * BVH_REFERENCE_LENGTH);
    expect(builtinLength).toBeLessThan(1.3 * BVH_REFERENCE_LENGTH);
  });

  it('detects m, cm, mm and inches whatever the first frame holds', () => {
    for (const [unit, perMetre] of [['m', 1], ['cm', 100], ['mm', 1000], ['in', 1 / 0.0254]] as const) {
      for (const clip of [walk, lyingFirst(walk)]) {
        const r = parseBvh(writeBvh(skeleton, clip, { unitScale: perMetre }));
        expect(r.detectedUnit, unit).toBe(unit);
        expect(r.scale).toBe(BVH_UNIT_SCALES[unit]);
        expect(r.bodyLength).toBeCloseTo(builtinLength, 4);
      }
    }
  });

  it('fits a body no standard unit makes a person of (CMU counts in 1/0.45 inch) to a person', () => {
    const perMetre = 0.45 / 0.0254; // CMU: one unit is 1/0.45 inch
    const r = parseBvh(writeBvh(skeleton, walk, { unitScale: perMetre }));
    expect(r.detectedUnit).toBe('fit');
    expect(r.bodyLength).toBeCloseTo(BVH_REFERENCE_LENGTH, 9);
    // Read as inches (what snapping to a unit did), the same body is 0.45 times its size — a person
    // about 0.8 m tall — outside the tolerance that would have taken inches.
    const asInches = builtinLength * perMetre * BVH_UNIT_SCALES.in;
    expect(asInches / builtinLength).toBeCloseTo(0.45, 9);
    expect(asInches).toBeLessThan(BVH_REFERENCE_LENGTH / BVH_UNIT_TOLERANCE);
    expect(unitForBodyLength(0).unit).toBe('m');
  });
});

describe('files of one set that disagree in size', () => {
  const dir = tempDir('mm-scale-');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'set'));
  // Two files in centimetres, and one written in centimetres of a body 0.7 times as large.
  const big = { ...skeleton, offsets: skeleton.offsets.map((v) => 0.7 * v), endSiteOffsets: skeleton.endSiteOffsets.map((v) => 0.7 * v) };
  writeFileSync(join(dir, 'set', 'a.bvh'), writeBvh(skeleton, walk));
  writeFileSync(join(dir, 'set', 'b.bvh'), writeBvh(skeleton, clips.find((c) => c.name === 'walk_1.6')!));
  writeFileSync(join(dir, 'set', 'small.bvh'), writeBvh(big, walk));

  it('are named, with their size against the others\'', () => {
    const found: ScaleMismatch[] = [];
    loadBvhSources([join(dir, 'set')], { onScaleMismatch: (m) => found.push(m) });
    expect(found.map((m) => m.file)).toEqual([join(dir, 'set', 'small.bvh')]);
    expect(found[0].bodyLength / found[0].median).toBeCloseTo(0.7, 6);
    expect(scaleMismatchText(found[0])).toMatch(/small\.bvh imports at 0\.70 of the size of the other files .*check its units, or give --scale/);
    // A given scale is the user's word: nothing to warn about.
    const given: ScaleMismatch[] = [];
    loadBvhSources([join(dir, 'set')], { scale: 0.01, onScaleMismatch: (m) => given.push(m) });
    expect(given).toEqual([]);
  });

  it('`build` warns on stderr and lists them in its JSON', () => {
    const r = runCli(['build', join(dir, 'set'), '--out', join(dir, 'set.mmdb'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/motionmatch build: warning: .*small\.bvh imports at 0\.70 of the size/);
    expect(JSON.parse(r.stdout).scaleMismatch.map((m: ScaleMismatch) => m.file)).toEqual([join(dir, 'set', 'small.bvh')]);
  });
});

describe('the floor, from the data\'s feet', () => {
  it('stands a rig whose origin is at the hips (feet 90 cm below it) on the ground', () => {
    // Every frame's root lowered by its hips height: the hips at y = 0, the feet far below.
    const hipsHeight = skeleton.offsets[3 * 1 + 1] + walk.translations[1];
    const sunk = (c: Clip): Clip => { const t = Float64Array.from(c.translations); for (let f = 0; f < c.frameCount; f++) t[f * skeleton.names.length * 3 + 1] -= hipsHeight; return { ...c, translations: t }; };
    const plain = buildDatabase([{ skeleton, clip: walk }]);
    const low = buildDatabase([{ skeleton, clip: sunk(walk) }]);
    // The built-in toes stand 2 cm over y = 0: left as they are. The sunk ones are stood on y = 0 (the
    // sole's own height below the joint is not in the data).
    expect(floorOf(plain)).toBeCloseTo(0.02, 4);
    expect(floorOf(low)).toBeCloseTo(0, 4);
    // The root's track and the trajectory features are those of the same motion on the ground.
    for (let i = 0; i < plain.rootPositions.length; i++) expect(low.rootPositions[i]).toBeCloseTo(plain.rootPositions[i], 4);
  });

  it('leaves data whose feet already stand on y = 0 as it is, a toe joint a little above the sole included', () => {
    expect(floorShift(0.02, 0.9)).toBe(0);
    expect(floorShift(0, 0.9)).toBe(0);
    expect(floorShift(-0.67, 0.9)).toBeCloseTo(0.67, 12);
    expect(floorShift(0.3, 0.9)).toBeCloseTo(-0.3, 12); // hovering 30 cm: brought down
    expect(floorShift(-0.001, 0.9)).toBeCloseTo(0.001, 12);
    // The floor is the lowest foot joint's 1st percentile over every frame.
    const w = new Float64Array(100 * 3);
    for (let f = 0; f < 100; f++) w[3 * f + 1] = f === 0 ? -5 : 0.02 + 0.001 * f; // one glitch frame
    expect(floorHeight([w], [0], 1)).toBeCloseTo(0.021, 9); // the glitch is below the 1st percentile
  });
});
