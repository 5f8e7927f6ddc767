/**
 * `motionmatch tune` (src/apps/commands/tune.ts) and the settings files it writes, which `simulate`,
 * `quality`, `coverage` and `demo` take with --options: determinism for a seed, the files, the
 * mistakes refused — and, on the real captures, that the recommendation improves a quality
 * measure without a worse trajectory error on captures the sweep never saw.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HAS_MOCAP, MOCAP_DIR, MOCAP_SKIP_REASON, REPO_ROOT, runCli, tempDir } from '../helpers/cli.js';
import { generateBuiltinClips } from '../../src/builtin/generate.js';
import { buildDatabase } from '../../src/database/build.js';
import { encodeDatabase } from '../../src/database/mmdb/mmdb.js';
import { readSettingsFile } from '../../src/sim/settings/options-file-node.js';
import { settingsFromFragment } from '../../src/sim/settings/options-file.js';

let dir: string;
let small: string;
beforeAll(() => {
  dir = tempDir('mm-tune-');
  const { skeleton, clips } = generateBuiltinClips();
  const db = buildDatabase(clips.filter((c) => /^(idle|walk_1\.2|run_3\.5|strafe_(left|right)_1\.0|walk_backward_1\.0|walk_turn_(left|right)_90)$/.test(c.name)).map((clip) => ({ skeleton, clip })));
  small = join(dir, 'small.mmdb');
  writeFileSync(small, encodeDatabase(db));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface TuneJson {
  command: string;
  evaluations: Array<{ index: number; phase: string; values: Record<string, number>; objectives: Record<string, number>; seconds: number; scenarios: Array<{ hash: string }> }>;
  front: number[];
  recommended: number | null;
  recommendedSettings: { controller: Record<string, number>; schemaWeights: Record<string, number> };
  stoppedBy: string;
  files: { json: string; svg: string; settings: string };
  holdout: null | { source: string; seeds: number[]; improved: string[]; trajectoryNoWorse: boolean; spread: Record<string, number>; defaults: { objectives: Record<string, number> }; recommended: { objectives: Record<string, number> } };
  confirmations: Array<{ index: number; seed: number; held: boolean }>;
  checks: string[];
}

const SMALL_RUN = ['--evaluations', '5', '--design', '3', '--agents', '4', '--seconds', '2', '--seed', '3'];

describe('motionmatch tune', () => {
  let first: TuneJson;
  beforeAll(() => {
    const r = runCli(['tune', small, ...SMALL_RUN, '--out', join(dir, 'a'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    first = JSON.parse(r.stdout) as TuneJson;
  }, 120_000);

  it('writes the front (JSON, SVG) and a settings file, deterministic for a seed', () => {
    expect(first.evaluations.length).toBe(5);
    expect(first.stoppedBy).toBe('evaluations');
    expect(first.command).toBe(`motionmatch tune ${small} ${SMALL_RUN.join(' ')} --out ${join(dir, 'a')} --json`);
    const onDisk = JSON.parse(readFileSync(first.files.json, 'utf8')) as TuneJson;
    expect(onDisk.evaluations).toEqual(first.evaluations);
    expect(readFileSync(first.files.svg, 'utf8')).toMatch(/^<svg[\s\S]*<\/svg>$/);
    const settings = readSettingsFile(first.files.settings);
    expect(settings.controller).toEqual(first.recommendedSettings.controller);
    expect(settings.comment).toMatch(/motionmatch tune .*small\.mmdb \(seed 3/);
    const again = runCli(['tune', small, ...SMALL_RUN, '--out', join(dir, 'b'), '--json']);
    expect(again.code, again.stderr).toBe(0);
    const second = JSON.parse(again.stdout) as TuneJson;
    const strip = (t: TuneJson) => t.evaluations.map(({ seconds: _s, ...e }) => e);
    expect(strip(second)).toEqual(strip(first));
    expect(second.recommended).toBe(first.recommended);
    expect(readFileSync(join(dir, 'b', 'recommended.json'), 'utf8')).toBe(readFileSync(first.files.settings, 'utf8'));
  });

  it('prints the defaults, the recommendation and the commands to check it', () => {
    const r = runCli(['tune', small, ...SMALL_RUN, '--out', join(dir, 'c')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^tune on small\.mmdb: 5 evaluations in \d+ s \(stopped by --evaluations 5\), seed 3\n/);
    expect(r.stdout).toMatch(/\ndefaults {2,}[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +1\.000\n/);
    expect(r.stdout).toContain(`check with:\n  motionmatch quality ${small} --options ${join(dir, 'c', 'recommended.json')}`);
    expect(r.stderr).toBe(''); // no progress bar without a terminal
  });

  it('the settings file goes to simulate, quality and coverage (--options), and changes what they do', () => {
    const file = first.files.settings;
    // A settings file that changes something, whatever the small sweep recommended.
    const changed = join(dir, 'changed.json');
    writeFileSync(changed, JSON.stringify({ controller: { continuingBias: 1.5, searchInterval: 0.25 }, schemaWeights: { trajectoryPosition: 2 } }));
    const sim = (extra: string[]) => {
      const r = runCli(['simulate', '--db', small, '--agents', '20', '--seconds', '3', '--json', ...extra]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { hash: string; options: string | null; transitionsPerSec: number };
    };
    const plain = sim([]), tuned = sim(['--options', changed]);
    expect(plain.options).toBeNull();
    expect(tuned.options).toBe(changed);
    expect(tuned.hash).not.toBe(plain.hash);
    expect(tuned.transitionsPerSec).toBeLessThan(plain.transitionsPerSec);
    // An empty settings file changes nothing: the same hashes as without one.
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '{}');
    expect(sim(['--options', empty]).hash).toBe(plain.hash);
    const q = (extra: string[]) => {
      const r = runCli(['quality', small, '--agents', '6', '--seconds', '2', '--json', ...extra]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { settings: { options: string | null }; scenarios: Array<{ hash: string }> };
    };
    const q0 = q([]), q1 = q(['--options', empty]), q2 = q(['--options', file]);
    expect(q1.scenarios.map((s) => s.hash)).toEqual(q0.scenarios.map((s) => s.hash));
    expect(q2.settings.options).toBe(file);
    const text = runCli(['quality', small, '--agents', '4', '--seconds', '2', '--options', changed]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^quality on small\.mmdb .*, settings .*changed\.json\n/);
    const cov = runCli(['coverage', small, '--cost-only', '--directions', '4', '--options', file]);
    expect(cov.code, cov.stderr).toBe(0);
  }, 120_000);

  it('refuses bad settings files for every command with one line naming the file (exit 1), empty names as usage (exit 2)', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"controller":{"searchInterval":-1}}');
    for (const args of [['simulate', '--db', small, '--seconds', '1'], ['quality', small], ['coverage', small, '--cost-only'], ['demo', '--no-build']]) {
      const r = runCli([...args, '--options', bad]);
      expect(r.code, args[0]).toBe(1);
      expect(r.stderr, args[0]).toMatch(/bad\.json: controller option searchInterval must be a finite number > 0, got -1\n$/);
      expect(r.stderr.trim().split('\n').length, args[0]).toBe(1);
      const e = runCli([...args, '--options', '']);
      expect(e.code, args[0]).toBe(2);
      expect(e.stderr, args[0]).toMatch(/--options needs a file name/);
    }
    const missing = runCli(['demo', '--no-build', '--options', join(dir, 'missing.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/settings file '.*missing\.json': no such file/);
    expect(runCli(['demo', '--build-only', '--options', bad]).code).toBe(2);
  });

  it('demo --options hands the settings to the page in its address', async () => {
    if (!existsSync(join(REPO_ROOT, 'web-dist', 'index.html'))) {
      console.log('demo --options: web-dist/ is not built (npm test builds it); skipping');
      return;
    }
    const file = join(dir, 'page.json');
    writeFileSync(file, JSON.stringify({ controller: { continuingBias: 0.3 }, schemaWeights: { hipVelocity: 1.5 } }));
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/motionmatch.js'), 'demo', '--no-build', '--port', '0', '--json', '--options', file], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PORT: '' } });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => { out += d.toString(); if (out.includes('\n')) resolve(out.split('\n')[0]); });
        child.on('exit', (code) => reject(new Error(`demo exited with ${code}`)));
      });
      const shown = JSON.parse(line) as { url: string; options: string };
      expect(shown.options).toBe(file);
      const url = new URL(shown.url);
      expect(settingsFromFragment(url.hash)).toEqual({ controller: { continuingBias: 0.3 }, schemaWeights: { hipVelocity: 1.5 } });
      // The server serves the page as usual (the fragment never reaches it).
      expect((await fetch(new URL('/', url))).status).toBe(200);
    } finally {
      child.kill('SIGINT');
      await new Promise((r) => child.once('exit', r));
    }
  }, 60_000);

  it('the first Ctrl-C ends the sweep after the evaluation under way and writes what it has', async () => {
    const out = join(dir, 'interrupted');
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/motionmatch.js'), 'tune', small, '--agents', '4', '--seconds', '2', '--budget', '300', '--out', out], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    await new Promise((r) => setTimeout(r, 4000));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('stopping after this evaluation');
    expect(stdout).toMatch(/evaluations in \d+ s \(stopped by Ctrl-C\)/);
    const front = JSON.parse(readFileSync(join(out, 'front.json'), 'utf8')) as TuneJson;
    expect(front.stoppedBy).toBe('interrupted');
    expect(front.evaluations.length).toBeGreaterThanOrEqual(1);
    expect(existsSync(join(out, 'recommended.json'))).toBe(true);
  }, 120_000);

  it('refuses mistakes before running: usage (exit 2), files and folders (exit 1), nothing left behind', () => {
    const usage: Array<[string[], RegExp]> = [
      [['tune'], /name the database to tune on/],
      [['tune', small, small], /one database at a time/],
      [['tune', small, '--budget', '0'], /--budget must be >= 1/],
      [['tune', small, '--evaluations', '0'], /--evaluations must be >= 1/],
      [['tune', small, '--evaluations', '2.5'], /--evaluations must be an integer/],
      [['tune', small, '--seconds', '1'], /--seconds must be >= 2/],
      [['tune', small, '--seed', '-1'], /--seed must be >= 0/],
      [['tune', small, '--out', ''], /--out needs a folder name/],
      [['tune', small, '--holdout', ''], /--holdout needs a file name/],
      [['tune', small, '--options', ''], /--options needs a file name/],
    ];
    for (const [args, message] of usage) {
      const r = runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
    const outside = join(dir, 'outside.json');
    writeFileSync(outside, JSON.stringify({ controller: { minRelativeGain: 0 } }));
    const before = readdirSync(dir).sort();
    const files: Array<[string[], RegExp]> = [
      [['tune', join(dir, 'missing.mmdb')], /missing\.mmdb/],
      [['tune', small, '--holdout', join(dir, 'missing.mmdb')], /missing\.mmdb/],
      [['tune', small, '--options', outside], /outside\.json: controller option minRelativeGain 0 is outside what tune sweeps \(0\.02 to 0\.4\)/],
      [['tune', small, '--options', join(dir, 'missing.json')], /settings file '.*missing\.json': no such file/],
      [['tune', small, '--out', small], /output folder '.*small\.mmdb': it exists and is not a folder/],
      [['tune', small, '--out', join(dir, 'no', 'such')], /cannot make output folder '.*such': folder '.*no' does not exist/],
    ];
    for (const [args, message] of files) {
      const r = runCli([...args, '--evaluations', '1']);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
    expect(readdirSync(dir).sort()).toEqual(before);
  });
});

/**
 * The real captures split in two by position in the sorted file list (odd lines: tuning set, even
 * lines: held back), so that both halves hold every kind of motion; docs/tuning.md lists the
 * same split as shell commands.
 */
