/**
 * Worker threads started from a process given V8 or whole-process options (src/util/worker-node.ts):
 * `node --max-old-space-size=2048 bin/motionmatch.js simulate --workers 2` failed with Node's
 * "Initiated Worker with invalid execArgv flags", exit 1. Workers now start without the options
 * Node refuses them (V8's flags hold for the whole process anyway).
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { refusedWorkerOptions, startWorker, workerExecArgv } from '../../src/util/worker-node.js';
import { REPO_ROOT } from '../helpers/cli.js';

/** A worker that posts its process.execArgv and ends. */
function echoWorker(execArgv: string[]): Worker {
  return new Worker("require('node:worker_threads').parentPort.postMessage(process.execArgv)", { eval: true, execArgv });
}

function reply(w: Worker): Promise<string[]> {
  return new Promise((resolve, reject) => { w.once('message', resolve); w.once('error', reject); });
}

describe('worker threads from a process with V8 options', () => {
  it('reads the options Node refuses from its error, and nothing from other errors', () => {
    let error: unknown = null;
    try { echoWorker(['--max-old-space-size=64', '--expose-gc', '--enable-source-maps']).terminate(); } catch (e) { error = e; }
    expect(error, 'Node 20 refuses V8 options in a worker\'s execArgv').not.toBeNull();
    expect(refusedWorkerOptions(error)).toEqual(['--max-old-space-size=64', '--expose-gc']);
    expect(refusedWorkerOptions(new Error('Initiated Worker with invalid execArgv flags: --x'))).toEqual([]);
    expect(refusedWorkerOptions('--x')).toEqual([]);
  });

  it('starts a worker without the refused options, keeps the others, and leaves them out from then on', async () => {
    const parent = ['--expose-gc', '--enable-source-maps', '--stack-size=900'];
    const tried: string[][] = [];
    const w = startWorker((execArgv) => { tried.push(execArgv); return echoWorker(execArgv); }, parent);
    expect(await reply(w)).toEqual(['--enable-source-maps']);
    expect(tried).toEqual([parent, ['--enable-source-maps']]);
    expect(workerExecArgv(parent)).toEqual(['--enable-source-maps']);
    await w.terminate();
  });

  it('throws any other error as it came', () => {
    const boom = new TypeError('not a worker error');
    expect(() => startWorker(() => { throw boom; }, ['--expose-gc'])).toThrow(boom);
  });

  it('`simulate --workers 2` under `node --max-old-space-size` runs, with the hash of one worker', () => {
    const run = (nodeArgs: string[], workers: string) => spawnSync(process.execPath, [...nodeArgs, join(REPO_ROOT, 'bin/motionmatch.js'), 'simulate', '--agents', '8', '--seconds', '0.5', '--workers', workers, '--no-warmup', '--json'], { encoding: 'utf8', timeout: 60_000 });
    const two = run(['--max-old-space-size=2048', '--stack-size=900'], '2');
    expect(two.stderr).toBe('');
    expect(two.status).toBe(0);
    const one = run([], '1');
    expect(one.status, one.stderr).toBe(0);
    expect(JSON.parse(two.stdout).hash).toBe(JSON.parse(one.stdout).hash);
  });
});
