/**
 * Simulation threads kept between runs (src/sim/worker-pool.ts): a run on worker threads leaves
 * them idle for the next, which moves its agents exactly as fresh threads do, on the same database
 * or another; idle threads never keep a process alive.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { builtinSources } from '../../src/database/builtin-sources.js';
import { buildDatabase } from '../../src/database/build.js';
import type { Database } from '../../src/database/database.js';
import { reweightDatabase } from '../../src/database/reweight.js';
import { runSimulation, type SimulationOptions } from '../../src/sim/simulation.js';
import { endIdleWorkers, idleWorkerCount, IDLE_SECONDS } from '../../src/sim/worker-pool.js';
import { REPO_ROOT } from '../helpers/cli.js';

const db = buildDatabase(builtinSources().slice(0, 6));

/** Eight agents: four on each of two threads (worker-split.ts evenRanges). */
function run(on: Database, extra: Partial<SimulationOptions> = {}) {
  return runSimulation(on, {
    agents: 8, seconds: 1, hz: 30, seed: 9, scenario: 'wander', method: 'kdtree', footIK: true, recordAgent: -1,
    workers: 2, backend: 'auto', warmup: false, ...extra,
  });
}

afterAll(() => endIdleWorkers());

describe('simulation threads kept between runs', () => {
  it('are taken again by the next run, which moves its agents as fresh threads and one thread do', async () => {
    await endIdleWorkers();
    const first = await run(db);
    expect(idleWorkerCount()).toBe(2);
    const again = await run(db);
    expect(idleWorkerCount()).toBe(2);
    expect(again.hash).toBe(first.hash);
    expect(again.quality).toEqual(first.quality);
    // Another scenario, then another database (new weights) on the same threads.
    const stop = await run(db, { scenario: 'stop-go' });
    const other = reweightDatabase(db, { trajectoryPosition: 2 });
    const kept = await run(other);
    await endIdleWorkers();
    expect(idleWorkerCount()).toBe(0);
    const fresh = await run(other);
    expect(kept.hash).toBe(fresh.hash);
    expect(kept.quality).toEqual(fresh.quality);
    expect(kept.hash).not.toBe(first.hash);
    expect(stop.hash).toBe((await run(db, { scenario: 'stop-go', workers: 1 })).hash);
  });

  it(`do not keep a process alive (they would end only after ${IDLE_SECONDS} s idle)`, () => {
    const url = (p: string) => pathToFileURL(join(REPO_ROOT, 'dist/src', p)).href;
    const script = [
      `const { runSimulation } = await import(${JSON.stringify(url('sim/simulation.js'))});`,
      `const { builtinDatabase } = await import(${JSON.stringify(url('apps/builtin-database.js'))});`,
      `const { idleWorkerCount } = await import(${JSON.stringify(url('sim/worker-pool.js'))});`,
      `const r = await runSimulation(builtinDatabase(), { agents: 8, seconds: 0.5, hz: 30, seed: 2, scenario: 'wander', workers: 2, backend: 'auto', method: 'kdtree', footIK: true, recordAgent: -1, warmup: false });`,
      `console.log(r.hash, idleWorkerCount());`,
    ].join('\n');
    const t0 = performance.now();
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: (IDLE_SECONDS - 2) * 1000, killSignal: 'SIGKILL' });
    const seconds = (performance.now() - t0) / 1000;
    expect(r.stderr).toBe('');
    expect(r.status, `exit after ${seconds.toFixed(1)} s`).toBe(0);
    expect(r.stdout.trim()).toMatch(/^[0-9a-f]{16} 2$/);
  });
});
