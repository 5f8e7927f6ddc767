/**
 * Reading a large regular file safely: its first bytes are checked before the rest is read (a
 * 1.9 GB file that is no database is refused after 24 bytes, not after reading 1.9 GB), and the
 * rest is read in chunks (one read of more than 2 GiB overflows Node's `length` argument: "The
 * value of 'length' is out of range"). Everything else — what is refused and the messages —
 * is util/files-node.ts readRegularFile's.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { FileAccessError, errnoCode, readRegularFile, type ReadRegularFileOptions } from './files-node.js';

/** Bytes asked of one read call: well below the 2^31 - 1 a call takes. */
export const READ_CHUNK_BYTES = 2 ** 30;

export interface ReadCheckedOptions extends ReadRegularFileOptions {
  /** How many first bytes `checkHead` needs (it gets fewer when the file is shorter). */
  headBytes: number;
  /** Throws when the first bytes (and the file's size) say the file is not what is expected. */
  checkHead: (head: Uint8Array, fileBytes: number) => void;
  /** Bytes per read call (default READ_CHUNK_BYTES; tests make it small). */
  chunkBytes?: number;
}

/** Reads up to `length` bytes at file offset `position` into `out` at `offset`; returns the count read (short at the end of the file). */
function readFully(fd: number, out: Uint8Array, offset: number, length: number, position: number, chunk = READ_CHUNK_BYTES): number {
  let done = 0;
  while (done < length) {
    const n = readSync(fd, out, offset + done, Math.min(chunk, length - done), position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/**
 * The bytes of a regular file of at most `maxBytes`, its first `headBytes` checked by `checkHead`
 * before the rest is read. Refuses what readRegularFile refuses, with its messages.
 */
export function readRegularFileChecked(path: string, options: ReadCheckedOptions): Uint8Array {
  let st;
  try {
    st = statSync(path);
  } catch {
    st = null;
  }
  // Anything readRegularFile refuses before reading (missing, a folder, a FIFO, too large): its message.
  if (!st || !st.isFile() || st.size > options.maxBytes) return readRegularFile(path, options);
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const fst = fstatSync(fd);
    if (!fst.isFile() || fst.size > options.maxBytes) {
      closeSync(fd);
      fd = undefined;
      return readRegularFile(path, options);
    }
    const size = fst.size;
    const head = new Uint8Array(Math.min(size, options.headBytes));
    const got = readFully(fd, head, 0, head.length, 0);
    options.checkHead(head.subarray(0, got), size);
    const out = new Uint8Array(size);
    out.set(head.subarray(0, got));
    const chunk = options.chunkBytes !== undefined && options.chunkBytes >= 1 ? Math.min(options.chunkBytes, READ_CHUNK_BYTES) : READ_CHUNK_BYTES;
    const n = got + readFully(fd, out, got, size - got, got, chunk);
    return n === size ? out : out.subarray(0, n);
  } catch (e) {
    if (e instanceof FileAccessError) throw e;
    // System errors only (DatabaseFormatError and the like have codes of their own).
    const code = (e as { syscall?: unknown }).syscall !== undefined ? errnoCode(e) : undefined;
    if (code) throw new FileAccessError(path, `cannot read ${options.what} '${path}': ${(e as Error).message}`, code, { cause: e });
    if (e instanceof RangeError && /Array buffer allocation failed|Invalid typed array length/.test(e.message)) {
      throw new FileAccessError(path, `cannot read ${options.what} '${path}': not enough memory for its ${st.size.toLocaleString('en-US')} bytes`, 'ENOMEM', { cause: e });
    }
    throw e;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
