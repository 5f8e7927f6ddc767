/**
 * Careful file I/O shared by every command: read only regular files of a bounded size (a FIFO would
 * block forever, /dev/zero would grow memory without limit), and write only regular files, through
 * a temporary file that is renamed into place and removed again if the process is interrupted.
 */
import { closeSync, existsSync, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readSync, renameSync, statSync, unlinkSync, writeSync, constants } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { tmpdir, userInfo } from 'node:os';

/** A file that cannot be read or written as asked; the message starts with what and where. */
export class FileAccessError extends Error {
  override readonly name: string = 'FileAccessError';
  constructor(
    readonly path: string,
    message: string,
    /** errno code from the failing call ('ENOENT', 'EISDIR', ...), or a code of ours ('ENOTREG', 'EFBIG'). */
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function errnoCode(e: unknown): string | undefined {
  return e && typeof e === 'object' && 'code' in e && typeof (e as { code: unknown }).code === 'string' ? (e as { code: string }).code : undefined;
}

/** What kind of file system object a stat describes, in words for an error message. */
function kindOf(st: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean; isSymbolicLink(): boolean }): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** A size in words; the exact byte count too when the rounded figure would hide it (e.g. 2^32 − 1 vs 2^32). */
function formatBytes(n: number): string {
  const unit = n >= 2 ** 30 ? ['GiB', 2 ** 30] as const : n >= 2 ** 20 ? ['MiB', 2 ** 20] as const : n >= 2 ** 10 ? ['KiB', 2 ** 10] as const : null;
  if (!unit) return `${n} bytes`;
  const rounded = (n / unit[1]).toFixed(1);
  return Number(rounded) * unit[1] === n ? `${rounded} ${unit[0]}` : `${rounded} ${unit[0]} (${n.toLocaleString('en-US')} bytes)`;
}

export interface ReadRegularFileOptions {
  /** Words for the file in messages, e.g. "database file", "query file". */
  what: string;
  /** Largest size accepted (bytes); a larger file is refused before anything is read. */
  maxBytes: number;
  /** Advice appended to the "no such file" message. */
  missingHint?: string;
}

/**
 * The bytes of a regular file of at most `maxBytes`. Refuses directories, FIFOs, devices and
 * sockets before opening them (opening a FIFO for reading blocks until a writer appears), and a
 * file that is larger than allowed before reading it. The file is opened non-blocking and checked
 * again through its descriptor, so a path swapped for a FIFO between the checks cannot hang it.
 */
export function readRegularFile(path: string, options: ReadRegularFileOptions): Uint8Array {
  const { what, maxBytes } = options;
  let fd: number | undefined;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new FileAccessError(path, `cannot read ${what} '${path}': it is ${kindOf(st)}, not a regular file`, st.isDirectory() ? 'EISDIR' : 'ENOTREG');
    if (st.size > maxBytes) throw new FileAccessError(path, `cannot read ${what} '${path}': ${formatBytes(st.size)} is larger than the ${formatBytes(maxBytes)} a ${what} may have`, 'EFBIG');
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const fst = fstatSync(fd);
    if (!fst.isFile()) throw new FileAccessError(path, `cannot read ${what} '${path}': it is ${kindOf(fst)}, not a regular file`, 'ENOTREG');
    if (fst.size > maxBytes) throw new FileAccessError(path, `cannot read ${what} '${path}': ${formatBytes(fst.size)} is larger than the ${formatBytes(maxBytes)} a ${what} may have`, 'EFBIG');
    // Read what the descriptor says, and never more than the limit (a file growing while read).
    const out = new Uint8Array(fst.size);
    let off = 0;
    while (off < out.length) {
      const n = readSync(fd, out, off, out.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return off === out.length ? out : out.subarray(0, off);
  } catch (e) {
    if (e instanceof FileAccessError) throw e;
    const code = errnoCode(e);
    if (code === 'ENOENT') throw new FileAccessError(path, `cannot read ${what} '${path}': no such file${options.missingHint ? ` (${options.missingHint})` : ''}`, code, { cause: e });
    if (code === 'EISDIR') throw new FileAccessError(path, `cannot read ${what} '${path}': it is a directory, not a regular file`, code, { cause: e });
    if (code) throw new FileAccessError(path, `cannot read ${what} '${path}': ${(e as Error).message}`, code, { cause: e });
    throw e;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Text of a regular UTF-8 file of at most `maxBytes` (see readRegularFile). */
export function readRegularTextFile(path: string, options: ReadRegularFileOptions): string {
  return new TextDecoder('utf-8').decode(readRegularFile(path, options));
}

/**
 * Throws unless `path` is absent or an existing regular file (not a symbolic link, device, FIFO or
 * directory): writing replaces the file, and replacing a device node or a link's target is never
 * what a user asking for an output file meant.
 */
export function requireWritableRegularPath(path: string, what: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return;
    throw new FileAccessError(path, `cannot write ${what} '${path}': ${(e as Error).message}`, errnoCode(e), { cause: e });
  }
  if (!st.isFile()) {
    throw new FileAccessError(path, `cannot write ${what} '${path}': it exists and is ${kindOf(st)}; choose a new file name or remove it first`, st.isDirectory() ? 'EISDIR' : 'ENOTREG');
  }
}

/** Temporary files being written now: removed if the process is interrupted (SIGINT, SIGTERM, SIGHUP). */
const pendingTemporaries = new Set<string>();
const CLEANUP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type CleanupSignal = (typeof CLEANUP_SIGNALS)[number];

function removePendingTemporaries(): void {
  for (const tmp of pendingTemporaries) {
    try { unlinkSync(tmp); } catch { /* already gone */ }
  }
  pendingTemporaries.clear();
}

/**
 * The temporaries go, then the signal does what it would have done without us: when the program
 * handles it itself (the demo and tune stop gracefully on Ctrl-C) its handler runs as usual and
 * nothing more is done here; otherwise it is raised again with the default action, so the exit
 * status says which signal ended the process. (Re-raised whatever the program did, a Ctrl-C after
 * the demo had written a file killed it before its own clean stop: exit 130, not 0.) The listeners
 * stay once installed: one removed when a write ends would lose a signal that arrived during a
 * synchronous write and is delivered just after it.
 */
function onCleanupSignal(signal: CleanupSignal): void {
  removePendingTemporaries();
  if (process.listenerCount(signal) > 1) return;
  process.removeListener(signal, onCleanupSignal);
  process.kill(process.pid, signal);
}

let signalHandlersInstalled = false;

function installSignalCleanup(): void {
  if (signalHandlersInstalled) return;
  signalHandlersInstalled = true;
  for (const signal of CLEANUP_SIGNALS) process.on(signal, onCleanupSignal);
  process.on('exit', removePendingTemporaries);
}

/**
 * Registers `tmp` for removal if the process is interrupted before `release` is called. Long
 * writers (a database build) call this for the time the temporary exists.
 */
export function trackTemporaryFile(tmp: string): () => void {
  installSignalCleanup();
  pendingTemporaries.add(tmp);
  return () => { pendingTemporaries.delete(tmp); };
}

/**
 * Writes `bytes` to `path` atomically: a temporary file in the same folder is written, flushed and
 * renamed over `path`, so a crash, a full disk or Ctrl-C never leaves a half-written file or a
 * stray temporary. Refuses to replace anything but a regular file. Returns the bytes written.
 */
export function writeFileAtomic(path: string, bytes: Uint8Array | string, what: string): number {
  requireWritableRegularPath(path, what);
  const data = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const release = trackTemporaryFile(tmp);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx');
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off, data.length - off);
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
    if (code === 'EISDIR') throw new FileAccessError(path, `cannot write ${what} '${path}': it is a directory`, code, { cause: e });
    if (code === 'ENOENT') {
      // ENOENT also comes from a folder that exists but takes no new files (/proc, /sys).
      let folderExists = false;
      try { folderExists = statSync(dirname(path)).isDirectory(); } catch { /* missing */ }
      throw new FileAccessError(path, folderExists
        ? `cannot write ${what} '${path}': cannot create a file in folder '${dirname(path)}' (the file system there takes no new files)`
        : `cannot write ${what} '${path}': folder '${dirname(path)}' does not exist`, code, { cause: e });
    }
    if (code) throw new FileAccessError(path, `cannot write ${what} '${path}': ${(e as Error).message}`, code, { cause: e });
    throw e;
  } finally {
    release();
  }
  // Make the rename itself durable where folders can be fsynced (not on Windows).
  try {
    const dfd = openSync(dirname(path), 'r');
    try { fsyncSync(dfd); } finally { closeSync(dfd); }
  } catch { /* best effort */ }
  return data.length;
}

/** The first of `dirs` that is a folder or can be made (with its missing parents), or null when none can: where a cache goes. */
export function firstUsableFolder(dirs: readonly string[]): string | null {
  for (const dir of dirs) {
    try {
      makeFolder(dir, 'cache');
      return dir;
    } catch {
      // not writable: try the next
    }
  }
  return null;
}

/**
 * Makes folder `dir` (`what`: "the bench report's", in messages) and its missing parents, one level
 * at a time; FileAccessError when something on the way is not a folder or a level cannot be made.
 * Not mkdirSync's `recursive`: on Node 20 it never returns for a folder under /proc (each level
 * answers ENOENT, and it retries the parent that exists), and a signal cannot stop it.
 */
export function makeFolder(dir: string, what: string): void {
  const missing: string[] = [];
  let at = resolve(dir);
  while (!existsSync(at)) {
    missing.push(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  if (existsSync(at) && !statSync(at).isDirectory()) {
    throw new FileAccessError(dir, `cannot make ${what} folder '${dir}': '${at}' is not a folder`, 'ENOTDIR');
  }
  for (let i = missing.length - 1; i >= 0; i--) {
    try {
      mkdirSync(missing[i]);
    } catch (e) {
      const code = errnoCode(e);
      if (code === 'EEXIST') continue; // made by another process meanwhile
      const why = code === 'ENOENT' ? 'the file system there takes no new folders' : code ?? (e as Error).message;
      throw new FileAccessError(dir, `cannot make ${what} folder '${dir}': cannot make '${missing[i]}' (${why})`, code, { cause: e });
    }
  }
}

/**
 * A folder of the system's temporary folder for this user's `name` cache: `name-<uid>` (the user
 * name where there is no uid). The temporary folder is shared on a multi-user machine: another user's
 * files are never read as ours.
 */
export function userTemporaryFolder(name: string): string {
  const user = process.getuid?.() ?? userInfo().username;
  return join(tmpdir(), `${name}-${user}`);
}
