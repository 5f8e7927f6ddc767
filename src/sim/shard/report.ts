/**
 * The partial report of one shard of a simulation (`motionmatch simulate --shard I/N`): what
 * `motionmatch merge` needs to rebuild the whole run's report, and what it needs to refuse shards
 * that do not belong together.
 *
 * - `run`: everything that decides the run's results or figures (version, seed, agents, duration,
 *   scenario, method, backend asked for, controller options, a fingerprint of the database
 *   contents, the terrain (kind and seed, or a CRC-32 of a height field's contents), the overlay
 *   settings, the level-of-detail settings, the shard count). Shards merge only when their `run` is
 *   identical.
 * - `agentHashes`: every agent's digest, in agent order. The whole run's hash is a digest over
 *   all agents' digests in order, which cannot be combined from per-shard digests, so they travel.
 * - `quality`: the shard's QualityStats, every field (src/sim/shard/quality.ts); the feet against
 *   the ground on a terrain are among them.
 * - `terrain`: the terrain as the whole-run report names it (a file's name is not part of `run`).
 * - `overlay`: with --overlay, the shard's OverlayStats and the overlay's description (mask
 *   joints, cost measured on the shard's machine).
 * - `lod`: with --lod, the shard's LodCounts and each level's QualityStats (encoded like `quality`).
 * - `result`: timings, search counts and a search-time histogram.
 * - `checksum`: CRC-32 of the report without it, so a damaged or edited file is refused.
 */
import type { Database } from '../../database/database.js';
import { QualityStats } from '../../runtime/quality/meter.js';
import { crc32 } from '../../util/crc32.js';
import { digestOfAgentHashes } from '../hash.js';
import { agentHashesInOrder, stepSearchTimes } from '../agents.js';
export { digestOfAgentHashes };
import type { AgentGroupsRun, SimulationOptions } from '../simulation.js';
import { SCENARIOS } from '../scenarios.js';
import { shardAgentRange, shardBlock, MAX_SHARDS, type ShardSpec } from './plan.js';
import { mergedGroupLod } from '../lod/report.js';
import { DEFAULT_LOD_HYSTERESIS, DEFAULT_LOD_LEVELS } from '../../runtime/lod/levels.js';
import { checkLodTable, lodTableJson, type LodTableJson } from '../lod/file.js';
import type { LodCounts } from '../../runtime/crowd/crowd-lod.js';
import { decodeQualityStats, encodeQualityStats, type EncodedField } from './quality.js';
import { timingHistogram, requireTimingHistogram, type TimingHistogram } from './timing.js';
import { decodeOverlayStats, encodeOverlayStats } from './quality.js';
import { OverlayStats } from '../overlay/metrics.js';
import type { OverlayDescription } from '../overlay/report.js';
import type { OverlaySimulation } from '../overlay/schedule.js';
import type { SearchTags } from '../search-tags.js';
import { TERRAIN_KINDS, terrainReport, type TerrainSpec } from '../terrain/terrain.js';
import { heightFieldToBinary } from '../terrain/file.js';
import { excerpt, jsonExcerpt, parseJsonInput } from '../../util/input-text.js';
import { checkJson, integerIn, numberIn, plainObject, saysLine, strictEntries, v } from '../../util/json-schema.js';
import { SEARCH_METHODS, BACKENDS } from '../../search/options.js';
import { DEFAULT_CONTROLLER_OPTIONS, resolveControllerOptions } from '../../runtime/controller/options.js';

export const PARTIAL_FORMAT = 'motionmatch-simulation-shard';
/**
 * 2: the run identity records the terrain and the overlay settings; overlay figures travel.
 * 3: the run identity records the level-of-detail settings; the levels' counts and quality travel.
 * 4: the level-of-detail settings include the level table and the hysteresis (`--lod-levels`).
 * 5: the run identity records the locomotion searches' tag filters (`--require-tag`, `--exclude-tag`).
 * 6: the result counts the local searches (controller option fullSearchInterval, levels of detail).
 */
export const PARTIAL_VERSION = 6;

/** The terrain as part of a run's identity: the procedural kind and seed, or what a height field holds. */
export type TerrainIdentity =
  | null
  | { kind: 'hills' | 'steps'; seed: number }
  /** A height field: CRC-32 of its binary form (layout and heights), whatever file it came from. */
  | { kind: 'file'; crc32: string; columns: number; rows: number };

