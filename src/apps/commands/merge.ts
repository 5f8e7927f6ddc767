import { parseCommandArgs, UsageError } from '../args.js';
import { FileAccessError, readRegularTextFile, requireWritableRegularPath, writeFileAtomic } from '../../util/files-node.js';
import { parsePartialReport, PartialReportError, type ParsedPartial, type PartialReport } from '../../sim/shard/report.js';
import { mergePartialReports, requireSameRun, type PartialStats } from '../../sim/shard/merge.js';
import { QualityStats } from '../../runtime/quality/meter.js';
import { escapeControlChars } from '../../util/input-text.js';
import { formatSimulationText, terrainText } from './simulate.js';
import { describeTerrainReport } from '../../sim/terrain/terrain.js';
import { overlayText } from '../../sim/overlay/report.js';
import { lodText } from '../../sim/lod/report.js';
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export const MERGE_USAGE = `usage: motionmatch merge PARTIAL.json... [--json] [--out FILE]

  Combines the partial reports written by \`motionmatch simulate --shard I/N\` (one per shard, in
  any order) into the report of the whole run: the same fields as \`simulate --json\` and the same
  hash as the run without --shard, plus one entry per shard (host, agents, timings).
  Refuses, with the reason: shards of different runs (seed, agents, duration, scenario, method,
  backend, controller options, database contents, terrain, overlay settings, level-of-detail
  settings, shard count or motionmatch version differ), a shard given twice, a missing shard, and
  damaged or edited files (each carries a checksum; every field is checked too). Terrain, overlay
  and level-of-detail figures merge like the rest. A partial report may have at most 64 MiB, all of
  them together at most 1 GiB (1,000,000 agents' digests are about 20 MB).
  --json      print the merged report as JSON (the text summary otherwise)
  --out FILE  also write the merged JSON report to FILE (atomically)`;

/** Largest partial report read: 1,000,000 agents' digests are about 20 MB, a shard's statistics 0.1-1 MB. */
export const MAX_PARTIAL_BYTES = 64 * 2 ** 20;
/** Largest total of all partial reports: they are read one at a time (twice), but not without end. */
export const MAX_PARTIALS_TOTAL_BYTES = 2 ** 30;

const WHAT = 'partial report';

/** The sizes of the regular files among `files`; throws when one or all together are too large, before any is read. */
function requireBoundedInputs(files: readonly string[]): void {
  let total = 0;
  for (const file of files) {
    let size: number;
    try {
      const st = statSync(file);
      if (!st.isFile()) continue; // readRegularTextFile names what it is
      size = st.size;
    } catch {
      continue; // readRegularTextFile says why it cannot be read
    }
    if (size > MAX_PARTIAL_BYTES) readRegularTextFile(file, { what: WHAT, maxBytes: MAX_PARTIAL_BYTES });
    total += size;
  }
  if (total > MAX_PARTIALS_TOTAL_BYTES) {
    throw new FileAccessError(files[0], `cannot read the partial reports: together they have ${(total / 2 ** 30).toFixed(2)} GiB, more than the ${MAX_PARTIALS_TOTAL_BYTES / 2 ** 30} GiB merge reads (${files.length} files)`, 'EFBIG');
  }
}

function statOrNull(path: string): { dev: number; ino: number } | null {
  try { return statSync(path); } catch { return null; }
}

/** Every line of `text` with its control characters escaped (the line breaks kept). */
function escapeLines(text: string): string {
  return text.split('\n').map(escapeControlChars).join('\n');
}

/** A file's text and its partial report, messages naming it with its control characters escaped. */
function readPartial(file: string): ParsedPartial {
  const label = escapeControlChars(file);
  let text: string;
  try {
    text = readRegularTextFile(file, { what: WHAT, maxBytes: MAX_PARTIAL_BYTES });
  } catch (e) {
    if (e instanceof FileAccessError) throw new FileAccessError(e.path, escapeControlChars(e.message), e.code);
    throw e;
  }
  return { ...parsePartialReport(text, label), file };
}

/**
 * A partial without what is large (statistics, histogram): what the whole merge keeps of every
 * shard. The statistics are read again, file by file, when they are merged.
 */
function lightPartial(p: ParsedPartial, run: PartialReport['run']): ParsedPartial {
  const r = p.report;
  const report: PartialReport = {
    ...r, run, quality: {},
    result: { ...r.result, searchUsHistogram: [] },
    overlay: r.overlay ? { description: r.overlay.description, stats: {} } : null,
    lod: r.lod ? { counts: r.lod.counts, levelStats: [] } : null,
  };
  return { file: p.file, report, quality: new QualityStats(), overlay: null, lod: p.lod ? { counts: p.lod.counts, levelStats: [] } : null };
}

