import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { hostname } from 'node:os';
import { tuneJitForCrowds } from '../../util/jit-node.js';
import { figureText } from '../../util/figure-text.js';
import { parseCommandArgs, integerOption, numberOption, UsageError } from '../args.js';
import { readDatabaseArgument } from '../database-file.js';
import { runAgentGroups, runSimulation, type SimulationOptions, type SimulationResult } from '../../sim/simulation.js';
import { stepCount } from '../../sim/agents.js';
import { parseShardSpec, shardAgentRange, shardBlock, ShardSpecError, type ShardSpec } from '../../sim/shard/plan.js';
import { partialReport, partialReportText, runIdentity } from '../../sim/shard/report.js';
import { nodePackageRoot } from '../../search/wasm/load.js';
import { FileAccessError, writeFileAtomic } from '../../util/files-node.js';
import { checkOutputFile } from '../output-file.js';
import { oneLineWorkerErrors } from '../worker-error.js';
import type { Database } from '../../database/database.js';
import { SCENARIOS, type ScenarioName } from '../../sim/scenarios.js';
import { recordingToClip } from '../../sim/export.js';
import { writeBvh } from '../../import/bvh/write.js';
import { createProgress } from '../../util/progress.js';
import type { SearchMethod, Backend } from '../../search/matcher.js';
import { readSettingsFile } from '../../sim/settings/options-file-node.js';
import { applySchemaWeights } from '../../sim/settings/options-file.js';
import { TERRAIN_KINDS, describeTerrain, terrainReport, type TerrainSpec } from '../../sim/terrain/terrain.js';
import { readTerrainOption } from '../../sim/terrain/file-node.js';
import { overlaySimulation, type OverlaySimulation } from '../../sim/overlay/schedule.js';
import { describeOverlay, overlayFiguresOf, overlayText } from '../../sim/overlay/report.js';
import type { SimulationLod } from '../../sim/agents.js';
import { lodText } from '../../sim/lod/report.js';
import { readLodTableFile } from '../../sim/lod/file-node.js';
import { BUDGET_BLOCK } from '../../runtime/lod/search-budget.js';
import { TAG_OPTIONS, searchTagsOption, tagOptionsUsage } from '../tag-options.js';
import { checkSearchTags, searchTagsText } from '../../sim/search-tags.js';
import { builtinDatabase } from '../builtin-database.js';

export const SIMULATE_USAGE = `usage: motionmatch simulate [--db FILE] [--agents N] [--seconds S] [--hz H] [--seed K]
                            [--workers W] [--scenario wander|path|stop-go|strafe|mixed]
                            [--method kdtree|aabb|brute] [--backend auto|wasm-simd|wasm-scalar|js]
                            [--no-ik] [--no-warmup] [--export-bvh FILE --agent I] [--terrain hills|steps|FILE]
                            [--shard I/N | --shard auto/N] [--out FILE] [--json]
                            [--overlay TAG [--overlay-mask SPEC] [--overlay-mode override|additive]]
                            [--lod [--search-budget N] [--lod-levels FILE]]
                            [--require-tag TAG ...] [--exclude-tag TAG ...]

  Runs N headless agents, each with its own motion matching controller, driven by seeded scripted
  inputs, stepped at H Hz with every step's searches answered in one batch. Deterministic: the same
  seed gives the same hash with any number of workers. Default database: the built-in one.
  --workers W        threads doing agent work (W > 1 share the database in shared WASM memory)
  --no-warmup        time the first steps too: by default every thread first steps 128 throwaway
                     agents for one simulated second, so that the timed steps run optimised code
                     (its time is reported as warmupSeconds, inside setupSeconds)
  --export-bvh FILE  write agent I's motion as BVH (with --agent I, default 0)
  --shard I/N        run only shard I (0..N-1) of the agents (a contiguous, balanced range) and write a
                     partial report (--json on stdout, or --out FILE); \`motionmatch merge\` combines the
                     N partial reports into the whole run's report, with the same hash as without --shard;
                     with --lod --search-budget, shards are cut in blocks of ${BUDGET_BLOCK} agents (N <= blocks)
  --shard auto/N     the same, with I from $JOB_COMPLETION_INDEX (set by Kubernetes Indexed Jobs)
  --out FILE         write the JSON report (with --shard: the partial report) to FILE, atomically
  --options FILE     engine settings: controller options and feature-group weights (JSON, as
                     \`motionmatch tune\` writes them; docs/tuning.md)
  --terrain T        walk on uneven ground: hills (slopes up to 30°) or steps (10-25 cm), seeded
                     with --seed, or FILE, a height field (JSON or binary, docs/terrain.md); the
                     report adds the feet's error against the ground (any --workers, --shard)
  --overlay TAG      every agent plays overlays of the frames tagged TAG (e.g. wave, from
                     \`build --tag wave=*wave*\`) over its locomotion on a seeded schedule; the report
                     gains the overlay figures (docs/overlays.md); any --workers, --shard.
  --overlay-mask SPEC  the joints the overlay takes over: upper[:N] (default upper:2), arms[:N],
                     NAME[,NAME...][:N] (subtrees, falloff over N joints) or NAME=W,... (weights)
  --overlay-mode M   override (default: the gesture's local pose) or additive (its change from its
                     first frame, added to the locomotion)
  --lod              levels of detail by distance to a seeded camera (docs/lod.md): far agents search
                     less often (locally between full searches), drop foot IK and inertialization and
                     update their pose every 2-4 steps; the report adds each level's agent-steps and quality;
                     any --workers, --shard
  --search-budget N  with --lod: at most N searches per step for the whole crowd; the least urgent wait
                     (oldest query first, then the largest trajectory deviation)
  --lod-levels FILE  with --lod: the level table and hysteresis (JSON, docs/lod.md "Level tables")
                     instead of the default four levels
${tagOptionsUsage('locomotion searches')}
                     With --overlay TAG, frames tagged TAG are left out of locomotion unless required:
                     the overlay plays them over the walk (chosen by the walk, a standing agent idled
                     on a bow); tag their standing first and last frames with another tag to keep them.`;