/** What makes two shards parts of the same run. */
export interface RunIdentity {
  /** motionmatch version that ran the shard: another version may step agents differently. */
  motionmatch: string;
  agents: number;
  seconds: number;
  hz: number;
  steps: number;
  seed: number;
  scenario: string;
  method: string;
  /** The backend asked for ('auto' may resolve differently per machine; see result.backend). */
  backend: string;
  footIK: boolean;
  /** Controller options other than the defaults, or null. */
  controller: EncodedField;
  db: { fingerprint: string; frames: number; clips: number };
  /** The ground (null: flat). */
  terrain: TerrainIdentity;
  /** `--overlay` settings (null without overlays). */
  overlay: OverlaySimulation | null;
  /** `--lod` settings (null without levels of detail); a budget also decides the shards' ranges (shard/plan.ts shardBlock). */
  lod: ({ budget: number } & LodTableJson) | null;
  /** `--require-tag`/`--exclude-tag` as given (null without them; the overlay's own exclusion follows from `overlay`). */
  tags: SearchTags | null;
  shards: number;
}

export interface ShardResult {
  /** The backend the shard ran on. */
  backend: string;
  workers: number;
  wallSeconds: number;
  setupSeconds: number;
  warmupSeconds: number;
  searches: number;
  /** Of `searches`, the local ones (windowed around the playing frame). */
  localSearches: number;
  controllerMs: number;
  searchMs: number;
  /** Per-step search µs per query (see SimulationResult.searchUsMedian), binned. */
  searchUsHistogram: TimingHistogram;
  /** Digest of this shard's agentHashes (the whole run's hash when there is one shard). */
  shardHash: string;
  host: string;
  startedAt: string;
  finishedAt: string;
}

export interface PartialReport {
  format: typeof PARTIAL_FORMAT;
  version: number;
  run: RunIdentity;
  shard: { index: number; firstAgent: number; agents: number };
  /** Where the database came from (a path may differ per machine: not part of the run's identity). */
  db: { source: string };
  result: ShardResult;
  quality: Record<string, EncodedField>;
  /** The terrain as the whole-run report shows it (terrainReport), null on flat ground. */
  terrain: Record<string, unknown> | null;
  /** With overlays: how the report describes them, and the shard's overlay figures. */
  overlay: { description: OverlayDescription; stats: Record<string, EncodedField> } | null;
  /** With levels of detail: the shard's counts and each level's quality statistics (written like `quality`). */
  lod: { counts: LodCounts; levelStats: Array<Record<string, EncodedField>> } | null;
  agentHashes: string[];
  checksum: string;
}

/** A partial report read back: the report and its quality statistics as a QualityStats. */
export interface ParsedPartial {
  file: string;
  report: PartialReport;
  quality: QualityStats;
  /** The shard's overlay figures (null without overlays). */
  overlay: OverlayStats | null;
  /** The shard's level-of-detail counts and each level's quality (null without levels of detail). */
  lod: { counts: LodCounts; levelStats: QualityStats[] } | null;
}

/**
 * CRC-32 (hex) of the database's contents: every typed array of the database and its skeleton,
 * and the clip table without source paths. Equal databases built on different machines (or the
 * same .mmdb file at different paths) give equal fingerprints.
 */
