/**
 * The local search of a level of detail (runtime/lod/levels.ts): between full searches a character scans
 * only a window of ±N frames around its playing frame and the whole of its clip's neighbouring clips
 * (the clips before and after it in the database: a folder's takes of one performer and style sit
 * next to each other), through the windowed brute-force kernel (search method 'window'). The batch
 * search takes per-query *excluded* ranges, so the window is given as its complement within the
 * database, together with the request's own exclusion (the playing clip around the playing frame).
 *
 * A window can hold no allowed frame (a short clip with no candidates beside the excluded ones): the
 * search would then throw. `exclusions` counts the window's candidates first, from a prefix sum, and
 * reports false so that the crowd runs a full search instead.
 */
import type { Database } from '../../database/database.js';
import { frameClipTable } from '../../database/frame-clips.js';

/** Excluded ranges a local search needs at most: four gaps around three window pieces, and the request's own. */
export const LOCAL_EXCLUDED_RANGES = 5;

export class LocalSearchWindow {
  private readonly rows: number;
  /** prefix[f] = candidate frames in [0, f). */
  private readonly prefix: Int32Array;
  private readonly clipOf: Int32Array;
  private readonly clipStart: Int32Array;
  private readonly clipEnd: Int32Array;
  /** The window's pieces (pairs, sorted by start) while `exclusions` runs. */
  private readonly pieces = new Int32Array(6);

  constructor(db: Database) {
    const rows = (this.rows = db.frameCount);
    this.prefix = new Int32Array(rows + 1);
    for (let f = 0; f < rows; f++) this.prefix[f + 1] = this.prefix[f] + (db.candidates[f] ? 1 : 0);
    this.clipOf = frameClipTable(db);
    this.clipStart = Int32Array.from(db.clips, (c) => c.start);
    this.clipEnd = Int32Array.from(db.clips, (c) => c.start + c.count);
  }

  /**
   * Writes into `out` (pairs) the ranges a local search around `frame` with half-width `half`
   * frames must exclude: everything outside the window, and [excludeStart, excludeEnd). Returns the
   * number of pairs, or -1 when the window holds no candidate outside [excludeStart, excludeEnd).
   */
  exclusions(frame: number, half: number, excludeStart: number, excludeEnd: number, out: Int32Array): number {
    const c = this.clipOf[frame];
    if (c < 0) return -1;
    const p = this.pieces;
    let n = 0;
    // The clip before, the window in the playing clip, the clip after (in frame order when the
    // database's clips are stored in order; otherwise sorted below).
    if (c > 0) { p[0] = this.clipStart[c - 1]; p[1] = this.clipEnd[c - 1]; n = 1; }
    p[2 * n] = Math.max(this.clipStart[c], frame - half);
    p[2 * n + 1] = Math.min(this.clipEnd[c], frame + half + 1);
    n++;
    if (c + 1 < this.clipStart.length) { p[2 * n] = this.clipStart[c + 1]; p[2 * n + 1] = this.clipEnd[c + 1]; n++; }
    sortPieces(p, n);
    let candidates = 0;
    for (let k = 0; k < n; k++) {
      const s = p[2 * k], e = p[2 * k + 1];
      candidates += this.prefix[e] - this.prefix[s];
      const xs = Math.max(s, excludeStart), xe = Math.min(e, excludeEnd);
      if (xe > xs) candidates -= this.prefix[xe] - this.prefix[xs];
    }
    if (candidates === 0) return -1;
    let m = 0, at = 0;
    for (let k = 0; k < n; k++) {
      if (p[2 * k] > at) { out[2 * m] = at; out[2 * m + 1] = p[2 * k]; m++; }
      at = Math.max(at, p[2 * k + 1]);
    }
    if (at < this.rows) { out[2 * m] = at; out[2 * m + 1] = this.rows; m++; }
    if (excludeEnd > excludeStart) { out[2 * m] = excludeStart; out[2 * m + 1] = excludeEnd; m++; }
    return m;
  }
}

/** Insertion sort of n (≤ 3) pairs by start. */
function sortPieces(p: Int32Array, n: number): void {
  for (let i = 1; i < n; i++) {
    const s = p[2 * i], e = p[2 * i + 1];
    let j = i - 1;
    while (j >= 0 && p[2 * j] > s) { p[2 * j + 2] = p[2 * j]; p[2 * j + 3] = p[2 * j + 1]; j--; }
    p[2 * j + 2] = s; p[2 * j + 3] = e;
  }
}
