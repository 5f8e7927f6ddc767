/**
 * Node file I/O for .mmdb databases (the format itself lives in mmdb/mmdb.ts, which is browser-safe).
 * Files go through util/files-node.ts: only bounded regular files are read (a FIFO, a device or a
 * directory is refused before it is opened), and writes are atomic, through a temporary file that
 * is removed again if the process is interrupted.
 */
import type { Database } from '../database.js';
import { decodeDatabase } from './decode.js';
import { encodeDatabase, type EncodeDatabaseOptions } from './encode.js';
import { encodeCompactDatabase, type EncodeCompactOptions } from './encode-compact.js';
import type { PoseErrorReport } from '../compact/pose-error.js';
import { MMDB_HEADER_BYTES, MMDB_MAX_FILE_BYTES } from './format.js';
import { checkContainerHeader } from './container.js';
import { readRegularFileChecked } from '../../util/read-checked-node.js';
import { FileAccessError, writeFileAtomic } from '../../util/files-node.js';

/**
 * A database file that cannot be read or written at all (missing, a directory, a FIFO, too large,
 * no permission): a FileAccessError (path, message, errno or files-node code) named for databases.
 */
export class DatabaseFileError extends FileAccessError {
  override readonly name: string = 'DatabaseFileError';
}

const WHAT = 'database file';

/** Runs `io`, turning a FileAccessError into a DatabaseFileError with the same message and code. */
function asDatabaseFileError<T>(io: () => T): T {
  try {
    return io();
  } catch (e) {
    if (e instanceof FileAccessError) throw new DatabaseFileError(e.path, e.message, e.code, { cause: e });
    throw e;
  }
}

/**
 * The bytes of a .mmdb file, undecoded. Refuses anything but a regular file of at most
 * MMDB_MAX_FILE_BYTES before reading it (DatabaseFileError), so /dev/zero, a FIFO or a huge file
 * neither hangs nor exhausts memory.
 */
export function readDatabaseBytes(path: string): Uint8Array {
  // The size and the header (magic number, version) are checked from the first bytes, before the
  // rest is read (DatabaseFormatError); large files are read in chunks.
  return asDatabaseFileError(() => readRegularFileChecked(path, {
    what: WHAT, maxBytes: MMDB_MAX_FILE_BYTES, missingHint: 'build one with `motionmatch build`',
    headBytes: MMDB_HEADER_BYTES, checkHead: (head, size) => { checkContainerHeader(head, size, path); },
  }));
}

/**
 * Encodes `db` and writes it to `path` atomically: the bytes go to a temporary file in the same
 * directory, which is flushed to disk and then renamed over `path`, so a crash, a full disk or
 * Ctrl-C never leaves a half-written database or a stray temporary behind. Refuses to replace
 * anything but a regular file (a device node, a symbolic link, a FIFO). Returns the bytes written.
 * Throws DatabaseFormatError when `db` is inconsistent (nothing is written then) and
 * DatabaseFileError when the file cannot be written.
 */
export function writeDatabaseFile(path: string, db: Database, options?: EncodeDatabaseOptions): number {
  const bytes = encodeDatabase(db, options);
  return asDatabaseFileError(() => writeFileAtomic(path, bytes, WHAT));
}

/**
 * Encodes `db` as a compact file (docs/compact.md) and writes it atomically like writeDatabaseFile.
 * Returns the bytes written and the decoded poses' error against `db`'s.
 */
export function writeCompactDatabaseFile(path: string, db: Database, options?: EncodeCompactOptions): { bytes: number; error: PoseErrorReport } {
  const { bytes, error } = encodeCompactDatabase(db, options);
  return { bytes: asDatabaseFileError(() => writeFileAtomic(path, bytes, WHAT)), error };
}

/**
 * Reads and decodes a .mmdb file (float32 or compact). Throws DatabaseFileError when the file cannot be read (missing,
 * not a regular file, larger than a .mmdb file may be, no permission) and DatabaseFormatError
 * (mmdb/mmdb.ts) when its contents are invalid; messages start with what and `path`.
 */
export function readDatabaseFile(path: string): Database {
  // The bytes were read for this database alone: its arrays may be views of them (no second copy).
  return decodeDatabase(readDatabaseBytes(path), path, { viewsOfBytes: true });
}
