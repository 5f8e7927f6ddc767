/**
 * Agent worker (the "split" engine): owns a share of the agents and runs their whole step — AI,
 * prepare, one batched search on its own matcher, complete (playback, inertialization, root
 * motion, foot IK) — then sends their world poses back for drawing in a transferred buffer.
 *
 * Requests (one at a time, in order):
 *   { type: 'init', db, rt, captured, backend, options, seed } -> { type: 'ready', backend }
 *   { type: 'agents', n, radius, method }               -> { type: 'ok' }
 *   { type: 'options', options }                        -> { type: 'ok' }
 *   { type: 'backend', backend }                        -> { type: 'ready', backend }
 *   { type: 'step', dt, method, buffer }                -> { type: 'stepped', timing, count, buffer }
 * Any failure -> { type: 'error', message }.
 */
import type { Database } from '../../src/database/database.js';
import { Matcher, type Backend, type BatchResult, type BatchSearchOptions, type SearchMethod } from '../../src/search/matcher.js';
import { Crowd, poseFloats, type BatchSearcher, type CrowdOptions, type PoseChunk } from './crowd.js';
import { kernelUrl } from './kernels.js';
import type { StepTiming } from './stats.js';
import type { LodView } from '../../src/runtime/lod/view.js';
import type { DatabaseRuntime } from '../../src/runtime/database-runtime.js';
import type { CapturedData } from '../../src/runtime/captured-data.js';
import { adoptSharedDatabase } from '../../src/sim/shared-arrays.js';

export type AgentWorkerRequest =
  | { type: 'init'; db: Database; rt: DatabaseRuntime; captured: CapturedData; backend: Backend; options: CrowdOptions; seed: number }
  | { type: 'agents'; n: number; radius: number; method: SearchMethod }
  | { type: 'options'; options: CrowdOptions }
  | { type: 'backend'; backend: Backend }
  | { type: 'step'; dt: number; method: SearchMethod; buffer: Float32Array | null; camera?: LodView };

export type AgentWorkerReply =
  | { type: 'ready'; backend: Backend }
  | { type: 'ok' }
  | { type: 'stepped'; timing: StepTiming; count: number; buffer: Float32Array }
  | { type: 'error'; message: string };

const scope = globalThis as unknown as {
  postMessage(message: AgentWorkerReply, transfer?: Transferable[]): void;
  onmessage: ((e: MessageEvent<AgentWorkerRequest>) => void) | null;
};

let db: Database | null = null;
let crowd: Crowd | null = null;
let searcher: BatchSearcher | null = null;
/** Agents whose poses the last step's buffer holds (-1: none). */
let lastCount = -1;

async function makeSearcher(database: Database, backend: Backend): Promise<BatchSearcher> {
  // Each worker searches its own copy of the features (an ordinary memory: no isolation needed).
  const matcher = await Matcher.create(database, {
    backend,
    wasm: kernelUrl(backend, false),
    memory: backend === 'js' ? undefined : new WebAssembly.Memory({ initial: 16 }),
  });
  return {
    matcher,
    searchBatch: (q: Float32Array, k: number, o: BatchSearchOptions, out: BatchResult) => matcher.searchBatch(q, k, o, out),
  };
}

async function handle(msg: AgentWorkerRequest): Promise<void> {
  switch (msg.type) {
    case 'init': {
      // The page's own derivations, not computed again (forward kinematics over every frame).
      db = adoptSharedDatabase(msg);
      searcher = await makeSearcher(db, msg.backend);
      crowd = new Crowd(db, msg.options, msg.seed, false);
      scope.postMessage({ type: 'ready', backend: searcher.matcher.backend });
      return;
    }
    case 'backend': {
      if (!db) throw new Error('agent worker used before init');
      searcher = await makeSearcher(db, msg.backend);
      scope.postMessage({ type: 'ready', backend: searcher.matcher.backend });
      return;
    }
    case 'agents':
      if (!crowd || !searcher) throw new Error('agent worker used before init');
      crowd.setAgentCount(msg.n, searcher, msg.method, msg.radius);
      scope.postMessage({ type: 'ok' });
      return;
    case 'options':
      if (!crowd) throw new Error('agent worker used before init');
      crowd.setOptions(msg.options);
      scope.postMessage({ type: 'ok' });
      return;
    case 'step': {
      if (!crowd || !searcher || !db) throw new Error('agent worker used before init');
      const t0 = performance.now();
      if (msg.camera) Object.assign(crowd.camera, msg.camera);
      crowd.think(msg.dt);
      const timing = await crowd.step(msg.dt, searcher, msg.method);
      // Poses for drawing: [roots n*3 | poses n*J*7 | held n] in one buffer that travels back and forth.
      const n = crowd.agentCount, J = db.skeleton.names.length, F = poseFloats(J);
      const need = n * (4 + F);
      let buffer = msg.buffer;
      if (!buffer || buffer.length < need) buffer = new Float32Array(Math.max(need, 1024));
      // The buffer that came back holds the poses written last step (when it is that buffer and the
      // crowd has the same size): agents whose pose waited keep theirs (levels of detail).
      const same = buffer === msg.buffer && n === lastCount;
      const tc = performance.now();
      const chunk = crowd.writePoses(poseViews(buffer, n, F, same ? n : 0), true);
      timing.copyMs = performance.now() - tc;
      lastCount = n;
      if (chunk.roots.buffer !== buffer.buffer || chunk.poses.buffer !== buffer.buffer || chunk.held.buffer !== buffer.buffer) throw new Error('internal: pose views were reallocated');
      // The worker's whole step (AI included) is what the frame waits for.
      timing.updateMs = performance.now() - t0;
      scope.postMessage({ type: 'stepped', timing, count: n, buffer }, [buffer.buffer]);
      return;
    }
  }
}

/** The views of a pose buffer of `n` agents with F floats of pose each: [roots 3n | poses Fn | held n]. */
function poseViews(buffer: Float32Array, n: number, F: number, count: number): PoseChunk {
  return { count, roots: buffer.subarray(0, 3 * n), poses: buffer.subarray(3 * n, (3 + F) * n), held: buffer.subarray((3 + F) * n, (4 + F) * n) };
}

let queue: Promise<void> = Promise.resolve();
scope.onmessage = (e) => {
  const msg = e.data;
  queue = queue.then(() =>
    handle(msg).catch((err: unknown) => {
      scope.postMessage({ type: 'error', message: err instanceof Error ? err.message : String(err) });
    }),
  );
};