const METHODS: readonly SearchMethod[] = ['kdtree', 'aabb', 'brute', 'early'];
const BACKENDS: ReadonlyArray<Backend | 'auto'> = ['auto', 'wasm-simd', 'wasm-scalar', 'js'];

export async function simulateCommand(argv: string[]): Promise<number> {
  tuneJitForCrowds(); // before any step is optimised (see src/util/jit-node.ts)
  const { values } = parseCommandArgs(argv, {
    db: { type: 'string' },
    agents: { type: 'string' },
    seconds: { type: 'string' },
    hz: { type: 'string' },
    seed: { type: 'string' },
    workers: { type: 'string' },
    scenario: { type: 'string' },
    method: { type: 'string' },
    backend: { type: 'string' },
    'no-ik': { type: 'boolean' },
    'no-warmup': { type: 'boolean' },
    'export-bvh': { type: 'string' },
    agent: { type: 'string' },
    shard: { type: 'string' },
    out: { type: 'string' },
    options: { type: 'string' },
    terrain: { type: 'string' },
    overlay: { type: 'string' },
    'overlay-mask': { type: 'string' },
    'overlay-mode': { type: 'string' },
    lod: { type: 'boolean' },
    'search-budget': { type: 'string' },
    'lod-levels': { type: 'string' },
    ...TAG_OPTIONS,
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  }, SIMULATE_USAGE);
  if (values.help) { process.stdout.write(SIMULATE_USAGE + '\n'); return 0; }
  const agents = integerOption(values.agents, 'agents', SIMULATE_USAGE, 1, 1_000_000) ?? 100;
  const seconds = numberOption(values.seconds, 'seconds', SIMULATE_USAGE, 1e-3, 86_400) ?? 10;
  const hz = numberOption(values.hz, 'hz', SIMULATE_USAGE, 1, 1000) ?? 30;
  const seed = integerOption(values.seed, 'seed', SIMULATE_USAGE, 0, 2 ** 32 - 1) ?? 1;
  const workers = integerOption(values.workers, 'workers', SIMULATE_USAGE, 1, 64) ?? 1;
  if (stepCount({ seconds, hz }) < 1) throw new UsageError(`--seconds ${seconds} at --hz ${hz} makes no step (one step is ${(1 / hz).toPrecision(3)} s)`, SIMULATE_USAGE);
  const scenario = (values.scenario ?? 'mixed') as ScenarioName;
  if (!SCENARIOS.includes(scenario)) throw new UsageError(`--scenario must be one of ${SCENARIOS.join(', ')}`, SIMULATE_USAGE);
  const method = (values.method ?? 'kdtree') as SearchMethod;
  if (!METHODS.includes(method)) throw new UsageError(`--method must be one of ${METHODS.join(', ')}`, SIMULATE_USAGE);
  const backend = (values.backend ?? 'auto') as Backend | 'auto';
  if (!BACKENDS.includes(backend)) throw new UsageError(`--backend must be one of ${BACKENDS.join(', ')}`, SIMULATE_USAGE);
  const exportPath = values['export-bvh'];
  if (exportPath === '') throw new UsageError('--export-bvh needs a file name', SIMULATE_USAGE);
  let recordAgent = exportPath ? (integerOption(values.agent, 'agent', SIMULATE_USAGE, 0, agents - 1) ?? 0) : -1;
  if (!exportPath && values.agent !== undefined) throw new UsageError('--agent goes with --export-bvh', SIMULATE_USAGE);
  const json = !!values.json;
  const lod = lodOption(values);
  // With a search budget, shards are cut at the budget's blocks (shard/plan.ts shardBlock).
  const block = shardBlock(lod);
  const shard = values.shard === undefined ? null : shardOption(values.shard, agents, block);
  const range = shard ? shardAgentRange(agents, shard, block) : null;
  if (shard && !json && values.out === undefined) {
    throw new UsageError('--shard writes a partial report: add --json (report on stdout) or --out FILE', SIMULATE_USAGE);
  }
  // Every shard of a job runs the same command line: only the shard holding the agent exports it.
  if (range && recordAgent >= 0 && (recordAgent < range.first || recordAgent >= range.first + range.count)) {
    process.stderr.write(`simulate: agent ${recordAgent} is not in shard ${shard!.index}/${shard!.count} (agents ${range.first}..${range.first + range.count - 1}); --export-bvh skipped\n`);
    recordAgent = -1;
  }
  if (values.options === '') throw new UsageError('--options needs a file name', SIMULATE_USAGE);
  if (values.db === '') throw new UsageError('--db needs a file name', SIMULATE_USAGE);
  if (values.terrain === '') throw new UsageError(`--terrain needs ${TERRAIN_KINDS.join(', ')} or a height field file`, SIMULATE_USAGE);
  // Refuse an unwritable --out or --export-bvh before a run that may take hours, not after it, and
  // an output that would replace one of the run's inputs (or the other output).
  const inputs = [
    { path: values.db, label: 'the --db file' },
    { path: values.options, label: 'the --options file' },
    { path: values.terrain !== undefined && !(TERRAIN_KINDS as readonly string[]).includes(values.terrain) ? values.terrain : undefined, label: 'the --terrain file' },
    { path: values['lod-levels'], label: 'the --lod-levels file' },
  ];
  checkOutputFile(values.out, '--out', 'simulation report', SIMULATE_USAGE, inputs);
  checkOutputFile(exportPath, '--export-bvh', 'BVH file', SIMULATE_USAGE, [...inputs, { path: values.out, label: 'the --out file' }]);
  if (exportPath !== undefined && values.out !== undefined && resolve(exportPath) === resolve(values.out)) {
    throw new FileAccessError(exportPath, `cannot write BVH file '${exportPath}': it is the --out file '${values.out}' (writing would replace it); choose another --export-bvh`, 'EEXIST');
  }
  const settings = values.options !== undefined ? readSettingsFile(values.options) : null;
  const terrain = terrainArgument(values.terrain, seed);
  const overlay = overlayOption(values);
  const tags = searchTagsOption(values, SIMULATE_USAGE);

  const built = values.db !== undefined ? readDatabaseArgument(values.db) : builtinDatabase();
  const db = settings ? applySchemaWeights(built, settings, values.options) : built;
  try { checkSearchTags(db, tags); } catch (e) { throw new UsageError((e as Error).message, SIMULATE_USAGE); }
  const bar = createProgress('simulate', !json && !!process.stderr.isTTY);
  const label = range ? `${range.count} agents (shard ${shard!.index}/${shard!.count})` : `${agents} agents`;
  const options: SimulationOptions = {
    agents, seconds, hz, seed, workers, scenario, method, backend, recordAgent, warmup: !values['no-warmup'],
    footIK: !values['no-ik'] && (settings?.controller.footIK ?? true), controller: settings?.controller,
    agentRange: range ?? undefined, terrain,
    onProgress: (d, t) => bar.update(d, t, label),
    ...(overlay ? { overlay } : {}),
    ...(lod ? { lod } : {}),
    ...(tags ? { tags } : {}),
  };
  if (shard && range) {
    const startedAt = new Date();
    const run = await oneLineWorkerErrors(() => runAgentGroups(db, options));
    bar.done();
    const finishedAt = new Date();
    const partial = partialReport({
      run: runIdentity(db, options, stepCount(options), shard.count, await packageVersion()),
      shard, source: values.db ?? 'builtin', host: hostname(), startedAt, finishedAt, workers,
      terrain, overlay: overlay ? describeOverlay(db, overlay, hz) : null,
    }, run);
    const exported = exportRecording(db, run.groups.find((g) => g.recording)?.recording ?? null, exportPath, hz);
    const text = partialReportText(partial);
    if (values.out !== undefined) writeFileAtomic(values.out, text, 'partial report');
    if (json) {
      process.stdout.write(text);
      return 0;
    }
    const r = partial.result;
    const f = (x: number, d = 1) => figureText(x, d);
    process.stdout.write([
      `simulated shard ${shard.index}/${shard.count}: agents ${range.first}..${range.first + range.count - 1} of ${agents} for ${seconds} s at ${hz} Hz (${run.steps} steps, scenario ${scenario}, seed ${seed}) on ${workers} thread(s), ${r.backend} ${method}`,
      `  speed        ${Math.round((range.count * run.steps) / Math.max(r.wallSeconds, 1e-9)).toLocaleString('en-US')} agent-steps/s (${f(r.wallSeconds, 2)} s stepping; ${f(r.setupSeconds, 2)} s setup)`,
      `  searches     ${r.searches.toLocaleString('en-US')}`,
      `  shard hash   ${r.shardHash} (the whole run's hash comes from motionmatch merge)`,
      `  partial      ${values.out}`,
      ...(exported ? [`  exported     agent ${recordAgent} to ${exported.file} (${exported.frames} frames)`] : []),
    ].join('\n') + '\n');
    return 0;
  }
  const result = await oneLineWorkerErrors(() => runSimulation(db, options));
  bar.done();
  const exported = exportRecording(db, result.recording, exportPath, hz);
  const { recording: _omit, overlayStats, ...report } = result;
  const overlayReport = overlay && overlayStats ? overlayFiguresOf(describeOverlay(db, overlay, hz), overlayStats) : undefined;
  const out = { ...report, db: { source: values.db ?? 'builtin', frames: db.frameCount, clips: db.clips.length }, options: values.options ?? null, terrain: terrainReport(terrain), ...(tags ? { tags } : {}), exported, ...(overlayReport ? { overlay: overlayReport } : {}) };
  if (values.out !== undefined) writeFileAtomic(values.out, JSON.stringify(out) + '\n', 'simulation report');
  if (json) {
    process.stdout.write(JSON.stringify(out) + '\n');
    return 0;
  }
  process.stdout.write(formatSimulationText(report, `simulated ${agents} agents for ${seconds} s at ${hz} Hz (${report.steps} steps, scenario ${scenario}, seed ${seed}) on ${workers} thread(s), ${report.backend} ${method}`) +
    (terrain ? terrainText(describeTerrain(terrain), report.quality) : '') +
    (values.options !== undefined ? `  settings     ${values.options}\n` : '') +
    (tags ? `  tags         ${searchTagsText(tags)}\n` : '') +
    (overlayReport ? overlayText(overlayReport) : '') +
    (report.lod ? lodText(report.lod) : '') +
    (exported ? `  exported     agent ${recordAgent} to ${exported.file} (${exported.frames} frames)\n` : ''));
  return 0;
}

