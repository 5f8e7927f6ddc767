/**
 * The compact database on the command line: `build --compact [--error] --json` reports the error
 * it measured, `info` says which kind a file is and the size of each part, `info --error` prints
 * the recorded error, and the commands that read a database read a compact one (here `search`).
 * Uses the real core captures (skipped with a printed reason when absent).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HAS_MOCAP, MOCAP_DIR, MOCAP_SKIP_REASON, runCli, runCliInProcess } from '../helpers/cli.js';

describe.skipIf(!HAS_MOCAP)('compact databases on the command line (core captures)', () => {
  let dir: string;
  let compact: string, float32: string;
  let built: { bytes: number; compact: boolean; error: { unit: string; max: number; p999: number; clips: Array<{ name: string; max: number }> } };
  beforeAll(async () => {
    if (!HAS_MOCAP) { console.log(MOCAP_SKIP_REASON); return; }
    dir = mkdtempSync(join(tmpdir(), 'mm-compact-'));
    compact = join(dir, 'core-compact.mmdb');
    float32 = join(dir, 'core.mmdb');
    const a = await runCliInProcess(['build', join(MOCAP_DIR, 'core'), '--mirror', '--compact', '--error', '--json', '--out', compact]);
    expect(a.stderr).toBe('');
    expect(a.code).toBe(0);
    built = JSON.parse(a.stdout);
    expect((await runCliInProcess(['build', join(MOCAP_DIR, 'core'), '--mirror', '--json', '--out', float32])).code).toBe(0);
  }, 120_000);
  afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

  it('build --compact reports the error it measured, within 0.01 cm, per clip', () => {
    expect(built.compact).toBe(true);
    expect(built.error.unit).toBe('cm');
    expect(built.error.max).toBeLessThanOrEqual(0.01);
    expect(built.error.p999).toBeLessThanOrEqual(built.error.max);
    expect(built.error.clips.length).toBeGreaterThan(0);
    expect(Math.max(...built.error.clips.map((c) => c.max))).toBeCloseTo(built.error.max, 6);
    expect(statSync(compact).size * 15).toBeLessThan(statSync(float32).size);
  });

  it('info says which kind and the size of each part; --error prints the recorded error', async () => {
    const c = JSON.parse((await runCliInProcess(['info', compact, '--json', '--error'])).stdout);
    expect(c.kind).toBe('compact');
    expect(c.formatVersion).toBe(2);
    expect(c.parts.poses).toBeGreaterThan(0);
    expect(c.parts.derived).toBe(0);
    expect(Object.values(c.parts as Record<string, number>).reduce((n, v) => n + v, 0)).toBe(c.bytes);
    expect(c.error.max).toBe(built.error.max);
    const f = JSON.parse((await runCliInProcess(['info', float32, '--json', '--error'])).stdout);
    expect(f.kind).toBe('float32');
    expect(f.error).toBeNull();
    expect(f.parts.derived).toBeGreaterThan(0);
    expect(f.frames).toBe(c.frames);
    const text = runCli(['info', compact, '--error']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/compact/);
    expect(text.stdout).toMatch(/largest 0\.00\d+ cm, 99\.9th percentile/);
  });

  it('search reads a compact file', async () => {
    const info = JSON.parse((await runCliInProcess(['info', compact, '--json'])).stdout);
    const q = join(dir, 'q.f32');
    // Five normalised queries: zero (the mean pose) and four off it.
    const rows = new Float32Array(5 * info.stride);
    for (let r = 1; r < 5; r++) for (let d = 0; d < info.dims; d++) rows[r * info.stride + d] = Math.sin(r * 7 + d);
    writeFileSync(q, new Uint8Array(rows.buffer));
    const a = await runCliInProcess(['search', compact, '--queries', q, '--normalized', '--json']);
    expect(a.code, a.stderr).toBe(0);
    const results = JSON.parse(a.stdout).results as Array<{ frame: number }>;
    expect(results.length).toBe(5);
    for (const r of results) expect(r.frame).toBeGreaterThanOrEqual(0);
    for (const r of results) expect(r.frame).toBeLessThan(info.frames);
  });

  it('build --error without --compact is a usage error, before any work', () => {
    const r = runCli(['build', join(MOCAP_DIR, 'core'), '--error', '--out', join(dir, 'x.mmdb')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--error .* --compact/);
  });
});
