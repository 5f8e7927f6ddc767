/**
 * New feature-group weights for a built database (src/database/reweight.ts): the result is what a
 * build with those weights stores, bit for bit, and bad weight maps are refused by name.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { generateBuiltinClips } from '../../src/builtin/generate.js';
import { buildDatabase } from '../../src/database/build.js';
import { reweightDatabase, schemaWeights, schemaWithWeights, SchemaWeightError } from '../../src/database/reweight.js';
import { DEFAULT_SCHEMA } from '../../src/features/schema.js';
import { makeRandomDatabase } from '../helpers/random-database.js';

const { skeleton, clips } = generateBuiltinClips();
const sources = clips.filter((c) => /^(walk_1\.2|run_3\.5|strafe_left_1\.0|idle)$/.test(c.name)).map((clip) => ({ skeleton, clip }));

describe('reweightDatabase', () => {
  it('gives exactly what a build with the new weights stores', () => {
    const weights = { footPosition: 0.4, trajectoryPosition: 2.5, trajectoryDirection: 0.9 };
    const built = buildDatabase(sources, { mirror: true });
    const direct = buildDatabase(sources, { mirror: true, schema: schemaWithWeights(DEFAULT_SCHEMA, weights) });
    const re = reweightDatabase(built, weights);
    expect(re.schema).toEqual(direct.schema);
    expect(Buffer.from(re.scale.buffer).equals(Buffer.from(direct.scale.buffer))).toBe(true);
    expect(Buffer.from(re.mean.buffer).equals(Buffer.from(direct.mean.buffer))).toBe(true);
    expect(Buffer.from(re.features.buffer).equals(Buffer.from(direct.features.buffer))).toBe(true);
    // Only the normalisation changed: everything else is the same object.
    expect(re.rawFeatures).toBe(built.rawFeatures);
    expect(re.rotations).toBe(built.rotations);
    // And the original is untouched.
    expect(built.schema.groups.find((g) => g.name === 'footPosition')!.weight).toBe(0.75);
  });

  it('changes nothing with the current weights, and round-trips back to them', () => {
    const built = buildDatabase(sources);
    const same = reweightDatabase(built, schemaWeights(built.schema));
    expect(Buffer.from(same.features.buffer).equals(Buffer.from(built.features.buffer))).toBe(true);
    const back = reweightDatabase(reweightDatabase(built, { hipVelocity: 3 }), { hipVelocity: 1 });
    expect(Buffer.from(back.features.buffer).equals(Buffer.from(built.features.buffer))).toBe(true);
  });

  it('scales each group by old weight / new weight (property, random databases and weights)', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 1e6 }), fc.array(fc.double({ min: 0.05, max: 20, noNaN: true }), { minLength: 5, maxLength: 5 }), (seed, ws) => {
      const db = makeRandomDatabase(seed, { frames: 60, joints: 6, clips: 3, tags: 2 });
      const weights: Record<string, number> = {};
      db.schema.groups.forEach((g, i) => { weights[g.name] = ws[i]; });
      const re = reweightDatabase(db, weights);
      let col = 0;
      db.schema.groups.forEach((g, i) => {
        const width = g.kind === 'bonePosition' || g.kind === 'boneVelocity' ? 3 * (g.bones?.length ?? 0) : 2 * (g.offsets?.length ?? 0);
        for (let d = col; d < col + width; d++) {
          expect(re.scale[d]).toBeCloseTo((db.scale[d] * g.weight) / ws[i], 3);
          for (let f = 0; f < db.frameCount; f++) {
            const k = f * db.stride + d;
            expect(re.features[k]).toBeCloseTo((db.rawFeatures[k] - re.mean[d]) / re.scale[d], 4);
          }
        }
        col += width;
      });
      for (let f = 0; f < db.frameCount; f++) for (let d = db.dims; d < db.stride; d++) expect(re.features[f * db.stride + d]).toBe(0);
    }), { numRuns: 25 });
  });

  it('refuses an unknown group (naming it and the known ones) and weights outside (0, inf)', () => {
    const built = buildDatabase(sources);
    expect(() => reweightDatabase(built, { feet: 1 })).toThrow(SchemaWeightError);
    expect(() => reweightDatabase(built, { feet: 1 })).toThrow(/unknown feature group "feet".*footPosition, footVelocity/);
    for (const bad of [0, -1, Number.NaN, Infinity]) {
      expect(() => reweightDatabase(built, { hipVelocity: bad })).toThrow(/hipVelocity.*finite number > 0/);
    }
  });
});
