/**
 * Errors from simulation worker threads as one line. A worker reports its failure with the stack
 * (src/sim/worker.ts posts e.stack), which the main thread wraps as "simulation worker: <stack>":
 * 9-10 lines of frames in a command's error message. Commands keep the worker's own message.
 */

/** The first line of a worker's report, without the "RangeError: " its stack starts with. */
export function workerMessageLine(message: string): string {
  const m = /^simulation worker: (?:[A-Za-z]*Error: )?([^\n]*)/.exec(message);
  if (!m) return message.split('\n')[0];
  return `simulation worker: ${m[1]}`;
}

/** `run()`, with an error from a simulation worker cut to its message's first line. */
export async function oneLineWorkerErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof Error && e.message.startsWith('simulation worker: ') && e.message.includes('\n')) {
      const short = new Error(workerMessageLine(e.message), { cause: e });
      short.name = e.name;
      throw short;
    }
    throw e;
  }
}
