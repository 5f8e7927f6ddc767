/**
 * Starting worker threads from any host process. Node 20 passes the parent's execArgv to a worker,
 * and a worker refuses to start when it includes --input-type ("can only be used with string
 * input"), which is what `node --input-type=module -e "..."` has: drop it.
 */
export function workerExecArgv(parent: readonly string[] = process.execArgv): string[] {
  const out: string[] = [];
  for (let i = 0; i < parent.length; i++) {
    const a = parent[i];
    if (a === '--input-type') { i++; continue; }
    if (a.startsWith('--input-type=')) continue;
    out.push(a);
  }
  return out;
}
