/**
 * `--terrain hills|steps|FILE`: a procedural terrain by name, or a height field file read from
 * disk (terrain/file.ts) with the project's careful file reading (no FIFOs, devices or folders; a
 * size limit checked before reading).
 */
import { basename } from 'node:path';
import { readRegularFile } from '../../util/files-node.js';
import { MAX_HEIGHT_FIELD_FILE_BYTES, parseHeightFieldFile } from './file.js';
import { TERRAIN_KINDS, type TerrainKind, type TerrainSpec } from './terrain.js';

/** The terrain an option names: 'hills' or 'steps' (seeded with `seed`), else a height field file. */
export function readTerrainOption(value: string, seed: number): TerrainSpec {
  if ((TERRAIN_KINDS as readonly string[]).includes(value)) return { kind: value as TerrainKind, seed };
  const bytes = readRegularFile(value, {
    what: 'height field file', maxBytes: MAX_HEIGHT_FIELD_FILE_BYTES,
    missingHint: `--terrain takes ${TERRAIN_KINDS.join(', ')} or a height field file (docs/terrain.md)`,
  });
  return { kind: 'field', name: basename(value), field: parseHeightFieldFile(bytes, value) };
}
