/**
 * Coverage of a database: for every steady request of the grid (tools/coverage/grid.ts), the best
 * trajectory match of its ideal query (tools/coverage/query.ts) and a short controller run under it
 * (tools/coverage/run.ts), with a verdict per cell and the worst cells as capture requests
 * (tools/coverage/requests.ts). Browser-safe: the demo computes small reports in the page.
 *
 * CoverageComputation does one cell per call so that a page can spread the work over frames; the
 * CLI simply loops (computeCoverage).
 */
import type { Database } from '../../database/database.js';
import { resolveControllerOptions, type ControllerOptions } from '../../runtime/controller/options.js';
import type { PoseSearchPort } from '../../runtime/search-port.js';
import { databaseRuntime } from '../../runtime/database-runtime.js';
import { playbackQuality } from '../../runtime/quality/playback-quality.js';
import { coverageGrid, databaseTopSpeed, describeCell, type CoverageGrid, type CoverageGridOptions } from './grid.js';
import { allowedFrames, bestTrajectoryMatch, idealTrajectoryQuery, trajectoryColumns } from './query.js';
import { DEFAULT_CELL_RUN, runCell, type CellRunOptions } from './run.js';
import { captureRequests, type CaptureRequest } from './requests.js';
import { COVERAGE_MEASURES, cellVerdict, type CoverageVerdict } from './measures.js';
import type { CoverageCellResult, NearestClip } from './cell-result.js';

export type { CoverageCellResult, NearestClip } from './cell-result.js';

export const COVERAGE_REPORT_VERSION = 1;

export interface CoverageOptions extends CoverageGridOptions {
  /** Controller options for the runs and the ideal query's half-lives (default: the defaults). */
  controller?: Partial<ControllerOptions>;
  run?: Partial<Omit<CellRunOptions, 'requireTags' | 'excludeTags'>>;
  /** Only frames with all of these tags / none of these (the runs' inputs ask the same). */
  requireTags?: readonly string[];
  excludeTags?: readonly string[];
  /** Skip the controller runs (best costs only: fast, for a first look). */
  costOnly?: boolean;
  /** Nearest clips listed per cell (default 3). */
  nearestClips?: number;
  /** Capture requests listed (default 12). */
  requests?: number;
  /** What to call the database in the report. */
  name?: string;
}

export interface CoverageReport {
  version: number;
  database: { name: string; frames: number; clips: number; mirrored: boolean; tags: string[]; topSpeed: number; groups: Record<string, number> };
  settings: {
    speeds: number[]; directions: number; turnRates: number[];
    run: CellRunOptions | null;
    requireTags: string[]; excludeTags: string[];
    controller: Record<string, unknown>;
  };
  grid: { speeds: number[]; directions: number[]; turnRates: number[] };
  measures: typeof COVERAGE_MEASURES;
  cells: CoverageCellResult[];
  requests: CaptureRequest[];
  /** Cells per verdict. */
  summary: Record<CoverageVerdict, number>;
  seconds: number;
}

/** Whether the database holds left/right mirrored copies (`build --mirror`). */
export function isMirrored(db: Database): boolean {
  return db.clips.some((c) => c.mirrored);
}

export class CoverageComputation {
  readonly grid: CoverageGrid;
  readonly cells: CoverageCellResult[] = [];
  private readonly options: ControllerOptions;
  private readonly columns: Int32Array;
  private readonly allowed: Uint8Array;
  private readonly run: CellRunOptions;
  private readonly t0 = performanceNow();

  constructor(readonly db: Database, private readonly search: PoseSearchPort | null, readonly o: CoverageOptions = {}) {
    if (!search && !o.costOnly) throw new Error('coverage: controller runs need a search (or ask for costOnly)');
    this.grid = coverageGrid(db, o);
    this.options = resolveControllerOptions({ ...o.controller });
    this.columns = trajectoryColumns(db);
    if (this.columns.length === 0) throw new RangeError('coverage: the database schema has no trajectory groups, so requests cannot be matched');
    this.allowed = allowedFrames(db, o.requireTags, o.excludeTags);
    if (!this.allowed.some((a) => a === 1)) throw new RangeError('coverage: no search candidate carries the requested tags');
    const run = { ...DEFAULT_CELL_RUN, ...o.run };
    if (!(Number.isFinite(run.hz) && run.hz >= 5 && run.hz <= 240)) throw new RangeError(`coverage: run hz must be in [5, 240], got ${run.hz}`);
    if (!(run.warmupSeconds >= 0 && run.warmupSeconds <= 60)) throw new RangeError(`coverage: warm-up must be in [0, 60] s, got ${run.warmupSeconds}`);
    if (!(run.measureSeconds > 0 && run.measureSeconds <= 60)) throw new RangeError(`coverage: measured seconds must be in (0, 60], got ${run.measureSeconds}`);
    this.run = { ...run, requireTags: o.requireTags?.length ? [...o.requireTags] : null, excludeTags: o.excludeTags?.length ? [...o.excludeTags] : null };
  }

