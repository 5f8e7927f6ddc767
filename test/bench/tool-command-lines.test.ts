/**
 * The command lines of the measuring tools outside the CLI (bench/*.ts, scripts/*.mjs): --help
 * prints the usage and exits 0, and a bad argument is one line naming it, the usage, and exit 2,
 * before any database is read or anything is measured (native-compare and bench-search used to run
 * their whole benchmark with defaults on --help or a typo; step-ab and compact-load printed a stack
 * trace). What the tools measure is not run here.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/cli.js';

const run = (file: string, args: string[]) => spawnSync(process.execPath, [join(REPO_ROOT, file), ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 });

/** Each tool, one bad command line for it, and the first line its refusal must match. */
const TOOLS: Array<{ file: string; usage: RegExp; bad: string[]; refusal: RegExp }> = [
  { file: 'dist/bench/step-ab.js', usage: /^usage: node dist\/bench\/step-ab\.js --base DIR/, bad: ['--base', '/nowhere', '--agents', '0'], refusal: /^step-ab: --agents must be an integer in \[1, 100000\], got 0$/ },
  { file: 'dist/bench/compact-load.js', usage: /^usage: node dist\/bench\/compact-load\.js FLOAT32\.mmdb COMPACT\.mmdb/, bad: ['a.mmdb', 'b.mmdb', '--bogus'], refusal: /^compact-load: unknown option --bogus$/ },
  { file: 'dist/bench/native-compare.js', usage: /^usage: node dist\/bench\/native-compare\.js \[--db FILE\]/, bad: ['--bogus', '1'], refusal: /^native-compare: unknown option --bogus$/ },
  { file: 'scripts/bench-search.mjs', usage: /^usage: node scripts\/bench-search\.mjs/, bad: ['--rowz', '5'], refusal: /^bench-search: unknown option --rowz \(did you mean --rows\?\)$/ },
  { file: 'scripts/alloc-profile.mjs', usage: /^usage: node scripts\/alloc-profile\.mjs/, bad: ['--agents', 'x'], refusal: /^alloc-profile: --agents must be an integer/ },
  { file: 'scripts/skate-split.mjs', usage: /^usage: node scripts\/skate-split\.mjs DB\.mmdb/, bad: ['db.mmdb', '--scenario'], refusal: /^skate-split: Option '--scenario <value>' argument missing/ },
  { file: 'scripts/stop-settle.mjs', usage: /^usage: node scripts\/stop-settle\.mjs DB\.mmdb \[--scenario wander\|path\|stop-go\|strafe \(default stop-go\)\]/, bad: ['db.mmdb', '--scenario', 'run'], refusal: /^stop-settle: --scenario must be one of wander, path, stop-go, strafe, got run$/ },
  { file: 'scripts/trajectory-lag.mjs', usage: /^usage: node scripts\/trajectory-lag\.mjs DB\.mmdb \[--scenario wander\|path\|stop-go\|strafe \(default strafe\)\]/, bad: ['db.mmdb', '--agents', '0'], refusal: /^usage: node scripts\/trajectory-lag\.mjs DB\.mmdb/ },
  { file: 'scripts/pop-events.mjs', usage: /^usage: node scripts\/pop-events\.mjs DB\.mmdb \[--scenario wander\|path\|stop-go\|strafe \(default wander\)\]/, bad: ['db.mmdb', '--hz', '5'], refusal: /^usage: node scripts\/pop-events\.mjs DB\.mmdb/ },
  { file: 'scripts/rig-variants.mjs', usage: /^usage: node scripts\/rig-variants\.mjs VARIANT/, bad: ['names'], refusal: /^usage: node scripts\/rig-variants\.mjs VARIANT/ },
];

describe('the measuring tools\' command lines', () => {
  for (const t of TOOLS) {
    it(`${t.file}: --help, and a bad command line refused with exit 2`, () => {
      const help = run(t.file, ['--help']);
      expect(help.status, help.stderr).toBe(0);
      expect(help.stdout).toMatch(t.usage);
      const r = run(t.file, t.bad);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr.split('\n')[0]).toMatch(t.refusal);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(r.stdout).toBe(''); // nothing measured
    });
  }

  /** Settings a diagnostic script reads from the environment, each refused (exit 2, one line) before the database is read. */
  const ENV_REFUSALS = [
    { script: 'scripts/pop-events.mjs', cases: [
      [{ POP_EVENTS_SEED: '2.5' }, /^pop-events: POP_EVENTS_SEED must be a whole number from 0 to 4294967295, got 2\.5$/],
      [{ POP_EVENTS_TERRAIN: 'dunes' }, /^pop-events: POP_EVENTS_TERRAIN must be hills or steps, got dunes$/],
    ] },
    { script: 'scripts/stop-settle.mjs', cases: [
      [{ STOP_SETTLE_SEED: '-1' }, /^stop-settle: STOP_SETTLE_SEED must be a whole number from 0 to 4294967295, got -1$/],
      [{ STOP_SETTLE_TERRAIN: 'dunes' }, /^stop-settle: STOP_SETTLE_TERRAIN must be hills or steps, got dunes$/],
      [{ STOP_SETTLE_TOP: 'all' }, /^stop-settle: STOP_SETTLE_TOP must be a whole number from 0 to 1000, got all$/],
    ] },
  ] as const;
  for (const { script, cases } of ENV_REFUSALS) {
    it(`${script}: a bad ${cases.map(([env]) => Object.keys(env)[0]).join(', ')} is refused before the database is read`, () => {
      for (const [env, message] of cases) {
        const r = spawnSync(process.execPath, [join(REPO_ROOT, script), '/nowhere/db.mmdb'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000, env: { ...process.env, ...env } });
        expect(r.status, r.stderr).toBe(2);
        expect(r.stderr.split('\n')[0]).toMatch(message);
        expect(r.stdout).toBe('');
      }
    });
  }

  it('dist/bench/step-ab.js: a missing --base and an unknown option are refused too', () => {
    for (const [args, message] of [
      [[], /--base DIR .* is required/],
      [['--base', '/nowhere', '--frobnicate'], /^step-ab: unknown option --frobnicate$/],
      [['--base', '/nowhere', 'stray'], /^step-ab: unexpected argument stray$/],
      [['--base', '/nowhere', '--rounds', '2.5'], /^step-ab: --rounds must be an integer/],
      [['--base', '/nowhere', '--block', '0'], /^step-ab: --block must be an integer in \[1, 1000\], got 0$/],
    ] as const) {
      const r = run('dist/bench/step-ab.js', [...args]);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr.split('\n')[0]).toMatch(message);
    }
  });
});
