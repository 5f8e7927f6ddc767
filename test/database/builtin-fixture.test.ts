/**
 * The CLI's per-process built-in database (src/apps/builtin-database.ts), which simulate, quality,
 * bench, demo and many test files use in place of `buildDatabase(builtinSources())`: what it
 * returns must be that database exactly, and each call a copy of its own.
 */
import { describe, expect, it } from 'vitest';
import { isDeepStrictEqual } from 'node:util';
import { buildDatabase } from '../../src/database/build.js';
import { builtinSources } from '../../src/database/builtin-sources.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';
import type { Database } from '../../src/database/database.js';

/** The fields of `a` and `b` that differ (deep, prototypes included), and those only one has. */
function differingFields(a: Database, b: Database): string[] {
  const ra = a as unknown as Record<string, unknown>, rb = b as unknown as Record<string, unknown>;
  return [...new Set([...Object.keys(ra), ...Object.keys(rb)])].filter((k) => !(k in ra) || !(k in rb) || !isDeepStrictEqual(ra[k], rb[k]));
}

describe('the built-in database, built once per process', () => {
  it('is the database built, every array and field, and a fresh copy per call', () => {
    const built = buildDatabase(builtinSources());
    const first = builtinDatabase();
    expect(differingFields(built, first)).toEqual([]);
    // A command or test that changes its copy changes no other.
    first.features[0] += 1;
    first.clips[0].name = 'changed';
    const next = builtinDatabase();
    expect(differingFields(built, next)).toEqual([]);
    next.mean[1] += 1;
    expect(differingFields(built, builtinDatabase())).toEqual([]);
  });
});
