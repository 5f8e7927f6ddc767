import { parseCommandArgs, UsageError } from '../args.js';
import { readRegularTextFile, requireWritableRegularPath, writeFileAtomic } from '../../util/files-node.js';
import { parsePartialReport, type ParsedPartial } from '../../sim/shard/report.js';
import { mergePartialReports } from '../../sim/shard/merge.js';
import { formatSimulationText, terrainText } from './simulate.js';
import { describeTerrainReport } from '../../sim/terrain/terrain.js';
import { overlayText } from '../../sim/overlay/report.js';
import { lodText } from '../../sim/lod/report.js';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export const MERGE_USAGE = `usage: motionmatch merge PARTIAL.json... [--json] [--out FILE]

  Combines the partial reports written by \`motionmatch simulate --shard I/N\` (one per shard, in
  any order) into the report of the whole run: the same fields as \`simulate --json\` and the same
  hash as the run without --shard, plus one entry per shard (host, agents, timings).
  Refuses, with the reason: shards of different runs (seed, agents, duration, scenario, method,
  backend, controller options, database contents, terrain, overlay settings, level-of-detail
  settings, shard count or motionmatch version differ), a shard given twice, a missing shard, and
  damaged or edited files (each carries a checksum). Terrain, overlay and level-of-detail figures
  merge like the rest.
  --json      print the merged report as JSON (the text summary otherwise)
  --out FILE  also write the merged JSON report to FILE (atomically)`;

/** Largest partial report read: 1,000,000 agents' digests are about 20 MB. */
const MAX_PARTIAL_BYTES = 256 * 2 ** 20;

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
  }
  const parts: ParsedPartial[] = positionals.map((file) =>
    parsePartialReport(readRegularTextFile(file, { what: 'partial report', maxBytes: MAX_PARTIAL_BYTES }), file));
  const merged = mergePartialReports(parts);
  const text = JSON.stringify(merged) + '\n';
  if (values.out !== undefined) writeFileAtomic(values.out, text, 'merged report');
  if (values.json) {
    process.stdout.write(text);
    return 0;
  }
  const hosts = new Set(merged.shards.map((s) => s.host)).size;
  const slowest = merged.shards.reduce((a, b) => (b.wallSeconds > a.wallSeconds ? b : a));
  process.stdout.write(
    formatSimulationText(merged, `merged ${merged.shards.length} shards of ${merged.agents} agents for ${merged.seconds} s at ${merged.hz} Hz (${merged.steps} steps, scenario ${merged.scenario}, seed ${merged.seed}) from ${hosts} host(s), ${merged.workers} thread(s) in all, ${merged.backend} ${merged.method}`) +
    (merged.terrain ? terrainText(describeTerrainReport(merged.terrain), merged.quality) : '') +
    (merged.overlay ? overlayText(merged.overlay) : '') +
    (merged.lod ? lodText(merged.lod) : '') +
    `  shards       slowest ${slowest.index} (${slowest.file}, ${slowest.wallSeconds.toFixed(2)} s stepping); ${merged.shardWallSecondsTotal.toFixed(2)} s stepping in all\n`,
  );
  return 0;
}
