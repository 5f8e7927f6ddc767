/**
 * Partial reports of the shards of one simulation combined into the report of the whole run: the
 * same fields as `simulate --json`, the same hash as the run without --shard, plus one entry per
 * shard. Shards of different runs, duplicates and gaps are refused with a one-line reason.
 */
import { QualityStats } from '../../runtime/quality/meter.js';
import { headlineFigures, type SimulationResult } from '../simulation.js';
import { digestOfAgentHashes, PartialReportError, type ParsedPartial, type RunIdentity } from './report.js';
import { addTimingHistograms, timingQuantile, type TimingHistogram } from './timing.js';
import { OverlayStats } from '../overlay/metrics.js';
import type { SearchTags } from '../search-tags.js';
import { overlayFiguresOf, type OverlayDescription, type OverlayFigures } from '../overlay/report.js';
import { lodReportOf, type LodReport } from '../lod/report.js';
import { lodCamera } from '../lod/camera.js';
import { emptyLodCounts, mergeLodCounts } from '../../runtime/crowd/crowd-lod.js';
import { checkLodTable } from '../lod/file.js';
import { DEFAULT_CONTROLLER_OPTIONS } from '../../runtime/controller/options.js';
import { escapeControlChars } from '../../util/input-text.js';

export interface ShardSummary {
  index: number;
  /** Agents [firstAgent, firstAgent + agents). */
  firstAgent: number;
  agents: number;
  file: string;
  host: string;
  backend: string;
  workers: number;
  wallSeconds: number;
  setupSeconds: number;
  agentStepsPerSec: number;
  startedAt: string;
  finishedAt: string;
}

export type MergedReport = Omit<SimulationResult, 'recording' | 'overlayStats'> & {
  db: { source: string; frames: number; clips: number; fingerprint: string };
  /** The terrain as `simulate --json` reports it (null on flat ground). */
  terrain: Record<string, unknown> | null;
  /** `--require-tag`/`--exclude-tag` as given (absent without them), as `simulate --json` reports them. */
  tags?: SearchTags;
  exported: null;
  /** With overlays: the figures of all shards' agents, as `simulate --json` reports them. */
  overlay?: OverlayFigures;
  /** motionmatch version that ran the shards. */
  motionmatch: string;
  /** Sum over shards of their stepping time (the machine time the run took, setup excluded). */
  shardWallSecondsTotal: number;
  shards: ShardSummary[];
};

/** The first path at which two JSON-like values differ, with both values, or null when equal. */
function firstDifference(a: unknown, b: unknown, path: string): { path: string; a: unknown; b: unknown } | null {
  if (a === b) return null;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return { path, a, b };
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], Array.isArray(a) ? `${path}[${k}]` : `${path}.${k}`);
    if (d) return d;
  }
  return null;
}

const WHAT: Partial<Record<string, string>> = {
  'run.motionmatch': 'motionmatch versions', 'run.seed': 'seeds', 'run.agents': 'agent counts', 'run.shards': 'shard counts',
  'run.scenario': 'scenarios', 'run.seconds': 'durations', 'run.hz': 'step rates', 'run.db.fingerprint': 'databases',
  'run.terrain': 'terrains', 'run.overlay': 'overlay settings', 'run.lod': 'level-of-detail settings', 'run.tags': 'tag filters',
};

/** A value for a one-line message: its JSON, cut at 80 characters (a level table is longer), controls escaped. */
function shortJson(v: unknown): string {
  const text = escapeControlChars(JSON.stringify(v) ?? String(v));
  return text.length <= 80 ? text : `${text.slice(0, 77)}...`;
}

/** What a difference at `path` is called: its own name, else its nearest named parent's (run.terrain.seed: terrains). */
function whatDiffers(path: string): string {
  for (let p = path; p.includes('.'); p = p.slice(0, p.lastIndexOf('.'))) {
    const name = WHAT[p];
    if (name !== undefined) return p === path ? name : `${name}, ${path.slice(p.length + 1)}`;
  }
  return path;
}

