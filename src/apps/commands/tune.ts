/**
 * `motionmatch tune DB`: a seeded sweep over the settings that trade responsiveness for quality
 * (src/tools/tune/); writes the Pareto front (JSON and SVG) and a recommended settings file that
 * `simulate`, `quality`, `demo` and `coverage` take with --options.
 */
import { lstatSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, isAbsolute } from 'node:path';
import type { Database } from '../../database/database.js';
import { parseCommandArgs, integerOption, numberOption, UsageError } from '../args.js';
import { readDatabaseArgument } from '../database-file.js';
import { QUALITY_DEFAULTS } from './quality.js';
import { tuneJitForCrowds } from '../../util/jit-node.js';
import { createProgress } from '../../util/progress.js';
import { FileAccessError, errnoCode, requireWritableRegularPath, writeFileAtomic } from '../../util/files-node.js';
import { compareOnHoldout, DEFAULT_DESIGN_POINTS, runTune, type HoldoutComparison, type TuneResult } from '../../tools/tune/tune.js';
import { TUNE_PARAMETERS, baselineValues, defaultValues, settingsOf, type TuneValues } from '../../tools/tune/space.js';
import { TRAJECTORY_ERROR_ALLOWANCE, type TuneObjectives } from '../../tools/tune/front.js';
import { tuneFrontSvg } from '../../tools/tune/svg.js';
import { applySchemaWeights, formatSettings, SettingsError, type EngineSettings } from '../../sim/settings/options-file.js';
import { readSettingsFile } from '../../sim/settings/options-file-node.js';
import { QUALITY_SCENARIOS } from '../../sim/scenarios.js';

/** Each evaluation's crowd: small enough for dozens of evaluations a minute on two cores. */
export const TUNE_DEFAULTS = { budget: 120, agents: 32, seconds: 10, hz: 30, seed: 1, out: 'tune-results' } as const;

export const TUNE_USAGE = `usage: motionmatch tune DB [--budget SECONDS] [--out DIR] [--seed K] [--evaluations N] [--design N]
                        [--agents N] [--seconds S] [--workers W] [--holdout FILE [--holdout-agents N] [--holdout-seconds S]]
                        [--options FILE] [--json]

  Sweeps the settings that trade responsiveness for quality — pose and trajectory feature
  weights, continuing bias, search interval, trajectory and inertialization half-lives — over
  the quality scenarios (${QUALITY_SCENARIOS.join(', ')}): the defaults first (on three seeds,
  to measure the noise), a seeded Latin hypercube, then local refinement around the best points;
  the best candidates are measured again on another seed and the first that still beats the
  defaults there is recommended. Writes to DIR:
    front.json        every evaluation, the Pareto front, the recommendation
    front.svg         trajectory error against the quality measures, the front marked
    recommended.json  the recommended settings (--options FILE of simulate, quality, demo, coverage)
  DB, --db FILE     the .mmdb database to tune on (keep some captures out of it to check on: --holdout)
  --budget S        wall-clock seconds for the sweep (default ${TUNE_DEFAULTS.budget}); it stops with the best front so far
  --evaluations N   stop after N evaluations (the defaults included); with a seed, the same N gives the same result
  --design N        points of the Latin hypercube before refinement (default ${DEFAULT_DESIGN_POINTS})
  --seed K          seed of the design and of the scenarios' inputs (default ${TUNE_DEFAULTS.seed})
  --out DIR         output folder, made if missing (default ${TUNE_DEFAULTS.out})
  --agents N        agents per scenario in each evaluation (default ${TUNE_DEFAULTS.agents})
  --seconds S       simulated seconds per scenario in each evaluation (default ${TUNE_DEFAULTS.seconds}, at least 2)
  --workers W       threads per simulation (default 1)
  --options FILE    start from these settings (a settings file, e.g. an earlier recommended.json)
                    instead of the engine defaults: they are measured first and every comparison is
                    against them; the recommendation keeps the file's other options
  --holdout FILE    afterwards, compare the defaults (or --options) and the recommendation on this database
                    (captures the sweep never saw) with \`motionmatch quality\`'s settings (${QUALITY_DEFAULTS.agents} agents x ${QUALITY_DEFAULTS.seconds} s),
                    means over seeds ${QUALITY_DEFAULTS.seed}..${QUALITY_DEFAULTS.seed + 2}, differences judged against the seed-to-seed spread
  --holdout-agents N, --holdout-seconds S
                    the held-back check's crowd instead (a quicker check, or a larger one for a closer call)
  --json            print one JSON object (what front.json holds, and the files written)`;