function splitCaptures(): { tuning: string[]; heldBack: string[] } {
  const files = ['bench', 'locomotion'].flatMap((f) => readdirSync(join(MOCAP_DIR, f)).filter((n) => n.endsWith('.bvh')).map((n) => join(MOCAP_DIR, f, n))).sort();
  return { tuning: files.filter((_, i) => i % 2 === 0), heldBack: files.filter((_, i) => i % 2 === 1) };
}

/**
 * Settings that favour responsiveness: the minimum relative gain, the minimum dwell and the
 * inertialization half-life at the low ends of their ranges (the engine before those rules had
 * neither rule, and blended transitions over less time). The engine's defaults were set on these
 * captures (docs/runtime.md): from them the sweep finds nothing that holds on a second seed, and the
 * defaults stand (docs/tuning.md) — a correct answer, but not a check of the sweep. From here it has
 * something to find: on the held-back captures (32 agents x 10 s) these settings pop at 4.4 m/s
 * (p99.9) against 3.5 with a 0.1 s half-life, at the same trajectory error.
 */
const RESPONSIVE = { comment: 'responsive: gain, dwell and inertialization half-life at the low ends of their ranges', controller: { minRelativeGain: 0.02, minDwell: 0.05, inertializationHalfLife: 0.05 } };

