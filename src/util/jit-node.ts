/**
 * V8 tuning for crowd stepping (Node only).
 *
 * V8 compiles optimised code on background threads by default. When every core is busy stepping
 * agents (one worker per core), those threads get little CPU: a worker then ran its first timed
 * steps in unoptimised code, at 10–20x the steady cost, even after a warm-up. tuneJitForCrowds()
 * turns that off, so that a warm-up ends with optimised code in place.
 *
 * V8's inlining budget is left as it is (460 bytes of bytecode per inlinee, 920 per optimised
 * function). From 2026-12-02 to 2026-12-07 the commands raised it (raiseInliningBudget: 1,500 and
 * 4,000), which made the step of that time 5–10% faster. The step has grown since (foot IK's
 * contact rules, the output quality meter), and with the raised budget V8 inlines so much of it
 * that it ran slower: `simulate --agents 1000 --seconds 6`, the two settings alternating, 97–105k
 * agent-steps/s raised against 107–122k with V8's own budget (docs/simulation.md). The step passes
 * numbers through its state blocks rather than as arguments, so the calls V8 now keeps box few
 * numbers (about 100 bytes per agent-step against 56).
 */
import v8 from 'node:v8';

/** The flags raiseInliningBudget() sets (also usable on the node command line; measured slower on today's step, see above). */
export const INLINING_FLAGS: readonly string[] = ['--max-inlined-bytecode-size=1500', '--max-inlined-bytecode-size-cumulative=4000'];

/** The flags tuneJitForCrowds() sets: optimised code compiled on the thread that runs it. */
export const CROWD_JIT_FLAGS: readonly string[] = ['--no-concurrent-recompilation'];

let raised = false;
let tuned = false;

/**
 * Raises V8's inlining budget for this process (every thread: V8 flags are process-wide). Call it
 * at startup, before the code it should affect has been optimised: Node documents that changing
 * V8 flags later may have no effect. Does nothing when the flags were given on the command line.
 * Kept for code that calls it; the crowd step now runs faster without it (above).
 */
export function raiseInliningBudget(): void {
  if (raised) return;
  raised = true;
  setUnlessGiven(INLINING_FLAGS);
}

/**
 * Optimised code compiled synchronously, by the thread that needs it
 * (`--no-concurrent-recompilation`). For throughput runs that keep every core busy (`simulate`,
 * `bench`); an interactive server may prefer concurrent compilation's shorter pauses. Call it at
 * startup, before worker threads are created. Flags given on the command line take precedence.
 */
export function tuneJitForCrowds(): void {
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
