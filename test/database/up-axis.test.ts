/**
 * Captures that stand along another axis than +y (src/database/up-axis.ts): found from the rest pose
 * and the motion, turned upright exactly, left alone when only the motion says so (a Y-up rig
 * lying down, or a rest pose that is not upright), and `build --up` / the build's report.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDatabase, type SourceMotion } from '../../src/database/build.js';
import { builtinSources } from '../../src/database/builtin-sources.js';
import { detectUpAxis, nearestAxis, turnUpright, upAxisNote, UP_AXES, type UpAxis } from '../../src/database/up-axis.js';
import { forwardKinematics } from '../../src/anim/pose.js';
import { findBoneRoles } from '../../src/features/roles.js';
import { writeBvh } from '../../src/import/bvh/write.js';
import { parseBvh } from '../../src/import/bvh/bvh.js';
import type { Clip } from '../../src/anim/clip.js';
import type { Skeleton } from '../../src/anim/skeleton.js';
import { HAS_MOCAP, MOCAP_DIR, runCliInProcess, tempDir } from '../helpers/cli.js';
import { expectSameNumbers, expectDifferentNumbers } from '../helpers/same-numbers.js';

/** The basis that lays a +y set along `a` (the inverse of turnUpright's turn for `a`). */
const LAY: Record<UpAxis, UpAxis> = { '+y': '+y', '-y': '-y', '+z': '-z', '-z': '+z', '+x': '-x', '-x': '+x' };

const sources = builtinSources().slice(0, 8);
const skeleton = sources[0].skeleton;
const clips = sources.map((s) => s.clip);
const roles = findBoneRoles(skeleton);

/** Mean world direction from the middle of the feet to the hips over a clip's frames, by forward kinematics here. */
function bodyAxis(s: Skeleton, c: Clip): number[] {
  const J = s.names.length, wr = new Float64Array(4 * J), wp = new Float64Array(3 * J), sum = [0, 0, 0];
  for (let f = 0; f < c.frameCount; f++) {
    forwardKinematics(s.parents, c.rotations, f * J * 4, c.translations, f * J * 3, wr, wp);
    for (let k = 0; k < 3; k++) sum[k] += wp[3 * roles.hips + k] - 0.5 * (wp[3 * roles.leftFoot + k] + wp[3 * roles.rightFoot + k]);
  }
  const n = Math.hypot(sum[0], sum[1], sum[2]);
  return sum.map((v) => v / n);
}

const unit: Record<UpAxis, number[]> = { '+x': [1, 0, 0], '-x': [-1, 0, 0], '+y': [0, 1, 0], '-y': [0, -1, 0], '+z': [0, 0, 1], '-z': [0, 0, -1] };

describe('the up axis of a set of captures', () => {
  it('names the nearest axis and the angle to it', () => {
    expect(nearestAxis([0, 0, 2])).toEqual({ axis: '+z', angle: 0 });
    expect(nearestAxis([0.1, -1, 0])?.axis).toBe('-y');
    expect(nearestAxis([1, 1, 0])?.angle).toBeCloseTo(Math.PI / 4, 12);
    expect(nearestAxis([0, 0, 0])).toBeNull();
    expect(nearestAxis([Number.NaN, 1, 0])).toBeNull();
  });

  for (const axis of UP_AXES) {
    it(`a set laid along ${axis} is found standing along it and turned back exactly`, () => {
      const laid = turnUpright(skeleton, clips, LAY[axis]);
      // The fixture really stands along the axis (forward kinematics in this test, not the module's).
      const dir = bodyAxis(laid.skeleton, laid.clips[0]);
      expect(dir[0] * unit[axis][0] + dir[1] * unit[axis][1] + dir[2] * unit[axis][2]).toBeGreaterThan(0.99);
      const found = detectUpAxis(laid.skeleton, laid.clips, roles.hips, roles.leftFoot, roles.rightFoot);
      expect(found.axis).toBe(axis);
      expect(found.unconfirmed).toBeNull();
      const back = turnUpright(laid.skeleton, laid.clips, found.axis);
      expectSameNumbers(back.skeleton.offsets, skeleton.offsets, 'offsets');
      expectSameNumbers(back.skeleton.endSiteOffsets, skeleton.endSiteOffsets, 'end sites');
      back.clips.forEach((c, i) => {
        expectSameNumbers(c.rotations, clips[i].rotations, `clip ${i} rotations`);
        expectSameNumbers(c.translations, clips[i].translations, `clip ${i} translations`);
      });
    });
  }

  it('builds a set laid along +z into the same database as the upright set (features bit-identical)', () => {
    const laid = turnUpright(skeleton, clips, LAY['+z']);
    const findings: string[] = [];
    const a = buildDatabase(sources, { mirror: true });
    const b = buildDatabase(laid.clips.map((clip): SourceMotion => ({ skeleton: laid.skeleton, clip })), { mirror: true, onUpAxis: (f) => findings.push(f.axis) });
    expect(findings).toEqual(['+z']);
    expectSameNumbers(b.features, a.features, 'features');
    expectSameNumbers(b.rootPositions, a.rootPositions, 'root positions');
    expectSameNumbers(b.contacts, a.contacts, 'contacts');
    // Without the turn (told it stands along +y) the same set is measured lying down: other features.
    const lying = buildDatabase(laid.clips.map((clip): SourceMotion => ({ skeleton: laid.skeleton, clip })), { mirror: true, up: '+y' });
    expectDifferentNumbers(lying.features, a.features, 'features of the set left lying');
  });

  it('does not turn a set only its motion lays down: an upright rest pose whose captures lie along +z', () => {
    // Every frame's root turned -90° about x: the body lies along +z, the rest pose stays upright.
    const s = Math.SQRT1_2;
    const lying = clips.map((c) => {
      const r = Float64Array.from(c.rotations), J = skeleton.names.length;
      for (let f = 0; f < c.frameCount; f++) {
        const o = f * J * 4, x = r[o], y = r[o + 1], z = r[o + 2], w = r[o + 3];
        // (−s, 0, 0, s) * q
        r[o] = s * x - s * w; r[o + 1] = s * y + s * z; r[o + 2] = s * z - s * y; r[o + 3] = s * w + s * x;
      }
      return { ...c, rotations: r };
    });
    const dir = bodyAxis(skeleton, lying[0]);
    expect(Math.abs(dir[2])).toBeGreaterThan(0.9);
    const found = detectUpAxis(skeleton, lying, roles.hips, roles.leftFoot, roles.rightFoot);
    expect(found.rest?.axis).toBe('+y');
    expect(found.axis).toBe('+y');
    expect(found.unconfirmed).toMatch(/^[+-]z$/);
  });

  it('says in one line what was done: turned, left in doubt, or nothing to say', () => {
    const hint = (a: UpAxis) => `use --up ${a}`;
    const laid = turnUpright(skeleton, clips, LAY['-x']);
    expect(upAxisNote(detectUpAxis(laid.skeleton, laid.clips, roles.hips, roles.leftFoot, roles.rightFoot), hint))
      .toBe('the captures stand along -x (found from the rest pose and the motion): turned to stand along +y');
    expect(upAxisNote(detectUpAxis(skeleton, clips, roles.hips, roles.leftFoot, roles.rightFoot), hint)).toBeNull();
    expect(upAxisNote({ axis: '+y', rest: { axis: '+x', angle: 0 }, motion: { axis: '+z', angle: 0.05 }, how: 'detected', unconfirmed: '+z' }, hint))
      .toBe('the captures stand along +z (hips over feet within 3° of it), but the rest pose does not confirm it, so nothing was turned; use --up +z');
  });

  it('refuses an up axis that is not one of the six', () => {
    expect(() => buildDatabase(sources, { up: 'up' as UpAxis })).toThrow(/up axis must be auto or one of \+x, -x, \+y, -y, \+z, -z, got up/);
  });
});

