/**
 * `motionmatch coverage DB`: which requests a database can answer and what to capture next
 * (src/tools/coverage/), as text, JSON and a self-contained HTML page of polar heat maps.
 */
import { basename } from 'node:path';
import { parseCommandArgs, integerOption, numberOption, UsageError } from '../args.js';
import { MAX_TAG_OPTIONS, TAG_OPTIONS, searchTagsOption } from '../tag-options.js';
import { readDatabaseArgument } from '../database-file.js';
import { createProgress } from '../../util/progress.js';
import { writeFileAtomic } from '../../util/files-node.js';
import { checkOutputFile } from '../output-file.js';
import { Matcher } from '../../search/matcher.js';
import { MatcherSearchPort } from '../../runtime/matcher-port.js';
import { computeCoverage, type CoverageReport } from '../../tools/coverage/coverage.js';
import { coverageHtml } from '../../tools/coverage/html.js';
import { DEFAULT_DIRECTIONS, DEFAULT_SPEED_BANDS, DEFAULT_TURN_RATES, MAX_COVERAGE_SPEEDS, MAX_COVERAGE_TURN_RATES } from '../../tools/coverage/grid.js';

import { DEFAULT_CELL_RUN } from '../../tools/coverage/run.js';
import { readSettingsFile } from '../../sim/settings/options-file-node.js';
import { applySchemaWeights } from '../../sim/settings/options-file.js';

export const COVERAGE_USAGE = `usage: motionmatch coverage DB [--out report.html] [--json] [--speeds LIST | --speed-bands N]
                            [--directions N] [--turn-rates LIST] [--seconds S]
                            [--require-tag TAG ...] [--exclude-tag TAG ...] [--options FILE]
                            [--cost-only] [--requests N]

  Measures which steady requests a database can answer — desired speed (0 to its top speed),
  direction of travel relative to facing (the full circle) and turn rate — and lists the worst
  as capture requests. Per request: the best match cost of its ideal trajectory query, and a
  short controller run under it (trajectory error, facing error, foot skate, transitions/s).
  DB, --db FILE      a .mmdb database (from \`motionmatch build\`)
  --out FILE         also write the report as an HTML page (polar heat maps; opens from disk)
  --json             print the report as one JSON object instead of the summary
  --speeds LIST      moving speeds in m/s, e.g. 0.75,1.5,2.5 (standing is always measured);
                     at most ${MAX_COVERAGE_SPEEDS} values, as --speed-bands: each adds a ring of requests to measure
  --speed-bands N    without --speeds: N even steps up to the database's top speed (default ${DEFAULT_SPEED_BANDS})
  --directions N     directions around the circle (default ${DEFAULT_DIRECTIONS}: 22.5° apart)
  --turn-rates LIST  turn rates in degrees per second, each used both ways (default ${DEFAULT_TURN_RATES.join(',')});
                     at most ${MAX_COVERAGE_TURN_RATES} values: each multiplies the requests measured
  --seconds S        measured seconds of each controller run (default ${DEFAULT_CELL_RUN.measureSeconds}, after ${DEFAULT_CELL_RUN.warmupSeconds} s of warm-up)
  --require-tag TAG  only frames with this tag (repeatable, at most ${MAX_TAG_OPTIONS} times; the runs ask for it too)
  --exclude-tag TAG  never frames with this tag (repeatable, at most ${MAX_TAG_OPTIONS} times)
  --options FILE     engine settings (controller options, schema weights) as \`tune\` writes them
  --cost-only        best match costs only, no controller runs (a few seconds on any database)
  --requests N       capture requests listed (default 12)`;

/** A comma-separated list of at most `max` numbers for option `name`. */
function numberList(value: string | undefined, name: string, max: number, why: string): number[] | undefined {
  if (value === undefined) return undefined;
  const parts = value.split(',').map((p) => p.trim());
  if (parts.length > max) throw new UsageError(`--${name} takes at most ${max} values (${why}), got ${parts.length}`, COVERAGE_USAGE);
  const out = parts.map(Number);
  if (parts.some((p) => p === '') || out.some((n) => !Number.isFinite(n))) throw new UsageError(`--${name} must be a comma-separated list of numbers, got "${value}"`, COVERAGE_USAGE);
  return out;
}

/** An argument as typed in a shell (quoted when it needs to be). */
function shellWord(a: string): string {
  return /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
}

export function summaryLines(report: CoverageReport): string[] {
  const s = report.summary;
  const lines = [
    `coverage of ${report.database.name}: ${report.cells.length} requests (${report.grid.speeds.length} speeds up to ${Math.max(...report.grid.speeds).toFixed(1)} m/s,`
      + ` ${report.grid.directions.length} directions, turn rates ${report.grid.turnRates.map((r) => `${r}`).join('/')}°/s) in ${report.seconds.toFixed(1)} s`,
    `  ${s.covered} covered, ${s.thin} thin, ${s.uncovered} uncovered`,
    '',
  ];
  if (report.requests.length === 0) lines.push('every request of the grid is covered');
  else {
    lines.push('what to capture next:');
    report.requests.forEach((r, i) => lines.push(`${String(i + 1).padStart(3)}. [${r.verdict}] ${r.text}`));
  }
  return lines;
}

