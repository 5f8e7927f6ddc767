import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
    // A command stuck in a synchronous loop never handles SIGTERM (spawnSync's default), and the
    // test would wait for it for good.
    killSignal: 'SIGKILL',
    env: { ...process.env, ...options.env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

export function tempDir(prefix = 'mm-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

type CliMain = (argv: string[]) => Promise<number>;
let cliMain: Promise<CliMain> | undefined;
let queue: Promise<unknown> = Promise.resolve();

/**
 * Runs a command of the compiled CLI inside this test process: the `main` of dist/src/apps/cli.js
 * that bin/motionmatch.js calls (vitest.config.ts leaves dist/ to Node's own loader, so it is the
 * very code the subprocess runs), with process.stdout and process.stderr captured while it
 * runs and bin/motionmatch.js's handling of a rejection (one line, exit code 1). Several times
 * faster than runCli (no Node start, no module loading, code already optimised), for the tests
 * that check what a command computes; runCli stays for what only a process shows (its exit
 * status, signals, environment read at start-up). Calls run one after another. `env` sets
 * variables in process.env for the call only (restored after it; for what a command reads while it
 * runs, such as JOB_COMPLETION_INDEX; NODE_OPTIONS and the like need runCli).
 */
export function runCliInProcess(args: string[], options: { timeoutMs?: number; env?: Record<string, string> } = {}): Promise<CliResult> {
  const limit = options.timeoutMs ?? 120_000;
  const run = queue.then(async () => {
    cliMain ??= (import(/* @vite-ignore */ pathToFileURL(join(REPO_ROOT, 'dist/src/apps/cli.js')).href) as Promise<{ main: CliMain }>).then((m) => m.main);
    const main = await cliMain;
    let stdout = '', stderr = '';
    const capture = (append: (s: string) => void) => ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown): boolean => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const cb = typeof encoding === 'function' ? encoding : callback;
      if (typeof cb === 'function') queueMicrotask(() => (cb as () => void)());
      return true;
    }) as typeof process.stdout.write;
    const out = process.stdout.write, err = process.stderr.write;
    // As in the subprocess, whose output is a pipe: no progress bars, whatever runs the tests.
    const tty = [process.stdout.isTTY, process.stderr.isTTY];
    process.stdout.isTTY = false;
    process.stderr.isTTY = false;
    process.stdout.write = capture((s) => { stdout += s; });
    process.stderr.write = capture((s) => { stderr += s; });
    const saved = Object.keys(options.env ?? {}).map((k) => [k, process.env[k]] as const);
    Object.assign(process.env, options.env);
    let code: number;
    let timer: NodeJS.Timeout | undefined;
    try {
      // As runCli after its time limit (code -1), though the command cannot be killed here: it
      // answers, and the calls queued behind it run.
      const timedOut = new Promise<number>((resolve) => { timer = setTimeout(() => { stderr += `runCliInProcess: no answer in ${limit} ms\n`; resolve(-1); }, limit); });
      code = await Promise.race([main(args), timedOut]);
    } catch (e) {
      const error = e as Error;
      stderr += `motionmatch: ${error && error.message ? error.message : String(e)}\n`;
      code = 1;
    } finally {
      clearTimeout(timer);
      for (const [k, v] of saved) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      process.stdout.write = out;
      process.stderr.write = err;
      process.stdout.isTTY = tty[0] as true;
      process.stderr.isTTY = tty[1] as true;
    }
    return { code, stdout, stderr };
  });
  queue = run.catch(() => undefined);
  return run;
}
