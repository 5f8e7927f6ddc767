/**
 * bench/step-ab.ts's command line (docs/simulation.md, "What the step costs"): --help prints the
 * usage, and a missing --base, an unknown option or a count out of range is one line naming it and
 * exit 2, before any build is loaded. The comparison itself is a measurement (not run here).
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/cli.js';

const SCRIPT = join(REPO_ROOT, 'dist', 'bench', 'step-ab.js');
const run = (args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', timeout: 30_000 });

describe('bench/step-ab command line', () => {
  it('prints its usage with --help, and refuses bad arguments with one line and exit 2', () => {
    const help = run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: node dist\/bench\/step-ab\.js --base DIR/);
    for (const [args, message] of [
      [[], /--base DIR .* is required/],
      [['--base', '/nowhere', '--frobnicate'], /step-ab: Unknown option '--frobnicate'/],
      [['--base', '/nowhere', '--agents', '0'], /step-ab: --agents must be an integer in \[1, 100000\], got 0/],
      [['--base', '/nowhere', '--rounds', '2.5'], /step-ab: --rounds must be an integer/],
    ] as const) {
      const r = run([...args]);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr.split('\n')[0]).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
  });
});
