import { statSync } from 'node:fs';
import { parseCommandArgs, UsageError } from './args.js';
import { readDatabaseFile } from '../database/mmdb-node.js';
import { groupColumns } from '../features/schema.js';
import { MMDB_FORMAT_VERSION } from '../database/mmdb.js';

export const INFO_USAGE = `usage: motionmatch info FILE [--json]

  Describes a .mmdb database: frames, clips, rate, feature groups and weights, joints, size.`;

export async function infoCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, INFO_USAGE);
  if (values.help) { process.stdout.write(INFO_USAGE + '\n'); return 0; }
  if (positionals.length !== 1) throw new UsageError('expected exactly one database file', INFO_USAGE);
  const file = positionals[0];
  const db = readDatabaseFile(file);
  const cols = groupColumns(db.schema);
  const info = {
    file,
    formatVersion: MMDB_FORMAT_VERSION,
    bytes: statSync(file).size,
    frames: db.frameCount,
    clips: db.clips.length,
    mirroredClips: db.clips.filter((c) => c.mirrored).length,
    fps: db.fps,
    seconds: +(db.frameCount / db.fps).toFixed(3),
    candidates: db.candidates.reduce((n, c) => n + c, 0),
    dims: db.dims,
    stride: db.stride,
    joints: db.skeleton.names.length,
    jointNames: db.skeleton.names,
    roles: Object.fromEntries(Object.entries(db.roles).map(([k, j]) => [k, j >= 0 ? db.skeleton.names[j] : null])),
    groups: db.schema.groups.map((g, i) => ({ name: g.name, kind: g.kind, weight: g.weight, columns: cols[i], bones: g.bones, offsets: g.offsets })),
    tags: db.tagNames,
  };
  if (values.json) {
    process.stdout.write(JSON.stringify(info) + '\n');
    return 0;
  }
  const lines = [
    `${file}  (.mmdb v${info.formatVersion}, ${info.bytes} bytes)`,
    `  frames      ${info.frames} (${info.candidates} search candidates), ${info.seconds} s at ${info.fps} fps`,
    `  clips       ${info.clips}${info.mirroredClips ? ` (${info.mirroredClips} mirrored)` : ''}`,
    `  joints      ${info.joints}: ${info.jointNames.join(', ')}`,
    `  roles       ${Object.entries(info.roles).map(([k, v]) => `${k}=${v ?? '-'}`).join(', ')}`,
    `  features    ${info.dims} dims, stride ${info.stride}`,
    ...info.groups.map((g) => `    ${g.name.padEnd(22)} ${g.kind.padEnd(20)} weight ${String(g.weight).padEnd(5)} cols ${g.columns[0]}..${g.columns[1] - 1}`),
    `  tags        ${info.tags.length ? info.tags.join(', ') : '(none)'}`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}
