/**
 * Level tables from a file (src/sim/lod/file.ts, `simulate --lod-levels`): the default table round
 * trips through its JSON form, and every malformed table is refused in one line that names the
 * file, the level and the field.
 */
import { describe, it, expect } from 'vitest';
import { parseLodTable, checkLodTable, lodTableJson, LodTableError } from '../../src/sim/lod/file.js';
import { DEFAULT_LOD_HYSTERESIS, DEFAULT_LOD_LEVELS } from '../../src/runtime/lod/levels.js';

const defaults = () => lodTableJson({ levels: [...DEFAULT_LOD_LEVELS], hysteresis: DEFAULT_LOD_HYSTERESIS });

describe('level table files', () => {
  it('reads the default table back from its JSON form, the last level reaching to infinity', () => {
    const json = defaults();
    expect(json.levels[3].maxDistance).toBeNull();
    const t = parseLodTable(JSON.stringify(json), 'levels.json');
    expect(t.levels).toEqual(DEFAULT_LOD_LEVELS);
    expect(t.hysteresis).toBe(DEFAULT_LOD_HYSTERESIS);
    // maxDistance left out of the last level, no hysteresis, a comment: the same.
    const { maxDistance: _, ...last } = json.levels[3];
    const t2 = parseLodTable(JSON.stringify({ levels: [...json.levels.slice(0, 3), last], comment: 'defaults' }));
    expect(t2.levels[3].maxDistance).toBe(Infinity);
    expect(t2.hysteresis).toBe(DEFAULT_LOD_HYSTERESIS);
  });

  it('takes any table the library takes: one level, or two with a hysteresis of 0', () => {
    const one = checkLodTable({ levels: [{ ...defaults().levels[0], maxDistance: null }] });
    expect(one.levels).toHaveLength(1);
    const two = checkLodTable({ levels: [defaults().levels[1], { ...defaults().levels[3] }], hysteresis: 0 });
    expect(two.levels.map((l) => l.maxDistance)).toEqual([40, Infinity]);
    expect(two.hysteresis).toBe(0);
  });

  it('refuses malformed tables, naming the file, the level and the field', () => {
    const lv = defaults().levels;
    const cases: Array<[string, RegExp]> = [
      ['', /^t\.json: not valid JSON \(the file is empty\)/],
      ['{"levels": [', /^t\.json: not valid JSON/],
      ['[1, 2]', /^t\.json: must be a JSON object with "levels", got an array \[1,2\]/],
      ['{"level": []}', /^t\.json: unknown key "level"/],
      ['{"levels": {}}', /^t\.json: levels must be an array of levels, got an object \{\}/],
      ['{"levels": []}', /^t\.json: LOD: 1 to 8 levels, got 0/],
      [JSON.stringify({ levels: [lv[0], 3] }), /^t\.json: levels\[1\] must be an object, got 3/],
      [JSON.stringify({ levels: [{ ...lv[0], poseEvry: 2 }, lv[3]] }), /^t\.json: levels\[0\]: unknown field "poseEvry"/],
      [JSON.stringify({ levels: [{ ...lv[0], searchInterval: '0.1' }, lv[3]] }), /^t\.json: levels\[0\]\.searchInterval must be a number, got the string "0\.1"/],
      [JSON.stringify({ levels: [{ ...lv[0], footIK: 1 }, lv[3]] }), /^t\.json: levels\[0\]\.footIK must be true or false, got 1/],
      [JSON.stringify({ levels: [{ ...lv[0], maxDistance: null }, lv[3]] }), /^t\.json: levels\[0\]\.maxDistance must be a number .*, got null/],
      [JSON.stringify({ levels: [(({ localSeconds: _, ...l }) => l)(lv[1]), lv[3]] }), /^t\.json: levels\[0\]\.localSeconds is missing/],
      [JSON.stringify({ levels: [lv[0], { ...lv[3], maxDistance: 1000 }] }), /^t\.json: levels\[1\]: the last level reaches to infinity: give "maxDistance": null/],
      [JSON.stringify({ levels: [lv[1], lv[0], lv[3]] }), /^t\.json: LOD level 1: maxDistance must be above the previous level's \(40 m\), got 15/],
      [JSON.stringify({ levels: [{ ...lv[0], poseEvery: 0 }, lv[3]] }), /^t\.json: LOD level 0: poseEvery must be an integer in \[1, 60\], got 0/],
      [JSON.stringify({ levels: [lv[0], lv[3]], hysteresis: '2' }), /^t\.json: hysteresis must be a number of metres, got the string "2"/],
      [JSON.stringify({ levels: [lv[0], lv[3]], hysteresis: 8 }), /^t\.json: LOD level 0: maxDistance 15 m leaves no room for the hysteresis \(8 m\)/],
      [JSON.stringify({ levels: [lv[0], lv[3]], comment: 3 }), /^t\.json: comment must be a string, got 3/],
    ];
    for (const [text, message] of cases) {
      let err: unknown = null;
      try { parseLodTable(text, 't.json'); } catch (e) { err = e; }
      expect(err, text).toBeInstanceOf(LodTableError);
      expect((err as Error).message, text).toMatch(message);
      expect((err as Error).message, text).not.toContain('\n');
    }
  });
});
