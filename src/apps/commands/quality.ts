/**
 * `motionmatch quality`: how well the engine animates on a database, per scripted scenario
 * (src/tools/quality/run.ts), measured from the output joint positions at the display rate beside
 * the data's own level, as a table, one JSON object, and/or an SVG chart with the targets.
 */
import { basename } from 'node:path';
import { tuneJitForCrowds } from '../../util/jit-node.js';
import { createProgress } from '../../util/progress.js';
import { writeFileAtomic } from '../../util/files-node.js';
import type { Database } from '../../database/database.js';
import { columnDataValue, columnRatio, qualityColumns } from '../../tools/quality/columns.js';
import { QUALITY_TARGETS, TERRAIN_QUALITY_TARGETS } from '../../tools/quality/targets.js';
import { TERRAIN_KINDS, describeTerrain, terrainName, terrainReport } from '../../sim/terrain/terrain.js';
import { readTerrainOption } from '../../sim/terrain/file-node.js';
import { runTerrainQuality } from '../../tools/quality/terrain.js';
import { QUALITY_SCENARIOS, dataLevel, runQualityScenarios, type ScenarioQuality } from '../../tools/quality/run.js';
import { formatQualityTable, qualityVerdictLines } from '../../tools/quality/table.js';
import { qualitySvg } from '../../tools/quality/svg.js';
import { parseCommandArgs, integerOption, numberOption, UsageError } from '../args.js';
import { TAG_OPTIONS, searchTagsOption, tagOptionsUsage } from '../tag-options.js';
import { checkSearchTags, searchTagsText } from '../../sim/search-tags.js';
import { readDatabaseArgument } from '../database-file.js';
import { checkOutputFile } from '../output-file.js';
import { oneLineWorkerErrors } from '../worker-error.js';
import { readSettingsFile } from '../../sim/settings/options-file-node.js';
import { applySchemaWeights } from '../../sim/settings/options-file.js';
import { builtinDatabase } from '../builtin-database.js';

/** Defaults that keep a run on a ~50,000-frame database well under a minute on two cores; 60 Hz is the display rate. */
export const QUALITY_DEFAULTS = { agents: 100, seconds: 20, hz: 60, seed: 1 } as const;
/** The 1 s trajectory error needs predictions made at least a second before the end. */
const MIN_SECONDS = 2;

export const QUALITY_USAGE = `usage: motionmatch quality [DB] [--db FILE] [--agents N] [--seconds S] [--hz H] [--seed K] [--workers W]
                           [--options FILE] [--terrain hills|steps|FILE] [--json] [--svg FILE]
                           [--require-tag TAG ...] [--exclude-tag TAG ...]

  Measures the animation quality on a database from what a viewer sees: one deterministic
  simulation per scripted scenario (${QUALITY_SCENARIOS.join(', ')}), the same crowd, length and seed for
  each, every figure computed from the world joint positions the engine outputs (after foot IK) on
  every step: foot skate near the ground, feet below the ground, hips height, feet while standing,
  the largest per-step velocity change of a joint, speeds after a stop request, facing error, then
  transitions and trajectory error. Beside each figure: the same figure for the database played
  plainly (every clip, no search, no IK: the data's own level) and the ratio to it. Values that
  miss their target are marked '*' (docs/quality.md). Default database: the built-in one.
  DB, --db FILE    a .mmdb database (from \`motionmatch build\`)
  --agents N       agents per scenario (default ${QUALITY_DEFAULTS.agents})
  --seconds S      simulated seconds per scenario (default ${QUALITY_DEFAULTS.seconds}, at least ${MIN_SECONDS})
  --hz H           steps per second, the display rate the figures are measured at (default ${QUALITY_DEFAULTS.hz}, 10-240)
  --seed K         seed of the scripted inputs (default ${QUALITY_DEFAULTS.seed}); the same seed gives the same figures
  --workers W      threads per simulation (default 1); more is faster and gives the same hashes
                   (figures equal up to the order of floating-point sums)
  --options FILE   engine settings: controller options and feature-group weights (JSON, as
                   \`motionmatch tune\` writes them; docs/tuning.md)
  --terrain T      also run every scenario on uneven ground: hills (slopes up to 30°), steps (10-25 cm)
                   or a height field FILE (docs/terrain.md); each terrain row follows its flat twin
                   and adds the feet against the ground and the skate over flat ground, with their
                   targets (with any --workers)
  --json           print one JSON object: settings, targets, the data's level, and each scenario's
                   full quality report with its verdicts and ratios to the data
  --svg FILE       also draw the figures as an SVG chart: one bar per scenario for each measure,
                   the targets and the data's level marked
${tagOptionsUsage('the searches')}
                   (the data's level is still the whole database played plainly)`;