describe('motionmatch build --up', () => {
  const dir = tempDir('mm-up-');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const laid = turnUpright(skeleton, clips.slice(0, 4), LAY['+z']);
  const zUp = join(dir, 'z-up');
  mkdirSync(zUp);
  laid.clips.forEach((c) => writeFileSync(join(zUp, `${c.name}.bvh`), writeBvh(laid.skeleton, c, { precision: 9 })));

  it('finds Z-up files, turns them and says so (text and JSON)', async () => {
    const out = join(dir, 'z.mmdb');
    const text = await runCliInProcess(['build', zUp, '--out', out]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/the captures stand along \+z \(found from the rest pose and the motion\): turned to stand along \+y/);
    const json = await runCliInProcess(['build', zUp, '--out', out, '--json']);
    expect(JSON.parse(json.stdout).up).toMatchObject({ axis: '+z', how: 'detected', rest: { axis: '+z' }, motion: { axis: '+z' }, unconfirmed: null });
    // Told they stand along +y, they are not turned.
    const told = await runCliInProcess(['build', zUp, '--out', out, '--up', 'y', '--json']);
    expect(JSON.parse(told.stdout).up).toMatchObject({ axis: '+y', how: 'given' });
  });

  it('mistakes are usage errors: exit 2, one line naming the option', async () => {
    const r = await runCliInProcess(['build', zUp, '--out', join(dir, 'x.mmdb'), '--up', 'sideways']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--up must be auto or one of \+x, -x, \+y, -y, \+z, -z, got 'sideways'/);
  });

  it.skipIf(!HAS_MOCAP)('real captures laid along +z: their rest pose lies along +x, so the build warns and --up z turns them', async () => {
    const core = join(MOCAP_DIR, 'core'), zCore = join(dir, 'core-z');
    mkdirSync(zCore);
    for (const f of readdirSync(core).filter((n) => n.endsWith('.bvh'))) {
      const b = parseBvh(readFileSync(join(core, f), 'utf8'), { file: f });
      const t = turnUpright(b.skeleton, [b.clip], LAY['+z']);
      writeFileSync(join(zCore, f), writeBvh(t.skeleton, t.clips[0], { precision: 9 }));
    }
    const warned = await runCliInProcess(['build', zCore, '--out', join(dir, 'c.mmdb'), '--json']);
    expect(warned.code, warned.stderr).toBe(0);
    expect(JSON.parse(warned.stdout).up).toMatchObject({ axis: '+y', rest: { axis: '+x' }, motion: { axis: '+z' }, unconfirmed: '+z' });
    expect(warned.stderr).toMatch(/warning: the captures stand along \+z .* build again with --up \+z/);
    const turned = await runCliInProcess(['build', zCore, '--out', join(dir, 'cz.mmdb'), '--up', 'z', '--json']);
    const upright = await runCliInProcess(['build', core, '--out', join(dir, 'cy.mmdb'), '--json']);
    const a = JSON.parse(turned.stdout), b = JSON.parse(upright.stdout);
    expect(a.up).toMatchObject({ axis: '+z', how: 'given' });
    expect([a.frames, a.candidates]).toEqual([b.frames, b.candidates]);
  });
});
if (!HAS_MOCAP) console.log(`up-axis test: the real-capture case skipped: ${MOCAP_DIR} not found`);
