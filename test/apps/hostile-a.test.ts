/**
 * Hostile input to build, quality, coverage and simulate (issue 28 §3): every refusal is one line
 * naming the file or option, with exit code 1 (bad input) or 2 (usage), in bounded time, with the
 * inputs unchanged and no output left behind.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { runCli, runCliInProcess, tempDir, REPO_ROOT, type CliResult } from '../helpers/cli.js';
import { bipedBvh } from '../import/bvh-fixtures.js';
import { parseSettings, SettingsError } from '../../src/sim/settings/options-file.js';
import { CONTROLLER_SETTING_RANGES } from '../../src/runtime/controller/option-ranges.js';
import { DEFAULT_CONTROLLER_OPTIONS, resolveControllerOptions } from '../../src/runtime/controller/options.js';
import { globMatcher, MAX_GLOB_LENGTH } from '../../src/util/glob.js';
import { parseSchemaJson, MAX_SCHEMA_DIMS, MAX_GROUP_ENTRIES } from '../../src/features/schema-validate.js';

/** Every refusal must come well within this; a run is given up after twice as long (a spawned one killed). */
const BOUND_MS = 15_000;

/**
 * The command in this process (runCliInProcess: the compiled main that bin/motionmatch.js calls, its
 * exit code and output as the process's), except where the process itself matters: an environment
 * (NODE_OPTIONS) or worker threads (--workers: the threads must end for the process to end), which
 * run bin/motionmatch.js.
 */
async function run(args: string[], env?: Record<string, string>): Promise<CliResult & { ms: number }> {
  const t0 = performance.now();
  const r = env || args.includes('--workers')
    ? runCli(args, { timeoutMs: 2 * BOUND_MS, ...(env ? { env } : {}) })
    : await runCliInProcess(args, { timeoutMs: 2 * BOUND_MS });
  return { ...r, ms: performance.now() - t0 };
}

/** Files present in dir (recursively, relative names). */
function listing(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort();
}

/**
 * A refusal: `code`, a one-line message (for usage errors, the first line; the usage follows)
 * matching `message`, well within the bound.
 */
function expectRefusal(r: CliResult & { ms: number }, code: 1 | 2, message: RegExp): void {
  const lines = r.stderr.split('\n');
  expect(r.ms, r.stderr).toBeLessThan(BOUND_MS);
  expect(r.code, r.stderr).toBe(code);
  expect(lines[0]).toMatch(message);
  if (code === 1) expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
  else expect(lines[1]).toBe('');
  expect(r.stdout).toBe('');
}

const dir = tempDir('mm-hostile-a-');
const db = join(dir, 'db.mmdb');
const clips = join(dir, 'clips');
let dbBytes: Buffer;

beforeAll(() => {
  const b = runCli(['build', '--builtin', '--out', db]);
  expect(b.code, b.stderr).toBe(0);
  dbBytes = readFileSync(db);
  mkdirSync(clips);
  // Names as long as real captures': a backtracking matcher takes minutes over names of this length.
  writeFileSync(join(clips, 'dataset-1_walk-back_normal_001_loop.bvh'), bipedBvh(40));
  writeFileSync(join(clips, 'dataset-2_turn-left_normal_002.bvh'), bipedBvh(30));
}, 60_000);

/** A fresh folder holding copies of the named inputs; returns its path. */
function scratch(files: Record<string, string | Buffer> = {}): string {
  const d = join(dir, `s${Math.random().toString(36).slice(2, 10)}`);
  mkdirSync(d);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(d, name), content);
  return d;
}

