/**
 * Errors from simulation worker threads as one line. A worker posts its error's message and its
 * stack apart (src/sim/worker.ts; the stack was once the message: 9-10 lines of frames in a
 * command's error), and the main thread wraps the message as "simulation worker: <message>"; this
 * keeps a command's line to the first line of that message whatever a worker's error holds.
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
