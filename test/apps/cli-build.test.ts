import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync, writeFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir, HAS_MOCAP, MOCAP_DIR } from '../helpers/cli.js';

describe('motionmatch build / info (built-in data)', () => {
  const dir = tempDir();
  const out = join(dir, 'builtin.mmdb');
  let build: ReturnType<typeof runCli>;
  beforeAll(() => { build = runCli(['build', '--builtin', '--out', out, '--json']); });

  it('builds the built-in database and reports it as JSON', () => {
    expect(build.stderr).toBe('');
    expect(build.code).toBe(0);
    const r = JSON.parse(build.stdout);
    expect(r.frames).toBeGreaterThan(1000);
    expect(r.clips).toBeGreaterThanOrEqual(15);
    expect(r.dims).toBe(27);
    expect(r.fps).toBe(30);
    expect(r.bytes).toBe(statSync(out).size);
  });

  it('info --json agrees with build', () => {
    const b = JSON.parse(build.stdout);
    const info = runCli(['info', out, '--json']);
    expect(info.code).toBe(0);
    const i = JSON.parse(info.stdout);
    for (const k of ['frames', 'clips', 'dims', 'fps', 'joints', 'bytes'] as const) expect(i[k]).toBe(b[k]);
    expect(i.groups.map((g: { name: string; weight: number }) => [g.name, g.weight])).toEqual([
      ['footPosition', 0.75], ['footVelocity', 1], ['hipVelocity', 1], ['trajectoryPosition', 1], ['trajectoryDirection', 1.5],
    ]);
  });

  it('info without --json prints a readable summary', () => {
    const info = runCli(['info', out]);
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(/frames\s+\d+/);
    expect(info.stdout).toContain('trajectoryDirection');
  });

  it('refuses a truncated database with a message naming the problem', () => {
    const bytes = readFileSync(out);
    const cut = join(dir, 'cut.mmdb');
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const r = runCli(['info', cut]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/truncated/i);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/); // a message, not a stack trace
  });

  it('refuses a bit-flipped database', () => {
    const bytes = Buffer.from(readFileSync(out));
    bytes[Math.floor(bytes.length / 2)] ^= 0x10;
    const flipped = join(dir, 'flipped.mmdb');
    writeFileSync(flipped, bytes);
    const r = runCli(['info', flipped, '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/CRC|corrupt/i);
    expect(JSON.parse(r.stdout).error.message).toMatch(/CRC|corrupt/i);
  });

  it('reports a malformed BVH with the file and line', () => {
    const bad = join(dir, 'bad.bvh');
    writeFileSync(bad, 'HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Xrotation Yrotation Zrotation\n}\nMOTION\nFrames: 2\nFrame Time: 0.033\n0 0 0\n0 abc 0\n');
    const r = runCli(['build', bad, '--out', join(dir, 'bad.mmdb')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('bad.bvh:11');
  });

  it('explains usage mistakes with exit code 2', () => {
    expect(runCli(['build', '--builtin']).code).toBe(2);
    expect(runCli(['build', '--builtin', '--out', join(dir, 'x.mmdb'), '--scale', 'abc']).code).toBe(2);
    expect(runCli(['frobnicate']).code).toBe(2);
  });
});

describe.skipIf(!HAS_MOCAP)('motionmatch build on the real bench set', () => {
  const dir = tempDir();
  it('counts 137 clips and 20,464 frames, 40,928 mirrored, and info agrees', () => {
    const plain = runCli(['build', join(MOCAP_DIR, 'bench'), '--out', join(dir, 'b.mmdb'), '--json']);
    expect(plain.code, plain.stderr).toBe(0);
    const p = JSON.parse(plain.stdout);
    expect([p.clips, p.frames, p.fps, p.dims]).toEqual([137, 20464, 30, 27]);
    const mirrored = runCli(['build', join(MOCAP_DIR, 'bench'), '--mirror', '--out', join(dir, 'bm.mmdb'), '--json']);
    expect(mirrored.code, mirrored.stderr).toBe(0);
    const m = JSON.parse(mirrored.stdout);
    expect([m.clips, m.frames]).toEqual([274, 40928]);
    const info = JSON.parse(runCli(['info', join(dir, 'bm.mmdb'), '--json']).stdout);
    expect([info.clips, info.frames, info.bytes]).toEqual([274, 40928, m.bytes]);
    console.log(`bench set build: ${p.seconds.total} s plain, ${m.seconds.total} s mirrored`);
  });
});
