/**
 * V8 tuning for crowd stepping (Node only).
 *
 * A character's step is many small numeric functions. Under V8's default inlining budget (460 bytes
 * of bytecode per inlinee, 920 in total per optimised function) the larger step functions keep
 * many of them as real calls, and a number passed to or returned from such a call is a heap
 * allocation. With a larger budget, measured on the 5,000-agent simulation, a step is 5–10% faster
 * (docs/simulation.md). The `simulate` and `bench` commands raise it; a server embedding the
 * library can do the same at startup.
 */
import v8 from 'node:v8';

/** The flags raiseInliningBudget() sets (also usable on the node command line). */
export const INLINING_FLAGS: readonly string[] = ['--max-inlined-bytecode-size=1500', '--max-inlined-bytecode-size-cumulative=4000'];

let raised = false;

/**
 * Raises V8's inlining budget for this process (every thread: V8 flags are process-wide). Call it
 * at startup, before the code it should affect has been optimised: Node documents that changing
 * V8 flags later may have no effect. Does nothing when the flags were given on the command line.
 */
export function raiseInliningBudget(): void {
  if (raised) return;
  raised = true;
  for (const flag of INLINING_FLAGS) {
    const name = flag.slice(0, flag.indexOf('='));
    if (process.execArgv.some((a) => a.startsWith(name))) continue; // the command line decides
    v8.setFlagsFromString(flag);
  }
}
