/**
 * The output files a command writes (--out, --svg, --export-bvh), checked before any work: a name
 * is given, the path can end as a regular file, it is none of the command's inputs (by identity:
 * through symbolic links, "./" spellings and hard links), and its folder exists and takes new files.
 */
import { closeSync, openSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { UsageError } from './args.js';
import { FileAccessError, errnoCode, requireWritableRegularPath, trackTemporaryFile } from '../util/files-node.js';

/** An input file of a command, with words for it in a message ("the database", "the --options file"). */
export interface CommandInput {
  path: string | undefined | null;
  label: string;
}

/** Whether two paths name the same existing file (same device and inode, links followed). */
export function sameFile(a: string, b: string): boolean {
  try {
    const sa = statSync(a), sb = statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}

/** Throws unless `out` is none of `inputs`: "cannot write X 'out': it is the database 'in'; choose another --out". */
export function refuseInputAsOutput(out: string, option: string, what: string, inputs: readonly CommandInput[]): void {
  for (const input of inputs) {
    if (input.path && sameFile(out, input.path)) {
      throw new FileAccessError(out, `cannot write ${what} '${out}': it is ${input.label} '${input.path}' (writing would replace it); choose another ${option}`, 'EEXIST');
    }
  }
}

const REASONS: Record<string, string> = { ENOENT: 'the file system there takes no new files', EACCES: 'permission denied', EPERM: 'operation not permitted', EROFS: 'read-only file system', ENOSPC: 'no space left on the device', EDQUOT: 'disk quota exceeded' };

/** Throws unless a new file can be created in `folder` (tried with a temporary file, removed again). */
function requireWritableFolder(out: string, what: string): void {
  const folder = dirname(out);
  let st;
  try {
    st = statSync(folder);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') throw new FileAccessError(out, `cannot write ${what} '${out}': folder '${folder}' does not exist`, 'ENOENT');
    throw new FileAccessError(out, `cannot write ${what} '${out}': folder '${folder}' cannot be read (${errnoCode(e) ?? (e as Error).message})`, errnoCode(e));
  }
  if (!st.isDirectory()) throw new FileAccessError(out, `cannot write ${what} '${out}': '${folder}' is not a folder`, 'ENOTDIR');
  const probe = join(folder, `.${basename(out)}.${process.pid}.${randomBytes(4).toString('hex')}.probe`);
  const release = trackTemporaryFile(probe);
  try {
    closeSync(openSync(probe, 'wx'));
    unlinkSync(probe);
  } catch (e) {
    try { unlinkSync(probe); } catch { /* never created */ }
    const code = errnoCode(e);
    throw new FileAccessError(out, `cannot write ${what} '${out}': cannot create a file in folder '${folder}' (${code ? REASONS[code] ?? code : (e as Error).message})`, code);
  } finally {
    release();
  }
}

/**
 * Checks an output file option before the command does any work: `option ''` is a usage error;
 * then the path must be absent or a regular file, none of `inputs`, in a folder that takes new
 * files. Messages name the option's file (and the input it would replace), exit code 1.
 */
export function checkOutputFile(path: string | undefined, option: string, what: string, usage: string, inputs: readonly CommandInput[] = []): void {
  if (path === undefined) return;
  if (path.trim() === '') throw new UsageError(`${option} needs a file name`, usage);
  requireWritableRegularPath(path, what);
  refuseInputAsOutput(path, option, what, inputs);
  requireWritableFolder(path, what);
}
