/**
 * The worst cells of a coverage report as capture requests: what to record next, in words a
 * capture session can act on ("sidestep right at 0.8–1.5 m/s: at 1.5 m/s best match cost 43.2,
 * trajectory error 50 cm; nearest clips: ..."). Cells of one motion — the same gait and direction
 * family (tools/coverage/grid.ts motionName), any turn rate — are one request. Mirroring counts: in a
 * mirrored database the two sides of a motion are one request (capturing one side brings the
 * other), and in a database built without --mirror a hole whose mirror image is covered says so
 * (rebuilding with --mirror fills it).
 */
import { describeCell, motionName, wrapDegrees } from './grid.js';
import { UNCOVERED_COST, coverageMeasure, costScale, type CoverageVerdict } from './measures.js';
import type { CoverageCellResult, NearestClip } from './cell-result.js';

export interface CaptureRequest {
  /** The request in one line. */
  text: string;
  /** "sidestep right", "backward walk", "turn in place", ... */
  motion: string;
  /** Speeds (m/s), directions (degrees) and turn rates (degrees per second) of the cells it stands for. */
  speeds: number[];
  directions: number[];
  turnRates: number[];
  verdict: Exclude<CoverageVerdict, 'covered'>;
  /** The cell the figures come from (the worst straight one when there is one, else the worst). */
  cell: number;
  speed: number;
  direction: number;
  turnRate: number;
  bestCost: number;
  trajectoryErrorCm: number | null;
  facingErrorDeg: number | null;
  footSkateCmPerSec: number | null;
  nearest: NearestClip[];
  /** Set when the database has no mirrored copies and the mirror image of the motion is covered. */
  mirrorHint: string | null;
  /** Indices of the cells this request stands for. */
  cells: number[];
  /** Ranking score (higher is worse): the worst cell's cost over the uncovered level at its speed. */
  score: number;
}

export interface CaptureRequestOptions {
  /** The database holds mirrored copies. */
  mirrored: boolean;
  /** Requests returned at most (default 12). */
  limit?: number;
}

/** How far a cell is from covered: its best cost over the uncovered level at its speed (>= 1: uncovered). */
export function cellBadness(c: Pick<CoverageCellResult, 'bestCost' | 'speed'>): number {
  return c.bestCost / (UNCOVERED_COST * costScale(c.speed));
}

/** Worse first: higher badness, then the larger trajectory error. */
function worse(a: CoverageCellResult, b: CoverageCellResult): number {
  return cellBadness(b) - cellBadness(a) || (b.trajectoryErrorCm ?? 0) - (a.trajectoryErrorCm ?? 0) || a.index - b.index;
}

function nearestText(n: readonly NearestClip[]): string {
  return n.map((c) => `${c.name}${c.mirrored ? ' (mirrored)' : ''} ${c.cost.toFixed(2)}`).join(', ');
}

/** "0.7–1.4 m/s", "90°/s": `unit` follows the number as given (with its own space, if any). */
function rangeText(values: readonly number[], digits: number, unit: string): string {
  const lo = Math.min(...values), hi = Math.max(...values);
  return lo === hi ? `${lo.toFixed(digits)}${unit}` : `${lo.toFixed(digits)}–${hi.toFixed(digits)}${unit}`;
}

/** The motion a cell belongs to; in a mirrored database a right-hand motion counts as its left-hand mirror. */
function motionOf(c: CoverageCellResult, mirrored: boolean): string {
  if (c.speed === 0) return 'turn in place';
  const d = wrapDegrees(c.direction);
  return motionName(c.speed, mirrored && d < 0 && d !== -180 ? -d : d);
}