export function databaseFingerprint(db: Database): string {
  let crc = 0;
  const addBytes = (b: Uint8Array) => { crc = crc32(b, 0, b.length, crc); };
  const addArrays = (o: object) => {
    for (const k of Object.keys(o).sort()) {
      const v = (o as Record<string, unknown>)[k];
      if (ArrayBuffer.isView(v)) addBytes(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    }
  };
  addArrays(db);
  addArrays(db.skeleton);
  const table = {
    fps: db.fps, frameCount: db.frameCount, dims: db.dims, stride: db.stride, tagNames: db.tagNames, roles: db.roles, joints: db.skeleton.names,
    clips: db.clips.map((c) => [c.name, c.start, c.count, c.loop, c.mirrored, c.tags]),
  };
  addBytes(new TextEncoder().encode(JSON.stringify(table)));
  return crc.toString(16).padStart(8, '0');
}

/** A terrain as it decides a run: a file's name does not, its contents do. */
export function terrainIdentity(t: TerrainSpec | null | undefined): TerrainIdentity {
  if (!t) return null;
  if (t.kind !== 'field') return { kind: t.kind, seed: t.seed };
  return { kind: 'file', crc32: crc32(heightFieldToBinary(t.field)).toString(16).padStart(8, '0'), columns: t.field.columns, rows: t.field.rows };
}

/** The run identity of a simulation with options `o`, on `db`, split into `shards`. */
export function runIdentity(db: Database, o: SimulationOptions, steps: number, shards: number, version: string): RunIdentity {
  return {
    motionmatch: version,
    agents: o.agents, seconds: o.seconds, hz: o.hz, steps, seed: o.seed, scenario: o.scenario, method: o.method, backend: o.backend, footIK: o.footIK,
    controller: o.controller ? (JSON.parse(JSON.stringify(o.controller)) as EncodedField) : null,
    db: { fingerprint: databaseFingerprint(db), frames: db.frameCount, clips: db.clips.length },
    terrain: terrainIdentity(o.terrain),
    overlay: o.overlay ? { tag: o.overlay.tag, mask: o.overlay.mask, mode: o.overlay.mode, every: [...o.overlay.every], duration: [...o.overlay.duration] } : null,
    lod: o.lod ? { budget: o.lod.budget, ...lodTableJson({ levels: [...(o.lod.levels ?? DEFAULT_LOD_LEVELS)], hysteresis: o.lod.hysteresis ?? DEFAULT_LOD_HYSTERESIS }) } : null,
    tags: o.tags ? { require: [...o.tags.require], exclude: [...o.tags.exclude] } : null,
    shards,
  };
}

/** The JSON text of a report, checksum last. */
function bodyText(r: Omit<PartialReport, 'checksum'>): string {
  return JSON.stringify(r);
}

function checksumOf(body: Omit<PartialReport, 'checksum'>): string {
  return crc32(new TextEncoder().encode(bodyText(body))).toString(16).padStart(8, '0');
}

export interface PartialContext {
  run: RunIdentity;
  shard: ShardSpec;
  source: string;
  host: string;
  startedAt: Date;
  finishedAt: Date;
  workers: number;
  /** The run's terrain (the one runIdentity recorded), for the report's `terrain`. */
  terrain?: TerrainSpec | null;
  /** With overlays: their description (overlay/report.ts describeOverlay), required then. */
  overlay?: OverlayDescription | null;
}

/** The partial report of a shard's run (its groups in agent order). */
export function partialReport(ctx: PartialContext, run: AgentGroupsRun): PartialReport {
  const stats = new QualityStats();
  const overlayStats = ctx.run.overlay ? new OverlayStats() : null;
  let searches = 0, localSearches = 0, controllerMs = 0, searchMs = 0;
  if (overlayStats && !ctx.overlay) throw new Error('partial report: the run has overlays but no overlay description was given');
  if (terrainIdentity(ctx.terrain) === null !== (ctx.run.terrain === null)) throw new Error('partial report: the terrain given is not the run identity\'s');
  for (const g of run.groups) {
    stats.merge(QualityStats.from(g.stats));
    if (overlayStats) {
      if (!g.overlay) throw new Error('partial report: the run has overlays but a group reported no overlay figures');
      overlayStats.merge(g.overlay);
    }
    searches += g.searches;
    localSearches += g.localSearches;
    controllerMs += g.controllerMs;
    searchMs += g.searchMs;
  }
  if (ctx.run.lod && run.groups.some((g) => !g.lod)) throw new Error('partial report: the run has levels of detail but a group reported no level figures');
  const lod = ctx.run.lod ? mergedGroupLod(run.groups, ctx.run.lod.levels.length) : null;
  const range = shardAgentRange(ctx.run.agents, ctx.shard, shardBlock(ctx.run.lod));
  const ordered = run.groups.length > 0 ? agentHashesInOrder(run.groups) : { first: -1, hashes: [] };
  const agentHashes = ordered.hashes;
  if (ordered.first !== range.first || agentHashes.length !== range.count) {
    throw new Error(`shard ${ctx.shard.index}/${ctx.shard.count}: the run stepped other agents than the shard's ${range.first}..${range.first + range.count - 1}`);
  }
  const body: Omit<PartialReport, 'checksum'> = {
    format: PARTIAL_FORMAT,
    version: PARTIAL_VERSION,
    run: ctx.run,
    shard: { index: ctx.shard.index, firstAgent: range.first, agents: range.count },
    db: { source: ctx.source },
    result: {
      backend: run.backend, workers: ctx.workers,
      wallSeconds: run.wallSeconds, setupSeconds: run.setupSeconds, warmupSeconds: run.warmupSeconds,
      searches, localSearches, controllerMs, searchMs,
      searchUsHistogram: timingHistogram(stepSearchTimes(run.groups)),
      shardHash: digestOfAgentHashes(agentHashes),
      host: ctx.host, startedAt: ctx.startedAt.toISOString(), finishedAt: ctx.finishedAt.toISOString(),
    },
    quality: encodeQualityStats(stats),
    terrain: terrainReport(ctx.terrain ?? null),
    overlay: overlayStats && ctx.overlay ? { description: ctx.overlay, stats: encodeOverlayStats(overlayStats) } : null,
    lod: lod ? { counts: lod.counts, levelStats: lod.levelStats.map((s, l) => encodeQualityStats(s, `lod.levelStats[${l}]`)) } : null,
    agentHashes,
  };
  return { ...body, checksum: checksumOf(body) };
}

/** A partial report as the text `simulate --shard` writes (one line of JSON and a newline). */
export function partialReportText(r: PartialReport): string {
  return JSON.stringify(r) + '\n';
}

// ---- reading back ----

/** A partial report that cannot be used; the message starts with the file name. */
export class PartialReportError extends Error {
  override readonly name = 'PartialReportError';
}

type Checker = (v: unknown, at: string) => void;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Nesting depth a partial report needs at most (its statistics and level table are the deepest). */
export const PARTIAL_MAX_JSON_DEPTH = 16;

/** Checks `o` has exactly `fields` (each checked), or `only` of them when given; an unknown key is an edited file. */
function expectFields(file: string, o: unknown, at: string, fields: Record<string, Checker>, extra: readonly string[] = []): void {
  if (!isObject(o)) throw new PartialReportError(`${file}: ${at} must be an object, got ${jsonExcerpt(o, 40)}`);
  for (const k of Object.keys(o)) {
    if (!Object.prototype.hasOwnProperty.call(fields, k) && !extra.includes(k)) {
      throw new PartialReportError(`${file}: ${at}.${excerpt(k, 40)} is not a field of a partial report (edited, or written by another motionmatch version)`);
    }
  }
  for (const [k, check] of Object.entries(fields)) {
    if (!(k in o)) throw new PartialReportError(`${file}: ${at}.${k} is missing`);
    check(o[k], `${at}.${k}`);
  }
}

// The shape of a partial report (valibot, util/json-schema.ts): every field that does not depend on
// another field's value. What does (a shard's agents against the run's, the terrain and overlay
// figures against the run's settings, the level counts against the steps) is checked after it.

const notAField = (at: string) => (k: string) => saysLine(`${at}.${k} is not a field of a partial report (edited, or written by another motionmatch version)`);
/** An object of exactly `entries` at `at` (an unknown key is an edited file). */
function fields<E extends v.ObjectEntries>(at: string, entries: E) {
  return v.pipe(plainObject(), strictEntries(entries, { unknown: notAField(at) }));
}
const MAX_INT = Number.MAX_SAFE_INTEGER;
const numberAtLeast = (min: number) => v.pipe(v.number(`a number >= ${min}`), v.finite(`a number >= ${min}`), v.minValue(min, `a number >= ${min}`));
/** A string of at most `max` characters (what the report prints is escaped; a huge one is an edit). */
const textUpTo = (max: number) => v.pipe(v.string(`a string of at most ${max} characters`), v.maxLength(max, `a string of at most ${max} characters`));
const oneOf = <T extends string>(allowed: readonly T[]) => v.picklist(allowed, `one of ${allowed.join(', ')}`);
const hex = (digits: number) => v.pipe(v.string(`${digits} hex digits`), v.regex(new RegExp(`^[0-9a-f]{${digits}}$`), `${digits} hex digits`));
const TIME = 'a time as simulate writes it (e.g. 2026-01-31T12:00:00.000Z)';
const time = v.pipe(v.string(TIME), v.maxLength(40, TIME), v.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/, TIME), v.check((t) => !Number.isNaN(Date.parse(t)), TIME));
const seed = integerIn(-(2 ** 31), 2 ** 32 - 1);
/** Tag names as --require-tag/--exclude-tag give them (a database has at most 32 tags). */
const tagList = v.custom<string[]>((x) => Array.isArray(x) && x.length <= 64 && x.every((t) => typeof t === 'string' && t.length > 0 && t.length <= 256), 'a list of at most 64 tag names');
const range2 = v.custom<[number, number]>((x) => Array.isArray(x) && x.length === 2 && x.every((t) => typeof t === 'number' && Number.isFinite(t) && t >= 0 && t <= 86_400) && x[0] <= x[1], '[min, max] seconds');
const TERRAIN_IDENTITY_KEYS = ['kind', 'crc32', 'columns', 'rows', 'seed'];
const terrainIdentityShape = v.nullable(v.pipe(
  plainObject(),
  // An unknown key first (as every object of the report), then the fields of the kind.
  v.check((t) => Object.keys(t).every((k) => TERRAIN_IDENTITY_KEYS.includes(k)), (issue) => notAField('run.terrain')(excerpt(Object.keys(issue.input as object).find((k) => !TERRAIN_IDENTITY_KEYS.includes(k)) ?? '', 40))),
  v.variant('kind', [
    strictEntries({ kind: v.literal('file'), crc32: hex(8), columns: integerIn(2, 1_000_000), rows: integerIn(2, 1_000_000) }, { unknown: notAField('run.terrain') }),
    strictEntries({ kind: oneOf(TERRAIN_KINDS), seed }, { unknown: notAField('run.terrain') }),
  ], `one of ${TERRAIN_KINDS.join(', ')}, file`),
));