export async function coverageCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    db: { type: 'string' },
    out: { type: 'string' },
    json: { type: 'boolean' },
    speeds: { type: 'string' },
    'speed-bands': { type: 'string' },
    directions: { type: 'string' },
    'turn-rates': { type: 'string' },
    seconds: { type: 'string' },
    ...TAG_OPTIONS,
    options: { type: 'string' },
    'cost-only': { type: 'boolean' },
    requests: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  }, COVERAGE_USAGE);
  if (values.help) { process.stdout.write(COVERAGE_USAGE + '\n'); return 0; }
  if (positionals.length > 1) throw new UsageError(`one database at a time (got ${positionals.length}: ${positionals.join(', ')})`, COVERAGE_USAGE);
  if (positionals.length === 1 && values.db !== undefined) throw new UsageError('give the database either as DB or with --db, not both', COVERAGE_USAGE);
  const dbPath = values.db ?? positionals[0];
  if (dbPath === undefined || dbPath === '') throw new UsageError('name the database to measure (a .mmdb file from `motionmatch build`)', COVERAGE_USAGE);
  if (values.options === '') throw new UsageError('--options needs a file name', COVERAGE_USAGE);
  if (values.speeds !== undefined && values['speed-bands'] !== undefined) throw new UsageError('give --speeds or --speed-bands, not both', COVERAGE_USAGE);
  searchTagsOption(values, COVERAGE_USAGE); // counts and empty names
  const speeds = numberList(values.speeds, 'speeds', MAX_COVERAGE_SPEEDS, 'like --speed-bands: every speed adds a ring of requests, each a controller run');
  if (speeds?.some((s) => !(s > 0 && s <= 20))) throw new UsageError(`--speeds must be moving speeds in (0, 20] m/s (standing is always measured), got "${values.speeds}"`, COVERAGE_USAGE);
  const turnRates = numberList(values['turn-rates'], 'turn-rates', MAX_COVERAGE_TURN_RATES, 'each is measured both ways at every speed and direction, each request a controller run');
  if (turnRates?.some((r) => !(r >= 0 && r <= 720))) throw new UsageError(`--turn-rates must be in [0, 720] degrees per second (each is used both ways), got "${values['turn-rates']}"`, COVERAGE_USAGE);
  const speedBands = integerOption(values['speed-bands'], 'speed-bands', COVERAGE_USAGE, 1, 50);
  const directions = integerOption(values.directions, 'directions', COVERAGE_USAGE, 1, 360);
  const seconds = numberOption(values.seconds, 'seconds', COVERAGE_USAGE, 0.1, 60);
  const requests = integerOption(values.requests, 'requests', COVERAGE_USAGE, 0, 1000);
  if (values['cost-only'] && values.seconds !== undefined) throw new UsageError('--seconds sets the controller runs, which --cost-only leaves out', COVERAGE_USAGE);
  const json = !!values.json;
  // Before the run, not after it: the report may not replace the database or the settings file.
  checkOutputFile(values.out, '--out', 'coverage report', COVERAGE_USAGE, [
    { path: dbPath, label: 'the database' },
    { path: values.options, label: 'the --options file' },
  ]);

  const settings = values.options !== undefined ? readSettingsFile(values.options) : null;
  let db = readDatabaseArgument(dbPath);
  if (settings) db = applySchemaWeights(db, settings, values.options);
  const search = values['cost-only'] ? null : new MatcherSearchPort(await Matcher.create(db));
  const bar = createProgress('coverage', !json && !!process.stderr.isTTY);
  let report: CoverageReport;
  try {
    report = computeCoverage(db, search, {
      speeds, speedBands, directions, turnRates,
      run: seconds !== undefined ? { measureSeconds: seconds } : undefined,
      requireTags: values['require-tag'] ?? [], excludeTags: values['exclude-tag'] ?? [],
      controller: settings?.controller, costOnly: !!values['cost-only'], requests, name: basename(dbPath),
    }, (done, total, label) => bar.update(done, total, label));
  } finally {
    bar.done();
  }
  const command = ['motionmatch', 'coverage', ...argv].map(shellWord).join(' ');
  if (values.out !== undefined) writeFileAtomic(values.out, coverageHtml(report, { command }), 'coverage report');
  if (json) {
    process.stdout.write(JSON.stringify({ ...report, html: values.out ?? null, command }) + '\n');
    return 0;
  }
  process.stdout.write([...summaryLines(report), ...(values.out !== undefined ? ['', `report written to ${values.out}`] : [])].join('\n') + '\n');
  return 0;
}
