import type { Matcher, SearchMethod, SearchOptions, SearchResult } from '../search/matcher.js';
import { SEARCH_METHODS } from '../search/options.js';
import type { PoseSearchPort, PoseSearchRequest, PoseSearchResult } from './search-port.js';
import { LOCAL_EXCLUDED_RANGES, LocalSearchWindow } from './lod/local-search.js';

/**
 * Answers a controller's searches with a Matcher (one query per call): full searches with `method`,
 * local ones (request.localFrame >= 0) with the windowed kernel over the window around the playing
 * frame (lod/local-search.ts), or in full when the window holds no candidate. Options, ranges and
 * result objects are reused, so a search allocates nothing on the host side.
 */
export class MatcherSearchPort implements PoseSearchPort {
  private readonly range: [number, number] = [0, 0];
  private readonly ranges: Array<readonly [number, number]> = [this.range];
  private readonly none: Array<readonly [number, number]> = [];
  private readonly opts: SearchOptions;
  private readonly res: SearchResult = { frame: -1, clip: -1, clipTime: 0, cost: 0 };
  /** The local search's window (made at the first local search), its excluded pairs and their tuples. */
  private window: LocalSearchWindow | null = null;
  private readonly pairs = new Int32Array(2 * LOCAL_EXCLUDED_RANGES);
  private readonly windowExcluded: Array<[number, number]> = Array.from({ length: LOCAL_EXCLUDED_RANGES }, (): [number, number] => [0, 0]);
  private readonly windowList: Array<readonly [number, number]> = [];
  private readonly everything: Array<readonly [number, number]>;

  constructor(readonly matcher: Matcher, public method: SearchMethod = 'kdtree') {
    // A method the matcher does not have failed only at the first search, inside a character's update.
    if (!SEARCH_METHODS.includes(method)) throw new RangeError(`MatcherSearchPort: unknown search method '${String(method)}' (expected ${SEARCH_METHODS.join(', ')})`);
    this.opts = { method, normalized: true, bestCost: Infinity, excludeRanges: this.ranges };
    this.everything = [[0, matcher.db.frameCount]];
  }

  searchPose(request: PoseSearchRequest, out: PoseSearchResult): void {
    const o = this.opts;
    o.bestCost = request.bestCost;
    o.requireTags = request.requireTags ?? undefined;
    o.excludeTags = request.excludeTags ?? undefined;
    out.local = request.localFrame >= 0 && this.stageLocal(request);
    if (!out.local) {
      o.method = this.method;
      o.ranges = undefined;
      this.range[0] = request.excludeStart;
      this.range[1] = request.excludeEnd;
      o.excludeRanges = request.excludeEnd > request.excludeStart ? this.ranges : this.none;
    }
    this.matcher.search(request.query, o, this.res);
    out.frame = this.res.frame;
    out.cost = this.res.cost;
  }

  /** Sets the options for a local search of `request`; false when its window holds no candidate (a full search then). */
  private stageLocal(request: PoseSearchRequest): boolean {
    const w = (this.window ??= new LocalSearchWindow(this.matcher.db));
    const n = w.exclusions(request.localFrame, request.localHalfFrames, request.excludeStart, request.excludeEnd, this.pairs);
    if (n < 0) return false;
    const list = this.windowList;
    list.length = 0;
    for (let k = 0; k < n; k++) {
      const t = this.windowExcluded[k];
      t[0] = this.pairs[2 * k]; t[1] = this.pairs[2 * k + 1];
      list.push(t);
    }
    const o = this.opts;
    o.method = 'window';
    o.ranges = this.everything;
    o.excludeRanges = list;
    return true;
  }
}