/** --terrain's terrain (null without it). */
function terrainArgument(value: string | undefined, seed: number): TerrainSpec | null {
  if (value === undefined) return null;
  return readTerrainOption(value, seed);
}

/** The text report's terrain lines (simulate, merge): what the ground was, and the feet against it. */
export function terrainText(terrain: string, q: SimulationResult['quality']): string {
  const f = (x: number, d = 2) => figureText(x, d);
  return `  terrain      ${terrain}\n` +
    `  ground       feet labelled in contact ${f(q.footGroundErrorCm)} cm from the ground (p95 ${f(q.footGroundErrorP95Cm)}); in it ${f(q.footPenetrationCm)} cm (p95 ${f(q.footPenetrationP95Cm)}), above it ${f(q.footFloatCm)} cm (p95 ${f(q.footFloatP95Cm)}); swinging feet below their last labelled contact: p99 ${f(q.swingPenetrationP99Cm)} cm, max ${f(q.swingPenetrationMaxCm)} cm (diagnostics: the frames' contact labels)\n`;
}

/** The --overlay options as simulation settings (null without --overlay), or a usage error. */
function overlayOption(values: { overlay?: string; 'overlay-mask'?: string; 'overlay-mode'?: string }): OverlaySimulation | null {
  if (values.overlay === undefined) {
    if (values['overlay-mask'] !== undefined || values['overlay-mode'] !== undefined) throw new UsageError('--overlay-mask and --overlay-mode go with --overlay TAG', SIMULATE_USAGE);
    return null;
  }
  if (values.overlay.trim() === '') throw new UsageError('--overlay needs a tag (e.g. --overlay wave)', SIMULATE_USAGE);
  const mode = values['overlay-mode'] ?? 'override';
  if (mode !== 'override' && mode !== 'additive') throw new UsageError(`--overlay-mode must be override or additive, got '${mode}'`, SIMULATE_USAGE);
  if (values['overlay-mask'] !== undefined && values['overlay-mask'].trim() === '') throw new UsageError('--overlay-mask needs a specification (e.g. upper:2, arms)', SIMULATE_USAGE);
  return overlaySimulation(values.overlay.trim(), { mode, ...(values['overlay-mask'] !== undefined ? { mask: values['overlay-mask'] } : {}) });
}

