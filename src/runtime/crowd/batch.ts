/**
 * A crowd's step, the way the simulation and the browser both run it:
 *
 *   for each character: prepare()  ──►  one batched search for those that want one  ──►  for each: complete()
 *
 * CrowdSearchBatch is the part in the middle: it collects the requests of the characters whose
 * prepare() returned true into one set of staging arrays (queries, bounds, excluded ranges), hands
 * them to a batch searcher in one call, and gives each character its answer back in complete().
 * Staging is allocated once (grown with the crowd) and reused every step.
 */
import type { BatchResult, BatchSearchOptions, SearchMethod } from '../../search/matcher.js';
import type { FrameRange } from '../../search/ranges.js';
import type { MotionMatchingController } from '../controller/controller.js';

/** Anything that answers a batch of queries: a Matcher (synchronous) or a MatcherPool (a promise). */
export interface BatchSearcher {
  searchBatch(queries: Float32Array, k: number, opts: BatchSearchOptions, out: BatchResult): BatchResult | Promise<BatchResult>;
}

/** Excluded ranges per request addExcluding accepts. */
export const MAX_EXCLUDED = 6;

export class CrowdSearchBatch {
  /** Requests staged since begin(). */
  count = 0;
  private readonly stride: number;
  private queries = new Float32Array(0);
  private bestCosts = new Float32Array(0);
  /** Which character (the index passed to add) each staged request came from, ascending. */
  private owners = new Int32Array(0);
  /** Per staged request its excluded range (one [start, end) pair, reused), or null. */
  private readonly ranges: Array<[number, number]> = [];
  private readonly rangeLists: Array<ReadonlyArray<FrameRange>> = [];
  private readonly perQuery: Array<ReadonlyArray<FrameRange> | null> = [];
  /** Per staged request a list of MAX_EXCLUDED ranges for addExcluding (unused ones empty), made on first use. */
  private readonly multi: Array<Array<[number, number]>> = [];
  private result: BatchResult = { frames: new Int32Array(0), costs: new Float32Array(0) };
  private readonly options: BatchSearchOptions & { excludeRangesPerQuery: Array<ReadonlyArray<FrameRange> | null> };
  /** The next staged request finish() looks at. */
  private cursor = 0;

  constructor(stride: number, method: SearchMethod, capacity = 64) {
    this.stride = stride;
    this.options = { method, normalized: true, excludeRangesPerQuery: this.perQuery };
    this.ensureCapacity(capacity);
  }

  /** The search method of the next batches. */
  set method(method: SearchMethod) {
    this.options.method = method;
  }

  /** Starts a step. */
  begin(): void {
    this.count = 0;
    this.cursor = 0;
  }

  /**
   * Stages character `owner`'s request (after its prepare() returned true). Owners must be added
   * in ascending order; finish() is then called for every character in the same order.
   */
  add(c: MotionMatchingController, owner: number): void {
    // A local search asked for and answered in full here (a batch without local searches): it was full.
    c.searchLocal = false;
    const k = this.count;
    if (k === this.owners.length) this.ensureCapacity(2 * k);
    const r = c.request;
    this.takeTags(r.requireTags, r.excludeTags, k);
    this.queries.set(r.query, k * this.stride);
    this.bestCosts[k] = r.bestCost;
    if (r.excludeEnd > r.excludeStart) {
      const range = this.ranges[k];
      range[0] = r.excludeStart;
      range[1] = r.excludeEnd;
      this.perQuery[k] = this.rangeLists[k];
    } else {
      this.perQuery[k] = null;
    }
    this.owners[k] = owner;
    this.count = k + 1;
  }

