/**
 * Database files that are not what they seem: devices, FIFOs, folders, symbolic links, files too
 * large for the format, and a writer interrupted by a signal. Each gives a clear one-line error (or
 * a clean exit) and leaves nothing behind.
 *
 * The cases that would hang or exhaust memory if the checks regressed (a FIFO, /dev/zero, a signal)
 * run in a child process on the compiled code in dist/ (built by `npm test`'s pretest) with a
 * timeout, so a regression fails the test instead of hanging the suite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DatabaseFileError, readDatabaseBytes, readDatabaseFile, writeDatabaseFile } from '../../src/database/mmdb/mmdb-node.js';
import { MMDB_MAX_FILE_BYTES, encodeDatabase, inspectDatabase } from '../../src/database/mmdb/mmdb.js';
import { FileAccessError } from '../../src/util/files-node.js';
import { makeRandomDatabase } from '../helpers/random-database.js';
import { REPO_ROOT } from '../helpers/cli.js';

const DIST_NODE = pathToFileURL(join(REPO_ROOT, 'dist/src/database/mmdb/mmdb-node.js')).href;
const db = makeRandomDatabase(51, { frames: 30, joints: 4, clips: 2, tags: 1 });
const dbBytes = encodeDatabase(db);

let dir = '';
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'mmdb-files-')); });
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

function fileError(f: () => unknown): DatabaseFileError {
  try {
    f();
  } catch (e) {
    if (e instanceof DatabaseFileError) return e;
    throw new Error(`expected a DatabaseFileError, got ${(e as Error)?.name}: ${(e as Error)?.message}`, { cause: e });
  }
  throw new Error('expected a DatabaseFileError, but the call succeeded');
}

interface ChildRead { name: string; code?: string; message: string; fileError: boolean }

/** readDatabaseFile(path) in a child process on the compiled code, killed after `timeoutMs`. */
function readInChild(path: string, timeoutMs = 10_000): ChildRead {
  const script = `
    import { readDatabaseFile, DatabaseFileError } from ${JSON.stringify(DIST_NODE)};
    try { readDatabaseFile(process.argv[1]); console.log(JSON.stringify({ name: 'none', message: 'read succeeded' })); }
    catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message, fileError: e instanceof DatabaseFileError })); }`;
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, path], { encoding: 'utf8', timeout: timeoutMs });
  if (r.error || r.status !== 0) throw new Error(`child did not finish within ${timeoutMs} ms or failed (${Date.now() - t0} ms, status ${r.status}, ${r.error?.message ?? r.stderr})`);
  return JSON.parse(r.stdout) as ChildRead;
}

describe('reading what is not a database file', () => {
  it('/dev/zero is refused as a device before anything is read', () => {
    const r = readInChild('/dev/zero');
    expect(r).toMatchObject({ name: 'DatabaseFileError', code: 'ENOTREG', fileError: true });
    expect(r.message).toBe("cannot read database file '/dev/zero': it is a device, not a regular file");
  });

  it('a FIFO is refused without blocking (no writer ever opens it)', () => {
    const fifo = join(dir, 'pipe.mmdb');
    const mk = spawnSync('mkfifo', [fifo]);
    if (mk.status !== 0) {
      console.log(`mkfifo unavailable (${mk.error?.message ?? mk.stderr}); skipping the FIFO case`);
      return;
    }
    const t0 = Date.now();
    const r = readInChild(fifo);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r).toMatchObject({ name: 'DatabaseFileError', code: 'ENOTREG', fileError: true });
    expect(r.message).toBe(`cannot read database file '${fifo}': it is a FIFO (named pipe), not a regular file`);
    // in this process too (the check happens before any open)
    expect(fileError(() => readDatabaseFile(fifo)).code).toBe('ENOTREG');
  });

  it('a directory is refused', () => {
    const sub = join(dir, 'folder.mmdb');
    mkdirSync(sub);
    const e = fileError(() => readDatabaseFile(sub));
    expect(e.code).toBe('EISDIR');
    expect(e.message).toBe(`cannot read database file '${sub}': it is a directory, not a regular file`);
  });

  it('a file larger than the format allows is refused from its size alone', () => {
    const huge = join(dir, 'huge.mmdb');
    writeFileSync(huge, '');
    truncateSync(huge, 5 * 2 ** 30); // sparse: no disk space used
    const e = fileError(() => readDatabaseFile(huge));
    expect(e.code).toBe('EFBIG');
    expect(e.message).toBe(`cannot read database file '${huge}': 5.0 GiB is larger than the 4.0 GiB (4,294,967,295 bytes) a database file may have`);
    truncateSync(huge, MMDB_MAX_FILE_BYTES + 1); // one byte over
    expect(fileError(() => readDatabaseBytes(huge)).code).toBe('EFBIG');
    rmSync(huge);
  });

  it('a missing file names the way to make one; errors are DatabaseFileErrors wrapping FileAccessErrors', () => {
    const missing = join(dir, 'nope.mmdb');
    const e = fileError(() => readDatabaseFile(missing));
    expect(e.message).toBe(`cannot read database file '${missing}': no such file (build one with \`motionmatch build\`)`);
    expect(e).toMatchObject({ name: 'DatabaseFileError', code: 'ENOENT', path: missing });
    expect(e.cause).toBeInstanceOf(FileAccessError);
  });

  it('a regular file reads back through readDatabaseBytes and readDatabaseFile', () => {
    const path = join(dir, 'ok.mmdb');
    writeFileSync(path, dbBytes);
    expect(Buffer.compare(Buffer.from(readDatabaseBytes(path)), Buffer.from(dbBytes))).toBe(0);
    expect(readDatabaseFile(path)).toEqual(db);
  });
});

