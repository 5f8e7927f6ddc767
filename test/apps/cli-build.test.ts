import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync, writeFileSync, statSync, lstatSync, mkdirSync, readdirSync, symlinkSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { runCli, runCliInProcess, tempDir, HAS_MOCAP, MOCAP_DIR, type CliResult } from '../helpers/cli.js';
import { bipedBvh } from '../import/bvh-fixtures.js';
import { RIG_CONVENTIONS, skeletonOfRows, walkClip } from '../features/rig-conventions.js';
import { writeBvh } from '../../src/import/bvh/write.js';
import { builtinSources } from '../../src/database/builtin-sources.js';
import { withTPoseInFront } from '../helpers/calibration-pose.js';

/** runCli, timed: every refusal below must come well within 10 s. */
function runTimed(args: string[]): CliResult & { ms: number } {
  const t0 = performance.now();
  const r = runCli(args, { timeoutMs: 20_000 });
  return { ...r, ms: performance.now() - t0 };
}

/** Files (recursively, names relative to dir) present in dir. */
function listing(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort();
}

describe('motionmatch build / info (built-in data)', () => {
  const dir = tempDir();
  const out = join(dir, 'builtin.mmdb');
  let build: ReturnType<typeof runCli>;
  beforeAll(async () => { build = await runCliInProcess(['build', '--builtin', '--out', out, '--json']); });

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

  it('info --json agrees with build', async () => {
    const b = JSON.parse(build.stdout);
    const info = await runCliInProcess(['info', out, '--json']);
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

  it('refuses a truncated database with a message naming the problem', async () => {
    const bytes = readFileSync(out);
    const cut = join(dir, 'cut.mmdb');
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const r = await runCliInProcess(['info', cut]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/truncated/i);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/); // a message, not a stack trace
  });

  it('refuses a bit-flipped database', async () => {
    const bytes = Buffer.from(readFileSync(out));
    bytes[Math.floor(bytes.length / 2)] ^= 0x10;
    const flipped = join(dir, 'flipped.mmdb');
    writeFileSync(flipped, bytes);
    const r = await runCliInProcess(['info', flipped, '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/CRC|corrupt/i);
    expect(JSON.parse(r.stdout).error.message).toMatch(/CRC|corrupt/i);
  });

  it('reports a malformed BVH with the file and line', async () => {
    const bad = join(dir, 'bad.bvh');
    writeFileSync(bad, 'HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Xrotation Yrotation Zrotation\n}\nMOTION\nFrames: 2\nFrame Time: 0.033\n0 0 0\n0 abc 0\n');
    const r = await runCliInProcess(['build', bad, '--out', join(dir, 'bad.mmdb')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('bad.bvh:11');
  });

  it('explains usage mistakes with exit code 2', async () => {
    expect(runCli(['build', '--builtin']).code).toBe(2);
    expect((await runCliInProcess(['build', '--builtin', '--out', join(dir, 'x.mmdb'), '--scale', 'abc'])).code).toBe(2);
    expect((await runCliInProcess(['frobnicate'])).code).toBe(2);
  });
});

describe('motionmatch build refuses hostile input with one line, exit 1, nothing left behind', () => {
  const dir = tempDir();
  const walk = join(dir, 'walk.bvh');
  writeFileSync(walk, bipedBvh(40));

  /** Runs a build expected to fail; checks exit 1, the time, one stderr line, and that no file appeared. */
  function refused(args: string[], message: RegExp): string {
    const before = listing(dir);
    const r = runTimed(['build', ...args]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.ms).toBeLessThan(10_000);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    expect(listing(dir)).toEqual(before);
    return r.stderr;
  }

  it('the fixture builds (so the refusals below are about the hostile part)', async () => {
    const r = await runCliInProcess(['build', walk, '--out', join(dir, 'ok.mmdb'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).clips).toBe(1);
  });

  it('frame times that mean absurd rates, at the file and line', () => {
    for (const ft of ['1e-7', '1e-9', '1e-300', '1e300']) {
      const bad = join(dir, `ft-${ft}.bvh`);
      const text = bipedBvh(40).replace(/Frame Time:[^\n]*/, `Frame Time: ${ft}`);
      writeFileSync(bad, text);
      const line = text.split('\n').findIndex((l) => l.startsWith('Frame Time:')) + 1;
      refused([bad, '--out', join(dir, 'x.mmdb')], new RegExp(`ft-${ft.replace(/[.-]/g, '\\$&')}\\.bvh:${line}: .*supported rates are 1 to 1000 fps`));
    }
  });

  it('a FIFO or a device named as a BVH file', () => {
    const fifo = join(dir, 'pipe.bvh');
    if (spawnSync('mkfifo', [fifo]).status === 0) refused([fifo, '--out', join(dir, 'x.mmdb')], /pipe\.bvh': it is a FIFO/);
    if (existsSync('/dev/zero')) {
      const link = join(dir, 'zero.bvh');
      symlinkSync('/dev/zero', link);
      refused([link, '--out', join(dir, 'x.mmdb')], /zero\.bvh': it is a device/);
    }
  });

  it('--out onto a device, a link or into a missing folder is refused before any work', () => {
    if (existsSync('/dev/null')) {
      refused([walk, '--out', '/dev/null'], /cannot write database file '\/dev\/null': it exists and is a device/);
      expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    }
    const link = join(dir, 'link.mmdb');
    symlinkSync(join(dir, 'target.mmdb'), link);
    refused([walk, '--out', link], /link\.mmdb': it exists and is a symbolic link/);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(existsSync(join(dir, 'target.mmdb'))).toBe(false);
    refused([walk, '--out', join(dir, 'no', 'such', 'x.mmdb')], /folder '.*no\/such' does not exist/);
    const before = readFileSync(walk, 'utf8');
    refused([walk, '--out', walk], /walk\.bvh': it is the input file/);
    expect(readFileSync(walk, 'utf8')).toBe(before);
  });

  it('a skeleton without hips: the file and a handful of joints, not all of them', () => {
    const parts = ['HIERARCHY', 'ROOT j0', '{', 'OFFSET 0 0 0', 'CHANNELS 3 Xposition Yposition Zposition'];
    const depth = 2000;
    for (let i = 1; i < depth; i++) parts.push(`JOINT j${i}`, '{', 'OFFSET 0 0.1 0', 'CHANNELS 1 Zrotation');
    for (let i = 0; i < depth; i++) parts.push('}');
    parts.push('MOTION', 'Frames: 2', 'Frame Time: 0.0333333', ...[0, 1].map(() => ['0 0 0', ...new Array(depth - 1).fill('1')].join(' ')));
    const deep = join(dir, 'deep.bvh');
    writeFileSync(deep, parts.join('\n') + '\n');
    const msg = refused([deep, '--out', join(dir, 'x.mmdb')], /deep\.bvh: cannot find the hips bone/);
    expect(msg).toMatch(/\.\.\. and 1,99\d more/);
    expect(msg.length).toBeLessThan(400);
  });

  it("a folder link to '..' is skipped with a warning: the build reads only the named folder", async () => {
    const inner = join(dir, 'inner');
    mkdirSync(inner);
    writeFileSync(join(inner, 'walk.bvh'), bipedBvh(40));
    symlinkSync('..', join(inner, 'up'));
    writeFileSync(join(dir, 'broken.bvh'), 'not a BVH file'); // would fail the build if it were read
    const r = await runCliInProcess(['build', inner, '--out', join(dir, 'inner.mmdb'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`motionmatch build: skipped ${join(inner, 'up')}: a link leading outside '${inner}'\n`);
    const out = JSON.parse(r.stdout);
    expect(out.clips).toBe(1);
    expect(out.skipped).toEqual([{ path: join(inner, 'up'), reason: `a link leading outside '${inner}'` }]);
  });

  it('a folder holding only links to captures elsewhere: the error says what was left out and why', async () => {
    const store = join(dir, 'store'), links = join(dir, 'links');
    mkdirSync(store); mkdirSync(links);
    for (const n of ['a', 'b']) { writeFileSync(join(store, `${n}.bvh`), bipedBvh(40)); symlinkSync(join(store, `${n}.bvh`), join(links, `${n}.bvh`)); }
    const r = await runCliInProcess(['build', links, '--out', join(dir, 'links.mmdb')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`motionmatch build: no .bvh files found in ${links} (2 entries left out, e.g. ${join(links, 'a.bvh')}: a link leading outside '${links}'; ` +
      'links are followed only inside the folder named: name the folder they lead to)\n');
    expect(existsSync(join(dir, 'links.mmdb'))).toBe(false);
  });
});

describe('motionmatch build: rates, loops and rigs without options', () => {
  const dir = tempDir();

  it('resamples files at other rates to one rate and says so (text and --json)', async () => {
    const folder = join(dir, 'rates');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a30.bvh'), bipedBvh(61, 30));
    writeFileSync(join(folder, 'b60.bvh'), bipedBvh(121, 60));
    writeFileSync(join(folder, 'c24.bvh'), bipedBvh(49, 24));
    writeFileSync(join(folder, 'd24.bvh'), bipedBvh(49, 24));
    const text = await runCliInProcess(['build', folder, '--out', join(dir, 'rates.mmdb'), '--fps', '30']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('resampled 1 clip from 60 fps to 30 fps\nresampled 2 clips from 24 fps to 30 fps\n');
    const json = await runCliInProcess(['build', folder, '--out', join(dir, 'rates.mmdb'), '--json']);
    expect(json.code, json.stderr).toBe(0);
    const r = JSON.parse(json.stdout);
    expect(r.fps).toBe(60);
    expect(r.resampled).toEqual([{ from: 30, to: 60, clips: 1 }, { from: 24, to: 60, clips: 2 }]);
    const same = JSON.parse((await runCliInProcess(['build', join(folder, 'a30.bvh'), '--out', join(dir, 'one.mmdb'), '--json'])).stdout);
    expect(same.resampled).toEqual([]);
  });

  it('--loop GLOB marks looping clips (every frame a candidate) and warns about a glob that matches nothing', async () => {
    const folder = join(dir, 'loops');
    mkdirSync(folder);
    writeFileSync(join(folder, 'walk_loop.bvh'), bipedBvh(40));
    writeFileSync(join(folder, 'stop.bvh'), bipedBvh(40));
    const r = await runCliInProcess(['build', folder, '--out', join(dir, 'loops.mmdb'), '--loop', '*_loop', '--loop', 'nothing*', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('motionmatch build: --loop nothing* matches no clip name\n');
    const out = JSON.parse(r.stdout);
    expect(out.loops).toBe(1);
    expect(out.candidates).toBe(40 + 40 - 20); // the loop keeps all 40, the other loses its end margin (1 s, at most half the clip: 20)
    const plain = JSON.parse((await runCliInProcess(['build', folder, '--out', join(dir, 'loops.mmdb'), '--json'])).stdout);
    expect([plain.loops, plain.candidates]).toEqual([0, 40]);
    const text = await runCliInProcess(['build', folder, '--out', join(dir, 'loops.mmdb'), '--loop', 'WALK*']);
    expect(text.stdout).toContain('1 looping clip\n');
    expect((await runCliInProcess(['build', '--help'])).stdout).toContain('--loop GLOB');
    expect((await runCliInProcess(['build', folder, '--out', join(dir, 'x.mmdb'), '--loop', ''])).code).toBe(2);
  });

  it('a file in every naming convention builds mirrored without --bones', async () => {
    const folder = join(dir, 'rigs');
    mkdirSync(folder);
    for (const [i, c] of RIG_CONVENTIONS.entries()) {
      const file = join(folder, `rig${i}.bvh`);
      const s = skeletonOfRows(c.rows);
      writeFileSync(file, writeBvh(s, walkClip(s, `rig${i}`)));
      const r = await runCliInProcess(['build', file, '--mirror', '--out', join(dir, `rig${i}.mmdb`), '--json']);
      expect(r.code, `${c.label}: ${r.stderr}`).toBe(0);
      const j = JSON.parse(r.stdout);
      expect(j.clips, c.label).toBe(2);
      // Every convention whose names give sides pairs them all (test/features/mirror-conventions.test.ts
      // checks the mirrored motion itself); names that give none are mirrored limb by limb in place, and said so.
      if (c.label.startsWith('names that say nothing')) {
        expect(j.mirrorWarning, c.label).toMatch(/^the feet 'Bone\.012' and 'Bone\.022' are not left and right of each other by name/);
        expect(r.stderr, c.label).toContain('motionmatch build: warning: --mirror: the feet');
      } else {
        expect(j.mirrorWarning, c.label).toBeNull();
        expect(r.stderr, c.label).not.toContain('--mirror');
      }
    }
  });

  it('--mirror warns, naming them, about joints that name a side but have no partner', async () => {
    // A Mixamo rig whose right hand is called something else: the left hand has no partner.
    const c = RIG_CONVENTIONS.find((x) => x.label.startsWith('Mixamo'))!;
    const s = skeletonOfRows(c.rows.map(([n, p, o]) => [n === 'RightHand' ? 'Grip' : n, p === 'RightHand' ? 'Grip' : p, o]));
    const file = join(dir, 'one-hand.bvh');
    writeFileSync(file, writeBvh(s, walkClip(s, 'one-hand')));
    const r = await runCliInProcess(['build', file, '--mirror', '--out', join(dir, 'one-hand.mmdb')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("motionmatch build: warning: --mirror: joint 'LeftHand' names a side but has no partner on the other side: the mirrored copies move it in place, reflected\n");
    // Without --mirror nothing is mirrored, and nothing is said.
    expect((await runCliInProcess(['build', file, '--out', join(dir, 'one-hand.mmdb')])).stderr).toBe('');
  });
});

describe('motionmatch build: takes that begin with a T-pose frame', () => {
  const dir = tempDir();

  it('leaves the pose out and says so (text and --json); --as-captured keeps it', async () => {
    const sources = builtinSources().slice(0, 2), sk = sources[0].skeleton, j = (n: string) => sk.names.indexOf(n);
    const arms = [{ upper: j('upperarm_l'), lower: j('lowerarm_l'), hand: j('hand_l') }, { upper: j('upperarm_r'), lower: j('lowerarm_r'), hand: j('hand_r') }] as const;
    const folder = join(dir, 'takes');
    mkdirSync(folder);
    let frames = 0;
    for (const s of sources) {
      const clip = withTPoseInFront(sk, s.clip, arms, j('thigh_l'), j('thigh_r'));
      frames += clip.frameCount;
      writeFileSync(join(folder, `${s.clip.name}.bvh`), writeBvh(sk, clip, { precision: 9 }));
    }
    const text = await runCliInProcess(['build', folder, '--out', join(dir, 't.mmdb')]);
    expect(text.code, text.stderr).toBe(0);
    for (const s of sources) expect(text.stderr).toMatch(new RegExp(`left out the first frame of ${join(folder, s.clip.name)}\\.bvh: a pose 0\\.\\d\\d m from the next frame, [\\d.]+ times any other step of the clip \\(a calibration pose; --as-captured keeps it\\)`));
    const json = await runCliInProcess(['build', folder, '--out', join(dir, 'j.mmdb'), '--json']);
    const out = JSON.parse(json.stdout);
    expect(out.frames).toBe(frames - sources.length);
    expect(out.calibrationTrimmed.map((t: { start: number; end: number }) => [t.start, t.end])).toEqual(sources.map(() => [1, 0]));
    const kept = await runCliInProcess(['build', folder, '--out', join(dir, 'k.mmdb'), '--json', '--as-captured']);
    expect(kept.stderr).toBe('');
    expect(JSON.parse(kept.stdout)).toMatchObject({ frames, calibrationTrimmed: [] });
  });
});

describe.skipIf(!HAS_MOCAP)('motionmatch build on the real bench set', () => {
  const dir = tempDir();
  it('counts 137 clips and 20,464 frames, 40,928 mirrored, and info agrees', async () => {
    const plain = await runCliInProcess(['build', join(MOCAP_DIR, 'bench'), '--out', join(dir, 'b.mmdb'), '--json']);
    expect(plain.code, plain.stderr).toBe(0);
    const p = JSON.parse(plain.stdout);
    expect([p.clips, p.frames, p.fps, p.dims]).toEqual([137, 20464, 30, 27]);
    const mirrored = await runCliInProcess(['build', join(MOCAP_DIR, 'bench'), '--mirror', '--out', join(dir, 'bm.mmdb'), '--json']);
    expect(mirrored.code, mirrored.stderr).toBe(0);
    const m = JSON.parse(mirrored.stdout);
    expect([m.clips, m.frames]).toEqual([274, 40928]);
    const info = JSON.parse((await runCliInProcess(['info', join(dir, 'bm.mmdb'), '--json'])).stdout);
    expect([info.clips, info.frames, info.bytes]).toEqual([274, 40928, m.bytes]);
    console.log(`bench set build: ${p.seconds.total} s plain, ${m.seconds.total} s mirrored`);
  });

  it('bench plus locomotion, mirrored, without --bones: one skeleton, 169 clips, 338 with mirrors', async () => {
    const r = await runCliInProcess(['build', join(MOCAP_DIR, 'bench'), join(MOCAP_DIR, 'locomotion'), '--mirror', '--out', join(dir, 'bl.mmdb'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect([out.clips, out.frames, out.fps, out.joints]).toEqual([338, 2 * (20464 + 4819), 30, 22]);
    expect(out.resampled).toEqual([]);
  });
});
