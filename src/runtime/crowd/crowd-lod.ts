/**
 * Levels of detail and the search budget for a crowd stepped as prepare → batched search →
 * complete (crowd/batch.ts). Per character, before its prepare(): `choose` picks its level from its
 * distance to the camera (lod/levels.ts, with hysteresis) and switches its controller's options. Per block
 * of characters, after their prepare(): `due` collects the characters that want a search, `schedule`
 * keeps the most urgent within the block's share of the budget (lod/search-budget.ts) and defers the
 * rest, and stages each kept search as a full search or, between full searches, a local one
 * (lod/local-search.ts, the windowed kernel). `search` answers both batches; `finish` completes each
 * character with its answer.
 */
import type { Database } from '../../database/database.js';
import type { SearchMethod } from '../../search/matcher.js';
import type { ControllerOptions } from '../controller/options.js';
import type { MotionMatchingController } from '../controller/controller.js';
import { CrowdSearchBatch, type BatchSearcher } from './batch.js';
import { DEFAULT_LOD_HYSTERESIS, DEFAULT_LOD_LEVELS, initialLodLevel, levelOptions, selectLodLevel, validateLodLevels, type LodLevel } from '../lod/levels.js';
import { LocalSearchBatch } from './local-batch.js';
import { BUDGET_BLOCK, rankByUrgency } from '../lod/search-budget.js';
import { QualityStats } from '../quality/metrics.js';

export interface CrowdLodOptions {
  /** Levels (default DEFAULT_LOD_LEVELS). */
  levels?: readonly LodLevel[];
  /** Hysteresis (m) around each boundary (default DEFAULT_LOD_HYSTERESIS). */
  hysteresis?: number;
}

/** What a crowd's levels and budget did (structured-cloneable: workers send it back). */
export interface LodCounts {
  /** Agent-steps spent at each level. */
  levelSteps: number[];
  /** Searches run at each level (full and local). */
  levelSearches: number[];
  fullSearches: number;
  localSearches: number;
  /** Local searches that ran as full ones (no candidate in the window). */
  localFallbacks: number;
  /** Searches put off by the budget (one per character and step). */
  deferred: number;
  levelChanges: number;
  /** The largest query age (s since the character's previous search) at which a search ran: the level's interval, plus any wait the budget added. */
  maxSearchAgeSeconds: number;
}

export function emptyLodCounts(levels: number): LodCounts {
  return { levelSteps: new Array<number>(levels).fill(0), levelSearches: new Array<number>(levels).fill(0), fullSearches: 0, localSearches: 0, localFallbacks: 0, deferred: 0, levelChanges: 0, maxSearchAgeSeconds: 0 };
}

export function mergeLodCounts(into: LodCounts, o: LodCounts): void {
  o.levelSteps.forEach((n, l) => { into.levelSteps[l] = (into.levelSteps[l] ?? 0) + n; });
  o.levelSearches.forEach((n, l) => { into.levelSearches[l] = (into.levelSearches[l] ?? 0) + n; });
  into.fullSearches += o.fullSearches;
  into.localSearches += o.localSearches;
  into.localFallbacks += o.localFallbacks;
  into.deferred += o.deferred;
  into.levelChanges += o.levelChanges;
  into.maxSearchAgeSeconds = Math.max(into.maxSearchAgeSeconds, o.maxSearchAgeSeconds);
}

export class CrowdLod {
  readonly levels: readonly LodLevel[];
  readonly hysteresis: number;
  /** Each level's controller options (level 0's is the crowd's own object). */
  readonly options: ControllerOptions[];
  /** Each character's level. */
  readonly level: Uint8Array;
  /** Each level's quality statistics (a crowd points its meters at them). */
  readonly levelStats: QualityStats[];
  readonly counts: LodCounts;
  private readonly chosen: Uint8Array;
  private readonly full: CrowdSearchBatch;
  private readonly local: LocalSearchBatch;
  // The due searches of the block being scheduled.
  private dueCount = 0;
  private dueOwners = new Int32Array(BUDGET_BLOCK);
  private dueForced = new Uint8Array(BUDGET_BLOCK);
  private dueAge = new Float64Array(BUDGET_BLOCK);
  private dueDeviation = new Float64Array(BUDGET_BLOCK);
  private order = new Int32Array(BUDGET_BLOCK);
  private keep = new Uint8Array(BUDGET_BLOCK);

  constructor(db: Database, base: ControllerOptions, count: number, method: SearchMethod, opts: CrowdLodOptions = {}) {
    this.levels = opts.levels ?? DEFAULT_LOD_LEVELS;
    this.hysteresis = opts.hysteresis ?? DEFAULT_LOD_HYSTERESIS;
    validateLodLevels(this.levels, this.hysteresis);
    this.options = levelOptions(base, this.levels);
    this.level = new Uint8Array(count);
    this.chosen = new Uint8Array(count);
    this.levelStats = this.levels.map(() => new QualityStats());
    this.counts = emptyLodCounts(this.levels.length);
    this.full = new CrowdSearchBatch(db.stride, method, BUDGET_BLOCK);
    this.local = new LocalSearchBatch(db, BUDGET_BLOCK);
  }

