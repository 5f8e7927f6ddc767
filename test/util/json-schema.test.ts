/**
 * One way to read a JSON file (issue 28 §3, src/util/json-schema.ts): every reader of a file a user
 * writes (settings, feature schemas, level tables, height fields) checks its shape with the same
 * declarations and says the first thing wrong in one line naming the file and the field's path:
 * unknown keys refused, a wrong type named ("got the string"), numbers out of range, long values
 * cut, control characters escaped, deep nesting refused without a stack overflow. Partial reports
 * (their own field-by-field checker) refuse forged files whose checksum was recomputed.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { checkJson, describeValue, integerIn, issueLine, readJson, shortJson, strictObject, v } from '../../src/util/json-schema.js';
import { parseSettings, SettingsError, formatSettings } from '../../src/sim/settings/options-file.js';
import { parseSchemaJson, SchemaError } from '../../src/features/schema-validate.js';
import { parseLodTable, LodTableError, lodTableJson } from '../../src/sim/lod/file.js';
import { DEFAULT_LOD_LEVELS } from '../../src/runtime/lod/levels.js';
import { parseHeightFieldFile, heightFieldToJson } from '../../src/sim/terrain/file.js';
import { HeightFieldError } from '../../src/runtime/ground/height-field.js';
import { runAgentGroups, type SimulationOptions } from '../../src/sim/simulation.js';
import { stepCount } from '../../src/sim/agents.js';
import { shardAgentRange } from '../../src/sim/shard/plan.js';
import { partialReport, partialReportText, parsePartialReport, runIdentity, PartialReportError } from '../../src/sim/shard/report.js';
import { crc32 } from '../../src/util/crc32.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

/** The error `fn` throws (fails the test when it throws none). */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error, none was thrown');
}

/** A one-line message: no newline, no raw control character, short. */
function expectOneLine(message: string, most = 400): void {
  expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
  expect(message.length, message).toBeLessThan(most);
}

const enc = (s: string) => new TextEncoder().encode(s);
const lv = lodTableJson({ levels: [...DEFAULT_LOD_LEVELS], hysteresis: 2 }).levels;
const table = (o: Record<string, unknown> = {}) => JSON.stringify({ levels: [lv[0], lv[lv.length - 1]], ...o });
const field = (o: Record<string, unknown> = {}) => enc(JSON.stringify({ format: 'motionmatch-heightfield', version: 1, columns: 2, rows: 2, spacing: 1, heights: [0, 0, 0, 0], ...o }));
const group = (o: Record<string, unknown> = {}) => JSON.stringify({ groups: [{ name: 'traj', kind: 'trajectoryPosition', offsets: [0.5, 1], weight: 1, ...o }] });

/** Each reader: its text parser, its error class, and a valid document with one field replaced. */
const readers: Array<{ kind: string; read: (text: string) => unknown; error: new (...a: never[]) => Error }> = [
  { kind: 'settings', read: (t) => parseSettings(t, 'f.json'), error: SettingsError },
  { kind: 'schema', read: (t) => parseSchemaJson(t, 'f.json'), error: SchemaError },
  { kind: 'LOD table', read: (t) => parseLodTable(t, 'f.json'), error: LodTableError },
  { kind: 'height field', read: (t) => parseHeightFieldFile(enc(t), 'f.json'), error: HeightFieldError },
];