/** Throws unless `p` is a shard of the same run as `first` (the same run identity). */
export function requireSameRun(first: ParsedPartial, p: ParsedPartial): void {
  if (first.report.run === p.report.run) return;
  const d = firstDifference(first.report.run, p.report.run, 'run');
  if (d) {
    const what = whatDiffers(d.path);
    throw new PartialReportError(`${p.file} and ${first.file} are shards of different runs (${what}: ${shortJson(d.b)} vs ${shortJson(d.a)})`);
  }
}

/** Throws unless every partial is a shard of the same run, each shard exactly once. */
export function requireCompleteRun(parts: readonly ParsedPartial[]): void {
  if (parts.length === 0) throw new PartialReportError('no partial reports to merge');
  const first = parts[0];
  for (const p of parts.slice(1)) requireSameRun(first, p);
  const count = first.report.run.shards;
  const byIndex = new Map<number, ParsedPartial>();
  for (const p of parts) {
    const other = byIndex.get(p.report.shard.index);
    if (other) throw new PartialReportError(`${other.file} and ${p.file} are both shard ${p.report.shard.index}/${count}`);
    byIndex.set(p.report.shard.index, p);
  }
  const missing: number[] = [];
  for (let i = 0; i < count; i++) if (!byIndex.has(i)) missing.push(i);
  if (missing.length > 0) {
    const list = missing.length > 10 ? `${missing.slice(0, 10).join(', ')}, ... (${missing.length} in all)` : missing.join(', ');
    throw new PartialReportError(`shard${missing.length > 1 ? 's' : ''} ${list} of ${count} missing (got ${parts.length} partial report${parts.length > 1 ? 's' : ''})`);
  }
}

/**
 * The overlay description of the first shard with each cost the lowest any shard measured (each is
 * already a best of rounds: the least disturbed machine's figure).
 */
function fastestOverlayCost(parts: readonly ParsedPartial[]): OverlayDescription {
  const all = parts.map((p) => p.report.overlay!.description);
  const least = (k: 'costUsPlaying' | 'costUsFading' | 'costUsSwitching' | 'costUsEntrySearch') => Math.min(...all.map((d) => d[k]));
  return { ...all[0], costUsPlaying: least('costUsPlaying'), costUsFading: least('costUsFading'), costUsSwitching: least('costUsSwitching'), costUsEntrySearch: least('costUsEntrySearch') };
}

/**
 * The `lod` section of the whole run, as `simulate --json --lod` reports it: the shards' counts
 * added up (exact) and each level's statistics merged in shard order; the camera, budget and the
 * level-0 search interval come from the run identity, as the unsharded run takes them from its options.
 */
function mergedLodReport(run: RunIdentity, counts: ReturnType<typeof emptyLodCounts>, levelStats: QualityStats[]): LodReport {
  const { levels, hysteresis } = checkLodTable({ levels: run.lod!.levels, hysteresis: run.lod!.hysteresis }, 'run.lod');
  return lodReportOf(counts, levelStats, lodCamera(run.seed, run.agents), run.lod!.budget, 1 / run.hz, controllerSearchInterval(run), levels, hysteresis);
}

/** The level-0 search interval of the run: its controller options' (recorded in the identity), else the default. */
function controllerSearchInterval(run: RunIdentity): number {
  const c = run.controller;
  const own = c !== null && typeof c === 'object' && !Array.isArray(c) ? (c as Record<string, unknown>).searchInterval : undefined;
  return typeof own === 'number' ? own : DEFAULT_CONTROLLER_OPTIONS.searchInterval;
}

/** The backend(s) the shards ran on: one name, or the distinct names joined with '+'. */
function backends(parts: readonly ParsedPartial[]): string {
  return [...new Set(parts.map((p) => p.report.result.backend))].sort().join('+');
}

/** What a shard's report holds that is large (statistics, the timing histogram): read when merged. */
export interface PartialStats {
  quality: QualityStats;
  overlay: OverlayStats | null;
  /** Each level's statistics (empty without levels of detail). */
  levelStats: QualityStats[];
  histogram: TimingHistogram;
}

/** A parsed partial's statistics (the default: they are in memory). */
function statsInMemory(p: ParsedPartial): PartialStats {
  return { quality: p.quality, overlay: p.overlay, levelStats: p.lod?.levelStats ?? [], histogram: p.report.result.searchUsHistogram };
}