/** The joint's name, or '–' for none (-1). */
function jointName(db: Database, joint: number): string {
  return joint >= 0 && joint < db.skeleton.names.length ? db.skeleton.names[joint] : '–';
}

function describeSettings(o: { agents: number; seconds: number; hz: number; seed: number }): string {
  return `${o.agents} agents x ${o.seconds} s per scenario at ${o.hz} Hz, seed ${o.seed}`;
}

export async function qualityCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    db: { type: 'string' },
    agents: { type: 'string' },
    seconds: { type: 'string' },
    hz: { type: 'string' },
    seed: { type: 'string' },
    workers: { type: 'string' },
    options: { type: 'string' },
    terrain: { type: 'string' },
    json: { type: 'boolean' },
    svg: { type: 'string' },
    ...TAG_OPTIONS,
    help: { type: 'boolean', short: 'h' },
  }, QUALITY_USAGE);
  if (values.help) { process.stdout.write(QUALITY_USAGE + '\n'); return 0; }
  if (positionals.length > 1) throw new UsageError(`one database at a time (got ${positionals.length}: ${positionals.join(', ')})`, QUALITY_USAGE);
  if (positionals.length === 1 && values.db !== undefined) throw new UsageError('give the database either as DB or with --db, not both', QUALITY_USAGE);
  const dbPath = values.db ?? positionals[0];
  if (dbPath === '') throw new UsageError('--db needs a file name', QUALITY_USAGE);
  if (values.options === '') throw new UsageError('--options needs a file name', QUALITY_USAGE);
  const agents = integerOption(values.agents, 'agents', QUALITY_USAGE, 1, 100_000) ?? QUALITY_DEFAULTS.agents;
  // Shorter runs would judge no 1 s prediction at all and print 0 for the trajectory error.
  const seconds = numberOption(values.seconds, 'seconds', QUALITY_USAGE, MIN_SECONDS, 3600) ?? QUALITY_DEFAULTS.seconds;
  const seed = integerOption(values.seed, 'seed', QUALITY_USAGE, 0, 2 ** 32 - 1) ?? QUALITY_DEFAULTS.seed;
  const workers = integerOption(values.workers, 'workers', QUALITY_USAGE, 1, 64) ?? 1;
  const hz = integerOption(values.hz, 'hz', QUALITY_USAGE, 10, 240) ?? QUALITY_DEFAULTS.hz;
  const json = !!values.json;
  const tags = searchTagsOption(values, QUALITY_USAGE);
  if (values.terrain === '') throw new UsageError(`--terrain needs ${TERRAIN_KINDS.join(', ')} or a height field file`, QUALITY_USAGE);
  // Before the run, not after it: the chart may not replace the database, settings or terrain file.
  checkOutputFile(values.svg, '--svg', 'SVG chart', QUALITY_USAGE, [
    { path: dbPath, label: 'the database' },
    { path: values.options, label: 'the --options file' },
    { path: values.terrain !== undefined && !(TERRAIN_KINDS as readonly string[]).includes(values.terrain) ? values.terrain : undefined, label: 'the --terrain file' },
  ]);
  const engineSettings = values.options !== undefined ? readSettingsFile(values.options) : null;
  const terrain = values.terrain !== undefined ? readTerrainOption(values.terrain, seed) : null;
  const columns = qualityColumns(terrain !== null);

  tuneJitForCrowds(); // as `simulate` runs (src/util/jit-node.ts)
  const t0 = performance.now();
  const loaded: Database = dbPath !== undefined ? readDatabaseArgument(dbPath) : builtinDatabase();
  const db = engineSettings ? applySchemaWeights(loaded, engineSettings, values.options) : loaded;
  try { checkSearchTags(db, tags); } catch (e) { throw new UsageError((e as Error).message, QUALITY_USAGE); }
  const source = dbPath ?? 'builtin';
  const bar = createProgress('quality', !json && !!process.stderr.isTTY);
  let rows: ScenarioQuality[];
  try {
    const run = { agents, seconds, hz, seed, workers, controller: engineSettings?.controller, tags };
    rows = await oneLineWorkerErrors(() => terrain
      ? runTerrainQuality(db, {
        ...run, onProgress: (i, n, done, total) => bar.update(i * total + done, n * total, `${QUALITY_SCENARIOS[i % 4]}${i >= 4 ? ` on ${terrainName(terrain)}` : ''} (${i + 1}/${n})`),
      }, terrain, terrainName(terrain))
      : runQualityScenarios(db, {
        ...run, onProgress: (i, n, done, total) => bar.update(i * total + done, n * total, `${QUALITY_SCENARIOS[i]} (${i + 1}/${n})`),
      }));
  } finally {
    bar.done();
  }
  // The data's own level: the captures played plainly, measured by the same lines at the same rate.
  const data = dataLevel(db, hz);
  const totalSeconds = (performance.now() - t0) / 1000;
  const name = dbPath !== undefined ? basename(dbPath) : 'built-in database';
  const dbText = `${name} (${db.frameCount.toLocaleString('en-US')} frames, ${db.clips.length} clips)`;
  const settings = { agents, seconds, hz, seed };

  if (values.svg !== undefined) {
    const subtitle = describeSettings(settings) + (terrain ? `, on flat ground and on ${describeTerrain(terrain)}` : '');
    writeFileAtomic(values.svg, qualitySvg(rows, { title: `motionmatch quality: ${dbText}`, subtitle }, columns, data), 'SVG chart');
  }
  if (json) {
    process.stdout.write(JSON.stringify({
      db: { source, frames: db.frameCount, clips: db.clips.length },
      settings: { ...settings, workers, method: 'kdtree', options: values.options ?? null, tags },
      targets: terrain ? { ...QUALITY_TARGETS, ...TERRAIN_QUALITY_TARGETS } : QUALITY_TARGETS,
      ...(terrain ? { terrain: terrainReport(terrain) } : {}),
      columns: columns.map((c) => ({ key: c.key, label: c.label, unit: c.unit, target: c.target ?? null, diagnostic: c.diagnostic ?? false, data: c.data ? columnDataValue(c, data) : null })),
      data: { quality: data.report, standing: data.standing, sidesteps: data.sidesteps, popJointName: jointName(db, data.report.popJoint) },
      scenarios: rows.map((r) => ({
        ...r,
        popJointName: jointName(db, r.quality.popJoint),
        ratios: Object.fromEntries(columns.filter((c) => c.data && Number.isFinite(columnRatio(c, r.quality, data))).map((c) => [c.key, columnRatio(c, r.quality, data)])),
      })),
      allTargetsMet: rows.every((r) => Object.values(r.meetsTargets).every(Boolean)),
      svg: values.svg ?? null,
      seconds: totalSeconds,
    }) + '\n');
    return 0;
  }
  process.stdout.write([
    `quality on ${dbText}: ${describeSettings(settings)}${values.options !== undefined ? `, settings ${values.options}` : ''}${tags ? `, searches ${searchTagsText(tags)}` : ''}`,
    ...(terrain ? [`each scenario on flat ground, then on ${describeTerrain(terrain)}`] : []),
    '',
    ...formatQualityTable(rows, data, columns),
    `data: the database played plainly at ${hz} Hz (no search, no IK); a ratio is the figure over the data's`,
    `largest velocity change: ${[`data ${jointName(db, data.report.popJoint)}`, ...rows.map((r) => `${r.scenario} ${jointName(db, r.quality.popJoint)}`)].join(', ')}`,
    ...(rows.some((r) => r.localSearches > 0) ? [`local searches (windowed around the playing frame): ${rows.map((r) => `${r.scenario} ${Math.round((100 * r.localSearches) / Math.max(r.searches, 1))}%`).join(', ')} of each scenario's searches`] : []),
    '',
    ...qualityVerdictLines(rows, data, columns),
    ...(values.svg !== undefined ? [`chart written to ${values.svg}`] : []),
    `(${rows.length} scenarios in ${totalSeconds.toFixed(1)} s)`,
  ].join('\n') + '\n');
  return 0;
}
