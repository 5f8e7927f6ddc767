import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const MOCAP_DIR = resolve(REPO_ROOT, '../shared/data/mocap');
export const HAS_MOCAP = existsSync(join(MOCAP_DIR, 'bench')) && existsSync(join(MOCAP_DIR, 'core'));
export const MOCAP_SKIP_REASON = `real mocap not found at ${MOCAP_DIR} (see ../shared/data/mocap/README.md); skipping`;

if (!HAS_MOCAP) console.log(MOCAP_SKIP_REASON);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the compiled CLI (bin/motionmatch.js, built by `npm test`'s pretest) and captures its output. */
export function runCli(args: string[], options: { timeoutMs?: number; env?: Record<string, string> } = {}): CliResult {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/motionmatch.js'), ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 120_000,
    env: { ...process.env, ...options.env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

export function tempDir(prefix = 'mm-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