/**
 * The report of the whole run. `statsOf` gives each shard's statistics, asked once per shard in
 * shard order (default: the parsed partial's own); `merge` reads them again file by file, so that
 * only one shard's statistics are in memory at a time. Timings: `wallSeconds` is the slowest shard's (the run's duration
 * when all shards run at once) and `agentStepsPerSec` the whole run's agent-steps over it;
 * `shardWallSecondsTotal` sums them. Quality statistics add up in shard order, so floating-point
 * sums may differ from an unsharded run's in the last digits; counts and the hash are exact.
 */
export function mergePartialReports(parts: readonly ParsedPartial[], statsOf: (p: ParsedPartial) => PartialStats = statsInMemory): MergedReport {
  requireCompleteRun(parts);
  const ordered = [...parts].sort((a, b) => a.report.shard.index - b.report.shard.index);
  const run: RunIdentity = ordered[0].report.run;
  const stats = new QualityStats();
  const overlayStats = run.overlay ? new OverlayStats() : null;
  const hashes: string[] = [];
  let searches = 0, localSearches = 0, controllerMs = 0, searchMs = 0, wallSeconds = 0, setupSeconds = 0, warmupSeconds = 0, wallTotal = 0, workers = 0;
  const shards: ShardSummary[] = [];
  const lodCounts = run.lod ? emptyLodCounts(run.lod.levels.length) : null;
  const levelStats = run.lod ? run.lod.levels.map(() => new QualityStats()) : [];
  let histogram: TimingHistogram = [];
  for (const p of ordered) {
    const r = p.report.result;
    const s = statsOf(p);
    stats.merge(s.quality);
    if (overlayStats && s.overlay) overlayStats.merge(s.overlay);
    if (lodCounts && p.lod) mergeLodCounts(lodCounts, p.lod.counts);
    s.levelStats.forEach((x, l) => levelStats[l].merge(x));
    histogram = addTimingHistograms([histogram, s.histogram]);
    for (const h of p.report.agentHashes) hashes.push(h);
    searches += r.searches;
    localSearches += r.localSearches;
    controllerMs += r.controllerMs;
    searchMs += r.searchMs;
    wallSeconds = Math.max(wallSeconds, r.wallSeconds);
    setupSeconds = Math.max(setupSeconds, r.setupSeconds);
    warmupSeconds = Math.max(warmupSeconds, r.warmupSeconds);
    wallTotal += r.wallSeconds;
    workers += r.workers;
    shards.push({
      index: p.report.shard.index, firstAgent: p.report.shard.firstAgent, agents: p.report.shard.agents, file: p.file, host: r.host,
      backend: r.backend, workers: r.workers, wallSeconds: r.wallSeconds, setupSeconds: r.setupSeconds,
      agentStepsPerSec: (p.report.shard.agents * run.steps) / Math.max(r.wallSeconds, 1e-9),
      startedAt: r.startedAt, finishedAt: r.finishedAt,
    });
  }
  const q = stats.report();
  return {
    agents: run.agents, seconds: run.seconds, hz: run.hz, steps: run.steps, workers, scenario: run.scenario, seed: run.seed, method: run.method,
    backend: backends(ordered),
    wallSeconds, setupSeconds, warmupSeconds,
    agentStepsPerSec: (run.agents * run.steps) / Math.max(wallSeconds, 1e-9),
    searches,
    localSearches,
    searchesPerSec: searches / Math.max(wallSeconds, 1e-9),
    searchUsMedian: timingQuantile(histogram, 0.5),
    searchUsP99: timingQuantile(histogram, 0.99),
    ...headlineFigures(q),
    hash: digestOfAgentHashes(hashes),
    quality: q,
    searchShare: searchMs / Math.max(searchMs + controllerMs, 1e-9),
    db: { source: ordered[0].report.db.source, frames: run.db.frames, clips: run.db.clips, fingerprint: run.db.fingerprint },
    terrain: ordered[0].report.terrain,
    ...(run.tags ? { tags: run.tags } : {}),
    exported: null,
    ...(overlayStats ? { overlay: overlayFiguresOf(fastestOverlayCost(ordered), overlayStats) } : {}),
    ...(run.lod && lodCounts ? { lod: mergedLodReport(run, lodCounts, levelStats) } : {}),
    motionmatch: run.motionmatch,
    shardWallSecondsTotal: wallTotal,
    shards,
  };
}