describe('the shared module', () => {
  it('names a value by its JSON type and a short excerpt', () => {
    expect(describeValue('4')).toBe('the string "4"');
    expect(describeValue(4)).toBe('4');
    expect(describeValue(null)).toBe('null');
    expect(describeValue(true)).toBe('true');
    expect(describeValue([1, 2])).toBe('an array [1,2]');
    expect(describeValue({ foo: 1 })).toBe('an object {"foo":1}');
  });

  it('cuts long values and escapes control characters, without walking all of a huge value', () => {
    const long = shortJson('x'.repeat(10_000));
    expect(long.length).toBeLessThan(60);
    expect(long.endsWith('…')).toBe(true);
    expect(shortJson('\u001b[2J\u0007')).toBe('"\\u001b[2J\\u0007"');
    // A million-element array is not stringified whole (the excerpt stops at its budget).
    const huge = Array.from({ length: 1_000_000 }, (_, i) => i);
    const t0 = performance.now();
    expect(shortJson(huge).length).toBeLessThan(60);
    expect(performance.now() - t0).toBeLessThan(200);
    // A deeply nested value (made in code: JSON text this deep is refused before parsing) costs a character a level.
    let deep: unknown = 0;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(shortJson(deep).length).toBeLessThan(60);
  });

  it('says the path, what was expected and what it got, in one line', () => {
    const S = strictObject({ a: v.array(strictObject({ n: integerIn(1, 9) })) });
    const err = (x: unknown) => thrown(() => checkJson(S, x, 'x.json', (m) => new RangeError(m)));
    expect(err({ a: [{ n: 1 }, { n: '4' }] }).message).toBe('x.json: a[1].n must be an integer in [1, 9], got the string "4"');
    expect(err({ a: [{ n: 10 }] }).message).toBe('x.json: a[0].n must be an integer in [1, 9], got 10');
    expect(err({ a: [{ n: 1, m: 2 }] }).message).toBe('x.json: a[0]: unknown key "m" (allowed: n)');
    expect(err({ a: [{}] }).message).toBe('x.json: a[0].n is missing');
    expect(err([]).message).toBe('x.json: must be an object, got an array []');
    expect(checkJson(S, { a: [{ n: 9 }] }, 'x.json', (m) => new RangeError(m))).toEqual({ a: [{ n: 9 }] });
  });

  it('returns the value checked as it is (key order and identity kept)', () => {
    const S = strictObject({ b: v.number(), a: v.number() });
    const value = { a: 1, b: 2 };
    expect(checkJson(S, value, 'x', (m) => new Error(m))).toBe(value);
    expect(Object.keys(readJson(S, '{"a":1,"b":2}', 'x', (m) => new Error(m)))).toEqual(['a', 'b']);
  });

  it('a key with control characters is escaped and cut in the message', () => {
    const S = strictObject({ a: v.number() });
    const r = v.safeParse(S, { a: 1, ['\u001b]0;pwned\u0007' + 'k'.repeat(5000)]: 1 });
    expect(r.success).toBe(false);
    const line = thrown(() => checkJson(S, { a: 1, ['\u001b]0;pwned\u0007' + 'k'.repeat(5000)]: 1 }, 'x', (m) => new Error(m))).message;
    expectOneLine(line, 200);
    expect(line).toContain('\\u001b]0;pwned\\u0007');
    expect(issueLine(r.issues![0], 'x')).toContain('unknown key');
  });
});

