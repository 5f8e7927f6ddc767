/**
 * What runs over one database share (src/database/pose-source.ts, src/sim/simulation.ts): a copy
 * with new feature weights derives nothing again from the poses it shares with its original (the
 * runtime's pose tables, the captured contact data, the quality rig, the data's own level), and
 * simulations handed one matcher search it instead of each uploading and indexing the database.
 * Either way the results are those of runs that derive and build everything themselves.
 */
import { describe, expect, it } from 'vitest';
import { builtinSources } from '../../src/database/builtin-sources.js';
import { buildDatabase } from '../../src/database/build.js';
import type { Database } from '../../src/database/database.js';
import { poseSource } from '../../src/database/pose-source.js';
import { reweightDatabase } from '../../src/database/reweight.js';
import { capturedData } from '../../src/runtime/captured-data.js';
import { databaseRuntime } from '../../src/runtime/database-runtime.js';
import { qualityRig } from '../../src/runtime/quality/quality-rig.js';
import { Matcher } from '../../src/search/matcher.js';
import { createSearchMemory } from '../../src/search/wasm/load.js';
import { runSimulation, simulationMatcher, type SimulationOptions } from '../../src/sim/simulation.js';
import { dataLevel } from '../../src/tools/quality/data-level.js';

const WEIGHTS = { footPosition: 0.4, trajectoryPosition: 2.5 };
/** Six of the built-in clips (walks, runs, a stop): each test's database derives its own tables. */
const SOURCES = builtinSources().slice(0, 6);
const small = (): Database => buildDatabase(SOURCES);

function run(db: Database, extra: Partial<SimulationOptions> = {}) {
  return runSimulation(db, {
    agents: 4, seconds: 2, hz: 30, seed: 5, scenario: 'stop-go', method: 'kdtree', footIK: true, recordAgent: -1,
    workers: 1, backend: 'auto', warmup: false, ...extra,
  });
}

describe('a reweighted copy of a database', () => {
  it('shares what is derived from the poses alone, the runtime tables pointing at the copy', () => {
    const db = small(), copy = reweightDatabase(db, WEIGHTS);
    expect(poseSource(copy)).toBe(db);
    expect(poseSource(reweightDatabase(copy, { hipVelocity: 2 }))).toBe(db);
    const rt = databaseRuntime(db), rtCopy = databaseRuntime(copy);
    expect(rtCopy.rootRelativeRotations).toBe(rt.rootRelativeRotations);
    expect(rtCopy.velocities).toBe(rt.velocities);
    // The copy's own schema and features are what its runtime reads through `db`.
    expect(rtCopy.db).toBe(copy);
    expect(databaseRuntime(copy)).toBe(rtCopy);
    expect(capturedData(copy)).toBe(capturedData(db));
    expect(qualityRig(copy)).toBe(qualityRig(db));
    expect(dataLevel(copy, 30)).toBe(dataLevel(db, 30));
  });

  it('is told apart from a database that has poses of its own', () => {
    const db = small();
    // The same fields but new pose arrays: not declared a copy, it derives its own.
    const other: Database = { ...db, rotations: db.rotations.slice() };
    expect(poseSource(other)).toBe(other);
    expect(databaseRuntime(other).rootRelativeRotations).not.toBe(databaseRuntime(db).rootRelativeRotations);
    expect(capturedData(other)).not.toBe(capturedData(db));
  });

  it('moves agents as a copy that derives everything itself does', async () => {
    const db = small();
    databaseRuntime(db); capturedData(db);
    const shared = reweightDatabase(db, WEIGHTS);
    // A spread copy is not declared one: everything derived anew from the same arrays.
    const own: Database = { ...shared };
    expect(poseSource(own)).toBe(own);
    const [a, b] = [await run(shared), await run(own)];
    expect(a.hash).toBe(b.hash);
    expect(a.quality).toEqual(b.quality);
  });
});

describe('simulations handed one matcher', () => {
  it('give the hashes and figures of runs that each build their own', async () => {
    const db = small();
    const matcher = await simulationMatcher(db, { workers: 1, backend: 'auto' });
    for (const scenario of ['wander', 'stop-go'] as const) {
      const [given, own] = [await run(db, { scenario, matcher }), await run(db, { scenario })];
      expect(given.hash, scenario).toBe(own.hash);
      expect(given.quality, scenario).toEqual(own.quality);
    }
  });

  it('refuse a matcher loaded with another database', async () => {
    const db = small();
    const matcher = await Matcher.create(reweightDatabase(db, WEIGHTS));
    await expect(run(db, { matcher })).rejects.toThrow(/matcher given was loaded with another database/);
  });

  it('on worker threads, refuse a matcher that threads cannot share, saying what to make instead', async () => {
    const db = small();
    // The JS backend, and a WASM one on memory of its own (not shared between threads).
    for (const matcher of [await Matcher.create(db, { backend: 'js' }), await Matcher.create(db, { backend: 'auto', memory: createSearchMemory({ shared: false }) })]) {
      await expect(run(db, { matcher, workers: 2 }), matcher.backend).rejects.toThrow(/must search shared memory with a WASM backend \(simulationMatcher/);
    }
    const shared = await simulationMatcher(db, { workers: 2, backend: 'auto' });
    expect((await run(db, { matcher: shared, workers: 2 })).hash).toBe((await run(db)).hash);
  });
});
