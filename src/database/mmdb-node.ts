/**
 * Node file I/O for .mmdb databases (the format itself lives in mmdb.ts, which is browser-safe).
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Database } from './database.js';
import { decodeDatabase, encodeDatabase, type EncodeDatabaseOptions } from './mmdb.js';

/** A database file that cannot be read at all (missing, a directory, unreadable). */
export class DatabaseFileError extends Error {
  override readonly name = 'DatabaseFileError';
  constructor(
    readonly path: string,
    message: string,
    /** errno code from the failing call ('ENOENT', 'EISDIR', 'EACCES', ...) when there was one. */
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

function errnoCode(e: unknown): string | undefined {
  return e && typeof e === 'object' && 'code' in e && typeof (e as { code: unknown }).code === 'string' ? (e as { code: string }).code : undefined;
}

/**
 * Encodes `db` and writes it to `path` atomically: the bytes go to a temporary file in the same
 * directory, which is flushed to disk and then renamed over `path`, so a crash or a full disk never
 * leaves a half-written database behind. Returns the number of bytes written.
 * Throws DatabaseFormatError when `db` is inconsistent (nothing is written then).
 */
export function writeDatabaseFile(path: string, db: Database, options?: EncodeDatabaseOptions): number {
  const bytes = encodeDatabase(db, options);
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx');
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, path);
  } catch (e) {
    if (fd !== undefined) {
      try { closeSync(fd); } catch { /* already failing */ }
    }
    try { unlinkSync(tmp); } catch { /* never created or already renamed */ }
    const code = errnoCode(e);
    if (code === 'EISDIR') throw new DatabaseFileError(path, `cannot write database file '${path}': it is a directory`, code, { cause: e });
    if (code === 'ENOENT') throw new DatabaseFileError(path, `cannot write database file '${path}': directory '${dirname(path)}' does not exist`, code, { cause: e });
    if (code) throw new DatabaseFileError(path, `cannot write database file '${path}': ${(e as Error).message}`, code, { cause: e });
    throw e;
  }
  // Make the rename itself durable where directories can be fsynced (not on Windows).
  try {
    const dfd = openSync(dirname(path), 'r');
    try { fsyncSync(dfd); } finally { closeSync(dfd); }
  } catch { /* best effort */ }
  return bytes.length;
}

/**
 * Reads and decodes a .mmdb file. Throws DatabaseFileError when the file cannot be read (missing,
 * a directory, no permission) and DatabaseFormatError (mmdb.ts) when its contents are invalid;
 * messages start with `path`.
 */
export function readDatabaseFile(path: string): Database {
  let bytes: Uint8Array;
  try {
    if (statSync(path).isDirectory()) {
      throw new DatabaseFileError(path, `cannot read database file '${path}': it is a directory, not a .mmdb file`, 'EISDIR');
    }
    bytes = readFileSync(path);
  } catch (e) {
    if (e instanceof DatabaseFileError) throw e;
    const code = errnoCode(e);
    if (code === 'ENOENT') throw new DatabaseFileError(path, `cannot read database file '${path}': no such file (build one with \`motionmatch build\`)`, code, { cause: e });
    if (code === 'EISDIR') throw new DatabaseFileError(path, `cannot read database file '${path}': it is a directory, not a .mmdb file`, code, { cause: e });
    if (code) throw new DatabaseFileError(path, `cannot read database file '${path}': ${(e as Error).message}`, code, { cause: e });
    throw e;
  }
  return decodeDatabase(bytes, path);
}
