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
}

export interface PoseSearchResult {
  frame: number;
  cost: number;
}

export interface PoseSearchPort {
  searchPose(request: PoseSearchRequest, out: PoseSearchResult): void;
}