describe('writing over what is not a database file', () => {
  it('refuses to replace a symbolic link, and leaves the link and its target alone', () => {
    const target = join(dir, 'target.txt');
    const link = join(dir, 'link.mmdb');
    writeFileSync(target, 'keep me');
    symlinkSync(target, link);
    const e = fileError(() => writeDatabaseFile(link, db));
    expect(e.code).toBe('ENOTREG');
    expect(e.message).toBe(`cannot write database file '${link}': it exists and is a symbolic link; choose a new file name or remove it first`);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
  });

  it('refuses to replace a FIFO or a directory, and leaves no temporary behind', () => {
    const sub = join(dir, 'w');
    mkdirSync(sub);
    const fifo = join(sub, 'pipe.mmdb');
    if (spawnSync('mkfifo', [fifo]).status === 0) {
      const e = fileError(() => writeDatabaseFile(fifo, db));
      expect(e.message).toBe(`cannot write database file '${fifo}': it exists and is a FIFO (named pipe); choose a new file name or remove it first`);
      expect(lstatSync(fifo).isFIFO()).toBe(true);
    }
    const folder = join(sub, 'folder.mmdb');
    mkdirSync(folder);
    expect(fileError(() => writeDatabaseFile(folder, db)).code).toBe('EISDIR');
    expect(readdirSync(sub).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('a writer interrupted by a signal', () => {
  /**
   * A child writes two databases (~14 MB each) alternately to the same file; the signal is
   * sent while a temporary file exists. The process must end by that signal, no temporary may
   * remain, and the file must be complete (a process killed outright would leave the temporary).
   */
  it.each(['SIGINT', 'SIGTERM'] as const)('%s: nothing is left behind and the file is complete', async (signal) => {
    const sub = mkdtempSync(join(dir, 'sig-'));
    const out = join(sub, 'big.mmdb');
    const script = `
      import { writeDatabaseFile } from ${JSON.stringify(DIST_NODE)};
      const N = 150_000;
      function make(k) {
        const rootRotations = new Float32Array(N * 4), rotations = new Float32Array(N * 4);
        for (let i = 3; i < N * 4; i += 4) { rootRotations[i] = 1; rotations[i] = 1; }
        const rawFeatures = new Float32Array(N * 4);
        for (let f = 0; f < N; f++) rawFeatures[f * 4] = rawFeatures[f * 4 + 1] = k;
        return {
          skeleton: { names: ['Hips'], parents: new Int32Array([-1]), offsets: new Float64Array(3), endSiteParents: new Int32Array(0), endSiteOffsets: new Float64Array(0) },
          roles: { hips: 0, leftFoot: -1, rightFoot: -1, leftToe: -1, rightToe: -1 },
          fps: 30, frameCount: N,
          clips: [{ name: 'long', source: 'long.bvh', start: 0, count: N, loop: false, mirrored: false, tags: [] }],
          rotations, translations: new Float32Array(N * 3), rootPositions: new Float32Array(N * 3), rootRotations,
          contacts: new Uint8Array(N), candidates: new Uint8Array(N).fill(1), tagNames: [], tagBits: new Uint32Array(N),
          schema: { groups: [{ name: 'trajectory', kind: 'trajectoryPosition', offsets: [0.5], weight: 1 }], endMarginSeconds: 0, facingSmoothingSeconds: 0 },
          dims: 2, stride: 4, rawFeatures, features: rawFeatures.slice(), mean: Float32Array.from([0, 0, 0, 0]), scale: Float32Array.from([1, 1, 1, 1]),
        };
      }
      const dbs = [make(0), make(1)];
      let i = 0;
      const step = () => { writeDatabaseFile(process.argv[1], dbs[i++ % 2]); process.stdout.write('w'); setImmediate(step); };
      step();`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, out], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, sig) => resolve({ code, signal: sig })));
    // Interrupt while a temporary exists: the moment a half-written file could be left behind.
    const sawTemporary = await new Promise<boolean>((resolve) => {
      const t0 = Date.now();
      const poll = setInterval(() => {
        const temporary = readdirSync(sub).some((f) => f.endsWith('.tmp'));
        if (temporary || Date.now() - t0 > 60_000) { clearInterval(poll); resolve(temporary); }
      }, 1);
    });
    child.kill(signal);
    expect(sawTemporary, `no temporary file appeared within 60 s: ${stderr}`).toBe(true);
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const result = await exited;
    clearTimeout(timer);
    expect(stderr).toBe('');
    expect(result).toEqual({ code: null, signal });
    expect(readdirSync(sub)).toEqual(['big.mmdb']);
    const info = inspectDatabase(readDatabaseBytes(out), out); // every CRC checks out
    expect(info.frameCount).toBe(150_000);
  }, 120_000);
});