  /**
   * Stages `owner`'s request like add(), but with `n` (at most MAX_EXCLUDED) excluded ranges given
   * as pairs in `pairs` instead of the request's one (a local search excludes everything outside
   * its window: lod/local-search.ts).
   */
  addExcluding(c: MotionMatchingController, owner: number, pairs: Int32Array, n: number): void {
    if (n > MAX_EXCLUDED) throw new RangeError(`addExcluding: at most ${MAX_EXCLUDED} ranges, got ${n}`);
    const k = this.count;
    if (k === this.owners.length) this.ensureCapacity(2 * k);
    this.takeTags(c.request.requireTags, c.request.excludeTags, k);
    this.queries.set(c.request.query, k * this.stride);
    this.bestCosts[k] = c.request.bestCost;
    while (this.multi.length <= k) this.multi.push(Array.from({ length: MAX_EXCLUDED }, (): [number, number] => [0, 0]));
    const list = this.multi[k];
    for (let j = 0; j < MAX_EXCLUDED; j++) {
      // Unused entries are empty ranges, which the search skips: the lists never change length.
      list[j][0] = j < n ? pairs[2 * j] : 0;
      list[j][1] = j < n ? pairs[2 * j + 1] : 0;
    }
    this.perQuery[k] = list;
    this.owners[k] = owner;
    this.count = k + 1;
  }

  /**
   * The batch's tag filters: the first request's; every other request of the batch must ask for the
   * same (one search answers them all: a crowd whose agents share their filters, as a simulation's
   * do). Compared by reference first: a crowd passes the same arrays to every agent.
   */
  private takeTags(require: readonly string[] | null, exclude: readonly string[] | null, k: number): void {
    const o = this.options;
    if (k === 0) {
      o.requireTags = require ?? undefined;
      o.excludeTags = exclude ?? undefined;
      return;
    }
    if (!sameTags(o.requireTags, require) || !sameTags(o.excludeTags, exclude)) {
      throw new RangeError('CrowdSearchBatch: the requests of one batch must ask for the same tags (requireTags, excludeTags); search the others in a batch of their own');
    }
  }

  /** The frame ranges the next batches search in (method 'window' needs them); undefined: the whole database. */
  set searchRanges(ranges: ReadonlyArray<FrameRange> | undefined) {
    this.options.ranges = ranges;
  }

  /** Answers every staged request in one call (nothing to do when none was staged). */
  search(searcher: BatchSearcher): BatchResult | Promise<BatchResult> {
    const k = this.count;
    if (k === 0) return this.result;
    this.perQuery.length = k;
    this.options.bestCost = this.bestCosts.subarray(0, k);
    return searcher.searchBatch(this.queries.subarray(0, k * this.stride), k, this.options, this.result);
  }

  /**
   * Completes character `owner`'s step with its search result, or with none when it did not search.
   * Call for every character of the step, in ascending owner order, after search() has answered.
   */
  finish(c: MotionMatchingController, owner: number): void {
    const j = this.cursor;
    if (j < this.count && this.owners[j] === owner) {
      c.complete(this.result.frames[j], this.result.costs[j]);
      this.cursor = j + 1;
    } else {
      c.complete(-1, Number.POSITIVE_INFINITY);
    }
  }

  /**
   * Like finish(), for a crowd with more than one batch: completes `owner`'s step with this batch's
   * answer and returns true when the owner's request was staged here, else leaves it and returns false.
   */
  tryFinish(c: MotionMatchingController, owner: number): boolean {
    const j = this.cursor;
    if (j < this.count && this.owners[j] === owner) {
      c.complete(this.result.frames[j], this.result.costs[j]);
      this.cursor = j + 1;
      return true;
    }
    return false;
  }

  private ensureCapacity(n: number): void {
    if (this.owners.length >= n) return;
    const cap = Math.max(n, 16);
    const queries = new Float32Array(cap * this.stride);
    queries.set(this.queries);
    this.queries = queries;
    const best = new Float32Array(cap);
    best.set(this.bestCosts);
    this.bestCosts = best;
    const owners = new Int32Array(cap);
    owners.set(this.owners);
    this.owners = owners;
    this.result = { frames: new Int32Array(cap), costs: new Float32Array(cap) };
    while (this.ranges.length < cap) {
      const range: [number, number] = [0, 0];
      this.ranges.push(range);
      this.rangeLists.push([range]);
    }
  }
}

/** Whether two tag lists ask for the same (undefined, null and empty: no filter). */
function sameTags(a: readonly string[] | undefined, b: readonly string[] | null): boolean {
  if (a === b) return true;
  const n = a?.length ?? 0, m = b?.length ?? 0;
  if (n !== m) return false;
  for (let i = 0; i < n; i++) if (a![i] !== b![i]) return false;
  return true;
}
