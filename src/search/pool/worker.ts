/**
 * MatcherPool worker (Node worker_threads or a browser module Worker). It instantiates the search
 * build against the pool's shared memory and runs batch kernels on regions the main thread staged;
 * it never touches the database layout itself.
 *
 * Protocol: {type: 'init', module, memory} -> {type: 'ready'};
 *           {type: 'run', id, method, ctx, req, queries, count, bestCosts, out} -> {type: 'done', id}
 *           (or {type: 'error', id, message}).
 */
import { instantiateKernels } from '../wasm/load.js';
import type { SearchKernels } from '../wasm/memory-layout.js';

export interface InitMessage {
  type: 'init';
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
}

export interface RunMessage {
  type: 'run';
  id: number;
  method: number;
  ctx: number;
  req: number;
  queries: number;
  count: number;
  bestCosts: number;
  out: number;
}

export type WorkerReply = { type: 'ready' } | { type: 'done'; id: number } | { type: 'error'; id: number; message: string };

interface Port {
  post(msg: WorkerReply): void;
  listen(fn: (msg: InitMessage | RunMessage) => void): void;
}

async function connect(): Promise<Port> {
  if (typeof process !== 'undefined' && typeof process.versions?.node === 'string') {
    // (taken from the running Node, not imported: a bundler building this worker for a browser
    // would try to resolve an import of node:worker_threads)
    const { parentPort } = process.getBuiltinModule('node:worker_threads');
    if (parentPort) {
      return {
        post: (m) => parentPort.postMessage(m),
        listen: (fn) => parentPort.on('message', fn),
      };
    }
  }
  const scope = globalThis as unknown as { postMessage(m: unknown): void; onmessage: ((e: MessageEvent) => void) | null };
  return {
    post: (m) => scope.postMessage(m),
    listen: (fn) => {
      scope.onmessage = (e) => fn(e.data);
    },
  };
}

async function main(): Promise<void> {
  const port = await connect();
  let kernels: SearchKernels | null = null;
  port.listen((msg) => {
    if (msg.type === 'init') {
      instantiateKernels(msg.module, msg.memory).then(
        (k) => {
          kernels = k;
          port.post({ type: 'ready' });
        },
        (e: Error) => port.post({ type: 'error', id: -1, message: e.message }),
      );
      return;
    }
    try {
      if (!kernels) throw new Error('pool worker used before init');
      kernels.searchBatch(msg.method, msg.ctx, msg.req, msg.queries, msg.count, msg.bestCosts, msg.out);
      port.post({ type: 'done', id: msg.id });
    } catch (e) {
      port.post({ type: 'error', id: msg.id, message: (e as Error).message });
    }
  });
}

void main();
