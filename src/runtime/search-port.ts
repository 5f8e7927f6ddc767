/**
 * What the controller needs from a search backend. The Matcher (WASM or JS) implements it; a
 * crowd can instead collect every character's query and answer them in one batch, then hand the
 * results back through MotionMatchingController.complete().
 */
export interface PoseSearchRequest {
  /** Normalised query (stride floats). */
  query: Float32Array;
  /** Only a frame strictly cheaper than this is returned (the continuing pose's cost). */
  bestCost: number;
  /** Frames [start, end) that must not be returned (the current clip around the playing frame). */
  excludeStart: number;
  excludeEnd: number;
  requireTags: readonly string[] | null;
  excludeTags: readonly string[] | null;
  /**
   * A local search (ControllerOptions.fullSearchInterval, levels of detail): the playing frame whose
   * window (±localHalfFrames frames, and the neighbouring clips: runtime/lod/local-search.ts) is
   * searched; -1: a full search. A port may always answer with a full search instead (the answer is
   * then as good or better) and says which it did in PoseSearchResult.local.
   */
  localFrame: number;
  localHalfFrames: number;
}

export interface PoseSearchResult {
  frame: number;
  cost: number;
  /** Whether the answer came from a local search (the controller sets false before asking). */
  local: boolean;
}

export interface PoseSearchPort {
  searchPose(request: PoseSearchRequest, out: PoseSearchResult): void;
}
