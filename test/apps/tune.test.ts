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
import { REPO_ROOT, runCli, runCliInProcess, tempDir } from '../helpers/cli.js';
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
  beforeAll(async () => {
    const r = await runCliInProcess(['tune', small, ...SMALL_RUN, '--out', join(dir, 'a'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    first = JSON.parse(r.stdout) as TuneJson;
  }, 120_000);

  it('writes the front (JSON, SVG) and a settings file, deterministic for a seed', async () => {
    expect(first.evaluations.length).toBe(5);
    expect(first.stoppedBy).toBe('evaluations');
    expect(first.command).toBe(`motionmatch tune ${small} ${SMALL_RUN.join(' ')} --out ${join(dir, 'a')} --json`);
    const onDisk = JSON.parse(readFileSync(first.files.json, 'utf8')) as TuneJson;
    expect(onDisk.evaluations).toEqual(first.evaluations);
    expect(readFileSync(first.files.svg, 'utf8')).toMatch(/^<svg[\s\S]*<\/svg>$/);
    const settings = readSettingsFile(first.files.settings);
    expect(settings.controller).toEqual(first.recommendedSettings.controller);
    expect(settings.comment).toMatch(/motionmatch tune .*small\.mmdb \(seed 3/);
    const again = await runCliInProcess(['tune', small, ...SMALL_RUN, '--out', join(dir, 'b'), '--json']);
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

  it('the settings file goes to simulate, quality and coverage (--options), and changes what they do', async () => {
    const file = first.files.settings;
    // A settings file that changes something, whatever the small sweep recommended.
    const changed = join(dir, 'changed.json');
    writeFileSync(changed, JSON.stringify({ controller: { continuingBias: 1.5, searchInterval: 0.25 }, schemaWeights: { trajectoryPosition: 2 } }));
    const sim = async (extra: string[]) => {
      const r = await runCliInProcess(['simulate', '--db', small, '--agents', '20', '--seconds', '3', '--json', ...extra]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { hash: string; options: string | null; transitionsPerSec: number };
    };
    const plain = await sim([]), tuned = await sim(['--options', changed]);
    expect(plain.options).toBeNull();
    expect(tuned.options).toBe(changed);
    expect(tuned.hash).not.toBe(plain.hash);
    expect(tuned.transitionsPerSec).toBeLessThan(plain.transitionsPerSec);
    // An empty settings file changes nothing: the same hashes as without one.
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '{}');
    expect((await sim(['--options', empty])).hash).toBe(plain.hash);
    const q = async (extra: string[]) => {
      const r = await runCliInProcess(['quality', small, '--agents', '6', '--seconds', '2', '--json', ...extra]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { settings: { options: string | null }; scenarios: Array<{ hash: string }> };
    };
    const q0 = await q([]), q1 = await q(['--options', empty]), q2 = await q(['--options', file]);
    expect(q1.scenarios.map((s) => s.hash)).toEqual(q0.scenarios.map((s) => s.hash));
    expect(q2.settings.options).toBe(file);
    const text = await runCliInProcess(['quality', small, '--agents', '4', '--seconds', '2', '--options', changed]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^quality on small\.mmdb .*, settings .*changed\.json\n/);
    const cov = await runCliInProcess(['coverage', small, '--cost-only', '--directions', '4', '--options', file]);
    expect(cov.code, cov.stderr).toBe(0);
  }, 120_000);

  it('refuses bad settings files for every command with one line naming the file (exit 1), empty names as usage (exit 2)', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"controller":{"searchInterval":-1}}');
    for (const args of [['simulate', '--db', small, '--seconds', '1'], ['quality', small], ['coverage', small, '--cost-only'], ['demo', '--no-build']]) {
      // demo as a process (it would serve if it accepted the file); the others in this one.
      const r = args[0] === 'demo' ? runCli([...args, '--options', bad]) : await runCliInProcess([...args, '--options', bad]);
      expect(r.code, args[0]).toBe(1);
      expect(r.stderr, args[0]).toMatch(/bad\.json: controller option searchInterval must be a finite number > 0, got -1\n$/);
      expect(r.stderr.trim().split('\n').length, args[0]).toBe(1);
      const e = args[0] === 'demo' ? runCli([...args, '--options', '']) : await runCliInProcess([...args, '--options', '']);
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

  it('refuses mistakes before running: usage (exit 2), files and folders (exit 1), nothing left behind', async () => {
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
      [['tune', small, '--holdout-agents', '10'], /--holdout-agents and --holdout-seconds size the --holdout check: give --holdout FILE too/],
      [['tune', small, '--holdout', small, '--holdout-agents', '0'], /--holdout-agents must be >= 1/],
      [['tune', small, '--holdout', small, '--holdout-seconds', '1'], /--holdout-seconds must be >= 2/],
    ];
    for (const [args, message] of usage) {
      const r = await runCliInProcess(args);
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
      const r = await runCliInProcess([...args, '--evaluations', '1']);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
    expect(readdirSync(dir).sort()).toEqual(before);
  });
});

// The sweep on the real captures (about a minute on its own) is in tune-real.test.ts: a file of its
// own, so that the two test processes share the suite's longest work instead of queueing behind it.
