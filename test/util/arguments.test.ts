/**
 * The library's entry points given an argument of the wrong kind (src/util/arguments.ts): a one-line
 * error naming the function and the argument, instead of "Cannot read properties of null (reading
 * 'frameCount')" from inside, or a string path taken letter by letter.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadBvhSources } from '../../src/database/sources-node.js';
import { buildDatabase } from '../../src/database/build.js';
import { builtinSources } from '../../src/database/builtin-sources.js';
import { writeBvh } from '../../src/import/bvh/write.js';
import { Matcher } from '../../src/search/matcher.js';
import { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { tempDir } from '../helpers/cli.js';

const dir = tempDir('mm-arguments-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('entry points given an argument of the wrong kind', () => {
  it('loadBvhSources takes one path as a string, and refuses no paths or other values', () => {
    const { skeleton, clip } = builtinSources()[0];
    const file = join(dir, 'walk.bvh');
    writeFileSync(file, writeBvh(skeleton, clip));
    expect(loadBvhSources(file)).toHaveLength(1);
    expect(() => loadBvhSources([])).toThrow(/^loadBvhSources: no files or folders given$/);
    expect(() => loadBvhSources([file, 3] as never)).toThrow(/^loadBvhSources: paths must be a file or folder name or an array of them, got an array of 2 values$/);
    expect(() => loadBvhSources(null as never)).toThrow(/got null/);
  });

  it('buildDatabase, the controller, update() and MatcherSearchPort name what they were given', async () => {
    const sources = builtinSources().slice(0, 2);
    expect(() => buildDatabase(null as never)).toThrow(/^buildDatabase: sources must be an array of \{ skeleton, clip \} .*got null$/);
    expect(() => buildDatabase(sources, null as never)).toThrow(/^buildDatabase: options must be an object or left out, got null$/);
    const db = buildDatabase(sources);
    expect(() => new MotionMatchingController(null as never)).toThrow(/^MotionMatchingController: db must be a Database .*got null$/);
    expect(() => new MotionMatchingController(db, null as never)).toThrow(/^MotionMatchingController: options must be an object or left out, got null$/);
    const matcher = await Matcher.create(db, { backend: 'js' });
    expect(() => new MatcherSearchPort(matcher, 'fast' as never)).toThrow(/^MatcherSearchPort: unknown search method 'fast' \(expected brute, /);
    const port = new MatcherSearchPort(matcher, 'brute');
    const c = new MotionMatchingController(db);
    expect(() => c.update(1 / 30, null as never, port)).toThrow(/^update: input must be a ControllerInput \(createInput\(\)\), got null$/);
    expect(() => c.update(1 / 30, createInput(), null as never)).toThrow(/^update: search must be a PoseSearchPort .*got null$/);
    // Refused before anything moved: the character is where it started.
    expect(c.searchCount).toBe(0);
    c.update(1 / 30, createInput(), port);
    expect(c.searchCount).toBe(1);
  });
});