function shellWord(a: string): string {
  return /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
}

/** The files tune writes into its output folder. */
const OUTPUT_FILES = ['front.json', 'front.svg', 'recommended.json'] as const;

/**
 * Checks the output folder before the sweep: an existing folder or a name whose parent exists, the
 * files in it writable. It is made only when the results are written (makeOutputFolder), so an
 * interrupted or failed run leaves no empty folder behind.
 */
function checkOutputFolder(dir: string, files: readonly string[]): void {
  let st;
  try {
    st = lstatSync(dir);
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') throw new FileAccessError(dir, `cannot use output folder '${dir}': ${(e as Error).message}`, errnoCode(e));
  }
  if (st && !st.isDirectory()) throw new FileAccessError(dir, `cannot use output folder '${dir}': it exists and is not a folder`, 'ENOTDIR');
  if (!st) {
    const parent = dirname(resolve(dir));
    let pst;
    try { pst = lstatSync(parent); } catch { pst = null; }
    if (!pst) throw new FileAccessError(dir, `cannot make output folder '${dir}': folder '${parent}' does not exist`, 'ENOENT');
    if (!pst.isDirectory()) throw new FileAccessError(dir, `cannot make output folder '${dir}': '${parent}' is not a folder`, 'ENOTDIR');
    return;
  }
  for (const f of files) requireWritableRegularPath(join(dir, f), 'tune output');
}

/** Makes the output folder when missing; true when this run made it. */
function makeOutputFolder(dir: string): boolean {
  try {
    mkdirSync(dir);
    return true;
  } catch (e) {
    if (errnoCode(e) === 'EEXIST' && lstatSync(dir).isDirectory()) return false;
    const parent = dirname(resolve(dir));
    throw new FileAccessError(dir, errnoCode(e) === 'ENOENT' ? `cannot make output folder '${dir}': folder '${parent}' does not exist` : `cannot make output folder '${dir}': ${(e as Error).message}`, errnoCode(e));
  }
}

/** The real path of `p` (of its nearest existing ancestor, with the rest appended, when it does not exist yet). */
function realPathOf(p: string): string {
  const abs = resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    const parent = dirname(abs);
    return parent === abs ? abs : join(realPathOf(parent), basename(abs));
  }
}

/**
 * Refuses an output folder that is or holds one of the inputs (checked locally: src/apps/output-file.ts
 * checks files, not folders): the results would replace or sit among the inputs.
 */
function refuseInputsInOutputFolder(out: string, inputs: ReadonlyArray<{ path: string; label: string }>): void {
  let st;
  try { st = lstatSync(out); } catch { st = null; }
  if (st && !st.isDirectory()) return; // checkOutputFolder: "it exists and is not a folder"
  const outReal = realPathOf(out);
  for (const input of inputs) {
    const rel = relative(outReal, realPathOf(input.path));
    if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) {
      throw new FileAccessError(out, `cannot use output folder '${out}': ${rel === '' ? 'it is' : 'it holds'} ${input.label} '${input.path}' (tune writes ${OUTPUT_FILES.join(', ')} there); choose another --out`, 'EEXIST');
    }
  }
}

/**
 * Throws unless the held-back database can be compared with the tuning database's settings: the
 * same feature groups (names, kinds, bones, offsets), the same feature layout and the same joints.
 */