describe('1. globs match in linear time', () => {
  it('--loop and --tag with runs of stars finish at once, and warn when they match nothing', async () => {
    const d = scratch();
    for (const glob of ['**********x', '**************x', '*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b', '*?*?*?*?*?*?*?*?*?*?*?*?*?*?*q']) {
      const r = await run(['build', clips, '--out', join(d, 'o.mmdb'), '--loop', glob, '--tag', `t=${glob}`, '--json']);
      expect(r.ms).toBeLessThan(BOUND_MS);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe(`motionmatch build: --loop ${glob} matches no clip name\nmotionmatch build: --tag t=${glob} matches no clip name\n`);
      expect(JSON.parse(r.stdout).loops).toBe(0);
    }
  });

  it('a glob longer than a clip name can be is a usage error naming the option', async () => {
    const d = scratch();
    const long = '*'.repeat(MAX_GLOB_LENGTH + 1);
    expectRefusal(await run(['build', clips, '--out', join(d, 'o.mmdb'), '--loop', long]), 2, new RegExp(`^motionmatch build: --loop: a glob may have at most ${MAX_GLOB_LENGTH} characters`));
    expectRefusal(await run(['build', clips, '--out', join(d, 'o.mmdb'), '--tag', `x=${long}`]), 2, new RegExp(`^motionmatch build: --tag x=GLOB: a glob may have at most ${MAX_GLOB_LENGTH} characters`));
    expect(listing(d)).toEqual([]);
  });

  it('the matcher: * and ? case-insensitively, linear in the worst case', () => {
    const m = (g: string, s: string) => globMatcher(g).test(s);
    expect(m('walk_*', 'Walk_Loop')).toBe(true);
    expect(m('*_loop', 'walk_loop')).toBe(true);
    expect(m('w?lk', 'walk')).toBe(true);
    expect(m('w?lk', 'wlk')).toBe(false);
    expect(m('a.b', 'axb')).toBe(false);
    expect(m('a.b', 'a.b')).toBe(true);
    expect(m('[x]', '[x]')).toBe(true);
    expect(m('*', '')).toBe(true);
    expect(m('', '')).toBe(true);
    expect(m('a*b*c', 'aXbYc')).toBe(true);
    expect(m('a*b*c', 'aXbYcd')).toBe(false);
    const t0 = performance.now();
    expect(m('*a'.repeat(120) + '*b', 'a'.repeat(255))).toBe(false);
    expect(performance.now() - t0).toBeLessThan(200);
  });

  it('build counts looping clips as info does (mirrored copies included)', async () => {
    const d = scratch();
    const out = join(d, 'm.mmdb');
    const r = await run(['build', clips, '--out', out, '--mirror', '--loop', '*_loop', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const info = JSON.parse((await run(['info', out, '--json'])).stdout);
    expect(info.loopingClips).toBe(2);
    expect(JSON.parse(r.stdout).loops).toBe(info.loopingClips);
    // a --tag glob that matches only the mirrored copies' names is not "matching nothing"
    const t = await run(['build', clips, '--out', out, '--mirror', '--tag', 'm=*_mirror']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stderr).toBe('');
  });
});

describe('2. lists that would run the heap out are capped', () => {
  const many = Array.from({ length: 5000 }, (_, i) => String(0.001 + i * 0.003)).join(',');
  const rates = Array.from({ length: 5000 }, (_, i) => String(i * 0.1)).join(',');
  it('coverage --speeds and --turn-rates take at most 50 values', async () => {
    const d = scratch();
    expectRefusal(await run(['coverage', db, '--cost-only', '--speeds', many, '--out', join(d, 'c.html')]), 2, /^motionmatch coverage: --speeds takes at most 50 values \(.*\), got 5000$/);
    expectRefusal(await run(['coverage', db, '--cost-only', '--turn-rates', rates, '--out', join(d, 'c.html')]), 2, /^motionmatch coverage: --turn-rates takes at most 50 values \(.*\), got 5000$/);
    expect((await run(['coverage', '--help'])).stdout).toMatch(/--speeds LIST .*\n.*at most 50 values[\s\S]*--turn-rates LIST .*\n.*at most 50 values/);
    expect(listing(d)).toEqual([]);
  });
  it('coverage --require-tag / --exclude-tag and build --loop / --tag are capped too', async () => {
    const d = scratch();
    const tags = Array.from({ length: 65 }, (_, i) => ['--require-tag', `t${i}`]).flat();
    expectRefusal(await run(['coverage', db, '--cost-only', ...tags]), 2, /^motionmatch coverage: --require-tag is given 65 times; at most 64/);
    const loops = Array.from({ length: 257 }, (_, i) => ['--loop', `l${i}`]).flat();
    expectRefusal(await run(['build', clips, '--out', join(d, 'o.mmdb'), ...loops]), 2, /^motionmatch build: --loop is given 257 times; at most 256/);
    expect(listing(d)).toEqual([]);
  });
});

describe('3. feature dimensions are capped in schema files', () => {
  it('a schema with 10,000 trajectory offsets is refused at once, naming the file and the group', async () => {
    const offsets = Array.from({ length: 10_000 }, (_, i) => +(0.001 * (i + 1)).toFixed(3));
    const d = scratch({ 'schema.json': JSON.stringify({ groups: [{ name: 'traj', kind: 'trajectoryPosition', offsets, weight: 1 }] }) });
    const schema = join(d, 'schema.json');
    const before = readFileSync(schema);
    const r = await run(['build', '--builtin', '--schema', schema, '--out', join(d, 'o.mmdb')]);
    expectRefusal(r, 1, new RegExp(`^motionmatch build: ${schema}: groups\\[0\\] \\("traj"\\): "offsets" has 10000 entries; a group may have at most ${MAX_GROUP_ENTRIES}`));
    expect(readFileSync(schema).equals(before)).toBe(true);
    expect(listing(d)).toEqual(['schema.json']);
  });
  it('too many dimensions in all is refused naming the file', async () => {
    const groups = Array.from({ length: 10 }, (_, i) => ({ name: `g${i}`, kind: 'trajectoryPosition', offsets: Array.from({ length: 20 }, (_, k) => (k + 1) / 20), weight: 1 }));
    const d = scratch({ 's.json': JSON.stringify({ groups }) });
    expectRefusal(await run(['build', '--builtin', '--schema', join(d, 's.json'), '--out', join(d, 'o.mmdb')]), 1, new RegExp(`: the groups make 400 feature dimensions; a schema may have at most ${MAX_SCHEMA_DIMS}`));
    expect(listing(d)).toEqual(['s.json']);
  });
});

describe('4. an output that is one of the inputs is refused before running', () => {
  const cases: Array<{ name: string; args: (d: string) => string[]; input: string; what: RegExp }> = [
    { name: 'quality DB --svg DB', input: 'db.mmdb', args: (d) => ['quality', join(d, 'db.mmdb'), '--svg', join(d, 'db.mmdb'), '--agents', '1', '--seconds', '2'], what: /: it is the database '[^']*' \(writing would replace it\); choose another --svg$/ },
    { name: 'quality --options F --svg ./F', input: 'o.json', args: (d) => ['quality', '--options', join(d, 'o.json'), '--svg', `./${relative(REPO_ROOT, join(d, 'o.json'))}`, '--agents', '1', '--seconds', '2'], what: /: it is the --options file '[^']*' \(writing would replace it\); choose another --svg$/ },
    { name: 'coverage DB --cost-only --out DB', input: 'db.mmdb', args: (d) => ['coverage', join(d, 'db.mmdb'), '--cost-only', '--out', join(d, 'db.mmdb')], what: /: it is the database '[^']*' \(writing would replace it\); choose another --out$/ },
    { name: 'coverage --options F --out F', input: 'o.json', args: (d) => ['coverage', join(d, 'db.mmdb'), '--cost-only', '--options', join(d, 'o.json'), '--out', join(d, 'o.json')], what: /: it is the --options file '[^']*' \(writing would replace it\); choose another --out$/ },
    { name: 'simulate --db F --out F', input: 'db.mmdb', args: (d) => ['simulate', '--db', join(d, 'db.mmdb'), '--out', join(d, 'db.mmdb'), '--agents', '1', '--seconds', '0.1'], what: /: it is the --db file '[^']*' \(writing would replace it\); choose another --out$/ },
    { name: 'simulate --db F --export-bvh F', input: 'db.mmdb', args: (d) => ['simulate', '--db', join(d, 'db.mmdb'), '--export-bvh', join(d, 'db.mmdb'), '--agents', '1', '--seconds', '0.1'], what: /: it is the --db file '[^']*' \(writing would replace it\); choose another --export-bvh$/ },
    { name: 'simulate --terrain F --out F', input: 'hf.json', args: (d) => ['simulate', '--terrain', join(d, 'hf.json'), '--out', join(d, 'hf.json'), '--agents', '1', '--seconds', '0.1'], what: /: it is the --terrain file '[^']*' \(writing would replace it\); choose another --out$/ },
    { name: 'simulate --options F --out F', input: 'o.json', args: (d) => ['simulate', '--options', join(d, 'o.json'), '--out', join(d, 'o.json'), '--agents', '1', '--seconds', '0.1'], what: /: it is the --options file '[^']*' \(writing would replace it\); choose another --out$/ },
    { name: 'simulate --out F --export-bvh F', input: 'x.json', args: (d) => ['simulate', '--out', join(d, 'x.json'), '--export-bvh', join(d, 'x.json'), '--agents', '1', '--seconds', '0.1'], what: /: it is the --out file '[^']*' \(writing would replace it\); choose another --export-bvh$/ },
    { name: 'build --builtin --schema S --out S', input: 's.json', args: (d) => ['build', '--builtin', '--schema', join(d, 's.json'), '--out', join(d, 's.json')], what: /: it is the --schema file '[^']*' \(writing would replace it\); choose another --out$/ },
    { name: 'build FILE.bvh --out FILE.bvh', input: 'c.bvh', args: (d) => ['build', join(d, 'c.bvh'), '--out', join(d, 'c.bvh')], what: /: it is the input file '[^']*' \(writing would replace it\); choose another --out$/ },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const d = scratch({
        'db.mmdb': dbBytes, 'o.json': '{"controller": {}}\n', 's.json': '{}\n', 'x.json': '{}\n', 'c.bvh': bipedBvh(20),
        'hf.json': JSON.stringify({ format: 'motionmatch-heightfield', version: 1, columns: 2, rows: 2, spacing: 1, heights: [0, 0, 0, 0] }),
      });
      const before = readFileSync(join(d, c.input));
      const files = listing(d);
      const r = await run(c.args(d));
      expectRefusal(r, 1, c.what);
      expect(r.stderr).toContain(c.input);
      expect(readFileSync(join(d, c.input)).equals(before), 'the input is unchanged').toBe(true);
      expect(listing(d)).toEqual(files);
    });
  }
  it('the same file through a symbolic link is refused too', async () => {
    const d = scratch({ 'db.mmdb': dbBytes });
    symlinkSync(join(d, 'db.mmdb'), join(d, 'link.mmdb'));
    const r = await run(['coverage', join(d, 'link.mmdb'), '--cost-only', '--out', join(d, 'db.mmdb')]);
    expectRefusal(r, 1, /cannot write coverage report '.*db\.mmdb': it is the database '.*link\.mmdb' \(writing would replace it\); choose another --out$/);
    expect(readFileSync(join(d, 'db.mmdb')).equals(dbBytes), 'the database is unchanged').toBe(true);
  });
});

