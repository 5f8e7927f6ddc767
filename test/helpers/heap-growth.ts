import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// A bare heapUsed difference around a loop is noise on a loaded machine: a scavenge during the loop
// hides real allocation, and V8 placing freshly optimised code (code space counts in heapUsed) shows
// as growth that is not the code's. So: collect garbage before each round (new space empty, no
// scavenge can start within a small round), and report the smallest growth over several rounds
// (code placement happens once; an allocation per call happens in every round).
// Optimised code compiled on the thread that asks for it: with V8's default (background compile
// threads) a busy machine left the warm-up's code unoptimised, and unoptimised code boxes the
// numbers it passes between calls (95 KB over 1,000 apply() calls during a full suite, 1.7 KB alone).
setFlagsFromString('--expose-gc');
setFlagsFromString('--no-concurrent-recompilation');
const collectGarbage = runInNewContext('gc') as () => void;

/** Smallest heap growth (bytes) over `rounds` runs of `run`, each run starting on a collected heap. */
export function smallestHeapGrowth(run: () => void, rounds = 5): number {
  let smallest = Infinity;
  run(); // Warm-up: a first run may still be interpreted, and the interpreter boxes numbers.
  for (let r = 0; r < rounds; r++) {
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    run();
    smallest = Math.min(smallest, process.memoryUsage().heapUsed - before);
  }
  return smallest;
}
