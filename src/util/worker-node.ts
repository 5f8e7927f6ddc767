/**
 * Starting worker threads from any host process. Node 20 passes the parent's execArgv to a worker,
 * and a worker refuses to start when it includes options it cannot take:
 * - --input-type ("can only be used with string input"), which is what `node --input-type=module
 *   -e "..."` has: dropped here;
 * - V8 options (`--max-old-space-size=8192`, `--expose-gc`, `--stack-size=…`) and options of the
 *   whole process: Node throws ERR_WORKER_INVALID_EXEC_ARGV ("Initiated Worker with invalid execArgv
 *   flags: …"), so that `node --max-old-space-size=8192 motionmatch simulate --workers 2`, a usual
 *   way to give a large simulation more memory, failed. V8's flags are process-wide (a worker's heap
 *   limit is the parent's --max-old-space-size, measured with Node 20): a worker started without
 *   them runs as the parent does. startWorker starts it again without the options the error names,
 *   and leaves them out from then on.
 * No `node:` import: the search pool (in every browser bundle) uses this module too.
 */

/** The parent's options a worker refused so far (this thread's; see startWorker). */
const refused = new Set<string>();

/** The options to start a worker with: the parent's, less --input-type and those workers refused. */
export function workerExecArgv(parent: readonly string[] = process.execArgv): string[] {
  const out: string[] = [];
  for (let i = 0; i < parent.length; i++) {
    const a = parent[i];
    if (a === '--input-type') { i++; continue; }
    if (a.startsWith('--input-type=')) continue;
    if (refused.has(a)) continue;
    out.push(a);
  }
  return out;
}

/** The options an ERR_WORKER_INVALID_EXEC_ARGV error names, as given on the command line; none for any other error. */
export function refusedWorkerOptions(e: unknown): string[] {
  if (!(e instanceof Error) || (e as { code?: unknown }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') return [];
  const at = e.message.indexOf(':');
  if (at < 0) return [];
  return e.message.slice(at + 1).split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

/**
 * `start(workerExecArgv())`; when Node refuses options of the parent's there, `start` again without
 * them (which is how every later worker of this thread starts). Any other error, or a refusal that
 * names nothing the parent gave, is thrown as it came.
 */
export function startWorker<W>(start: (execArgv: string[]) => W, parent: readonly string[] = process.execArgv): W {
  try {
    return start(workerExecArgv(parent));
  } catch (e) {
    const named = refusedWorkerOptions(e).filter((a) => parent.includes(a) && !refused.has(a));
    if (named.length === 0) throw e;
    for (const a of named) refused.add(a);
    return start(workerExecArgv(parent));
  }
}