/** --lod, --search-budget and --lod-levels as simulation settings (null without --lod), or a usage error. */
function lodOption(values: { lod?: boolean; 'search-budget'?: string; 'lod-levels'?: string }): SimulationLod | null {
  if (!values.lod) {
    if (values['search-budget'] !== undefined) throw new UsageError('--search-budget goes with --lod', SIMULATE_USAGE);
    if (values['lod-levels'] !== undefined) throw new UsageError('--lod-levels goes with --lod', SIMULATE_USAGE);
    return null;
  }
  const budget = integerOption(values['search-budget'], 'search-budget', SIMULATE_USAGE, 1, 100_000_000) ?? 0;
  const file = values['lod-levels'];
  if (file === undefined) return { budget };
  if (file.trim() === '') throw new UsageError('--lod-levels needs a file name', SIMULATE_USAGE);
  const { levels, hysteresis } = readLodTableFile(file);
  return { budget, levels, hysteresis };
}

/** --shard's value, or a usage error naming what is wrong with it. */
function shardOption(text: string, agents: number, block: number): ShardSpec {
  try {
    const spec = parseShardSpec(text, process.env);
    shardAgentRange(agents, spec, block);
    return spec;
  } catch (e) {
    if (e instanceof ShardSpecError) throw new UsageError(e.message, SIMULATE_USAGE);
    throw e;
  }
}

