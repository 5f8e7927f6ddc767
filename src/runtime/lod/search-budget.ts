/**
 * A crowd's search budget: at most B searches a step. When more characters are due, the least
 * urgent wait. Urgency is the query's age (time since the character last searched, in units of its
 * level's search interval: crowd/crowd-lod.ts) plus a bonus for a forced search (a sharp input change or
 * a clip running out: FORCED_BONUS), then the larger trajectory deviation (how far the character
 * has strayed from its simulated trajectory), then the lower index. A deferred character's age
 * grows every step, so it is served after a bounded wait (it overtakes every younger query, forced
 * ones included once it is FORCED_BONUS older): nobody starves while the budget is at least one
 * search a step.
 *
 * The budget is counted, not timed, so a run stays deterministic. It is shared out over fixed
 * blocks of agents (BUDGET_BLOCK consecutive indices) in proportion to their size, with a share
 * that rotates by step (budgetShare), so that the decision for a block depends only on that block:
 * the same agents defer the same searches however the crowd is split over threads.
 */

/** Agents (consecutive indices from 0) that share out one part of the budget. */
export const BUDGET_BLOCK = 128;

/** Age (search intervals) a forced search counts extra. */
export const FORCED_BONUS = 1;

/**
 * Searches block [start, end) of `agents` may run at step `step` when the crowd may run `budget`.
 * The shares of all blocks add up to exactly `budget` every step (the boundaries B·start/A are
 * shifted by the same phase, so the floors telescope); the phase turns by a golden-ratio fraction of
 * the crowd each step, so a block whose share is fractional gets its searches spread evenly in time.
 */
export function budgetShare(budget: number, agents: number, start: number, end: number, step: number): number {
  const turn = Math.floor(agents * 0.6180339887498949) || 1;
  const phase = (step * turn) % agents;
  return Math.floor((budget * end + phase) / agents) - Math.floor((budget * start + phase) / agents);
}

/**
 * Chooses which of the `n` due searches run within `share`: `order` receives the indices 0..n-1 by
 * descending urgency (age + FORCED_BONUS if forced, then deviation, then index), and the first
 * min(n, share) of them run. No allocation (insertion sort: n is at most a block).
 */
export function rankByUrgency(n: number, forced: Uint8Array, age: Float64Array, deviation: Float64Array, order: Int32Array): void {
  for (let i = 0; i < n; i++) {
    const u = age[i] + (forced[i] ? FORCED_BONUS : 0), d = deviation[i];
    let j = i - 1;
    while (j >= 0) {
      const o = order[j], uo = age[o] + (forced[o] ? FORCED_BONUS : 0);
      // Strictly more urgent moves ahead; equal urgency keeps index order (o < i).
      if (uo > u || (uo === u && deviation[o] >= d)) break;
      order[j + 1] = o;
      j--;
    }
    order[j + 1] = i;
  }
}
