/**
 * A database file named on the command line (--db FILE, or a positional FILE), read and
 * validated before a command does anything else.
 */
import { statSync } from 'node:fs';
import type { Database } from '../database/database.js';
import { readDatabaseFile } from '../database/mmdb/mmdb-node.js';
import { FileAccessError } from '../util/files-node.js';

/**
 * Reads and decodes the .mmdb at `file` (messages start with the path, exit code 1). A FIFO,
 * device or socket is refused before anything reads it: reading a FIFO blocks until a writer
 * appears. A missing file or a folder gets readDatabaseFile's own message.
 */
export function readDatabaseArgument(file: string): Database {
  let st;
  try {
    st = statSync(file);
  } catch {
    st = null;
  }
  if (st && !st.isFile() && !st.isDirectory()) {
    const kind = st.isFIFO() ? 'a FIFO (named pipe)' : st.isSocket() ? 'a socket' : 'a device';
    throw new FileAccessError(file, `cannot read database file '${file}': it is ${kind}, not a regular file`, 'ENOTREG');
  }
  return readDatabaseFile(file);
}
