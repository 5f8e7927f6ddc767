/**
 * Runs once per `vitest run`, before any test file: every temporary file of the run goes into one
 * folder made here and removed at the end. TMPDIR points at it, so os.tmpdir() in the test
 * processes, the CLIs they spawn and Chromium all write there: a test that forgets to clean up (or
 * is killed half-way) leaves nothing behind in /tmp. MM_TEST_RUN_DIR names it too, for what the
 * test files share within one run (test/helpers/pack.ts: one `npm pack` for the run).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  // Each vitest project (vitest.config.ts) runs the global setup again, in the same process: the
  // first one makes the folder, the others use it (nested folders made Chromium's socket path too
  // long for Unix sockets: it refused to start).
  const existing = process.env.MM_TEST_RUN_DIR;
  if (existing !== undefined && existing === process.env.TMPDIR && existsSync(existing)) return () => undefined;
  const previous = process.env.TMPDIR;
  const previousRunDir = process.env.MM_TEST_RUN_DIR;
  const runDir = mkdtempSync(join(tmpdir(), 'mm-vitest-run-'));
  process.env.TMPDIR = runDir;
  process.env.MM_TEST_RUN_DIR = runDir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    if (previousRunDir === undefined) delete process.env.MM_TEST_RUN_DIR;
    else process.env.MM_TEST_RUN_DIR = previousRunDir;
    rmSync(runDir, { recursive: true, force: true });
  };
}