function exportRecording(db: Database, recording: SimulationResult['recording'], path: string | undefined, hz: number): { file: string; frames: number } | null {
  if (!path || !recording) return null;
  const clip = recordingToClip(db, recording, hz);
  writeFileAtomic(path, writeBvh(db.skeleton, clip), 'BVH file');
  return { file: path, frames: clip.frameCount };
}

/** The installed motionmatch version (package.json), which a partial report records. */
async function packageVersion(): Promise<string> {
  const pkg = JSON.parse(readFileSync(join(await nodePackageRoot(), 'package.json'), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}

/** ", 62% local" when some searches were local (windowed around the playing frame), else nothing. */
function localShareText(report: { searches: number; localSearches?: number }): string {
  const local = report.localSearches ?? 0;
  return local > 0 ? `, ${Math.round((100 * local) / Math.max(report.searches, 1))}% local` : '';
}

/** The text report of a whole run (simulate, merge): `header` then the figures. */
export function formatSimulationText(report: Omit<SimulationResult, 'recording' | 'overlayStats'>, header: string): string {
  const f = (x: number, d = 1) => figureText(x, d);
  return [
    header,
    `  speed        ${Math.round(report.agentStepsPerSec).toLocaleString('en-US')} agent-steps/s (${f(report.wallSeconds, 2)} s stepping; ${f(report.setupSeconds, 2)} s setup, of which ${f(report.warmupSeconds, 2)} s JIT warm-up)`,
    `  searches     ${report.searches.toLocaleString('en-US')} (${Math.round(report.searchesPerSec).toLocaleString('en-US')}/s${localShareText(report)}), ${f(report.searchUsMedian, 2)} us median, ${f(report.searchUsP99, 2)} us p99 per query; ${f(100 * report.searchShare)}% of thread time`,
    `  quality      foot skate ${f(report.footSkateCmPerSec, 2)} cm/s near the ground (p95 ${f(report.quality.skateP95CmPerSec, 1)}), feet below the ground ${f(report.quality.belowGroundP99Cm, 2)} cm p99; trajectory error ${f(report.quality.trajectoryError05Cm)} cm at 0.5 s / ${f(report.trajectoryErrorCm)} cm at 1 s`,
    `               ${f(report.transitionsPerSec, 2)} transitions/s per agent, largest velocity change of a joint ${f(report.quality.popMax, 2)} m/s (p99.9 ${f(report.quality.popP999, 2)})`,
    `  hash         ${report.hash}`,
  ].join('\n') + '\n';
}
