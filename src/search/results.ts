/**
 * What a search answers: a frame and its cost, frame -1 when nothing beat bestCost, or an error.
 * Two situations have no answer and throw instead: no frame is allowed at all
 * (EmptyCandidateSetError), and the query is so far from every allowed frame that its float32
 * cost overflows (RangeError naming the dimension, see query.ts).
 */

export interface SearchResult {
  /** Database frame, or -1 when nothing beat bestCost. */
  frame: number;
  /** Index into db.clips, or -1. */
  clip: number;
  /** Seconds from the clip's first frame. */
  clipTime: number;
  /** Cost of `frame` (float32), or bestCost when frame is -1. */
  cost: number;
}

export interface BatchResult {
  frames: Int32Array;
  costs: Float32Array;
}

/** Thrown when no frame at all is allowed (tags, ranges and candidates exclude everything). */
export class EmptyCandidateSetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmptyCandidateSetError';
  }
}
