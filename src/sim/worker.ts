/**
 * Worker thread for `motionmatch simulate --workers N`: runs its blocks of agents (worker-split.ts)
 * as one AgentGroup against the database the main thread loaded into shared WebAssembly memory
 * (Matcher.attach: no copy).
 *
 * Protocol: {type:'init', dbId, db, rt, captured, handle, ranges, cfg, warmup} -> {type:'ready', warmupSeconds};
 *           {type:'run'} -> {type:'progress', steps}* then {type:'done', result};
 *           {type:'release'} (kept idle for a later run, worker-pool.ts): the crowd let go of;
 *           any failure -> {type:'error', name, message, stack}.
 */
import { parentPort } from 'node:worker_threads';
import { Matcher, type SharedMatcherHandle } from '../search/matcher.js';
import type { DatabaseRuntime } from '../runtime/database-runtime.js';
import type { CapturedData } from '../runtime/captured-data.js';
import { adoptSharedDatabase } from './shared-arrays.js';
import type { Database } from '../database/database.js';
import { AgentGroup, stepCount, warmUpSteps, type SimulationConfig } from './agents.js';
import type { AgentRange } from './worker-split.js';

export type SimWorkerMessage =
  | { type: 'init'; dbId: number; db: Database; rt: DatabaseRuntime; captured: CapturedData; handle: SharedMatcherHandle; ranges: AgentRange[]; cfg: SimulationConfig; warmup: boolean }
  | { type: 'run' }
  | { type: 'release' };

let group: AgentGroup | null = null;
/**
 * The database of the last init and the main thread's id of its shared copy: a thread kept for the
 * next run (worker-pool.ts) that gets the same copy again keeps this object, and with it what was
 * derived from it (the captured contact data, the rigs).
 */
let shared: { id: number; db: Database } | null = null;

const port = parentPort;
if (port) {
  port.on('message', (msg: SimWorkerMessage) => {
    // The message for the user (one line, as the main thread's own errors), the stack apart for whoever debugs it.
    handle(msg).catch((e: Error) => port.postMessage({ type: 'error', name: e.name, message: e.message, stack: e.stack }));
  });
}

async function handle(msg: SimWorkerMessage): Promise<void> {
  if (!port) return;
  if (msg.type === 'release') { group = null; return; }
  if (msg.type === 'init') {
    group = null;
    if (shared === null || shared.id !== msg.dbId) {
      shared = { id: msg.dbId, db: adoptSharedDatabase(msg) };
    }
    const db = shared.db;
    const matcher = await Matcher.attach(db, msg.handle);
    // Each thread compiles its own code: warm it here, before the main thread starts the clock, with
    // no more agents than the thread steps (the whole crowd's count, up to 128, doubled a quality
    // run's first scenario on two threads).
    const own = msg.ranges.reduce((n, r) => n + r[1], 0);
    const warmupSeconds = msg.warmup ? warmUpSteps(db, matcher, { ...msg.cfg, agents: Math.min(own, msg.cfg.agents) }) : 0;
    group = new AgentGroup(db, matcher, msg.ranges, msg.cfg);
    port.postMessage({ type: 'ready', warmupSeconds });
    return;
  }
  if (!group) throw new Error('sim worker: run before init');
  const steps = stepCount(group.cfg);
  let last = performance.now();
  for (let s = 0; s < steps; s++) {
    group.step();
    const now = performance.now();
    if (now - last > 200) { port.postMessage({ type: 'progress', steps: s + 1 }); last = now; }
  }
  port.postMessage({ type: 'done', result: group.result() });
}
