/**
 * One cell's result in a coverage report (coverage.ts): its best match, nearest clips, run figures
 * and verdict. On its own so that coverage.ts and requests.ts (which ranks the cells) do not
 * import each other.
 */
import type { CoverageCell } from './grid.js';
import type { CoverageVerdict } from './measures.js';

export interface NearestClip {
  clip: number;
  name: string;
  mirrored: boolean;
  tags: string[];
  /** Best cost of the clip's frames against the ideal query, and where in the clip (s). */
  cost: number;
  time: number;
}

export interface CoverageCellResult extends CoverageCell {
  /** Best cost of the ideal query over the trajectory columns (the search's units). */
  bestCost: number;
  bestFrame: number;
  nearest: NearestClip[];
  /** Controller run figures (null with costOnly). */
  trajectoryErrorCm: number | null;
  facingErrorDeg: number | null;
  footSkateCmPerSec: number | null;
  transitionsPerSec: number | null;
  /** The clip the run played most (null with costOnly). */
  playedClip: string | null;
  verdict: CoverageVerdict;
}
