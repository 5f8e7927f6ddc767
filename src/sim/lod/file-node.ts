/** Reading level tables (`simulate --lod-levels FILE`) in Node: see lod/file.ts for the format. */
import { readRegularTextFile } from '../../util/files-node.js';
import { parseLodTable, type LodTable } from './file.js';

/** A level table is a few kilobytes; anything near this is not one. */
export const LOD_TABLE_MAX_BYTES = 1 << 20;

/** Reads and checks a level table file (FileAccessError or LodTableError, both naming the file). */
export function readLodTableFile(path: string): LodTable {
  const text = readRegularTextFile(path, { what: 'level table', maxBytes: LOD_TABLE_MAX_BYTES, missingHint: 'write one (docs/lod.md, "Level tables")' });
  return parseLodTable(text, path);
}