describe.skipIf(!HAS_MOCAP)('motionmatch tune on the real captures', () => {
  it('recommends settings that improve a quality measure without a worse trajectory error on held-back captures', () => {
    const { tuning, heldBack } = splitCaptures();
    expect(tuning.length).toBeGreaterThan(50);
    const tuneDb = join(dir, 'tuning.mmdb'), heldDb = join(dir, 'held-back.mmdb'), start = join(dir, 'responsive.json');
    for (const [out, files] of [[tuneDb, tuning], [heldDb, heldBack]] as const) {
      const b = runCli(['build', ...files, '--mirror', '--out', out]);
      expect(b.code, b.stderr).toBe(0);
    }
    writeFileSync(start, JSON.stringify(RESPONSIVE));
    const r = runCli(['tune', tuneDb, '--options', start, '--evaluations', '60', '--holdout', heldDb, '--out', join(dir, 'real'), '--json'], { timeoutMs: 900_000 });
    expect(r.code, r.stderr).toBe(0);
    const t = JSON.parse(r.stdout) as TuneJson;
    const h = t.holdout!;
    const fmt = (o: Record<string, number>) => `trajectory error ${o.trajectoryErrorCm.toFixed(2)} cm, skate ${o.footSkateCmPerSec.toFixed(2)} cm/s, depth p99 ${o.belowGroundP99Cm.toFixed(2)} cm, pops p99.9 ${o.popP999.toFixed(2)} m/s, transitions ${o.transitionsPerSec.toFixed(2)}/s`;
    console.log(`tune on ${tuning.length} capture files from ${start} (recommended #${t.recommended}), checked on ${heldBack.length} held-back files, means over seeds ${h.seeds.join(', ')}:\n  baseline    ${fmt(h.defaults.objectives)}\n  recommended ${fmt(h.recommended.objectives)}\n  seed spread ${fmt(h.spread)}`);
    expect(t.evaluations[0].values.minDwell).toBe(0.05);
    expect(t.recommended).not.toBeNull();
    expect(t.confirmations.at(-1)).toMatchObject({ index: t.recommended, held: true });
    // Better by more than the spread of three seeds in at least one quality measure; trajectory error
    // no worse by more than that spread (differences below it are the inputs', not the settings').
    expect(h.improved.length).toBeGreaterThanOrEqual(1);
    for (const k of h.improved) expect(h.recommended.objectives[k]).toBeLessThan(h.defaults.objectives[k] - h.spread[k]);
    expect(h.trajectoryNoWorse).toBe(true);
    expect(h.recommended.objectives.trajectoryErrorCm).toBeLessThanOrEqual(h.defaults.objectives.trajectoryErrorCm + h.spread.trajectoryErrorCm);
  }, 900_000);
});

if (!HAS_MOCAP) console.log(`tune on the real captures: ${MOCAP_SKIP_REASON}`);
