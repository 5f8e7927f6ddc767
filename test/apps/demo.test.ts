/**
 * `motionmatch demo` options that fail before anything is built or served: a bad --db file is a
 * one-line error with exit code 1 (no server, no URL printed), option mistakes exit with 2. The
 * page running on a --db database is checked in test/web/browser.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { userPath } from '../../src/apps/commands/demo.js';

describe('motionmatch demo --db', () => {
  const dir = tempDir('mm-demo-cli-');
  writeFileSync(join(dir, 'broken.mmdb'), 'not a database at all');
  writeFileSync(join(dir, 'empty.mmdb'), '');
  mkdirSync(join(dir, 'folder.mmdb'));
  execFileSync('mkfifo', [join(dir, 'fifo.mmdb')]);

  it('refuses a file that is missing, not a database, empty, a folder or a FIFO (without hanging): exit 1, one line naming it, nothing served', () => {
    for (const [name, why] of [['missing.mmdb', /no such file/], ['broken.mmdb', /broken\.mmdb/], ['empty.mmdb', /empty\.mmdb/], ['folder.mmdb', /directory/], ['fifo.mmdb', /FIFO/]] as const) {
      const file = join(dir, name);
      const r = runCli(['demo', '--db', file, '--port', '0', '--no-build'], { timeoutMs: 30_000 });
      expect(r.code, `${name}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(why);
      expect(r.stderr).toContain(file);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).not.toMatch(/serving|http:/);
    }
  });

  it('--json reports the refusal as one JSON object', () => {
    const r = runCli(['demo', '--db', join(dir, 'broken.mmdb'), '--port', '0', '--json'], { timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { error: { message: string } };
    expect(out.error.message).toContain('broken.mmdb');
  });

  it('usage mistakes exit with 2', () => {
    for (const args of [['--db'], ['--db', ''], ['--db', 'x.mmdb', '--build-only'], ['x.mmdb'], ['--port', '-1'], ['--port', '70000'], ['--bogus']]) {
      const r = runCli(['demo', ...args, '--no-build'], { timeoutMs: 30_000 });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/^motionmatch demo: /);
      expect(r.stderr).toContain('usage: motionmatch demo');
    }
  });

  it('under npm start, a relative FILE is taken from where npm was run (INIT_CWD)', () => {
    const r = runCli(['demo', '--db', 'broken.mmdb', '--port', '0', '--no-build'], { timeoutMs: 30_000, env: { npm_lifecycle_event: 'start', INIT_CWD: dir } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(join(dir, 'broken.mmdb'));
    expect(userPath('a.mmdb', { npm_lifecycle_event: 'start', INIT_CWD: '/x/y' })).toBe('/x/y/a.mmdb');
    expect(userPath('a.mmdb', { npm_lifecycle_event: 'test', INIT_CWD: '/x/y' })).toBe(join(process.cwd(), 'a.mmdb'));
    expect(userPath('/abs/a.mmdb', { npm_lifecycle_event: 'start', INIT_CWD: '/x/y' })).toBe('/abs/a.mmdb');
  });
});