/** A partial report's fields, each of its JSON type and range (those that depend on no other field). */
export const PartialReportShape = v.pipe(plainObject(), strictEntries({
  format: v.literal(PARTIAL_FORMAT),
  version: v.literal(PARTIAL_VERSION),
  run: fields('run', {
    motionmatch: v.pipe(v.string('a version such as 1.2.3'), v.regex(/^[0-9A-Za-z.+-]{1,64}$/, 'a version such as 1.2.3')),
    agents: integerIn(1, 1_000_000),
    seconds: v.pipe(v.number('a number of seconds in (0, 86400]'), v.gtValue(0, 'a number of seconds in (0, 86400]'), v.maxValue(86_400, 'a number of seconds in (0, 86400]')),
    hz: numberIn(1, 1000),
    steps: integerIn(1, MAX_INT),
    seed,
    scenario: oneOf(SCENARIOS),
    method: oneOf(SEARCH_METHODS),
    backend: oneOf(BACKENDS),
    footIK: v.boolean('true or false'),
    controller: v.unknown(), // checked by the controller's own rules, below
    db: fields('run.db', { fingerprint: hex(8), frames: integerIn(1, MAX_INT), clips: integerIn(1, MAX_INT) }),
    terrain: terrainIdentityShape,
    overlay: v.nullable(fields('run.overlay', { tag: textUpTo(256), mask: textUpTo(1024), mode: oneOf(['override', 'additive']), every: range2, duration: range2 })),
    lod: v.nullable(fields('run.lod', { budget: integerIn(0, 100_000_000), levels: v.unknown(), hysteresis: v.unknown() })), // the table: checkLodTable
    tags: v.nullable(fields('run.tags', { require: tagList, exclude: tagList })),
    shards: integerIn(1, MAX_SHARDS),
  }),
  shard: v.unknown(), // its ranges are the run's: below
  db: fields('db', { source: textUpTo(4096) }),
  result: fields('result', {
    backend: oneOf(BACKENDS.filter((b) => b !== 'auto')), workers: integerIn(1, 64),
    wallSeconds: numberAtLeast(0), setupSeconds: numberAtLeast(0), warmupSeconds: numberAtLeast(0), searches: integerIn(0, MAX_INT), localSearches: integerIn(0, MAX_INT),
    controllerMs: numberAtLeast(0), searchMs: numberAtLeast(0), searchUsHistogram: v.unknown(), shardHash: hex(16), host: textUpTo(255), startedAt: time, finishedAt: time,
  }),
  quality: v.unknown(), // decodeQualityStats
  terrain: v.unknown(), // as run.terrain says: below
  overlay: v.unknown(),
  lod: v.unknown(),
  agentHashes: v.unknown(),
  checksum: v.string(),
}, { unknown: notAField('report'), missing: (k) => `report.${k} is missing` }));

