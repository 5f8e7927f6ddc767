/**
 * V8 tuning for crowd stepping (Node only).
 *
 * A character's step is many small numeric functions. Under V8's default inlining budget (460 bytes
 * of bytecode per inlinee, 920 in total per optimised function) the larger step functions keep
 * many of them as real calls, and a number passed to or returned from such a call is a heap
 * allocation. With a larger budget, measured on the 5,000-agent simulation, a step is 5–10% faster
 * (docs/simulation.md). The `simulate` and `bench` commands raise it; a server embedding the
 * library can do the same at startup.
 *
 * V8 also compiles optimised code on background threads by default. When every core is busy
 * stepping agents (one worker per core), those threads get little CPU: a worker then ran its first
 * timed steps in unoptimised code, at 10–20x the steady cost, even after a warm-up.
 * tuneJitForCrowds() also turns that off, so that a warm-up ends with optimised code in place.
 */
import v8 from 'node:v8';

/** The flags raiseInliningBudget() sets (also usable on the node command line). */
export const INLINING_FLAGS: readonly string[] = ['--max-inlined-bytecode-size=1500', '--max-inlined-bytecode-size-cumulative=4000'];

/** The flags tuneJitForCrowds() sets: the inlining budget, and optimised code compiled on the thread that runs it. */
export const CROWD_JIT_FLAGS: readonly string[] = [...INLINING_FLAGS, '--no-concurrent-recompilation'];

let raised = false;
let tuned = false;

/**
 * Raises V8's inlining budget for this process (every thread: V8 flags are process-wide). Call it
 * at startup, before the code it should affect has been optimised: Node documents that changing
 * V8 flags later may have no effect. Does nothing when the flags were given on the command line.
 */
export function raiseInliningBudget(): void {
  if (raised) return;
  raised = true;
  setUnlessGiven(INLINING_FLAGS);
}

/**
 * raiseInliningBudget(), and optimised code compiled synchronously, by the thread that needs it
 * (`--no-concurrent-recompilation`). For throughput runs that keep every core busy (`simulate`,
 * `bench`); an interactive server may prefer concurrent compilation's shorter pauses. Call it at
 * startup, before worker threads are created. Flags given on the command line take precedence.
 */
export function tuneJitForCrowds(): void {
  raiseInliningBudget();
  if (tuned) return;
  tuned = true;
  setUnlessGiven(['--no-concurrent-recompilation']);
}

function setUnlessGiven(flags: readonly string[]): void {
  for (const flag of flags) if (!commandLineGives(flag, process.execArgv)) v8.setFlagsFromString(flag);
}

/**
 * True when `execArgv` sets the V8 flag `flag` names, in either polarity (`--x` / `--no-x`), with
 * or without a value, and with - or _ in its name: the command line then decides.
 */
export function commandLineGives(flag: string, execArgv: readonly string[]): boolean {
  const eq = flag.indexOf('=');
  const name = (eq < 0 ? flag : flag.slice(0, eq)).replace(/_/g, '-').replace(/^--no-/, '--');
  const negated = name.replace(/^--/, '--no-');
  return execArgv.some((a) => {
    const n = a.replace(/_/g, '-').split('=')[0];
    return n === name || n === negated;
  });
}
