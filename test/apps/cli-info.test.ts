/**
 * `motionmatch info`: the database rate and the source rates of resampled clips, and hostile inputs
 * (a device, a FIFO, a folder, a huge file, a damaged rate) refused with one line and exit code 1.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from '../../src/database/database.js';
import { encodeDatabase } from '../../src/database/mmdb/mmdb.js';
import { writeDatabaseFile } from '../../src/database/mmdb/mmdb-node.js';
import { describeRate, sourceRateCounts } from '../../src/apps/commands/info.js';
import { cloneDatabase, makeRandomDatabase } from '../helpers/random-database.js';
import { REPO_ROOT, runCli, runCliInProcess, tempDir } from '../helpers/cli.js';

const dir = tempDir('mm-info-');
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

const plain = makeRandomDatabase(61, { frames: 90, joints: 5, clips: 4, tags: 2, mirrored: true });
const resampled: Database = cloneDatabase(plain);
[60, undefined, 120, 60].forEach((fps, i) => { if (fps !== undefined) resampled.clips[i].sourceFps = fps; });

/** Exit code 1, stdout empty, and exactly one line on stderr that starts like this. */
function expectOneLineError(r: ReturnType<typeof runCli>, start: string): void {
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr.endsWith('\n')).toBe(true);
  expect(r.stderr.slice(0, -1)).not.toContain('\n');
  expect(r.stderr.startsWith(start), r.stderr).toBe(true);
}

describe('motionmatch info: rates', () => {
  const plainFile = join(dir, 'plain.mmdb');
  const resampledFile = join(dir, 'resampled.mmdb');
  writeDatabaseFile(plainFile, plain);
  writeDatabaseFile(resampledFile, resampled);

  it('shows the database rate, and for resampled clips their source rates', async () => {
    const r = runCli(['info', resampledFile]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('\n  rate        30 fps (2 clips resampled from 60 fps, 1 from 120 fps)\n');
    const p = await runCliInProcess(['info', plainFile]);
    expect(p.stdout).toContain('\n  rate        30 fps\n');
    expect(p.stdout).toMatch(/\n {2}clips {7}4 \(2 mirrored(, \d looping)?\)\n/);
  });

  it('--json has the rate, the source rates and every clip with its own', async () => {
    const j = JSON.parse((await runCliInProcess(['info', resampledFile, '--json'])).stdout);
    expect(j.fps).toBe(30);
    expect(j.resampledClips).toBe(3);
    expect(j.sourceRates).toEqual([{ fps: 60, clips: 2 }, { fps: 120, clips: 1 }]);
    expect(j.clipList.map((c: { sourceFps?: number }) => c.sourceFps)).toEqual([60, undefined, 120, 60]);
    expect(j.clipList[1]).not.toHaveProperty('sourceFps');
    expect(j.clipList.map((c: { frames: number; loop: boolean }) => [c.frames, c.loop])).toEqual(resampled.clips.map((c) => [c.count, c.loop]));
    expect(j.loopingClips).toBe(resampled.clips.filter((c) => c.loop).length);
    const p = JSON.parse((await runCliInProcess(['info', plainFile, '--json'])).stdout);
    expect([p.resampledClips, p.sourceRates]).toEqual([0, []]);
  });

  it('reads a file written before source rates were stored', async () => {
    const r = await runCliInProcess(['info', join(REPO_ROOT, 'test/database/fixtures/v1-before-source-rates.mmdb.bin'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect([j.frames, j.clips, j.fps, j.resampledClips]).toEqual([24, 3, 30, 0]);
  });

  it('describes rates in words', () => {
    expect(describeRate(30, [])).toBe('30 fps');
    expect(describeRate(30, [{ fps: 60, clips: 1 }])).toBe('30 fps (1 clip resampled from 60 fps)');
    expect(describeRate(29.97, sourceRateCounts([{ sourceFps: 120 }, { sourceFps: 24 }, {}, { sourceFps: 120 }] as Database['clips']))).toBe('29.97 fps (1 clip resampled from 24 fps, 2 from 120 fps)');
  });

  it('escapes control characters in names from the file', async () => {
    const odd = cloneDatabase(plain);
    (odd.skeleton.names as string[])[1] = 'Spine\u001b[2J\nX';
    const f = join(dir, 'odd.mmdb');
    writeDatabaseFile(f, odd);
    const r = await runCliInProcess(['info', f]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Spine\\u001b[2J\\u000aX');
    expect(r.stdout).not.toContain('\u001b');
  });
});

describe('motionmatch info: hostile inputs', () => {
  it('/dev/zero', () => {
    expectOneLineError(runCli(['info', '/dev/zero'], { timeoutMs: 10_000 }), "motionmatch info: cannot read database file '/dev/zero': it is a device, not a regular file");
  });

  it('a FIFO, within 10 s', () => {
    const fifo = join(dir, 'pipe.mmdb');
    const mk = spawnSync('mkfifo', [fifo]);
    if (mk.status !== 0) {
      console.log(`mkfifo unavailable (${mk.error?.message ?? mk.stderr}); skipping the FIFO case`);
      return;
    }
    const t0 = Date.now();
    const r = runCli(['info', fifo], { timeoutMs: 10_000 });
    expect(Date.now() - t0).toBeLessThan(10_000);
    expectOneLineError(r, `motionmatch info: cannot read database file '${fifo}': it is a FIFO (named pipe), not a regular file`);
    rmSync(fifo);
  });

  it('a directory, a missing file, a huge file', async () => {
    const folder = join(dir, 'folder.mmdb');
    mkdirSync(folder);
    expectOneLineError(await runCliInProcess(['info', folder]), `motionmatch info: cannot read database file '${folder}': it is a directory`);
    expectOneLineError(await runCliInProcess(['info', join(dir, 'nope.mmdb')]), `motionmatch info: cannot read database file '${join(dir, 'nope.mmdb')}': no such file`);
    const huge = join(dir, 'huge.mmdb');
    writeFileSync(huge, '');
    truncateSync(huge, 6 * 2 ** 30); // sparse
    expectOneLineError(runCli(['info', huge], { timeoutMs: 10_000 }), `motionmatch info: cannot read database file '${huge}': 6.0 GiB is larger than the 4.0 GiB (4,294,967,295 bytes) a database file may have`);
    rmSync(huge);
  });

  it('a database whose rate is absurd', async () => {
    for (const [fps, text] of [[1e308, 'fps is 1e+308, expected a rate in [1, 1000] frames per second'], [5e-324, 'fps is 5e-324'], [0, 'fps is 0,'], [-30, 'fps is -30,'], [NaN, 'fps is NaN']] as const) {
      const f = join(dir, 'absurd.mmdb');
      writeFileSync(f, encodeDatabase({ ...cloneDatabase(plain), fps }, { validate: false }));
      const r = await runCliInProcess(['info', f]);
      expectOneLineError(r, `motionmatch info: ${f}: section 'meta' (META): `);
      expect(r.stderr).toContain(text);
      const j = await runCliInProcess(['info', f, '--json']);
      expect(j.code).toBe(1);
      expect(JSON.parse(j.stdout).error).toMatchObject({ type: 'DatabaseFormatError' });
    }
  });

  it('--json reports file errors as JSON too, and info leaves nothing behind', () => {
    const before = readdirSync(dir).sort();
    const r = runCli(['info', '/dev/zero', '--json'], { timeoutMs: 10_000 });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ error: { type: 'DatabaseFileError', message: "cannot read database file '/dev/zero': it is a device, not a regular file" } });
    expect(readdirSync(dir).sort()).toEqual(before);
  });
});
