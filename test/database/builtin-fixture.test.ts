/**
 * The test fixture test/helpers/builtin-db.ts stands in for `buildDatabase(builtinSources())` in
 * many test files: what it returns must be that database exactly, and each call a copy of its own.
 */
import { describe, expect, it } from 'vitest';
import { isDeepStrictEqual } from 'node:util';
import { buildDatabase } from '../../src/database/build.js';
import { builtinSources } from '../../src/database/builtin-sources.js';
import { builtinDatabase } from '../helpers/builtin-db.js';

describe('the built-in database test fixture', () => {
  it('is the database built, every array and field, and a fresh copy per call', () => {
    const built = buildDatabase(builtinSources());
    const fixture = builtinDatabase();
    const differing = Object.keys(built).filter((k) => !isDeepStrictEqual((built as unknown as Record<string, unknown>)[k], (fixture as unknown as Record<string, unknown>)[k]));
    expect(differing).toEqual([]);
    expect(Object.keys(fixture).sort()).toEqual(Object.keys(built).sort());
    fixture.features[0] += 1;
    fixture.clips[0].name = 'changed';
    const next = builtinDatabase();
    expect(next.features[0]).toBe(built.features[0]);
    expect(next.clips[0].name).toBe(built.clips[0].name);
  });
});
