/**
 * A crowd's local searches (ControllerOptions.fullSearchInterval, levels of detail): the requests of
 * characters asking for a local search go through the windowed kernel, each over its own window
 * around its playing frame (lod/local-search.ts); a window without a candidate leaves the request
 * to the crowd's full batch. Full and local batches then both answer, and each character is
 * completed from the batch that staged it (CrowdSearchBatch.tryFinish).
 */
import type { Database } from '../../database/database.js';
import type { MotionMatchingController } from '../controller/controller.js';
import { LOCAL_EXCLUDED_RANGES, LocalSearchWindow } from '../lod/local-search.js';
import { CrowdSearchBatch, type BatchSearcher } from './batch.js';
import type { BatchResult } from '../../search/matcher.js';

export class LocalSearchBatch {
  private readonly batch: CrowdSearchBatch;
  private readonly window: LocalSearchWindow;
  private readonly pairs = new Int32Array(2 * LOCAL_EXCLUDED_RANGES);

  constructor(db: Database, capacity = 64) {
    this.batch = new CrowdSearchBatch(db.stride, 'window', capacity);
    this.batch.searchRanges = [[0, db.frameCount]];
    this.window = new LocalSearchWindow(db);
  }

  /** Local searches staged since begin(). */
  get count(): number {
    return this.batch.count;
  }

  begin(): void {
    this.batch.begin();
  }

  /**
   * Stages character `owner`'s local search (its controller's searchLocal is set; owners ascending)
   * and returns true; returns false, with searchLocal cleared, when its window holds no candidate:
   * the caller stages a full search instead.
   */
  tryAdd(c: MotionMatchingController, owner: number): boolean {
    const r = c.request;
    const n = this.window.exclusions(c.frame, c.localSearchFrames, r.excludeStart, r.excludeEnd, this.pairs);
    if (n < 0) { c.searchLocal = false; return false; }
    this.batch.addExcluding(c, owner, this.pairs, n);
    return true;
  }

  search(searcher: BatchSearcher): BatchResult | Promise<BatchResult> {
    return this.batch.search(searcher);
  }

  /** Completes `owner`'s step with its local answer when it was staged here (see CrowdSearchBatch.tryFinish). */
  tryFinish(c: MotionMatchingController, owner: number): boolean {
    return this.batch.tryFinish(c, owner);
  }
}