/** Groups the uncovered and thin cells by motion and ranks the groups, worst first. */
export function captureRequests(cells: readonly CoverageCellResult[], o: CaptureRequestOptions): CaptureRequest[] {
  const byKey = new Map<string, CoverageCellResult>();
  for (const c of cells) byKey.set(`${c.speed}|${wrapDegrees(c.direction)}|${c.turnRate}`, c);
  const mirrorOf = (c: CoverageCellResult): CoverageCellResult | undefined => byKey.get(`${c.speed}|${wrapDegrees(-c.direction)}|${-c.turnRate}`);
  const groups = new Map<string, CoverageCellResult[]>();
  for (const c of cells) {
    if (c.verdict === 'covered') continue;
    const k = motionOf(c, o.mirrored);
    const g = groups.get(k);
    if (g) g.push(c); else groups.set(k, [c]);
  }
  const out: CaptureRequest[] = [];
  for (const [motionKey, g] of groups) {
    g.sort(worse);
    const worst = g[0];
    const rep = g.find((c) => c.turnRate === 0) ?? worst;
    const verdict: CaptureRequest['verdict'] = g.some((c) => c.verdict === 'uncovered') ? 'uncovered' : 'thin';
    const speeds = [...new Set(g.map((c) => c.speed))].sort((a, b) => a - b);
    const directions = [...new Set(g.map((c) => wrapDegrees(c.direction)))].sort((a, b) => a - b);
    const turnRates = [...new Set(g.map((c) => c.turnRate))].sort((a, b) => a - b);
    let motion = motionKey;
    if (o.mirrored && rep.speed > 0 && directions.some((d) => d < 0 && d !== -180) && directions.some((d) => d > 0 && d !== 180)) {
      const side = motionKey.endsWith('left') ? 'right' : motionKey.endsWith('right') ? 'left' : null;
      if (side) motion = `${motionKey} (or ${side}: mirroring makes the other side)`;
    }
    let mirrorHint: string | null = null;
    if (!o.mirrored && rep.speed > 0) {
      const m = mirrorOf(rep);
      if (m && m.verdict === 'covered') mirrorHint = `its mirror image (${describeCell(m)}) is covered: rebuilding with --mirror fills it`;
    }
    const turning = turnRates.filter((r) => r !== 0).map(Math.abs);
    let headline: string;
    if (rep.speed === 0) {
      headline = turnRates.includes(0)
        ? `standing still${turning.length ? ` and turning in place (up to ${Math.max(...turning)}°/s)` : ''}`
        : `turning in place (${rangeText(turning, 0, '°/s')})`;
    } else {
      const turnText = turning.length === 0 ? '' : turnRates.includes(0) ? `, also turning (up to ${Math.max(...turning)}°/s)` : `, when turning (${rangeText(turning, 0, '°/s')})`;
      headline = `${motion} at ${rangeText(speeds, 1, ' m/s')}${turnText}`;
    }
    const figures = [`best match cost ${rep.bestCost.toFixed(2)}`];
    if (rep.trajectoryErrorCm !== null) figures.push(`trajectory error ${rep.trajectoryErrorCm.toFixed(0)} cm`);
    if (rep.facingErrorDeg !== null) figures.push(`facing error ${rep.facingErrorDeg.toFixed(0)}°`);
    if (rep.footSkateCmPerSec !== null) figures.push(`foot skate ${rep.footSkateCmPerSec.toFixed(1)} ${coverageMeasure('footSkateCmPerSec').unit}`);
    // Which of the cells the figures are from, when the request stands for several.
    const repTurn = rep.turnRate === 0 ? '' : `turning ${rep.turnRate > 0 ? 'left' : 'right'} ${Math.abs(rep.turnRate)}°/s`;
    const at = rep.speed === 0 ? (repTurn ? `${repTurn}: ` : '') : speeds.length > 1 || turnRates.length > 1 ? `at ${rep.speed.toFixed(1)} m/s${repTurn ? `, ${repTurn}` : ''}: ` : '';
    const text = `${headline} — ${at}${figures.join(', ')}; nearest clips: ${nearestText(rep.nearest) || 'none'}${mirrorHint ? ` (${mirrorHint})` : ''}`;
    out.push({
      text, motion, speeds, directions, turnRates, verdict,
      cell: rep.index, speed: rep.speed, direction: wrapDegrees(rep.direction), turnRate: rep.turnRate,
      bestCost: rep.bestCost, trajectoryErrorCm: rep.trajectoryErrorCm, facingErrorDeg: rep.facingErrorDeg, footSkateCmPerSec: rep.footSkateCmPerSec,
      nearest: rep.nearest, mirrorHint, cells: g.map((c) => c.index).sort((a, b) => a - b), score: cellBadness(worst),
    });
  }
  out.sort((a, b) => (a.verdict === b.verdict ? 0 : a.verdict === 'uncovered' ? -1 : 1) || b.score - a.score || a.speed - b.speed || a.direction - b.direction);
  return out.slice(0, o.limit ?? 12);
}