  get cellCount(): number {
    return this.grid.cells.length;
  }

  get done(): boolean {
    return this.cells.length === this.grid.cells.length;
  }

  private dataSkateAll = Number.NaN;

  /** The data's own skate over every step at the runs' rate (plain playback), computed once. */
  private dataSkate(): number {
    if (Number.isNaN(this.dataSkateAll)) this.dataSkateAll = this.o.costOnly || !this.search ? 0 : playbackQuality(this.db, this.run.hz).skateAllCmPerSec;
    return this.dataSkateAll;
  }

  /** Computes the next cell; returns false when every cell is done. */
  step(): boolean {
    if (this.done) return false;
    const cell = this.grid.cells[this.cells.length];
    const db = this.db, rt = databaseRuntime(db);
    const query = idealTrajectoryQuery(db, cell, this.options);
    const match = bestTrajectoryMatch(db, query, this.columns, this.allowed, rt.clipOf);
    const order = Array.from(match.clipCosts.keys()).filter((c) => Number.isFinite(match.clipCosts[c])).sort((a, b) => match.clipCosts[a] - match.clipCosts[b] || a - b);
    const nearest = order.slice(0, this.o.nearestClips ?? 3).map((c): NearestClip => {
      const clip = db.clips[c];
      return { clip: c, name: clip.name, mirrored: clip.mirrored, tags: [...clip.tags], cost: match.clipCosts[c], time: (match.clipFrames[c] - clip.start) / db.fps };
    });
    const run = this.o.costOnly || !this.search ? null : runCell(db, cell, match.frame, this.search, this.options, this.run);
    const result: CoverageCellResult = {
      ...cell,
      bestCost: match.cost, bestFrame: match.frame, nearest,
      trajectoryErrorCm: run?.trajectoryErrorCm ?? null,
      facingErrorDeg: run?.facingErrorDeg ?? null,
      footSkateCmPerSec: run?.footSkateCmPerSec ?? null,
      transitionsPerSec: run?.transitionsPerSec ?? null,
      playedClip: run && run.mainClip >= 0 ? db.clips[run.mainClip].name + (db.clips[run.mainClip].mirrored ? ' (mirrored)' : '') : null,
      verdict: 'covered',
    };
    result.verdict = cellVerdict({ ...result, dataSkateCmPerSec: this.dataSkate() });
    this.cells.push(result);
    return !this.done;
  }

  report(): CoverageReport {
    if (!this.done) throw new Error(`coverage: ${this.cells.length} of ${this.cellCount} cells computed`);
    const db = this.db;
    const summary: Record<CoverageVerdict, number> = { covered: 0, thin: 0, uncovered: 0 };
    for (const c of this.cells) summary[c.verdict]++;
    const controller: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(this.o.controller ?? {})) if (typeof v !== 'function') controller[k] = v;
    const groups: Record<string, number> = {};
    for (const g of db.schema.groups) groups[g.name] = g.weight;
    return {
      version: COVERAGE_REPORT_VERSION,
      database: { name: this.o.name ?? 'database', frames: db.frameCount, clips: db.clips.length, mirrored: isMirrored(db), tags: [...db.tagNames], topSpeed: round(databaseTopSpeed(db), 3), groups },
      settings: {
        speeds: this.grid.speeds.slice(1), directions: this.grid.directions.length, turnRates: this.grid.turnRates.filter((r) => r >= 0),
        run: this.o.costOnly ? null : this.run,
        requireTags: [...(this.o.requireTags ?? [])], excludeTags: [...(this.o.excludeTags ?? [])],
        controller,
      },
      grid: { speeds: this.grid.speeds, directions: this.grid.directions, turnRates: this.grid.turnRates },
      measures: COVERAGE_MEASURES,
      cells: this.cells,
      requests: captureRequests(this.cells, { mirrored: isMirrored(db), limit: this.o.requests ?? 12 }),
      summary,
      seconds: (performanceNow() - this.t0) / 1000,
    };
  }
}

/** Every cell, one after the other; `onProgress(done, total, label)` after each. */
export function computeCoverage(db: Database, search: PoseSearchPort | null, o: CoverageOptions = {}, onProgress?: (done: number, total: number, label: string) => void): CoverageReport {
  const c = new CoverageComputation(db, search, o);
  while (!c.done) {
    c.step();
    onProgress?.(c.cells.length, c.cellCount, describeCell(c.cells[c.cells.length - 1]));
  }
  return c.report();
}

function round(x: number, digits: number): number {
  const k = 10 ** digits;
  return Math.round(x * k) / k;
}

function performanceNow(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
