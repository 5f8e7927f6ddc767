import type { Matcher, SearchMethod, SearchOptions, SearchResult } from '../search/matcher.js';
import type { PoseSearchPort, PoseSearchRequest, PoseSearchResult } from './search-port.js';

/**
 * Answers a controller's searches with a Matcher (one query per call). Options and result objects
 * are reused, so a search allocates nothing on the host side.
 */
export class MatcherSearchPort implements PoseSearchPort {
  private readonly range: [number, number] = [0, 0];
  private readonly ranges: Array<readonly [number, number]> = [this.range];
  private readonly none: Array<readonly [number, number]> = [];
  private readonly opts: SearchOptions;
  private readonly res: SearchResult = { frame: -1, clip: -1, clipTime: 0, cost: 0 };

  constructor(readonly matcher: Matcher, public method: SearchMethod = 'kdtree') {
    this.opts = { method, normalized: true, bestCost: Infinity, excludeRanges: this.ranges };
  }

  searchPose(request: PoseSearchRequest, out: PoseSearchResult): void {
    const o = this.opts;
    o.method = this.method;
    o.bestCost = request.bestCost;
    this.range[0] = request.excludeStart;
    this.range[1] = request.excludeEnd;
    o.excludeRanges = request.excludeEnd > request.excludeStart ? this.ranges : this.none;
    o.requireTags = request.requireTags ?? undefined;
    o.excludeTags = request.excludeTags ?? undefined;
    this.matcher.search(request.query, o, this.res);
    out.frame = this.res.frame;
    out.cost = this.res.cost;
  }
}
