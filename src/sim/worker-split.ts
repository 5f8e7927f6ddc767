/**
 * How `simulate --workers N` splits a crowd over its threads: agents in blocks of WORKER_BLOCK,
 * dealt round robin (block b to thread b mod N). A contiguous half each put every agent near the
 * camera (levels 0-2, the costly ones, all in one stretch of indices) on one thread: measured at
 * 20,000 agents with `--lod`, one thread stepped for 5.97 s and the other for 4.67 s, and the run
 * waited for the first. That is for crowds with levels of detail (`--lod`); without, every agent
 * costs about the same and each thread takes an equal contiguous share (evenRanges). Agents never
 * interact, so the split changes no agent's motion (the hashes); the quality figures are sums over
 * the threads' agents, equal up to the order of floating-point additions.
 */
import { BUDGET_BLOCK } from '../runtime/lod/search-budget.js';

/**
 * Agents per block: the search budget's block, so that every budget block stays on one thread
 * (its decisions then depend on its agents only, and results are the same for any thread count).
 */
export const WORKER_BLOCK = BUDGET_BLOCK;

/** A contiguous run of agents: [first, first + count). */
export type AgentRange = readonly [first: number, count: number];

/**
 * The agents [first, first + count) in blocks bounded by multiples of `block` (absolute agent
 * indices, so a shard starting mid-block still keeps budget blocks whole), dealt round robin to
 * `workers` threads. Returns one list of ranges per thread that got any, in agent order.
 */
export function workerRanges(first: number, count: number, workers: number, block = WORKER_BLOCK): AgentRange[][] {
  if (!(Number.isInteger(first) && first >= 0 && Number.isInteger(count) && count >= 0)) throw new RangeError(`workerRanges: first and count must be non-negative integers, got ${first}, ${count}`);
  if (!(Number.isInteger(workers) && workers >= 1)) throw new RangeError(`workerRanges: workers must be a positive integer, got ${workers}`);
  if (!(Number.isInteger(block) && block >= 1)) throw new RangeError(`workerRanges: block must be a positive integer, got ${block}`);
  const out: AgentRange[][] = Array.from({ length: workers }, () => []);
  const end = first + count;
  let b = 0;
  for (let a = first; a < end; b++) {
    const next = Math.min(end, (Math.floor(a / block) + 1) * block);
    out[b % workers].push([a, next - a]);
    a = next;
  }
  return out.filter((r) => r.length > 0);
}

/**
 * The agents [first, first + count) in contiguous runs of near-equal size, one per thread that gets
 * any: for crowds without levels of detail, where every agent costs about the same and no search
 * budget block has to stay whole. (Dealt in 128-agent blocks, a 100-agent quality run put every
 * agent on one thread: `quality --workers 2` ran no faster than one thread, 7.0 s against 5.5.)
 */
export function evenRanges(first: number, count: number, workers: number): AgentRange[][] {
  if (!(Number.isInteger(first) && first >= 0 && Number.isInteger(count) && count >= 0)) throw new RangeError(`evenRanges: first and count must be non-negative integers, got ${first}, ${count}`);
  if (!(Number.isInteger(workers) && workers >= 1)) throw new RangeError(`evenRanges: workers must be a positive integer, got ${workers}`);
  const out: AgentRange[][] = [];
  for (let w = 0, a = first; w < workers; w++) {
    const n = Math.floor(count / workers) + (w < count % workers ? 1 : 0);
    if (n > 0) out.push([[a, n]]);
    a += n;
  }
  return out;
}