function requireHoldoutCompatible(db: Database, held: Database, dbPath: string, heldPath: string): void {
  const what = `--holdout ${heldPath}`;
  const groupKey = (g: Database['schema']['groups'][number]) => JSON.stringify([g.name, g.kind, g.bones, g.offsets]);
  const a = db.schema.groups, b = held.schema.groups;
  if (a.length !== b.length || a.some((g, i) => groupKey(g) !== groupKey(b[i]))) {
    const i = a.findIndex((g, k) => k >= b.length || groupKey(g) !== groupKey(b[k]));
    const at = i >= 0 ? i : a.length;
    const describe = (g: Database['schema']['groups'][number] | undefined) => (g ? `${g.name} (${g.kind})` : 'none');
    throw new SettingsError(`${what}: its feature schema differs from ${dbPath}'s (group ${at + 1}: ${describe(b[at])} there, ${describe(a[at])} here); build both databases with the same --schema`);
  }
  if (db.dims !== held.dims) throw new SettingsError(`${what}: ${held.dims} feature dimensions, ${dbPath} has ${db.dims}; build both databases with the same --schema`);
  const ja = db.skeleton.names, jb = held.skeleton.names;
  if (ja.length !== jb.length || ja.some((n, i) => n !== jb[i])) {
    throw new SettingsError(`${what}: its skeleton differs from ${dbPath}'s (${jb.length} joints against ${ja.length}); the held-back captures must use the same skeleton`);
  }
}

const f1 = (x: number): string => x.toFixed(2);

/** The objectives as printed: column heads (two lines) and the words of the one-line summaries. */
const OBJECTIVE_COLUMNS: ReadonlyArray<{ key: keyof TuneObjectives; head: string; unit: string; words: string }> = [
  { key: 'trajectoryErrorCm', head: 'traj. err', unit: '1 s, cm', words: 'trajectory error' },
  { key: 'footSkateCmPerSec', head: 'skate', unit: 'cm/s', words: 'skate' },
  { key: 'belowGroundP99Cm', head: 'depth p99', unit: 'cm', words: 'depth p99' },
  { key: 'popP999', head: 'pops p99.9', unit: 'm/s', words: 'pops p99.9' },
  { key: 'transitionsPerSec', head: 'transitions', unit: '/s', words: 'transitions' },
];

function objectiveRow(label: string, o: TuneObjectives, q: number | null): string {
  return `${label.padEnd(22)}${OBJECTIVE_COLUMNS.map((c) => f1(o[c.key]).padStart(Math.max(c.head.length, 9) + 2)).join('')}${(q === null ? '' : q.toFixed(3)).padStart(10)}`;
}

const HEADER = [(c: (typeof OBJECTIVE_COLUMNS)[number]) => c.head, (c: (typeof OBJECTIVE_COLUMNS)[number]) => c.unit]
  .map((part, line) => `${''.padEnd(22)}${OBJECTIVE_COLUMNS.map((c) => part(c).padStart(Math.max(c.head.length, 9) + 2)).join('')}${(line === 0 ? 'quality' : 'index').padStart(10)}`)
  .join('\n');

/** "trajectory error 1.23, skate 4.56, ..." */
function objectiveWords(o: TuneObjectives): string {
  return OBJECTIVE_COLUMNS.map((c) => `${c.words} ${f1(o[c.key])}`).join(', ');
}

/** What the recommendation changes, one "name: start -> value" per changed setting. */
function changes(result: TuneResult, start: TuneValues): string[] {
  if (result.recommended === null) return [];
  const d = start, r = result.evaluations[result.recommended].values;
  return TUNE_PARAMETERS.filter((p) => d[p.key] !== r[p.key]).map((p) => `${p.label} ${d[p.key]} -> ${r[p.key]}`);
}

/**
 * Makes the output folder (when missing) and writes the files. A failure or a signal while writing
 * removes a folder this run made (everything in it is this run's), so none is left half-filled or empty.
 */
