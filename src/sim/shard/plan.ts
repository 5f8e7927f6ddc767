/**
 * How a simulation is split into shards: shard I of N runs a contiguous range of the agents. An
 * agent's inputs depend only on (seed, agent index) and agents never interact, so a shard's agents
 * move exactly as in the whole run, and the per-agent digests of all shards, concatenated in agent
 * order, are the whole run's.
 */
import { BUDGET_BLOCK } from '../../runtime/lod/search-budget.js';

/** Shard `index` of `count` (0 <= index < count). */
export interface ShardSpec {
  index: number;
  count: number;
}

/** The environment variable a Kubernetes Indexed Job sets in each pod: the pod's completion index. */
export const SHARD_INDEX_ENV = 'JOB_COMPLETION_INDEX';

/** Most shards a run may have (a partial report per shard has to be read back by `merge`). */
export const MAX_SHARDS = 100_000;

/** A shard specification that cannot be used; the message names what is wrong. */
export class ShardSpecError extends Error {
  override readonly name = 'ShardSpecError';
}

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/**
 * Parses "I/N" (shard I of N) or "auto/N" (I from $JOB_COMPLETION_INDEX in `env`). Throws
 * ShardSpecError with a one-line reason.
 */
export function parseShardSpec(text: string, env: Record<string, string | undefined>): ShardSpec {
  const m = /^([^/]*)\/([^/]*)$/.exec(text.trim());
  if (!m) throw new ShardSpecError(`--shard must be I/N (shard I of N, counted from 0) or auto/N, got "${text}"`);
  const [, indexText, countText] = m;
  if (!DECIMAL.test(countText) || Number(countText) < 1 || Number(countText) > MAX_SHARDS) {
    throw new ShardSpecError(`--shard ${text}: the shard count N must be an integer in [1, ${MAX_SHARDS}]`);
  }
  const count = Number(countText);
  if (indexText === 'auto') {
    const fromEnv = env[SHARD_INDEX_ENV];
    if (fromEnv === undefined || fromEnv === '') {
      throw new ShardSpecError(`--shard ${text}: ${SHARD_INDEX_ENV} is not set (a Kubernetes Indexed Job sets it in each pod; elsewhere give the index: --shard I/${count})`);
    }
    if (!DECIMAL.test(fromEnv.trim())) throw new ShardSpecError(`--shard ${text}: ${SHARD_INDEX_ENV}="${fromEnv}" is not a non-negative integer`);
    const index = Number(fromEnv.trim());
    if (index >= count) throw new ShardSpecError(`--shard ${text}: ${SHARD_INDEX_ENV}=${index} is not below ${count} (the Job's completions must equal N)`);
    return { index, count };
  }
  if (!DECIMAL.test(indexText)) throw new ShardSpecError(`--shard ${text}: the shard index I must be a non-negative integer or "auto"`);
  const index = Number(indexText);
  if (index >= count) throw new ShardSpecError(`--shard ${text}: the shard index must be below the shard count (0..${count - 1})`);
  return { index, count };
}

/**
 * The unit, in agents, that a run's shards are cut in: with a search budget, the budget's blocks
 * (BUDGET_BLOCK consecutive agents share out one part of it, lod/search-budget.ts), so that a block's
 * decisions stay in one shard and every shard defers exactly the searches the whole run defers;
 * otherwise single agents. Every place that computes a shard's range asks this.
 */
export function shardBlock(lod: { budget: number } | null | undefined): number {
  return lod && lod.budget > 0 ? BUDGET_BLOCK : 1;
}

/**
 * The agents of shard `index` of `count`: [first, first + count). Contiguous and balanced in units
 * of `block` agents (the shards' block counts differ by at most one; only the last block of the run
 * may be short); needs at least one block per shard. With `block` 1 this is ⌊I·A/N⌋ .. ⌊(I+1)·A/N⌋,
 * the ranges of partial reports written before blocks existed.
 */
export function shardAgentRange(agents: number, shard: ShardSpec, block = 1): { first: number; count: number } {
  const blocks = Math.ceil(agents / block);
  if (shard.count > blocks) {
    throw new ShardSpecError(block === 1
      ? `--shard ${shard.index}/${shard.count}: ${shard.count} shards for ${agents} agents; use at most one shard per agent`
      : `--shard ${shard.index}/${shard.count}: ${shard.count} shards for ${agents} agents in ${blocks} block${blocks > 1 ? 's' : ''} of ${block} (a search budget is shared out per block); use at most ${blocks} shard${blocks > 1 ? 's' : ''}`);
  }
  const first = Math.floor((shard.index * blocks) / shard.count) * block;
  const end = Math.min(agents, Math.floor(((shard.index + 1) * blocks) / shard.count) * block);
  return { first, count: end - first };
}
