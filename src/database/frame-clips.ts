import type { Database } from './database.js';

/**
 * Frame -> clip index table of a database (-1 for a frame no clip covers), so that "which clip
 * plays frame f" is one array read on the hot path instead of a search over the clip list.
 */
export function frameClipTable(db: Pick<Database, 'frameCount' | 'clips'>): Int32Array {
  const rows = db.frameCount;
  const table = new Int32Array(rows).fill(-1);
  db.clips.forEach((clip, ci) => table.fill(ci, Math.max(0, clip.start), Math.min(rows, clip.start + clip.count)));
  return table;
}
