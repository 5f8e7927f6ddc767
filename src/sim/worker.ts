/**
 * Worker thread for `motionmatch simulate --workers N`: runs its blocks of agents (worker-split.ts)
 * as one AgentGroup against the database the main thread loaded into shared WebAssembly memory
 * (Matcher.attach: no copy).
 *
 * Protocol: {type:'init', db, rt, handle, ranges, cfg, warmup} -> {type:'ready', warmupSeconds};
 *           {type:'run'} -> {type:'progress', steps}* then {type:'done', result};
 *           any failure -> {type:'error', name, message, stack}.
 */
import { parentPort } from 'node:worker_threads';
import { Matcher, type SharedMatcherHandle } from '../search/matcher.js';
import { adoptDatabaseRuntime, type DatabaseRuntime } from '../runtime/database-runtime.js';
import type { Database } from '../database/database.js';
import { AgentGroup, stepCount, warmUpSteps, type SimulationConfig } from './agents.js';
import type { AgentRange } from './worker-split.js';

export type SimWorkerMessage =
  | { type: 'init'; db: Database; rt: DatabaseRuntime; handle: SharedMatcherHandle; ranges: AgentRange[]; cfg: SimulationConfig; warmup: boolean }
  | { type: 'run' };

let group: AgentGroup | null = null;

const port = parentPort;
if (port) {
  port.on('message', (msg: SimWorkerMessage) => {
    // The message for the user (one line, as the main thread's own errors), the stack apart for whoever debugs it.
    handle(msg).catch((e: Error) => port.postMessage({ type: 'error', name: e.name, message: e.message, stack: e.stack }));
  });
}

async function handle(msg: SimWorkerMessage): Promise<void> {
  if (!port) return;
  if (msg.type === 'init') {
    adoptDatabaseRuntime(msg.db, msg.rt);
    const matcher = await Matcher.attach(msg.db, msg.handle);
    // Each thread compiles its own code: warm it here, before the main thread starts the clock.
    const warmupSeconds = msg.warmup ? warmUpSteps(msg.db, matcher, msg.cfg) : 0;
    group = new AgentGroup(msg.db, matcher, msg.ranges, msg.cfg);
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