/** Reads and checks one partial report; throws PartialReportError naming the file and what is wrong. */
export function parsePartialReport(source: string, file: string): ParsedPartial {
  const raw = parseJsonInput(source, file, (m) => new PartialReportError(m), { maxDepth: PARTIAL_MAX_JSON_DEPTH, what: 'not a partial report: ', invalid: 'invalid JSON' });
  if (!isObject(raw) || raw.format !== PARTIAL_FORMAT) {
    const what = isObject(raw) && 'hash' in raw && 'agents' in raw ? ' (it looks like a whole-run report: run simulate with --shard I/N)' : '';
    throw new PartialReportError(`${file}: not a partial simulation report (format "${PARTIAL_FORMAT}" expected)${what}`);
  }
  if (raw.version !== PARTIAL_VERSION) {
    throw new PartialReportError(`${file}: partial report format version ${jsonExcerpt(raw.version, 20)}; this motionmatch reads version ${PARTIAL_VERSION}`);
  }
  if (typeof raw.checksum !== 'string') throw new PartialReportError(`${file}: checksum is missing`);
  const { checksum, ...body } = raw;
  if (checksumOf(body as Omit<PartialReport, 'checksum'>) !== checksum) {
    throw new PartialReportError(`${file}: checksum mismatch: the file was changed after simulate wrote it (edited, reformatted or damaged)`);
  }
  const fail = (msg: string): never => { throw new PartialReportError(`${file}: ${msg}`); };
  const int = (min: number, max: number): Checker => (v, at) => { if (!(Number.isInteger(v) && (v as number) >= min && (v as number) <= max)) fail(`${at} must be an integer in [${min}, ${max}], got ${jsonExcerpt(v, 40)}`); };
  const num = (min: number, max = Number.MAX_VALUE): Checker => (v, at) => { if (!(typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max)) fail(max === Number.MAX_VALUE ? `${at} must be a number >= ${min}, got ${jsonExcerpt(v, 40)}` : `${at} must be a number in [${min}, ${max}], got ${jsonExcerpt(v, 40)}`); };
  /** A string of at most `max` characters (what the report prints is escaped; a huge one is an edit). */
  const text = (max: number): Checker => (v, at) => { if (typeof v !== 'string' || v.length > max) fail(`${at} must be a string of at most ${max} characters, got ${jsonExcerpt(v, 40)}`); };
  const str = text(4096);
  const oneOf = (allowed: readonly unknown[]): Checker => (v, at) => { if (!allowed.includes(v)) fail(`${at} must be one of ${allowed.join(', ')}, got ${jsonExcerpt(v, 40)}`); };
  const hex16: Checker = (v, at) => { if (typeof v !== 'string' || !/^[0-9a-f]{16}$/.test(v)) fail(`${at} must be 16 hex digits, got ${jsonExcerpt(v, 40)}`); };
  const any: Checker = () => {};
  const controller: Checker = (v, at) => {
    if (v === null) return;
    if (!isObject(v)) fail(`${at} must be null or an object of controller options, got ${jsonExcerpt(v, 40)}`);
    const defaults = DEFAULT_CONTROLLER_OPTIONS as unknown as Record<string, unknown>;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (!Object.prototype.hasOwnProperty.call(defaults, k)) fail(`${at}.${excerpt(k, 40)} is not a controller option`);
      if (typeof x !== typeof defaults[k] || (typeof x === 'number' && !Number.isFinite(x))) fail(`${at}.${k} must be a ${typeof defaults[k]}${typeof defaults[k] === 'number' ? ' (finite)' : ''}, got ${jsonExcerpt(x, 40)}`);
    }
    try { resolveControllerOptions({ ...(v as object) }); } catch (e) { fail(`${at}: ${excerpt((e as Error).message, 200)}`); }
  };
  checkJson(PartialReportShape, raw, file, (m) => new PartialReportError(m));
  controller((raw.run as Record<string, unknown>).controller, 'run.controller');
  const lodSettings = (raw.run as Record<string, unknown>).lod as LodTableJson | null;
  if (lodSettings !== null) {
    try { checkLodTable({ levels: lodSettings.levels, hysteresis: lodSettings.hysteresis }, 'run.lod'); } catch (e) { fail((e as Error).message); }
  }
  const run = raw.run as unknown as RunIdentity;
  // simulate steps round(seconds x hz) times (sim/agents.ts stepCount).
  if (run.steps !== Math.round(run.seconds * run.hz)) fail(`run.steps (${run.steps}) is not run.seconds x run.hz (${run.seconds} s at ${run.hz} Hz: ${Math.round(run.seconds * run.hz)} steps)`);
  expectFields(file, raw.shard, 'shard', { index: int(0, run.shards - 1), firstAgent: int(0, run.agents - 1), agents: int(1, run.agents) });
  try { requireTimingHistogram((raw.result as Record<string, unknown>).searchUsHistogram, 'result.searchUsHistogram'); } catch (e) { fail((e as Error).message); }
  const shard = raw.shard as PartialReport['shard'];
  const block = shardBlock(run.lod);
  const blocks = Math.ceil(run.agents / block);
  if (run.shards > blocks) {
    fail(block === 1 ? `run.shards (${run.shards}) exceeds run.agents (${run.agents})` : `run.shards (${run.shards}) exceeds the run's ${blocks} blocks of ${block} agents (a search budget is shared out per block)`);
  }
  const range = shardAgentRange(run.agents, { index: shard.index, count: run.shards }, block);
  if (shard.firstAgent !== range.first || shard.agents !== range.count) {
    fail(`shard ${shard.index}/${run.shards} of ${run.agents} agents must hold agents ${range.first}..${range.first + range.count - 1}, not ${shard.firstAgent}..${shard.firstAgent + shard.agents - 1}`);
  }
  const hashes = raw.agentHashes;
  if (!Array.isArray(hashes) || hashes.length !== shard.agents) fail(`agentHashes must list the shard's ${shard.agents} agents`);
  (hashes as unknown[]).forEach((h, i) => hex16(h, `agentHashes[${i}]`));
  const report = raw as unknown as PartialReport;
  if (digestOfAgentHashes(report.agentHashes) !== report.result.shardHash) fail('result.shardHash does not match agentHashes');
  if (report.result.localSearches > report.result.searches) fail(`result.localSearches (${report.result.localSearches}) exceeds result.searches (${report.result.searches})`);
  if ((raw.terrain === null) !== (run.terrain === null) || (raw.terrain !== null && !isObject(raw.terrain))) fail(`terrain must be ${run.terrain === null ? 'null (the run is on flat ground)' : 'an object (the run has a terrain)'}`);
  if (run.terrain !== null) {
    // The terrain as the report shows it: a procedural one is its identity; a height field's name and layout.
    const t = run.terrain;
    const same = (want: unknown): Checker => (v, at) => { if (v !== want) fail(`${at} must be ${jsonExcerpt(want, 40)} (run.terrain says so), got ${jsonExcerpt(v, 40)}`); };
    if (t.kind === 'file') {
      const coord = num(-1e9, 1e9);
      expectFields(file, raw.terrain, 'terrain', { kind: same('file'), file: str, columns: same(t.columns), rows: same(t.rows), spacing: (v, at) => { if (!(typeof v === 'number' && v > 0 && v <= 1e6)) fail(`${at} must be a number of metres > 0, got ${jsonExcerpt(v, 40)}`); }, originX: coord, originZ: coord, edges: oneOf(['clamp', 'repeat']) });
    } else {
      expectFields(file, raw.terrain, 'terrain', { kind: same(t.kind), seed: same(t.seed) });
    }
  }
  if (run.overlay === null && raw.overlay !== null) fail('overlay must be null (the run has no overlays)');
  if (run.overlay !== null) {
    const o = run.overlay;
    const same = (want: unknown): Checker => (v, at) => { if (JSON.stringify(v) !== JSON.stringify(want)) fail(`${at} must be ${jsonExcerpt(want, 40)} (as run.overlay), got ${jsonExcerpt(v, 40)}`); };
    const cost = num(0, 1e9);
    expectFields(file, raw.overlay, 'overlay', {
      description: (v, at) => expectFields(file, v, at, {
        tag: same(o.tag), mode: same(o.mode), every: same(o.every), duration: same(o.duration),
        mask: (m, a) => expectFields(file, m, a, { spec: same(o.mask), label: text(1024), joints: (j, aj) => { if (!Array.isArray(j) || j.length > 100_000 || !j.every((n) => typeof n === 'string' && n.length <= 1024)) fail(`${aj} must be a list of joint names`); } }),
        costUsPlaying: cost, costUsFading: cost, costUsSwitching: cost, costUsEntrySearch: cost,
      }),
      stats: any,
    });
  }
  if (run.lod === null && raw.lod !== null) fail('lod must be null (the run has no levels of detail)');
  if (run.lod !== null) requireLodCounts(raw.lod, run.lod.budget, run.lod.levels.length, shard.agents * run.steps, report.result.searches, { int, num, fail, expect: (o, at, fields) => expectFields(file, o, at, fields) });
  let quality: QualityStats;
  let overlay: OverlayStats | null = null;
  let lod: ParsedPartial['lod'] = null;
  try {
    quality = decodeQualityStats(raw.quality, file);
    if (quality.steps !== shard.agents * run.steps) fail(`quality.steps (${quality.steps}) is not the shard's ${shard.agents} agents x ${run.steps} steps`);
    if (run.overlay !== null) overlay = decodeOverlayStats((raw.overlay as { stats: unknown }).stats, file);
    if (run.lod !== null) {
      const encoded = raw.lod as { counts: LodCounts; levelStats: unknown[] };
      lod = { counts: encoded.counts, levelStats: encoded.levelStats.map((s, l) => decodeQualityStats(s, file, `lod.levelStats[${l}]`)) };
    }
  } catch (e) {
    if (e instanceof PartialReportError) throw e;
    throw new PartialReportError((e as Error).message);
  }
  return { file, report, quality, overlay, lod };
}