describe('5. settings out of their physical range are refused by the settings reader', () => {
  const bad: Array<[string, unknown, RegExp]> = [
    ['controller.trajectoryHalfLife', 1e300, /controller\.trajectoryHalfLife must be in \[0\.001, 10\] seconds, got 1e\+300$/],
    ['controller.trajectoryHalfLife', 1e-300, /controller\.trajectoryHalfLife must be in \[0\.001, 10\] seconds, got 1e-300$/],
    ['controller.facingHalfLife', 1e300, /controller\.facingHalfLife must be in \[0\.001, 10\] seconds/],
    ['controller.inertializationHalfLife', 1e-300, /controller\.inertializationHalfLife must be in \[0\.001, 10\] seconds/],
    ['controller.continuingBias', 1e300, /controller\.continuingBias must be in \[0, 1000\]/],
    ['controller.startFrame', 1e300, /controller\.startFrame must be an integer in \[-1, /],
    ['controller.footIKOptions.blendHalfLife', 1e-300, /controller\.footIKOptions\.blendHalfLife must be in \[0\.001, 10\] seconds/],
    ['controller.groundOptions.rootHalfLife', 1e300, /controller\.groundOptions\.rootHalfLife must be in \[0\.001, 10\] seconds/],
    ['schemaWeights.footPosition', 1e38, /schemaWeights\.footPosition must be in \[0\.000001, 1000000\], got 1e\+38$/],
    ['schemaWeights.footPosition', 5e-324, /schemaWeights\.footPosition must be in \[0\.000001, 1000000\], got 5e-324$/],
  ];
  const fileOf = (path: string, v: unknown) => {
    const o: Record<string, unknown> = {};
    let at = o;
    const keys = path.split('.');
    keys.forEach((k, i) => { if (i === keys.length - 1) at[k] = v; else at = (at[k] = at[k] ?? {}) as Record<string, unknown>; });
    return JSON.stringify(o);
  };
  for (const [path, v, message] of bad) {
    it(`simulate --options with ${path} = ${v}`, async () => {
      const d = scratch({ 'settings.json': fileOf(path, v) });
      const f = join(d, 'settings.json');
      const r = await run(['simulate', '--options', f, '--agents', '2', '--seconds', '0.2', '--out', join(d, 'r.json')]);
      expectRefusal(r, 1, new RegExp(`^motionmatch simulate: ${f}: ${message.source}`));
      expect(listing(d)).toEqual(['settings.json']);
    });
  }
  it('a schema file weight of 1e308 or 5e-324 is refused by build, naming the file and the group', async () => {
    for (const w of [1e38, 1e308, 5e-324]) {
      const d = scratch({ 's.json': JSON.stringify({ groups: [{ name: 'traj', kind: 'trajectoryPosition', offsets: [0.5, 1], weight: w }] }) });
      expectRefusal(await run(['build', '--builtin', '--schema', join(d, 's.json'), '--out', join(d, 'o.mmdb')]), 1, /s\.json: groups\[0\] \("traj"\): "weight" must be a number in \[0\.000001, 1000000\]/);
      expect(listing(d)).toEqual(['s.json']);
    }
  });
  it('the ranges hold the defaults and lie within what validateControllerOptions accepts', () => {
    const defaults = DEFAULT_CONTROLLER_OPTIONS as unknown as Record<string, unknown>;
    for (const [path, range] of Object.entries(CONTROLLER_SETTING_RANGES)) {
      const [top, sub] = path.split('.');
      const def = (sub ? (defaults[top] as Record<string, number>)[sub] : defaults[top]) as number;
      expect(def >= range.min && def <= range.max, `${path} default ${def}`).toBe(true);
      for (const v of [range.min, range.max]) {
        const controller = sub ? { [top]: { [sub]: v } } : { [top]: v };
        if (top === 'timeWarpMin' || top === 'timeWarpMax') Object.assign(controller, { timeWarpMin: Math.min(1, v), timeWarpMax: Math.max(1, v) });
        const s = parseSettings(JSON.stringify({ controller }), 'x.json');
        expect(() => resolveControllerOptions(s.controller), `${path} = ${v}`).not.toThrow();
      }
    }
    // every numeric option has a range
    for (const [k, v] of Object.entries(defaults)) {
      if (typeof v === 'number') expect(CONTROLLER_SETTING_RANGES, k).toHaveProperty([k]);
      else if (v && typeof v === 'object') for (const [s, w] of Object.entries(v)) if (typeof w === 'number') expect(CONTROLLER_SETTING_RANGES, `${k}.${s}`).toHaveProperty([`${k}.${s}`]);
    }
    expect(() => parseSettings('{"controller": {"searchInterval": 1e9}}', 'x.json')).toThrow(SettingsError);
  });
});

describe('6. height fields the runtime cannot use are refused at load, naming the file', () => {
  const field = (o: Record<string, unknown>) => JSON.stringify({ format: 'motionmatch-heightfield', version: 1, columns: 2, rows: 2, spacing: 1, heights: [0, 0, 0, 0], ...o });
  it('±1e5 m at 1 mm spacing: the slope between neighbours', async () => {
    const d = scratch({ 'hf.json': field({ spacing: 0.001, heights: [1e5, -1e5, -1e5, 1e5] }) });
    const f = join(d, 'hf.json');
    for (const extra of [[], ['--workers', '2']]) {
      const r = await run(['simulate', '--terrain', f, '--agents', '2', '--seconds', '0.5', '--out', join(d, 'r.json'), ...extra]);
      expectRefusal(r, 1, new RegExp(`^motionmatch simulate: ${f}: the slope between column 0 and column 1 of row 0 is 200000000 \\(a rise of 200000 m over 0\\.001 m\\); at most 1000`));
    }
    expectRefusal(await run(['quality', '--terrain', f, '--agents', '1', '--seconds', '2']), 1, new RegExp(`^motionmatch quality: ${f}: the slope between`));
    expect(listing(d)).toEqual(['hf.json']);
  });
  it('"columns": "4" says it got a string', async () => {
    const d = scratch({ 'hf.json': field({ columns: '4' }) });
    const f = join(d, 'hf.json');
    expectRefusal(await run(['simulate', '--terrain', f, '--agents', '1', '--seconds', '0.1']), 1, new RegExp(`^motionmatch simulate: ${f}: columns must be an integer in \\[2, 65536\\], got the string "4"$`));
    const e = scratch({ 'hf.json': field({ spacing: null }) });
    expectRefusal(await run(['simulate', '--terrain', join(e, 'hf.json'), '--agents', '1', '--seconds', '0.1']), 1, /spacing must be a number of metres in \[0\.001, 1000\], got null$/);
  });
});

describe('7. schema files refuse unknown keys', () => {
  for (const [doc, message] of [
    [{ groups: [{ name: 'traj', kind: 'trajectoryPosition', offsets: [1], weight: 1 }], extra: 1 }, /s\.json: unknown key "extra" \(a schema has "groups", "endMarginSeconds", "facingSmoothingSeconds", "positionSmoothingSeconds"\)$/],
    [{ groups: [{ name: 'traj', kind: 'trajectoryPosition', offsets: [1], wieght: 1, weight: 1 }] }, /s\.json: groups\[0\] \("traj"\): unknown key "wieght" \(a trajectoryPosition group has "name", "kind", "weight", "offsets"\)$/],
    [{ groups: [{ name: 'feet', kind: 'bonePosition', bones: ['leftFoot'], offsets: [1], weight: 1 }] }, /s\.json: groups\[0\] \("feet"\): unknown key "offsets" \(a bonePosition group has "name", "kind", "weight", "bones"\)$/],
  ] as const) {
    it(Object.keys(doc).join(','), async () => {
      const d = scratch({ 's.json': JSON.stringify(doc) });
      expectRefusal(await run(['build', '--builtin', '--schema', join(d, 's.json'), '--out', join(d, 'o.mmdb')]), 1, message);
      expect(listing(d)).toEqual(['s.json']);
    });
  }
  it('parseSchemaJson still reads a schema of known keys', () => {
    expect(parseSchemaJson(JSON.stringify({ groups: [{ name: 't', kind: 'trajectoryDirection', offsets: [0.5], weight: 2 }], endMarginSeconds: 0.2 }), 'x').groups[0].weight).toBe(2);
  });
});

describe('8. output paths: say what is wrong', () => {
  const commands: Array<[string, string[], string]> = [
    ['build', ['build', '--builtin'], '--out'],
    ['simulate', ['simulate', '--agents', '1', '--seconds', '0.1'], '--out'],
    ['simulate', ['simulate', '--agents', '1', '--seconds', '0.1'], '--export-bvh'],
    ['quality', ['quality', '--agents', '1', '--seconds', '2'], '--svg'],
    ['coverage', ['coverage', db, '--cost-only'], '--out'],
  ];
  for (const [name, args, option] of commands) {
    it(`${name} ${option} '' is a usage error`, async () => {
      expectRefusal(await run([...args, option, '']), 2, new RegExp(`^motionmatch ${name}: ${option} needs a file name$`));
    });
    it.skipIf(!existsSync('/proc/self'))(`${name} ${option} /proc/x.json: cannot write, before running`, async () => {
      const r = await run([...args, option, '/proc/mm-hostile-x.json']);
      expectRefusal(r, 1, new RegExp(`^motionmatch ${name}: cannot write .* '/proc/mm-hostile-x\\.json': cannot create a file in folder '/proc'`));
    });
  }
  it('a missing folder is still named as missing', async () => {
    const r = await run(['simulate', '--agents', '1', '--seconds', '0.1', '--out', join(dir, 'nope', 'r.json')]);
    expectRefusal(r, 1, /folder '.*nope' does not exist$/);
  });
});

describe('9. errors in a simulation worker are one line', () => {
  it('simulate --workers 2: a failure inside a worker prints its message, not its stack', async () => {
    // A module preloaded into every thread; in the workers it makes the first step throw.
    const d = scratch({ 'fail.mjs': `import { isMainThread } from 'node:worker_threads';\nif (!isMainThread) { globalThis.performance.now = () => { throw new RangeError('injected failure in a worker'); }; }\n` });
    const r = await run(['simulate', '--agents', '4', '--seconds', '0.2', '--workers', '2', '--no-warmup', '--out', join(d, 'r.json')], { NODE_OPTIONS: `--import=${join(d, 'fail.mjs')}` });
    expectRefusal(r, 1, /^motionmatch simulate: simulation worker: injected failure in a worker$/);
    expect(listing(d)).toEqual(['fail.mjs']);
  });
});
