/**
 * Engine settings files (src/sim/settings/options-file.ts, settings/options-file-node.ts): what they accept, how
 * they refuse mistakes (one line naming the file and the key), and what they change in a database.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { generateBuiltinClips } from '../../src/builtin/generate.js';
import { buildDatabase } from '../../src/database/build.js';
import { DEFAULT_CONTROLLER_OPTIONS } from '../../src/runtime/controller/options.js';
import { DEFAULT_FOOT_IK_OPTIONS } from '../../src/runtime/foot-ik/foot-ik.js';
import { MotionMatchingController } from '../../src/runtime/controller/controller.js';
import {
  applySchemaWeights, checkSettings, emptySettings, formatSettings, parseSettings, settingsFragment, settingsFromFragment, SettingsError,
} from '../../src/sim/settings/options-file.js';
import { loadSettingsForDatabase, readSettingsFile } from '../../src/sim/settings/options-file-node.js';

const { skeleton, clips } = generateBuiltinClips();
const db = buildDatabase(clips.filter((c) => /^(walk_1\.2|run_3\.5)$/.test(c.name)).map((clip) => ({ skeleton, clip })));

describe('parseSettings', () => {
  it('reads controller options and schema weights, completing a partial foot IK object', () => {
    const s = parseSettings(JSON.stringify({
      comment: 'from a test',
      controller: { continuingBias: 0.4, searchInterval: 0.2, blendMode: 'crossfade', footIK: false, footIKOptions: { unlockLegLengths: 0.8 } },
      schemaWeights: { trajectoryPosition: 1.5 },
    }), 'a.json');
    expect(s.comment).toBe('from a test');
    expect(s.controller).toEqual({ continuingBias: 0.4, searchInterval: 0.2, blendMode: 'crossfade', footIK: false, footIKOptions: { ...DEFAULT_FOOT_IK_OPTIONS, unlockLegLengths: 0.8 } });
    expect(s.schemaWeights).toEqual({ trajectoryPosition: 1.5 });
    // What a controller makes of them.
    const c = new MotionMatchingController(db, s.controller);
    expect(c.options.continuingBias).toBe(0.4);
    expect(c.options.footIKOptions.unlockLegLengths).toBe(0.8);
    expect(c.options.footIKOptions.maxHipsDrop).toBe(DEFAULT_FOOT_IK_OPTIONS.maxHipsDrop);
  });

  it('takes every controller option but the code hook and the ground, with its default value (options added later included)', () => {
    for (const [k, v] of Object.entries(DEFAULT_CONTROLLER_OPTIONS)) {
      if (k === 'constrain' || k === 'ground') continue;
      expect(() => parseSettings(JSON.stringify({ controller: { [k]: v } }), 'x.json'), k).not.toThrow();
    }
    expect(() => parseSettings('{"controller":{"constrain":null}}', 'x.json')).toThrow(/x\.json: controller option "constrain" cannot be set from a file \(a code hook/);
    // The ground is an object with methods (a height field): --terrain or code set it; its options a file can.
    expect(() => parseSettings('{"controller":{"ground":null}}', 'x.json')).toThrow(/x\.json: controller option "ground" cannot be set from a file \(an object with methods: walk on a terrain with --terrain/);
    expect(parseSettings(JSON.stringify({ controller: { groundOptions: DEFAULT_CONTROLLER_OPTIONS.groundOptions } })).controller.groundOptions).toEqual(DEFAULT_CONTROLLER_OPTIONS.groundOptions);
    expect(parseSettings('{}')).toEqual(emptySettings());
  });

  it('refuses mistakes with one line naming the file and what is wrong', () => {
    const cases: Array<[string, RegExp]> = [
      ['[]', /s\.json: a settings file is a JSON object .* got an array \[\]/],
      ['{"controler":{}}', /s\.json: unknown key "controler"/],
      ['{"controller":{"bias":1}}', /s\.json: unknown controller option "bias" \(options: searchInterval, /],
      ['{"controller":{"searchInterval":"fast"}}', /s\.json: controller\.searchInterval must be a number, got the string "fast"/],
      ['{"controller":{"searchInterval":1e999}}', /s\.json: controller\.searchInterval must be a finite number/],
      ['{"controller":{"searchInterval":0}}', /s\.json: controller option searchInterval must be a finite number > 0, got 0/],
      ['{"controller":{"continuingBias":-1}}', /s\.json: controller option continuingBias must be a finite number >= 0/],
      ['{"controller":{"blendMode":"blend"}}', /s\.json: blendMode must be 'inertialize' or 'crossfade'/],
      ['{"controller":{"footIK":"yes"}}', /s\.json: controller\.footIK must be a boolean/],
      ['{"controller":{"footIKOptions":{"unlock":1}}}', /s\.json: unknown option controller\.footIKOptions\.unlock \(known: unlockLegLengths/],
      ['{"controller":{"footIKOptions":{"blendHalfLife":0}}}', /s\.json: .*blendHalfLife must be a finite number > 0/],
      ['{"controller":{"footIKOptions":3}}', /s\.json: controller\.footIKOptions must be an object/],
      ['{"controller":[]}', /s\.json: "controller" must be an object/],
      ['{"schemaWeights":{"footPosition":0}}', /s\.json: schemaWeights\.footPosition must be a finite number > 0, got 0/],
      ['{"schemaWeights":{"footPosition":"1"}}', /s\.json: schemaWeights\.footPosition must be a finite number > 0/],
      ['{"comment":3}', /s\.json: "comment" must be a string/],
      ['', /s\.json: not valid JSON \(the file is empty\)/],
      ['{\n  "controller": {\n    "searchInterval": 0.1,\n  }\n}', /s\.json: not valid JSON at line 4, column 3/],
    ];
    for (const [text, message] of cases) {
      let err: unknown;
      try { parseSettings(text, 's.json'); } catch (e) { err = e; }
      expect(err, text).toBeInstanceOf(SettingsError);
      expect((err as Error).message, text).toMatch(message);
      expect((err as Error).message, text).not.toContain('\n');
    }
  });

  it('checkSettings returns a copy (the input is not kept)', () => {
    const raw = { controller: { continuingBias: 0.3 }, schemaWeights: { hipVelocity: 2 } };
    const s = checkSettings(raw);
    raw.controller.continuingBias = 9;
    raw.schemaWeights.hipVelocity = 9;
    expect(s.controller.continuingBias).toBe(0.3);
    expect(s.schemaWeights.hipVelocity).toBe(2);
  });

  it('formats settings that parse back to the same', () => {
    const s = parseSettings('{"comment":"c","controller":{"continuingBias":0.25,"footIKOptions":{"maxHipsDrop":0}},"schemaWeights":{"hipVelocity":0.5}}');
    expect(parseSettings(formatSettings(s))).toEqual(s);
    expect(formatSettings(s).endsWith('\n')).toBe(true);
  });

  it('travels in a page address fragment and back', () => {
    const s = parseSettings('{"controller":{"continuingBias":0.25,"blendMode":"crossfade"},"schemaWeights":{"trajectoryDirection":2.5}}');
    const hash = settingsFragment(s);
    expect(hash).toMatch(/^#options=/);
    expect(settingsFromFragment(hash)).toEqual({ controller: s.controller, schemaWeights: s.schemaWeights });
    expect(settingsFromFragment('')).toBeNull();
    expect(settingsFromFragment('#other=1')).toBeNull();
    expect(() => settingsFromFragment('#options=%7Bnope')).toThrow(/page address.*not valid JSON/);
  });
});

describe('applySchemaWeights', () => {
  it('reweights the database, and returns it as it is when nothing changes', () => {
    expect(applySchemaWeights(db, emptySettings())).toBe(db);
    expect(applySchemaWeights(db, { controller: {}, schemaWeights: { footPosition: 0.75 } })).toBe(db);
    const re = applySchemaWeights(db, { controller: {}, schemaWeights: { footPosition: 1.5 } });
    expect(re).not.toBe(db);
    expect(re.scale[0]).toBeCloseTo(db.scale[0] / 2, 5);
  });

  it('names a group the database does not have', () => {
    expect(() => applySchemaWeights(db, { controller: {}, schemaWeights: { hands: 1 } }, 'w.json')).toThrow(/w\.json: schemaWeights names feature group "hands", which this database does not have \(its groups: footPosition/);
  });
});

describe('readSettingsFile', () => {
  it('reads a file, and refuses folders, FIFOs and missing files naming them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mm-settings-'));
    try {
      const file = join(dir, 'ok.json');
      writeFileSync(file, '{"controller":{"continuingBias":0.2},"schemaWeights":{"hipVelocity":2}}');
      expect(readSettingsFile(file).controller).toEqual({ continuingBias: 0.2 });
      const { db: tuned, controller } = loadSettingsForDatabase(file, db);
      expect(controller).toEqual({ continuingBias: 0.2 });
      expect(tuned.schema.groups.find((g) => g.name === 'hipVelocity')!.weight).toBe(2);
      mkdirSync(join(dir, 'folder.json'));
      expect(() => readSettingsFile(join(dir, 'folder.json'))).toThrow(/settings file '.*folder\.json': it is a directory/);
      expect(() => readSettingsFile(join(dir, 'missing.json'))).toThrow(/settings file '.*missing\.json': no such file/);
      const fifo = join(dir, 'pipe.json');
      execFileSync('mkfifo', [fifo]);
      expect(() => readSettingsFile(fifo)).toThrow(/settings file '.*pipe\.json': it is a FIFO/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