describe.each(readers)('$kind files', ({ kind, read, error }) => {
  it('refuse a document nested 100,000 levels deep with one line naming the file', () => {
    for (const text of ['['.repeat(100_000) + ']'.repeat(100_000), '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)]) {
      const e = thrown(() => read(text));
      expect(e).toBeInstanceOf(error);
      expect(e.message).toMatch(/^f\.json: (JSON )?nests deeper than \d+ levels/);
      expectOneLine(e.message);
    }
  });

  it('refuse binary data (a database named where a JSON file goes) as such, in one line', () => {
    // The first bytes of a .mmdb: read as JSON, its brackets "nested deeper than 16 levels" (merge).
    const mmdb = 'MMDB\r\n\u001a\n\u0001\u0000\u0000\u0000' + '[{'.repeat(40) + 'x';
    const e = thrown(() => read(mmdb));
    expect(e).toBeInstanceOf(error);
    expect(e.message).toMatch(/^f\.json: (.*: )?binary data, not JSON text|^f\.json: neither a JSON height field/);
    expect(e.message).not.toMatch(/nests deeper/);
    expectOneLine(e.message);
  });

  it('cut a 10,000-character value and escape its terminal escapes', () => {
    const long = '\u001b[31m' + 'x'.repeat(10_000);
    const text = {
      settings: JSON.stringify({ controller: { searchInterval: long } }),
      schema: group({ weight: long }),
      'LOD table': table({ hysteresis: long }),
      'height field': new TextDecoder().decode(field({ spacing: long })),
    }[kind]!;
    const e = thrown(() => read(text));
    expect(e).toBeInstanceOf(error);
    expectOneLine(e.message, 200);
    expect(e.message).toMatch(/got the string "\\u001b\[31mxxx/);
    expect(e.message).toContain('…');
  });
});

describe('settings files', () => {
  const err = (doc: unknown) => thrown(() => parseSettings(JSON.stringify(doc), 's.json'));
  it('refuse an unknown key with its path', () => {
    expect(err({ controller: { footIKOptions: { unlock: 1 } } }).message).toMatch(/^s\.json: unknown option controller\.footIKOptions\.unlock \(known: /);
    expect(err({ controler: {} }).message).toMatch(/^s\.json: unknown key "controler"/);
  });
  it('name a wrong type', () => {
    expect(err({ controller: { searchInterval: '0.1' } }).message).toBe('s.json: controller.searchInterval must be a number, got the string "0.1"');
    expect(err({ controller: { footIKOptions: { blendHalfLife: [1] } } }).message).toBe('s.json: controller.footIKOptions.blendHalfLife must be a number, got an array [1]');
    expect(err({ schemaWeights: { footPosition: '1' } }).message).toBe('s.json: schemaWeights.footPosition must be a finite number > 0, got the string "1"');
  });
  it('refuse a number out of its range', () => {
    expect(err({ schemaWeights: { footPosition: 1e38 } }).message).toMatch(/^s\.json: schemaWeights\.footPosition must be in \[0\.000001, 1000000\], got 1e\+38$/);
    expect(err({ controller: { searchInterval: 1e300 } }).message).toMatch(/^s\.json: controller\.searchInterval must be /);
  });
  it('check the keys a record of weights could pass over ("constructor", "__proto__")', () => {
    expect(thrown(() => parseSettings('{"schemaWeights":{"constructor":"x"}}', 's.json')).message).toBe('s.json: schemaWeights.constructor must be in [0.000001, 1000000], got the string "x"');
    expect(thrown(() => parseSettings('{"schemaWeights":{"__proto__":[1,2]}}', 's.json')).message).toBe('s.json: schemaWeights.__proto__ must be in [0.000001, 1000000], got an array [1,2]');
    expect(thrown(() => parseSettings('{"controller":{"__proto__":{}}}', 's.json')).message).toMatch(/^s\.json: unknown controller option "__proto__"/);
  });
  it('read a valid file as before: the keys in the file\'s order', () => {
    const text = '{\n  "comment": "c",\n  "controller": {\n    "searchInterval": 0.2,\n    "continuingBias": 0.25\n  },\n  "schemaWeights": {\n    "hipVelocity": 0.5,\n    "footPosition": 2\n  }\n}\n';
    expect(formatSettings(parseSettings(text))).toBe(text);
  });
});

describe('schema files', () => {
  const err = (text: string) => thrown(() => parseSchemaJson(text, 's.json'));
  it('refuse an unknown key with its path, at the top and in a group', () => {
    expect(err(JSON.stringify({ ...JSON.parse(group()), extra: 1 })).message).toMatch(/^s\.json: unknown key "extra" \(a schema has "groups", /);
    expect(err(group({ wieght: 2 })).message).toBe('s.json: groups[0] ("traj"): unknown key "wieght" (a trajectoryPosition group has "name", "kind", "weight", "offsets")');
  });
  it('name a wrong type', () => {
    expect(err(group({ weight: '1' })).message).toBe('s.json: groups[0] ("traj").weight must be a number, got the string "1"');
    expect(err(group({ offsets: [0.5, '1'] })).message).toBe('s.json: groups[0] ("traj").offsets[1] must be a number, got the string "1"');
    expect(err(JSON.stringify({ endMarginSeconds: '0.3' })).message).toBe('s.json: endMarginSeconds must be a number, got the string "0.3"');
    expect(err(group({ kind: 'boneColour' })).message).toMatch(/^s\.json: groups\[0\] \("traj"\)\.kind must be one of bonePosition, .*, got the string "boneColour"$/);
  });
  it('refuse a number out of its range', () => {
    expect(err(group({ weight: 1e308 })).message).toMatch(/^s\.json: groups\[0\] \("traj"\): "weight" must be a number in \[0\.000001, 1000000\]/);
    expect(err(group({ offsets: [61] })).message).toMatch(/"offsets" must be a non-empty array of finite times in seconds \(\|t\| <= 60\)/);
  });
  it('read a valid file as before', () => {
    const s = parseSchemaJson(JSON.stringify({ groups: [{ kind: 'bonePosition', name: 'feet', bones: ['leftFoot'], weight: 2 }], endMarginSeconds: 0.25 }));
    expect(s.groups).toEqual([{ kind: 'bonePosition', name: 'feet', bones: ['leftFoot'], weight: 2 }]);
    expect(Object.keys(s.groups[0])).toEqual(['kind', 'name', 'bones', 'weight']);
    expect(s.endMarginSeconds).toBe(0.25);
  });
});

describe('level table files', () => {
  const err = (text: string) => thrown(() => parseLodTable(text, 't.json'));
  it('refuse an unknown key with its path', () => {
    expect(err(table({ extra: 1 })).message).toBe('t.json: unknown key "extra" (allowed: levels, hysteresis, comment)');
    expect(err(JSON.stringify({ levels: [lv[0], { ...lv[lv.length - 1], poseEvry: 2 }] })).message).toMatch(/^t\.json: levels\[1\]: unknown field "poseEvry" \(a level has maxDistance, /);
  });
  it('name a wrong type', () => {
    expect(err(JSON.stringify({ levels: [{ ...lv[0], poseEvery: '4' }, lv[lv.length - 1]] })).message).toBe('t.json: levels[0].poseEvery must be a number, got the string "4"');
    expect(err(table({ hysteresis: {} })).message).toBe('t.json: hysteresis must be a number of metres, got an object {}');
  });
  it('refuse a number out of its range', () => {
    expect(err(JSON.stringify({ levels: [{ ...lv[0], poseEvery: 0 }, lv[lv.length - 1]] })).message).toBe('t.json: LOD level 0: poseEvery must be an integer in [1, 60], got 0');
  });
  it('read a valid file as before', () => {
    const t = parseLodTable(table({ hysteresis: 1, comment: 'c' }));
    expect(t.hysteresis).toBe(1);
    expect(t.levels[1].maxDistance).toBe(Infinity);
    expect(Object.keys(t.levels[0])).toEqual(['maxDistance', 'searchInterval', 'fullSearchInterval', 'localSeconds', 'inertializationHalfLife', 'poseEvery', 'footIK', 'inertialization']);
  });
});

describe('height field files', () => {
  const err = (bytes: Uint8Array) => thrown(() => parseHeightFieldFile(bytes, 'hf.json'));
  it('refuse an unknown key with its name', () => {
    expect(err(field({ colour: 'green' })).message).toMatch(/^hf\.json: unknown key "colour" \(allowed: format, version, /);
  });
  it('say that "columns": "4" is a string', () => {
    expect(err(field({ columns: '4' })).message).toBe('hf.json: columns must be an integer in [2, 65536], got the string "4"');
    expect(err(field({ edges: 3 })).message).toBe('hf.json: edges must be \'clamp\' or \'repeat\', got 3');
    expect(err(field({ originX: '0' })).message).toMatch(/^hf\.json: originX must be a finite number of metres within ±10000000, got the string "0"$/);
  });
  it('refuse a number out of its range', () => {
    expect(err(field({ spacing: 0 })).message).toBe('hf.json: spacing must be a number of metres in [0.001, 1000], got 0');
    expect(err(field({ rows: 70_000 })).message).toBe('hf.json: rows must be an integer in [2, 65536], got 70000');
  });
  it('read a valid file as before (JSON and back)', () => {
    const spec = parseHeightFieldFile(field({ heights: [[0, 0.5], [1, 0.25]], originX: -1, edges: 'repeat' }), 'hf.json');
    expect(Array.from(spec.heights)).toEqual([0, 0.5, 1, 0.25]);
    expect(parseHeightFieldFile(enc(heightFieldToJson(spec)), 'again.json')).toEqual(spec);
  });
});

describe('partial reports: a forged file (checksum recomputed) is refused field by field', () => {
  const o: SimulationOptions = { agents: 4, seconds: 1, hz: 30, seed: 5, scenario: 'mixed', method: 'kdtree', footIK: true, recordAgent: -1, workers: 1, backend: 'auto', warmup: false };
  let text = '';
  beforeAll(async () => {
    const db = builtinDatabase();
    const shard = { index: 0, count: 2 };
    const run = await runAgentGroups(db, { ...o, agentRange: shardAgentRange(o.agents, shard) });
    const t = new Date(0);
    text = partialReportText(partialReport({ run: runIdentity(db, o, stepCount(o), 2, '0.0.0-test'), shard, source: 'builtin', host: 'test', startedAt: t, finishedAt: t, workers: 1 }, run));
  }, 120_000);
  const resealed = (edit: (r: Record<string, any>) => void): string => {
    const r = JSON.parse(text) as Record<string, any>;
    edit(r);
    const { checksum: _old, ...body } = r;
    return JSON.stringify({ ...body, checksum: crc32(enc(JSON.stringify(body))).toString(16).padStart(8, '0') });
  };
  const err = (edit: (r: Record<string, any>) => void) => thrown(() => parsePartialReport(resealed(edit), 'p.json'));

  it('reads the untouched report (and a resealed copy of it)', () => {
    expect(parsePartialReport(text, 'p.json').report.shard.agents).toBe(2);
    expect(parsePartialReport(resealed(() => {}), 'p.json').report.shard.agents).toBe(2);
  });
  it('a database named as a partial report: binary data, not "JSON nests deeper than 16 levels"', () => {
    const e = thrown(() => parsePartialReport('MMDB\r\n\u001a\n\u0001\u0000\u0000\u0000' + '[{'.repeat(40), 'b.mmdb'));
    expect(e).toBeInstanceOf(PartialReportError);
    expect(e.message).toMatch(/^b\.mmdb: not a partial report: binary data, not JSON text \(character 10 is a NUL byte; the file starts with "MMDB\\u000d/);
  });
  it('quality "NaN"', () => {
    const e = err((r) => { r.quality[Object.keys(r.quality).find((k) => typeof r.quality[k] === 'number')!] = 'NaN'; });
    expect(e).toBeInstanceOf(PartialReportError);
    expect(e.message).toMatch(/^p\.json: quality\.\w+ must be a finite number, got "NaN"$/);
  });
  it('hz 0 with 60 steps', () => {
    const e = err((r) => { r.run.hz = 0; r.run.steps = 60; });
    expect(e).toBeInstanceOf(PartialReportError);
    expect(e.message).toBe('p.json: run.hz must be a number in [1, 1000], got 0');
    expect(err((r) => { r.run.hz = 60; r.run.steps = 60; }).message).toMatch(/run\.steps \(60\) is not run\.seconds x run\.hz|quality\.steps/);
  });
  it('terrain {foo: 1}, in the report and in the run identity', () => {
    expect(err((r) => { r.terrain = { foo: 1 }; }).message).toBe('p.json: terrain must be null (the run is on flat ground)');
    expect(err((r) => { r.run.terrain = { foo: 1 }; }).message).toMatch(/^p\.json: run\.terrain\.foo is not a field of a partial report/);
    expect(err((r) => { r.run.terrain = { kind: 'hills', seed: '1' }; r.terrain = { kind: 'hills', seed: '1' }; }).message).toMatch(/^p\.json: run\.terrain\.seed must be an integer/);
  });
  it('an unknown key with its path, a missing field, a wrong type named', () => {
    expect(err((r) => { r.result.extra = 1; }).message).toBe('p.json: result.extra is not a field of a partial report (edited, or written by another motionmatch version)');
    expect(err((r) => { r.run.overlay = { tag: 'x', mask: 'upper', mode: 'override', every: [1, 2], duration: [1, 2], opacity: 1 }; }).message).toMatch(/^p\.json: run\.overlay\.opacity is not a field of a partial report/);
    expect(err((r) => { delete r.quality; }).message).toBe('p.json: report.quality is missing');
    expect(err((r) => { delete r.run.seed; }).message).toBe('p.json: run.seed is missing');
    expect(err((r) => { r.run.method = 'magic'; }).message).toMatch(/^p\.json: run\.method must be one of brute, .*, got the string "magic"$/);
    expect(err((r) => { r.run.agents = '4'; }).message).toBe('p.json: run.agents must be an integer in [1, 1000000], got the string "4"');
    expect(err((r) => { r.result.wallSeconds = -1; }).message).toBe('p.json: result.wallSeconds must be a number >= 0, got -1');
    expect(err((r) => { r.run.db.fingerprint = 'XYZ'; }).message).toBe('p.json: run.db.fingerprint must be 8 hex digits, got the string "XYZ"');
  });
  it('a huge or escaped value is cut and escaped', () => {
    const e = err((r) => { r.result.host = '\u001b[2J' + 'h'.repeat(10_000); });
    expectOneLine(e.message, 300);
    expect(e.message).toContain('\\u001b[2J');
  });
  it('a document nested 100,000 levels deep', () => {
    const e = thrown(() => parsePartialReport('['.repeat(100_000), 'p.json'));
    expect(e).toBeInstanceOf(PartialReportError);
    expect(e.message).toMatch(/^p\.json: not a partial report: JSON nests deeper than \d+ levels/);
  });
});