  /**
   * Character i's level for `distance` (m from the camera, divided by its importance: lod/levels.ts
   * lodDistance), switching its controller when the level changes. Call before its prepare().
   */
  choose(c: MotionMatchingController, i: number, distance: number): number {
    const was = this.level[i];
    let l: number;
    if (this.chosen[i] === 0) {
      this.chosen[i] = 1;
      l = initialLodLevel(this.levels, distance);
    } else {
      l = selectLodLevel(this.levels, was, distance, this.hysteresis);
      if (l !== was) this.counts.levelChanges++;
    }
    // The first choice always sets the level: the controller may come from another crowd's levels.
    if (l !== was || this.chosen[i] === 1) { c.setLevel(this.options[l], this.levels[l]); this.chosen[i] = 2; }
    this.level[i] = l;
    this.counts.levelSteps[l]++;
    return l;
  }

  /** The search method of full searches. */
  set method(method: SearchMethod) {
    this.full.method = method;
  }

  /** Characters at each level now (into `out`, one entry per level). */
  countLevels(out: number[]): number[] {
    out.length = this.levels.length;
    out.fill(0);
    for (let i = 0; i < this.level.length; i++) out[this.level[i]]++;
    return out;
  }

  /** Starts a block of characters, in ascending order (a budget's block: lod/search-budget.ts; or a whole crowd). */
  beginBlock(): void {
    this.full.begin();
    this.local.begin();
    this.dueCount = 0;
  }

  /** Character i's prepare() returned true. */
  due(c: MotionMatchingController, i: number): void {
    const k = this.dueCount++;
    if (k === this.dueOwners.length) this.grow(2 * k);
    this.dueOwners[k] = i;
    this.dueForced[k] = c.searchForced ? 1 : 0;
    // Age in units of the level's own search interval: a near character (0.1 s) that has waited
    // 0.2 s is more overdue than a far one (0.4 s) that has waited 0.4 s. Measured with plain
    // seconds, a budget of 500 searches a step for 5,000 agents cut the nearest level's searches
    // from 7.6 to 2.6 a second, while the far levels' barely changed.
    c.urgencyInto(this.dueAge, this.dueDeviation, k);
  }

  /**
   * Runs at most `share` of the block's due searches (Infinity: all), the most urgent, and defers
   * the others; stages the ones that run, local or full.
   */
  schedule(controllers: readonly MotionMatchingController[], share: number): void {
    const n = this.dueCount, keep = this.keep;
    if (share >= n) {
      keep.fill(1, 0, n);
    } else {
      keep.fill(0, 0, n);
      rankByUrgency(n, this.dueForced, this.dueAge, this.dueDeviation, this.order);
      for (let j = 0; j < share; j++) keep[this.order[j]] = 1;
    }
    for (let k = 0; k < n; k++) {
      const i = this.dueOwners[k], c = controllers[i];
      if (keep[k] === 0) {
        c.deferSearch();
        this.counts.deferred++;
        continue;
      }
      if (c.searchAge > this.counts.maxSearchAgeSeconds && c.searchCount > 0) this.counts.maxSearchAgeSeconds = c.searchAge;
      this.counts.levelSearches[this.level[i]]++;
      this.stage(c, i);
    }
  }

  private stage(c: MotionMatchingController, i: number): void {
    if (c.searchLocal) {
      if (this.local.tryAdd(c, i)) { this.counts.localSearches++; return; }
      this.counts.localFallbacks++;
    }
    this.full.add(c, i);
    this.counts.fullSearches++;
  }

  /**
   * Answers the block's staged searches (full ones, then local ones through the windowed kernel);
   * returns how many. With a searcher that answers later (a MatcherPool), one batch after the other.
   */
  search(searcher: BatchSearcher): number | Promise<number> {
    const n = this.full.count + this.local.count;
    const a = this.full.search(searcher);
    if (a instanceof Promise) return a.then(() => this.local.search(searcher)).then(() => n);
    const b = this.local.search(searcher);
    return b instanceof Promise ? b.then(() => n) : n;
  }

  private grow(n: number): void {
    const copy = <T extends Int32Array | Uint8Array | Float64Array>(a: T, make: (n: number) => T): T => { const b = make(n); b.set(a); return b; };
    this.dueOwners = copy(this.dueOwners, (m) => new Int32Array(m));
    this.dueForced = copy(this.dueForced, (m) => new Uint8Array(m));
    this.dueAge = copy(this.dueAge, (m) => new Float64Array(m));
    this.dueDeviation = copy(this.dueDeviation, (m) => new Float64Array(m));
    this.order = new Int32Array(n);
    this.keep = new Uint8Array(n);
  }

  /** Completes character i's step with its answer (none when it did not search). Ascending order. */
  finish(c: MotionMatchingController, i: number): void {
    if (!this.full.tryFinish(c, i) && !this.local.tryFinish(c, i)) c.complete(-1, Number.POSITIVE_INFINITY);
  }

  /** The quality statistics of every level merged (the crowd's whole figure). */
  mergedStats(): QualityStats {
    const all = new QualityStats();
    for (const s of this.levelStats) all.merge(s);
    return all;
  }
}
