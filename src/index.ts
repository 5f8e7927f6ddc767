/**
 * motionmatch: a motion matching engine. The package root for Node: the portable API (src/api.ts,
 * in data-flow order) and the Node-only helpers (file reading and writing, worker threads, V8 flags,
 * the simulation run and the tools built on it), which live in the *-node modules and the sim
 * runner. Bundlers building for a browser take src/browser.ts instead (the `browser` condition of
 * package.json's exports): the portable API with the packaged WASM builds as URLs.
 */

export * from './api.js';

// import: BVH files
export { readBvhFile, listBvhFiles, BVH_MAX_FILE_BYTES, type SkippedBvhEntry, type ListBvhFilesOptions, type ReadBvhFileOptions } from './import/bvh/bvh-node.js';
// database files
export { readDatabaseFile, readDatabaseBytes, writeDatabaseFile, writeCompactDatabaseFile, DatabaseFileError } from './database/mmdb/mmdb-node.js';
export { loadBvhSources } from './database/sources-node.js';
// search over worker threads
export { MatcherPool, type PoolOptions } from './search/pool/pool.js';
// simulation: the run and its workers, V8 flags for crowds, terrain files
export { runSimulation, type SimulationOptions, type SimulationResult } from './sim/simulation.js';
export { raiseInliningBudget, tuneJitForCrowds, INLINING_FLAGS, CROWD_JIT_FLAGS } from './util/jit-node.js';
export { readTerrainOption } from './sim/terrain/file-node.js';
// data tools that read files or drive runSimulation
export { readSettingsFile, loadSettingsForDatabase } from './sim/settings/options-file-node.js';
export { runTune, compareOnHoldout, type TuneResult, type TuneOptions } from './tools/tune/tune.js';
export { runQualityScenarios, type QualityRunOptions, type ScenarioQuality } from './tools/quality/run.js';