function writeOutputs(dir: string, files: ReadonlyArray<readonly [string, string]>): void {
  let made = false;
  const removeMade = (): void => { if (made) rmSync(dir, { recursive: true, force: true }); };
  const onSignal = (signal: NodeJS.Signals): void => {
    removeMade();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // util/files-node.ts re-raises when it has a temporary file to remove; otherwise re-raise here.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  // The handlers before the folder: a signal between the two found none, and its default action
  // ended the process with the folder made and empty (a second SIGTERM during a loaded test run).
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    made = makeOutputFolder(dir);
    for (const [path, text] of files) writeFileAtomic(path, text, 'tune output');
  } catch (e) {
    removeMade();
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export async function tuneCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    db: { type: 'string' },
    budget: { type: 'string' },
    out: { type: 'string' },
    seed: { type: 'string' },
    evaluations: { type: 'string' },
    design: { type: 'string' },
    agents: { type: 'string' },
    seconds: { type: 'string' },
    workers: { type: 'string' },
    holdout: { type: 'string' },
    'holdout-agents': { type: 'string' },
    'holdout-seconds': { type: 'string' },
    options: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  }, TUNE_USAGE);
  if (values.help) { process.stdout.write(TUNE_USAGE + '\n'); return 0; }
  if (positionals.length > 1) throw new UsageError(`one database at a time (got ${positionals.length}: ${positionals.join(', ')})`, TUNE_USAGE);
  if (positionals.length === 1 && values.db !== undefined) throw new UsageError('give the database either as DB or with --db, not both', TUNE_USAGE);
  const dbPath = values.db ?? positionals[0];
  if (dbPath === undefined || dbPath === '') throw new UsageError('name the database to tune on (a .mmdb file from `motionmatch build`)', TUNE_USAGE);
  if (values.out === '') throw new UsageError('--out needs a folder name', TUNE_USAGE);
  if (values.holdout === '') throw new UsageError('--holdout needs a file name', TUNE_USAGE);
  if (values.options === '') throw new UsageError('--options needs a file name', TUNE_USAGE);
  const budget = numberOption(values.budget, 'budget', TUNE_USAGE, 1, 7 * 86_400) ?? TUNE_DEFAULTS.budget;
  const maxEvaluations = integerOption(values.evaluations, 'evaluations', TUNE_USAGE, 1, 100_000);
  const designPoints = integerOption(values.design, 'design', TUNE_USAGE, 1, 10_000) ?? DEFAULT_DESIGN_POINTS;
  const seed = integerOption(values.seed, 'seed', TUNE_USAGE, 0, 2 ** 32 - 1) ?? TUNE_DEFAULTS.seed;
  const agents = integerOption(values.agents, 'agents', TUNE_USAGE, 1, 100_000) ?? TUNE_DEFAULTS.agents;
  const seconds = numberOption(values.seconds, 'seconds', TUNE_USAGE, 2, 3600) ?? TUNE_DEFAULTS.seconds;
  const workers = integerOption(values.workers, 'workers', TUNE_USAGE, 1, 64) ?? 1;
  if (values.holdout === undefined && (values['holdout-agents'] !== undefined || values['holdout-seconds'] !== undefined)) {
    throw new UsageError('--holdout-agents and --holdout-seconds size the --holdout check: give --holdout FILE too', TUNE_USAGE);
  }
  const held = {
    agents: integerOption(values['holdout-agents'], 'holdout-agents', TUNE_USAGE, 1, 100_000) ?? QUALITY_DEFAULTS.agents,
    seconds: numberOption(values['holdout-seconds'], 'holdout-seconds', TUNE_USAGE, 2, 3600) ?? QUALITY_DEFAULTS.seconds,
  };
  // The quality command lines printed to check the held-back figures: with the check's own crowd.
  const heldSize = held.agents === QUALITY_DEFAULTS.agents && held.seconds === QUALITY_DEFAULTS.seconds ? '' : ` --agents ${held.agents} --seconds ${held.seconds}`;
  const out = values.out ?? TUNE_DEFAULTS.out;
  const json = !!values.json;
  const hz = TUNE_DEFAULTS.hz;

  const baseSettings = values.options !== undefined ? readSettingsFile(values.options) : null;
  let start: TuneValues;
  try {
    start = baseSettings ? baselineValues(baseSettings.controller) : defaultValues();
  } catch (e) {
    throw new SettingsError(`${values.options}: ${(e as Error).message}`);
  }
  const loaded = readDatabaseArgument(dbPath);
  const db = baseSettings ? applySchemaWeights(loaded, baseSettings, values.options) : loaded;
  const baseline = baseSettings ? { values: start, controller: baseSettings.controller } : undefined;
  const startLabel = baseSettings ? 'baseline' : 'defaults';
  refuseInputsInOutputFolder(out, [
    { path: dbPath, label: 'the database' },
    ...(values.holdout !== undefined ? [{ path: values.holdout, label: 'the --holdout database' }] : []),
    ...(values.options !== undefined ? [{ path: values.options, label: 'the --options file' }] : []),
  ]);
  const holdoutDb = values.holdout !== undefined ? readDatabaseArgument(values.holdout) : null;
  if (holdoutDb && values.holdout !== undefined) {
    // Before the sweep, not after it: the recommendation's weights must apply to the held-back database.
    requireHoldoutCompatible(db, holdoutDb, dbPath, values.holdout);
    applySchemaWeights(holdoutDb, settingsOf(db, start, undefined, baseSettings?.controller), values.holdout);
  }
  checkOutputFolder(out, OUTPUT_FILES);
  tuneJitForCrowds(); // as `simulate` and `quality` run (src/util/jit-node.ts)

  const bar = createProgress('tune', !json && !!process.stderr.isTTY);
  // The first Ctrl-C ends the sweep after the evaluation under way and writes what it has; a
  // second one interrupts as usual.
  // SIGTERM (a job runner stopping the run) does the same: the results so far are kept. Nothing is
  // written before the end, so a second signal, which ends the process, leaves nothing behind.
  let interrupted = false;
  const onInterrupt = (signal: NodeJS.Signals): void => {
    interrupted = true;
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
    if (!json) process.stderr.write(`\nmotionmatch tune: stopping after this evaluation (${signal === 'SIGINT' ? 'Ctrl-C' : signal} again to abort)\n`);
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
  let result: TuneResult;
  try {
    result = await runTune(db, {
      seed, budgetSeconds: budget, maxEvaluations, designPoints, agents, seconds, hz, workers, baseline,
      shouldStop: () => interrupted,
      // The bar fills with whichever limit comes first: the budget or the evaluation count.
      onProgress: (p) => {
        const best = `best quality index ${p.bestQualityIndex.toFixed(3)}`;
        if (maxEvaluations !== undefined && p.evaluations / maxEvaluations >= p.elapsedSeconds / budget) bar.update(p.evaluations, maxEvaluations, `evaluations (${p.phase}), ${best}`);
        else bar.update(Math.min(budget, Math.round(p.elapsedSeconds)), budget, `s, ${p.evaluations} evaluations (${p.phase}), ${best}`);
      },
    });
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
    bar.done();
  }
  const command = ['motionmatch', 'tune', ...argv].map(shellWord).join(' ');
  const name = basename(dbPath);
  const rec = result.recommended;
  const recommendedSettings: EngineSettings = settingsOf(db, rec === null ? start : result.evaluations[rec].values,
    rec === null
      ? `motionmatch tune found nothing better than the ${startLabel}${baseSettings ? ` (${values.options})` : ''} on ${name} (seed ${seed}, ${result.evaluations.length} evaluations${result.confirmations.length ? `; ${result.confirmations.length} candidate(s) did not hold on seed ${result.noise.seeds[1]}` : ''}): these are the ${startLabel}`
      : `recommended by motionmatch tune on ${name} (seed ${seed}, evaluation #${rec} of ${result.evaluations.length}, confirmed on seed ${result.noise.seeds[1]}): quality index ${result.evaluations[rec].qualityIndex.toFixed(3)} at a trajectory error of ${result.evaluations[rec].objectives.trajectoryErrorCm.toFixed(2)} cm (${startLabel} ${result.evaluations[0].objectives.trajectoryErrorCm.toFixed(2)} cm)`, baseSettings?.controller);

  let holdout: HoldoutComparison | null = null;
  if (holdoutDb) {
    const hb = createProgress('held-back check', !json && !!process.stderr.isTTY);
    hb.update(0, 1, `${values.holdout}: ${startLabel} and recommendation`);
    try {
      holdout = await compareOnHoldout(holdoutDb, recommendedSettings, { agents: held.agents, seconds: held.seconds, hz, seed: QUALITY_DEFAULTS.seed, workers, source: values.holdout, ...(baseSettings ? { baseline: baseSettings } : {}) });
    } finally {
      hb.done();
    }
  }

  const files = { json: join(out, 'front.json'), svg: join(out, 'front.svg'), settings: join(out, 'recommended.json') };
  const checks = [
    `motionmatch quality ${shellWord(dbPath)} --options ${shellWord(files.settings)}`,
    ...(values.holdout !== undefined ? [`motionmatch quality ${shellWord(values.holdout)}${heldSize}${values.options !== undefined ? ` --options ${shellWord(values.options)}` : ''}`, `motionmatch quality ${shellWord(values.holdout)}${heldSize} --options ${shellWord(files.settings)}`] : []),
  ];
  const report = {
    version: 1,
    command,
    database: { source: dbPath, frames: db.frameCount, clips: db.clips.length },
    baseline: values.options ?? null,
    settings: { seed, budgetSeconds: budget, maxEvaluations: maxEvaluations ?? null, designPoints, agents, seconds, hz, workers, scenarios: QUALITY_SCENARIOS, trajectoryErrorAllowance: TRAJECTORY_ERROR_ALLOWANCE },
    parameters: TUNE_PARAMETERS,
    evaluations: result.evaluations,
    front: result.front,
    front2d: result.front2d,
    recommended: rec,
    recommendedSettings,
    noise: result.noise,
    confirmations: result.confirmations,
    stoppedBy: result.stoppedBy,
    elapsedSeconds: result.elapsedSeconds,
    holdout: holdout && values.holdout !== undefined ? { source: values.holdout, agents: held.agents, seconds: held.seconds, seed: QUALITY_DEFAULTS.seed, ...holdout } : null,
    checks,
  };
  const svg = tuneFrontSvg(result, {
    title: `motionmatch tune: ${name} (${db.frameCount.toLocaleString('en-US')} frames)`,
    subtitle: `seed ${seed}, ${result.evaluations.length} evaluations of ${agents} agents x ${seconds} s x ${QUALITY_SCENARIOS.length} scenarios; front of ${result.front.length}`,
  });
  writeOutputs(out, [[files.json, JSON.stringify(report, null, 1) + '\n'], [files.svg, svg], [files.settings, formatSettings(recommendedSettings)]]);
  if (json) {
    process.stdout.write(JSON.stringify({ ...report, files }) + '\n');
    return 0;
  }
  const d = result.evaluations[0];
  const lines = [
    `tune on ${name}: ${result.evaluations.length} evaluations in ${result.elapsedSeconds.toFixed(0)} s (stopped by ${result.stoppedBy === 'budget' ? `the ${budget} s budget` : result.stoppedBy === 'interrupted' ? 'Ctrl-C' : `--evaluations ${maxEvaluations}`}), seed ${seed}`,
    `  each: ${agents} agents x ${seconds} s x ${QUALITY_SCENARIOS.length} scenarios at ${hz} Hz; Pareto front of ${result.front.length} points`,
    '',
    HEADER,
    objectiveRow(startLabel, d.objectives, 1),
    ...(rec !== null ? [objectiveRow(`recommended (#${rec})`, result.evaluations[rec].objectives, result.evaluations[rec].qualityIndex)] : []),
    '',
    `seed-to-seed spread of the ${startLabel} (seeds ${result.noise.seeds.join(', ')}; units as above): ${objectiveWords(result.noise.spread)}`,
    ...result.confirmations.map((c) => `  #${c.index} on seed ${c.seed}: ${c.held ? 'held' : 'did not hold'} (${objectiveWords(c.objectives)}; ${startLabel} there: ${objectiveWords(result.noise.objectives[1])})`),
    '',
    rec === null
      ? `nothing measured beat the ${startLabel} (trajectory error within ${TRAJECTORY_ERROR_ALLOWANCE} x theirs, no quality measure worse by more than its seed spread, one better) on two seeds: ${files.settings} holds the ${startLabel}`
      : `recommended settings (${files.settings}): ${changes(result, start).join('; ') || 'the weights only'}`,
  ];
  if (holdout && values.holdout !== undefined) {
    const sp = holdout.spread;
    lines.push('', `held-back captures ${values.holdout} (${held.agents} agents x ${held.seconds} s, means over seeds ${holdout.seeds.join(', ')}):`, HEADER,
      objectiveRow(startLabel, holdout.defaults.objectives, null), objectiveRow('recommended', holdout.recommended.objectives, null),
      objectiveRow('seed spread', sp, null),
      `  ${holdout.improved.length ? `better beyond the seed spread: ${holdout.improved.join(', ')}` : 'no quality measure better beyond the seed spread'}; trajectory error ${holdout.trajectoryNoWorse ? 'no worse' : 'WORSE'} (beyond the spread)`);
  }
  lines.push('', `written: ${files.json}, ${files.svg}, ${files.settings}`, 'check with:', ...checks.map((c) => `  ${c}`));
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}
