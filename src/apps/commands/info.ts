import { parseCommandArgs, UsageError } from '../args.js';
import { readDatabaseBytes } from '../../database/mmdb/mmdb-node.js';
import { decodeDatabase } from '../../database/mmdb/decode.js';
import { escapeControls } from '../../database/mmdb/format.js';
import { inspectDatabase, partSizes, readPoseErrorReport } from '../../database/mmdb/inspect.js';
import type { ClipRange } from '../../database/database.js';
import { groupColumns } from '../../features/schema.js';

export const INFO_USAGE = `usage: motionmatch info FILE [--error] [--json]

  Describes a .mmdb database: its kind (float32, or compact: compressed poses rebuilt on load),
  frames, clips, rate (and the source rates of resampled clips), feature groups and weights,
  joints, and the size of each part (poses, clip table, schema, tags, derived data, other).
  --error   for a compact file, the pose error recorded when it was built (virtual points 3 cm
            from each joint against the poses it was built from): largest and 99.9th percentile,
            per clip and overall, in centimetres`;

/** How many clips were resampled from each source rate, slowest rate first. */
export function sourceRateCounts(clips: readonly ClipRange[]): Array<{ fps: number; clips: number }> {
  const counts = new Map<number, number>();
  for (const c of clips) if (c.sourceFps !== undefined) counts.set(c.sourceFps, (counts.get(c.sourceFps) ?? 0) + 1);
  return [...counts].sort((a, b) => a[0] - b[0]).map(([fps, n]) => ({ fps, clips: n }));
}

/** "30 fps" or "30 fps (12 clips resampled from 60 fps, 3 from 120 fps)". */
export function describeRate(fps: number, rates: ReadonlyArray<{ fps: number; clips: number }>): string {
  if (rates.length === 0) return `${fps} fps`;
  const parts = rates.map((r, i) => `${i === 0 ? `${r.clips} clip${r.clips === 1 ? '' : 's'} resampled from` : `${r.clips} from`} ${r.fps} fps`);
  return `${fps} fps (${parts.join(', ')})`;
}

export async function infoCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' }, error: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, INFO_USAGE);
  if (values.help) { process.stdout.write(INFO_USAGE + '\n'); return 0; }
  if (positionals.length !== 1) throw new UsageError('expected exactly one database file', INFO_USAGE);
  const file = positionals[0];
  const bytes = readDatabaseBytes(file);
  const db = decodeDatabase(bytes, file);
  const look = inspectDatabase(bytes, file);
  const poseError = values.error ? readPoseErrorReport(bytes, file) : undefined;
  const cm = (m: number): number => +(m * 100).toPrecision(4);
  const cols = groupColumns(db.schema);
  const sourceRates = sourceRateCounts(db.clips);
  const info = {
    file,
    formatVersion: look.version,
    kind: look.kind,
    bytes: bytes.length,
    parts: partSizes(look),
    ...(values.error ? {
      error: poseError
        ? { unit: 'cm', max: cm(poseError.overall.max), p999: cm(poseError.overall.p999), clips: poseError.clips.map((e, i) => ({ name: db.clips[i].name, max: cm(e.max), p999: cm(e.p999) })) }
        : null,
    } : {}),
    frames: db.frameCount,
    clips: db.clips.length,
    mirroredClips: db.clips.filter((c) => c.mirrored).length,
    loopingClips: db.clips.filter((c) => c.loop).length,
    fps: db.fps,
    resampledClips: db.clips.filter((c) => c.sourceFps !== undefined).length,
    sourceRates,
    seconds: +(db.frameCount / db.fps).toFixed(3),
    candidates: db.candidates.reduce((n, c) => n + c, 0),
    dims: db.dims,
    stride: db.stride,
    joints: db.skeleton.names.length,
    jointNames: db.skeleton.names,
    roles: Object.fromEntries(Object.entries(db.roles).map(([k, j]) => [k, j >= 0 ? db.skeleton.names[j] : null])),
    groups: db.schema.groups.map((g, i) => ({ name: g.name, kind: g.kind, weight: g.weight, columns: cols[i], bones: g.bones, offsets: g.offsets })),
    tags: db.tagNames,
    clipList: db.clips.map((c) => ({
      name: c.name, source: c.source, start: c.start, frames: c.count, loop: c.loop, mirrored: c.mirrored,
      ...(c.sourceFps !== undefined ? { sourceFps: c.sourceFps } : {}), tags: c.tags,
    })),
  };
  if (values.json) {
    process.stdout.write(JSON.stringify(info) + '\n');
    return 0;
  }
  const clipNotes = [info.mirroredClips ? `${info.mirroredClips} mirrored` : '', info.loopingClips ? `${info.loopingClips} looping` : ''].filter(Boolean);
  // Names come from the file: a newline or a terminal escape in one must not reach the terminal.
  const lines = [
    `${file}  (.mmdb v${info.formatVersion}, ${info.kind}, ${info.bytes} bytes)`,
    `  parts       ${Object.entries(info.parts).map(([k, v]) => `${k} ${v}`).join(', ')} (bytes)`,
    `  frames      ${info.frames} (${info.candidates} search candidates), ${info.seconds} s at ${info.fps} fps`,
    `  rate        ${describeRate(info.fps, sourceRates)}`,
    `  clips       ${info.clips}${clipNotes.length ? ` (${clipNotes.join(', ')})` : ''}`,
    `  joints      ${info.joints}: ${info.jointNames.join(', ')}`,
    `  roles       ${Object.entries(info.roles).map(([k, v]) => `${k}=${v ?? '-'}`).join(', ')}`,
    `  features    ${info.dims} dims, stride ${info.stride}`,
    ...info.groups.map((g) => `    ${g.name.padEnd(22)} ${g.kind.padEnd(20)} weight ${String(g.weight).padEnd(5)} cols ${g.columns[0]}..${g.columns[1] - 1}`),
    `  tags        ${info.tags.length ? info.tags.join(', ') : '(none)'}`,
  ];
  if (values.error) {
    if (!poseError) lines.push('  error       none: a float32 file stores its poses as built (only compact files are compressed)');
    else {
      lines.push(`  error       largest ${cm(poseError.overall.max)} cm, 99.9th percentile ${cm(poseError.overall.p999)} cm (virtual points 3 cm from each joint, measured at build)`);
      poseError.clips.forEach((e, i) => lines.push(`    ${db.clips[i].name.padEnd(40)} max ${cm(e.max)} cm  p99.9 ${cm(e.p999)} cm`));
    }
  }
  process.stdout.write(lines.map(escapeControls).join('\n') + '\n');
  return 0;
}