export async function mergeCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    json: { type: 'boolean' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  }, MERGE_USAGE);
  if (values.help) { process.stdout.write(MERGE_USAGE + '\n'); return 0; }
  if (positionals.length === 0) throw new UsageError('name the partial reports to merge (the files of simulate --shard I/N --json or --out)', MERGE_USAGE);
  const seen = new Map<string, string>();
  for (const file of positionals) {
    const other = seen.get(resolve(file));
    if (other !== undefined) throw new UsageError(`${file} is named twice (also as ${other})`, MERGE_USAGE);
    seen.set(resolve(file), file);
  }
  if (values.out !== undefined) {
    if (!existsSync(dirname(values.out))) throw new Error(`cannot write merged report '${values.out}': folder '${dirname(values.out)}' does not exist`);
    requireWritableRegularPath(values.out, 'merged report');
    if (seen.has(resolve(values.out))) throw new UsageError(`--out ${values.out} is one of the partial reports`, MERGE_USAGE);
    // The same file under another name (a link, a relative path through a symbolic link).
    const outStat = statOrNull(values.out);
    if (outStat) {
      for (const file of positionals) {
        const st = statOrNull(file);
        if (st && st.dev === outStat.dev && st.ino === outStat.ino) throw new UsageError(`--out ${values.out} is the partial report ${file} (the same file)`, MERGE_USAGE);
      }
    }
  }
  requireBoundedInputs(positionals);
  // One file in memory at a time: each is checked, compared with the first (a shard of another run
  // or a shard given twice fails at once), and kept without its statistics...
  const parts: ParsedPartial[] = [];
  const byIndex = new Map<number, string>();
  for (const file of positionals) {
    const p = readPartial(file);
    const first = parts[0];
    if (first) requireSameRun(first, p);
    const other = byIndex.get(p.report.shard.index);
    if (other !== undefined) throw new PartialReportError(`${escapeControlChars(other)} and ${escapeControlChars(file)} are both shard ${p.report.shard.index}/${p.report.run.shards}`);
    byIndex.set(p.report.shard.index, file);
    parts.push({ ...lightPartial(p, first ? first.report.run : p.report.run), file: escapeControlChars(file) });
  }
  // ... which are read again, in shard order, as they are added up.
  const statsOf = (light: ParsedPartial): PartialStats => {
    const p = readPartial(light.file);
    if (p.report.checksum !== light.report.checksum) throw new PartialReportError(`${escapeControlChars(light.file)}: the file changed while merge read it`);
    return { quality: p.quality, overlay: p.overlay, levelStats: p.lod?.levelStats ?? [], histogram: p.report.result.searchUsHistogram };
  };
  const merged = mergePartialReports(parts, (p) => statsOf({ ...p, file: byIndex.get(p.report.shard.index)! }));
  // The merged report names the files as given (messages above escaped them).
  for (const shard of merged.shards) shard.file = byIndex.get(shard.index) ?? shard.file;
  const text = JSON.stringify(merged) + '\n';
  if (values.out !== undefined) writeFileAtomic(values.out, text, 'merged report');
  if (values.json) {
    process.stdout.write(text);
    return 0;
  }
  const hosts = new Set(merged.shards.map((s) => s.host)).size;
  const slowest = merged.shards.reduce((a, b) => (b.wallSeconds > a.wallSeconds ? b : a));
  // Host names, file names and the terrain's file come from the partial reports: no terminal escapes.
  process.stdout.write(escapeLines(
    formatSimulationText(merged, `merged ${merged.shards.length} shards of ${merged.agents} agents for ${merged.seconds} s at ${merged.hz} Hz (${merged.steps} steps, scenario ${merged.scenario}, seed ${merged.seed}) from ${hosts} host(s), ${merged.workers} thread(s) in all, ${merged.backend} ${merged.method}`) +
    (merged.terrain ? terrainText(describeTerrainReport(merged.terrain), merged.quality) : '') +
    (merged.overlay ? overlayText(merged.overlay) : '') +
    (merged.lod ? lodText(merged.lod) : '') +
    `  shards       slowest ${slowest.index} (${slowest.file}, ${slowest.wallSeconds.toFixed(2)} s stepping); ${merged.shardWallSecondsTotal.toFixed(2)} s stepping in all\n`,
  ));
  return 0;
}
