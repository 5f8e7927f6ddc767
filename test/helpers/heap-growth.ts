import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// A bare heapUsed difference around a loop is noise on a loaded machine: a scavenge during the loop
// hides real allocation, and V8 placing freshly optimised code (code space counts in heapUsed) shows
// as growth that is not the code's. So: collect garbage before each round (new space empty, no
// scavenge can start within a small round), and report the smallest growth over several rounds
// (code placement happens once; an allocation per call happens in every round).
setFlagsFromString('--expose-gc');
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