interface LodCheckers {
  int: (min: number, max: number) => Checker;
  num: (min: number) => Checker;
  fail: (msg: string) => never;
  expect: (o: unknown, at: string, fields: Record<string, Checker>) => void;
}

/**
 * Throws (through `c.fail`) unless `lod` is a shard's level-of-detail section: counts for every
 * level that add up to the shard's `agentSteps` and `searches`, no deferrals without a budget, and
 * a list of every level's statistics (their fields are checked when decoded).
 */
function requireLodCounts(lod: unknown, budget: number, levels: number, agentSteps: number, searches: number, c: LodCheckers): void {
  const count = c.int(0, Number.MAX_SAFE_INTEGER);
  const perLevel: Checker = (v, at) => {
    if (!Array.isArray(v) || v.length !== levels) c.fail(`${at} must list ${levels} levels`);
    (v as unknown[]).forEach((x, l) => count(x, `${at}[${l}]`));
  };
  c.expect(lod, 'lod', { counts: () => {}, levelStats: (v, at) => { if (!Array.isArray(v) || v.length !== levels) c.fail(`${at} must list ${levels} levels`); } });
  const counts = (lod as { counts: unknown }).counts;
  c.expect(counts, 'lod.counts', {
    levelSteps: perLevel, levelSearches: perLevel, fullSearches: count, localSearches: count, localFallbacks: count, deferred: count, levelChanges: count, maxSearchAgeSeconds: c.num(0),
  });
  const n = counts as LodCounts;
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
  if (sum(n.levelSteps) !== agentSteps) c.fail(`lod.counts.levelSteps add up to ${sum(n.levelSteps)} agent-steps, not the shard's ${agentSteps}`);
  // Every search the levels ran is either full or local, and is one of the shard's searches.
  if (n.fullSearches + n.localSearches !== searches) c.fail(`lod.counts: ${n.fullSearches} full + ${n.localSearches} local searches, not the shard's ${searches} (result.searches)`);
  if (sum(n.levelSearches) !== searches) c.fail(`lod.counts.levelSearches add up to ${sum(n.levelSearches)}, not the shard's ${searches} searches (result.searches)`);
  if (budget === 0 && n.deferred !== 0) c.fail(`lod.counts.deferred must be 0 without a search budget, got ${n.deferred}`);
}
