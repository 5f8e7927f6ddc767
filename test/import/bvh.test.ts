import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, symlinkSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { parseBvh, parseBvhNumber, bvhClipName, BVH_UNIT_SCALES } from '../../src/import/bvh/bvh.js';
import { BvhError } from '../../src/import/errors.js';
import { readBvhFile, listBvhFiles, BVH_MAX_FILE_BYTES, type SkippedBvhEntry } from '../../src/import/bvh/bvh-node.js';
import { FileAccessError } from '../../src/util/files-node.js';
import { validateSkeleton } from '../../src/anim/skeleton.js';
import { worldPositionsOfFrames } from '../../src/anim/pose.js';
import { quatFromEulerOrder, quatMultiply } from '../../src/math/quat.js';
import { MINI, MINI_LINES, withLine, expectBvhError, expectFinitePose } from './bvh-fixtures.js';

const DEG = Math.PI / 180;

/** Reference rotation: quatFromEulerOrder over the listed rotation axes, degrees. */
function refQuat(axes: string, degrees: number[]): number[] {
  const out = [0, 0, 0, 1];
  quatFromEulerOrder(out, 0, degrees.map((d) => d * DEG), axes);
  return out;
}

function expectQuatClose(actual: ArrayLike<number>, offset: number, expected: ArrayLike<number>, tol = 1e-12): void {
  const dot = actual[offset] * expected[0] + actual[offset + 1] * expected[1] + actual[offset + 2] * expected[2] + actual[offset + 3] * expected[3];
  expect(1 - Math.abs(dot)).toBeLessThan(tol);
}

describe('parseBvh: basic structure', () => {
  const r = parseBvh(MINI, { file: 'some/dir/walk_01.bvh', scale: 0.01 });

  it('reads joints parents-first, offsets in metres, end sites, fps and channels', () => {
    const s = r.skeleton;
    expect(s.names).toEqual(['Hips', 'Spine', 'LeftUpLeg', 'LeftLeg']);
    expect([...s.parents]).toEqual([-1, 0, 0, 2]);
    expect([...s.offsets]).toEqual([0, 0.9, 0, 0, 0.1, 0, 0.1, 0, 0, 0, -0.45, 0]);
    expect([...s.endSiteParents]).toEqual([1, 3]);
    expect([...s.endSiteOffsets]).toEqual([0, 0.6, 0, 0, -0.45, 0]);
    validateSkeleton(s);
    expect(r.frameTime).toBe(0.0333333);
    expect(r.clip.fps).toBe(30); // 1 / 0.0333333 snapped to the whole rate it stands for
    expect(r.clip.frameCount).toBe(2);
    expect(r.channelCount).toBe(15);
    expect(r.channels[0]).toEqual({ names: ['Xposition', 'Yposition', 'Zposition', 'Zrotation', 'Xrotation', 'Yrotation'], firstValue: 0, rotationOrder: 'ZXY', hasPosition: true });
    expect(r.channels[3]).toEqual({ names: ['Zrotation', 'Xrotation', 'Yrotation'], firstValue: 12, rotationOrder: 'ZXY', hasPosition: false });
    expect(r.scale).toBe(0.01);
    expect(r.detectedUnit).toBe('given');
  });

  it('names the clip after the file and fills the metadata', () => {
    expect(r.clip.name).toBe('walk_01');
    expect(r.clip.source).toBe('some/dir/walk_01.bvh');
    expect(r.clip.loop).toBe(false);
    expect(r.clip.tags).toEqual([]);
    expect(bvhClipName('C:\\mocap\\Run.Fast.BVH')).toBe('Run.Fast');
    expect(parseBvh(MINI).clip.name).toBe('untitled');
    expect(parseBvh(MINI).clip.source).toBe('<string>');
  });

  it('builds rotations as the product of the rotation channels in listed order (degrees)', () => {
    const J = 4;
    expectQuatClose(r.clip.rotations, 0, refQuat('ZXY', [10, 20, 30]));
    expectQuatClose(r.clip.rotations, 4, refQuat('ZXY', [0, 0, 0]));
    expectQuatClose(r.clip.rotations, 8, refQuat('ZXY', [5, -5, 15]));
    expectQuatClose(r.clip.rotations, 12, refQuat('ZXY', [90, 0, 0]));
    expectQuatClose(r.clip.rotations, J * 4 + 0, refQuat('ZXY', [-10, -20, -30]));
    expectQuatClose(r.clip.rotations, J * 4 + 12, refQuat('ZXY', [0, 90, 0]));
    expectFinitePose(r);
  });

  it('translation: root channels replace the OFFSET; other joints use their OFFSET', () => {
    const t = r.clip.translations;
    expect([...t.subarray(0, 3)].map((v) => +v.toFixed(12))).toEqual([0.01, 0.9, 0.02]);
    expect([...t.subarray(3, 6)]).toEqual([0, 0.1, 0]);
    expect([...t.subarray(12, 15)].map((v) => +v.toFixed(12))).toEqual([0.015, 0.91, 0.025]);
  });

  it("translationMode 'add' adds the channels to the OFFSET (three.js convention)", () => {
    const a = parseBvh(MINI, { scale: 0.01, translationMode: 'add' });
    const t = a.clip.translations;
    expect([...t.subarray(0, 3)].map((v) => +v.toFixed(12))).toEqual([0.01, 1.8, 0.02]);
    expect([...t.subarray(3, 6)]).toEqual([0, 0.1, 0]);
    expect(a.clip.rotations).toEqual(r.clip.rotations);
  });
});

describe('parseBvh: channels', () => {
  /** One root joint with the given CHANNELS line and one frame of values. */
  const oneJoint = (channels: string, values: string, offset = '1 2 3'): string =>
    `HIERARCHY\nROOT A\n{\nOFFSET ${offset}\nCHANNELS ${channels}\nEnd Site\n{\nOFFSET 0 170 0\n}\n}\nMOTION\nFrames: 1\nFrame Time: 0.01\n${values}\n`;

  it('supports every rotation order and 1-3 rotation channels', () => {
    for (const axes of ['XYZ', 'XZY', 'YXZ', 'YZX', 'ZXY', 'ZYX', 'X', 'Y', 'Z', 'XY', 'ZX', 'YZ']) {
      const angles = [37, -61, 123].slice(0, axes.length);
      const names = [...axes].map((a) => `${a}rotation`).join(' ');
      const r = parseBvh(oneJoint(`${axes.length} ${names}`, angles.join(' ')), { scale: 1 });
      expectQuatClose(r.clip.rotations, 0, refQuat(axes, angles));
      expect(r.channels[0].rotationOrder).toBe(axes);
    }
  });

  it('composes the same way as three.js (q = qZ * qX * qY for Zrotation Xrotation Yrotation)', () => {
    const r = parseBvh(oneJoint('3 Zrotation Xrotation Yrotation', '30 40 50'), { scale: 1 });
    const z = [0, 0, Math.sin(15 * DEG), Math.cos(15 * DEG)];
    const x = [Math.sin(20 * DEG), 0, 0, Math.cos(20 * DEG)];
    const y = [0, Math.sin(25 * DEG), 0, Math.cos(25 * DEG)];
    const q = [0, 0, 0, 1];
    quatMultiply(q, 0, z, 0, x, 0);
    quatMultiply(q, 0, q, 0, y, 0);
    expectQuatClose(r.clip.rotations, 0, q, 1e-15);
  });

  it('0 channels: identity rotation and the OFFSET; missing rotation channels: identity', () => {
    const r = parseBvh(oneJoint('0', ''), { scale: 1 });
    expect([...r.clip.rotations]).toEqual([0, 0, 0, 1]);
    expect([...r.clip.translations]).toEqual([1, 2, 3]);
    const p = parseBvh(oneJoint('3 Xposition Yposition Zposition', '4 5 6'), { scale: 1 });
    expect([...p.clip.rotations]).toEqual([0, 0, 0, 1]);
    expect([...p.clip.translations]).toEqual([4, 5, 6]);
  });

  it('channels in any order, interleaved; missing position axes take the OFFSET (replace) or add 0 (add)', () => {
    const text = oneJoint('4 Yrotation Zposition Xrotation Xposition', '90 7 45 8', '1 2 3');
    const r = parseBvh(text, { scale: 1 });
    expect([...r.clip.translations]).toEqual([8, 2, 7]);
    expectQuatClose(r.clip.rotations, 0, refQuat('YX', [90, 45]));
    expect(r.channels[0].names).toEqual(['Yrotation', 'Zposition', 'Xrotation', 'Xposition']);
    expect(r.channels[0].hasPosition).toBe(true);
    const a = parseBvh(text, { scale: 1, translationMode: 'add' });
    expect([...a.clip.translations]).toEqual([9, 2, 10]);
  });

  it('channel names and keywords are case-insensitive', () => {
    const text = 'hierarchy\nroot A\n{\noffset 0 0 0\nchannels 3 XROTATION yrotation ZRotation\nend site\n{\noffset 0 1.7 0\n}\n}\nmotion\nframes: 1\nframe time: 0.5\n10 20 30\n';
    const r = parseBvh(text);
    expect(r.channels[0].names).toEqual(['Xrotation', 'Yrotation', 'Zrotation']);
    expect(r.clip.fps).toBe(2);
  });

  it('translation on a non-root joint (6 channels everywhere, like the real data)', () => {
    const text = [
      'HIERARCHY', 'ROOT R', '{', 'OFFSET 0 0 0', 'CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
      'JOINT H', '{', 'OFFSET 5 100 -3', 'CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
      'JOINT S', '{', 'OFFSET 0 70 0', 'CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
      'End Site', '{', 'OFFSET 0 0 0', '}', '}', '}', '}',
      'MOTION', 'Frames: 1', 'Frame Time: 0.0333333',
      '0 0 0 0 0 0 20 95 40 0 0 0 0 70 0 0 0 0',
    ].join('\r\n');
    const r = parseBvh(text);
    expect(r.detectedUnit).toBe('cm');
    const J = 3;
    const w = new Float64Array(J * 3);
    worldPositionsOfFrames(r.skeleton.parents, r.clip.rotations, r.clip.translations, 1, w);
    expect([...w].map((v) => +v.toFixed(9))).toEqual([0, 0, 0, 0.2, 0.95, 0.4, 0.2, 1.65, 0.4]);
    const a = parseBvh(text, { translationMode: 'add' });
    worldPositionsOfFrames(a.skeleton.parents, a.clip.rotations, a.clip.translations, 1, w);
    expect([...w].map((v) => +v.toFixed(9))).toEqual([0, 0, 0, 0.25, 1.95, 0.37, 0.25, 3.35, 0.37]);
  });
});

describe('parseBvh: lexical tolerance', () => {
  const base = parseBvh(MINI, { scale: 0.01 });
  const same = (text: string): void => {
    const r = parseBvh(text, { scale: 0.01 });
    expect(r.skeleton.names).toEqual(base.skeleton.names);
    expect(r.skeleton.offsets).toEqual(base.skeleton.offsets);
    expect(r.clip.rotations).toEqual(base.clip.rotations);
    expect(r.clip.translations).toEqual(base.clip.translations);
    expect(r.frameTime).toBe(base.frameTime);
  };

  it('accepts CRLF, CR and mixed line endings', () => {
    same(MINI_LINES.join('\r\n'));
    same(MINI_LINES.join('\r'));
    same(MINI_LINES.map((l, i) => l + ['\n', '\r\n', '\r'][i % 3]).join(''));
  });

  it('accepts tabs, blank lines, trailing spaces, a BOM and trailing whitespace at the end', () => {
    same('\ufeff' + MINI_LINES.map((l) => `\t ${l.replace(/ /g, ' \t ')}  \t`).join('\n\n \n') + '\n\n\t  \n');
  });

  it("accepts 'Frames :' / 'FRAME TIME:' / 'FrameTime:' spellings and a missing colon", () => {
    same(withLine(31, ['Frames :  2']));
    same(withLine(31, 'FRAMES:\t2'));
    same(withLine(31, 'Frames 2'));
    same(withLine(32, 'FRAME TIME : 0.0333333'));
    same(withLine(32, 'FrameTime:0.0333333'));
    same(withLine(32, 'frame\ttime:\t0.0333333'));
  });

  it('accepts braces glued to words', () => {
    same(MINI.replace('ROOT Hips\n{', 'ROOT Hips{').replace(/End Site\n(\s*)\{/g, 'End Site {').replace('    }\n  }\n  JOINT', '    }}\n  JOINT'));
  });

  it('accepts scientific notation, signs and bare decimal points', () => {
    const r = parseBvh(withLine(33, '1e0 9.0E+1 +2 1.0e1 200e-1 3e1 0 -0 0. .0 5 -5 15 90 1.87007e-05'), { scale: 0.01 });
    expect(r.clip.translations[0]).toBeCloseTo(0.01, 15);
    expectQuatClose(r.clip.rotations, 12, refQuat('ZXY', [15, 90, 1.87007e-5]));
    expectQuatClose(r.clip.rotations, 8, refQuat('ZXY', [0, 5, -5]));
    expect(r.clip.translations[1]).toBeCloseTo(0.9, 15);
  });

  it('reads motion values that wrap across lines, or several frames on one line', () => {
    same(withLine(33, ['1 90 2 10 20', '30 0 0 0 5 -5 15', '90 0 0']));
    const stream = MINI_LINES.slice(0, 32).join('\n') + '\n' + MINI_LINES.slice(32).join(' ') + '\n';
    same(stream);
    // fixed 4 values per line
    const vals = MINI_LINES.slice(32).join(' ').split(' ');
    const wrapped: string[] = [];
    for (let i = 0; i < vals.length; i += 4) wrapped.push(vals.slice(i, i + 4).join(' '));
    same(MINI_LINES.slice(0, 32).join('\n') + '\n' + wrapped.join('\n'));
  });

  it("accepts words after 'End Site' on its line", () => {
    same(MINI.replace(/End Site/g, 'End Site Tip'));
    same(MINI.replace(/End Site/g, 'end'));
  });

  it('joint names may contain spaces', () => {
    const r = parseBvh(MINI.replace('JOINT LeftLeg', 'JOINT Left Lower  Leg'));
    expect(r.skeleton.names[3]).toBe('Left Lower Leg');
  });

  it('keeps any frame time exactly and snaps rounded rates to whole frames per second', () => {
    const expected: Record<string, number> = { '0.008333': 120, '0.0166667': 60, '1': 1, '0.04': 25, '2.5e-3': 400, '0.0123': 1 / 0.0123 };
    for (const [ft, fps] of Object.entries(expected)) {
      const r = parseBvh(withLine(32, `Frame Time: ${ft}`));
      expect(r.frameTime).toBe(Number(ft));
      expect(r.clip.fps).toBe(fps);
    }
  });

  it('handles any hierarchy depth (iterative, no recursion limit)', () => {
    const depth = 20000;
    const parts: string[] = ['HIERARCHY', 'ROOT j0 {', 'OFFSET 0 0 0', 'CHANNELS 3 Xposition Yposition Zposition'];
    for (let i = 1; i < depth; i++) parts.push(`JOINT j${i} {`, 'OFFSET 0 0.01 0', 'CHANNELS 1 Zrotation');
    parts.push('End Site { OFFSET 0 0.01 0 }');
    for (let i = 0; i < depth; i++) parts.push('}');
    parts.push('MOTION', 'Frames: 1', 'Frame Time: 0.1', ['0 0 0', ...new Array(depth - 1).fill('0.001')].join(' '));
    const r = parseBvh(parts.join('\n'), { scale: 0.01 });
    expect(r.skeleton.names.length).toBe(depth);
    expect(r.skeleton.parents[depth - 1]).toBe(depth - 2);
    validateSkeleton(r.skeleton);
  });
});

describe('parseBvh: units', () => {
  /** A 1.75 m-ish standing figure written in the given file units per metre. */
  const figure = (unitsPerMetre: number, height = 1.75): string => {
    const u = (m: number): string => String(m * unitsPerMetre);
    const leg = height * 0.5, torso = height * 0.5;
    return [
      'HIERARCHY', 'ROOT Hips', '{', `OFFSET 0 ${u(leg)} 0`, 'CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
      'JOINT Chest', '{', `OFFSET 0 ${u(torso * 0.6)} 0`, 'CHANNELS 3 Zrotation Xrotation Yrotation',
      'End Site', '{', `OFFSET 0 ${u(torso * 0.4)} 0`, '}', '}',
      'JOINT Leg', '{', `OFFSET ${u(0.1)} 0 0`, 'CHANNELS 3 Zrotation Xrotation Yrotation',
      'End Site', '{', `OFFSET 0 ${u(-leg)} 0`, '}', '}', '}',
      'MOTION', 'Frames: 2', 'Frame Time: 0.0333333',
      `${u(3)} ${u(leg)} ${u(-2)} 0 0 0 0 0 0 0 0 0`,
      `${u(3)} ${u(leg)} ${u(-2)} 0 90 0 0 0 0 0 0 0`,
    ].join('\n');
  };

  it('detects m, cm, mm and inches from the body\'s length along its bones', () => {
    for (const [unit, perMetre] of [['m', 1], ['cm', 100], ['mm', 1000], ['in', 1 / 0.0254]] as const) {
      for (const h of [1.5, 1.75, 2.0]) {
        const r = parseBvh(figure(perMetre, h));
        expect(r.detectedUnit, `${unit} at ${h} m`).toBe(unit);
        expect(r.scale).toBe(BVH_UNIT_SCALES[unit]);
        // everything comes back in metres
        expect(r.skeleton.offsets[1]).toBeCloseTo(h * 0.5, 9);
        expect(r.skeleton.endSiteOffsets[1]).toBeCloseTo(h * 0.2, 9);
        expect(r.clip.translations[0]).toBeCloseTo(3, 9);
        expect(r.clip.translations[2]).toBeCloseTo(-2, 9);
      }
    }
  });

  it('reads no frame (a lying-down pose does not matter) and includes end sites', () => {
    const r = parseBvh(figure(100));
    expect(r.detectedUnit).toBe('cm');
    expect(r.bodyLength).toBeCloseTo(1.75 + 0.1, 9); // chest end to foot end, through the hips
    const noEnds = figure(100).replace(/End Site\n\{\nOFFSET [^\n]*\n\}\n/g, '');
    expect(parseBvh(noEnds).skeleton.endSiteParents.length).toBe(0);
    expect(parseBvh(noEnds).bodyLength).toBeLessThan(r.bodyLength);
  });

  it('ignores a ground reference root left at the origin while the body starts metres away', () => {
    // like the real data: joint_Root stays at 0, Hips carries a start position 6 m away (centimetres)
    const text = [
      'HIERARCHY', 'ROOT Reference', '{', 'OFFSET 0 0 0', 'CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
      'JOINT Hips', '{', 'OFFSET 350 92 -480', 'CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
      'JOINT Chest', '{', 'OFFSET 0 50 0', 'CHANNELS 3 Zrotation Xrotation Yrotation', 'End Site', '{', 'OFFSET 0 33 0', '}', '}',
      'JOINT Leg', '{', 'OFFSET 10 0 0', 'CHANNELS 3 Zrotation Xrotation Yrotation', 'End Site', '{', 'OFFSET 0 -90 0', '}', '}', '}', '}',
      'MOTION', 'Frames: 1', 'Frame Time: 0.0333333',
      '0 0 0 0 0 0 350 92 -480 0 0 0 0 0 0 0 0 0',
    ].join('\n');
    expect(parseBvh(text).detectedUnit).toBe('cm');
  });

  it('a numeric scale overrides detection; invalid scales are a clear error', () => {
    const r = parseBvh(figure(100), { scale: 0.5 });
    expect(r.detectedUnit).toBe('given');
    expect(r.scale).toBe(0.5);
    expect(r.skeleton.offsets[1]).toBeCloseTo(87.5 * 0.5, 9);
    for (const bad of [0, -1, NaN, Infinity, '2' as unknown as number]) {
      expect(() => parseBvh(figure(100), { scale: bad })).toThrow(/scale must be 'auto' or a finite number > 0/);
    }
    expect(() => parseBvh(MINI, { translationMode: 'sum' as 'add' })).toThrow(/translationMode/);
  });

  it('a degenerate (zero-height) skeleton falls back to metres', () => {
    const r = parseBvh('HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\nMOTION\nFrames: 3\nFrame Time: 0.1\n');
    expect(r.detectedUnit).toBe('m');
    expect(r.clip.frameCount).toBe(3);
    expect([...r.clip.rotations]).toEqual([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]);
  });
});

describe('parseBvh: malformed input throws BvhError with file, line and reason', () => {
  it('empty or whitespace-only file', () => {
    expectBvhError('', 1, /empty/);
    expectBvhError('  \n\t\n ', 3, /empty/);
  });

  it('missing HIERARCHY', () => {
    expectBvhError(withLine(1, undefined), 1, /missing HIERARCHY/);
    expectBvhError('hello world\n', 1, /missing HIERARCHY.*'hello'/);
  });

  it('missing ROOT', () => {
    expectBvhError('HIERARCHY\nMOTION\nFrames: 1\nFrame Time: 0.1\n', 2, /missing ROOT/);
    expectBvhError(withLine(2, 'JOINT Hips'), 2, /missing ROOT.*JOINT/);
    expectBvhError('HIERARCHY\n\n', 1, /missing ROOT/);
  });

  it('missing MOTION', () => {
    expectBvhError(MINI_LINES.slice(0, 29).join('\n'), 29, /missing MOTION/);
    expectBvhError(withLine(30, 'MOTON'), 30, /missing MOTION.*'MOTON'/);
  });

  it("missing or invalid 'Frames:'", () => {
    expectBvhError(withLine(31, undefined), 31, /missing 'Frames:'/);
    expectBvhError(MINI_LINES.slice(0, 30).join('\n'), 30, /missing 'Frames:'/);
    for (const v of ['abc', '-1', '2.5', 'nan', '1e3', '0x10', '99999999999999999999']) {
      expectBvhError(withLine(31, `Frames: ${v}`), 31, /invalid frame count/);
    }
    expectBvhError(withLine(31, 'Frames: 0'), 31, /at least one frame/);
    expectBvhError(withLine(31, 'Frames:'), 31, /no value/);
    expectBvhError(withLine(31, 'Frames: 2 extra'), 31, /unexpected 'extra'/);
    expectBvhError(withLine(31, 'Frame: 2'), 31, /missing 'Frames:'/);
  });

  it("missing or invalid 'Frame Time:'", () => {
    expectBvhError(withLine(32, undefined), 32, /missing 'Frame Time:'/);
    expectBvhError(MINI_LINES.slice(0, 31).join('\n'), 31, /missing 'Frame Time:'/);
    for (const v of ['abc', '-0.03', '0', 'nan', 'NaN', 'inf', 'Infinity', '1e999', '0.03.3', '5e-324']) {
      expectBvhError(withLine(32, `Frame Time: ${v}`), 32, /invalid frame time/);
    }
    expectBvhError(withLine(32, 'Frame Time:'), 32, /no value/);
  });

  it('unknown channel name, count mismatch, duplicate channel, bad count', () => {
    expectBvhError(withLine(9, 'CHANNELS 3 Zrotation Wrotation Yrotation'), 9, /unknown channel name 'Wrotation'/);
    expectBvhError(withLine(9, 'CHANNELS 3 Zrotation Xrotation Yrot'), 9, /unknown channel name 'Yrot'/);
    expectBvhError(withLine(9, 'CHANNELS 6 Zrotation Xrotation Yrotation'), 9, /declares 6 channels but lists 3/);
    expectBvhError(withLine(9, 'CHANNELS 2 Zrotation Xrotation Yrotation'), 9, /declares 2 channels but lists more/);
    expectBvhError(withLine(9, 'CHANNELS 3 Zrotation Xrotation Zrotation'), 9, /duplicate channel Zrotation/);
    expectBvhError(withLine(9, 'CHANNELS 7 Zrotation Xrotation Yrotation'), 9, /more than 6/);
    expectBvhError(withLine(9, 'CHANNELS x Zrotation Xrotation Yrotation'), 9, /invalid CHANNELS count 'x'/);
    expectBvhError(withLine(9, 'CHANNELS Zrotation Xrotation Yrotation'), 9, /needs a channel count/);
    expectBvhError(withLine(9, ['CHANNELS 3 Zrotation Xrotation Yrotation', 'CHANNELS 0']), 10, /duplicate CHANNELS/);
  });

  it('non-numeric or non-finite motion values', () => {
    for (const v of ['abc', '1.2.3', 'nan', 'NaN', 'inf', '-Infinity', '1e999', '--1', '1e', '.', '-', '1,5', '0x1F', '1e5e5']) {
      const err = expectBvhError(withLine(33, `1 90 2 10 ${v} 30 0 0 0 5 -5 15 90 0 0`), 33, /motion value/);
      expect(err.reason).toContain(`'${v}'`);
      expect(err.reason).toMatch(/frame 1, channel 5 of 15 \(Hips Xrotation\)/);
    }
    expectBvhError(withLine(34, '1 90 2 10 1e11 30 0 0 0 5 -5 15 90 0 0'), 34, /out-of-range motion value '1e11'.*frame 2/);
  });

  it('fewer frames than declared (says how many were found)', () => {
    expectBvhError(withLine(31, 'Frames: 3'), 34, /fewer frames than declared: 'Frames: 3' \(line 31\) but found 2$/);
    // a file that is only a header
    expectBvhError(MINI_LINES.slice(0, 32).join('\n') + '\n', 32, /fewer frames.*found 0/);
    // wrapped layout: partial frame at the end
    const wrapped = withLine(33, ['1 90 2 10 20 30 0 0', '0 5 -5 15 90 0 0']).replace(/\n1\.5[^\n]*\n$/, '\n1.5 91 2.5\n');
    expectBvhError(wrapped, 35, /found 1 complete frames plus 3 of the 15 values of frame 2/);
  });

  it('more values than declared', () => {
    expectBvhError(MINI + '1 2 3\n', 35, /more motion data than declared: 'Frames: 2' \(line 31\)/);
    expectBvhError(withLine(31, 'Frames: 1'), 34, /more motion data than declared/);
    // trailing whitespace only is fine
    expect(parseBvh(MINI + ' \t\r\n\n  ').clip.frameCount).toBe(2);
  });

  it('per-frame channel count mismatch (one frame per line)', () => {
    expectBvhError(withLine(33, '1 90 2 10 20 30 0 0 0 5 -5 15 90 0'), 33, /frame 1 on line 33 has 14 values, expected 15/);
    expectBvhError(withLine(34, '1.5 91 2.5 -10 -20 -30 1 2 3 4 5 6 0 90 0 7'), 34, /line 34 has more than 15 values/);
    expectBvhError(withLine(34, '1.5 91 2.5 -10 -20 -30 1 2 3 4 5 6 0 90'), 34, /frame 2 on line 34 has 14 values/);
    // the first line is the bad one: detected from the second line's layout
    expectBvhError(withLine(33, '1 90 2 10 20 30 0 0 0 5 -5 15 90 0 0 0'), 33, /line 33 has more than 15 values/);
  });

  it('unbalanced braces', () => {
    expectBvhError(withLine(29, undefined), 29, /MOTION before the hierarchy is complete: joint 'Hips' \(line 2\) is missing its closing '\}'/);
    expectBvhError(withLine(29, ['}', '}']), 30, /unbalanced '\}'/);
    // a missing '}' that leaves a valid nesting can only be noticed where the hierarchy ends
    expectBvhError(withLine(14, undefined), 29, /MOTION before the hierarchy is complete: joint 'Hips'/);
    expectBvhError(MINI_LINES.slice(0, 20).join('\n'), 20, /unexpected end of file: joint 'LeftLeg' \(line 19\) is missing its closing '\}'/);
    expectBvhError(withLine(7, undefined), 7, /expected '\{' after 'JOINT Spine', found 'OFFSET'/);
    expectBvhError(withLine(7, ['{', '{']), 8, /unexpected '\{'/);
  });

  it('OFFSET with the wrong number of values or a bad value', () => {
    expectBvhError(withLine(8, 'OFFSET 0 10'), 8, /OFFSET of joint 'Spine' needs 3 values, found 2/);
    expectBvhError(withLine(8, 'OFFSET'), 8, /needs 3 values, found 0/);
    expectBvhError(withLine(8, 'OFFSET 0 10 0 5'), 8, /OFFSET of joint 'Spine' has more than 3 values/);
    expectBvhError(withLine(8, 'OFFSET 0 x 0'), 8, /invalid OFFSET value 'x'/);
    expectBvhError(withLine(8, 'OFFSET 0 nan 0'), 8, /invalid OFFSET value 'nan'/);
    expectBvhError(withLine(8, 'OFFSET 0 1e400 0'), 8, /OFFSET value '1e400'.*not finite/);
    expectBvhError(withLine(12, 'OFFSET 0 60'), 12, /End Site of joint 'Spine' needs 3 values/);
    expectBvhError(withLine(8, undefined), 9, /joint 'Spine' \(line 6\) has no OFFSET/);
    expectBvhError(withLine(8, ['OFFSET 0 10 0', 'OFFSET 0 10 0']), 9, /duplicate OFFSET/);
  });

  it('End Site without OFFSET', () => {
    expectBvhError(withLine(12, undefined), 12, /End Site without OFFSET/);
    expectBvhError(withLine(12, 'CHANNELS 0'), 12, /End Site cannot have CHANNELS/);
  });

  it('duplicate joint names are an error', () => {
    expectBvhError(MINI.replace('JOINT LeftLeg', 'JOINT Spine'), 19, /duplicate joint name 'Spine' \(first declared on line 6\)/);
  });

  it('joints after MOTION, a second ROOT, stray tokens', () => {
    expectBvhError(withLine(33, ['JOINT Extra', '{']), 33, /'JOINT' in the motion data: joints must be declared in the HIERARCHY/);
    expectBvhError(withLine(29, ['}', 'ROOT Other', '{', 'OFFSET 0 0 0', '}']), 30, /second ROOT/);
    expectBvhError(withLine(29, ['}', 'JOINT Other']), 30, /outside the ROOT block/);
    expectBvhError(withLine(9, ['CHANNELS 3 Zrotation Xrotation Yrotation', 'SCALE 1']), 10, /unexpected 'SCALE' in joint 'Spine'/);
    expectBvhError(withLine(6, 'JOINT'), 6, /JOINT without a joint name/);
    expectBvhError(withLine(29, ['}', 'MOTION', 'MOTION']), 31, /missing 'Frames:'/);
  });

  it('reports correct line numbers with CRLF, CR and mixed endings', () => {
    const bad = withLine(34, '1.5 91 2.5 -10 -20 abc 1 2 3 4 5 6 0 90 0').split('\n');
    expectBvhError(bad.join('\r\n'), 34, /'abc'/);
    expectBvhError(bad.join('\r'), 34, /'abc'/);
    expectBvhError(bad.map((l, i) => l + ['\n', '\r\n', '\r'][i % 3]).join(''), 34, /'abc'/);
    expectBvhError(withLine(8, 'OFFSET 0 10').split('\n').join('\r'), 8, /needs 3 values/);
  });

  it('shortens huge tokens in messages', () => {
    const err = expectBvhError(withLine(33, 'x'.repeat(100000)), 33, /non-numeric motion value 'x{37}\.\.\.'/);
    expect(err.message.length).toBeLessThan(300);
  });
});

describe('parseBvh: linear time on pathological input', () => {
  const header = MINI_LINES.slice(0, 32).join('\n') + '\n';
  const timed = (label: string, f: () => void): void => {
    const t0 = performance.now();
    f();
    const ms = performance.now() - t0;
    // A hang guard, not a speed target (about 1 s each here; a quadratic scan would take hours).
    expect(ms, label).toBeLessThan(60_000);
  };

  // 10 MB proves what 50 MB did (the suite ran 13 s on it): a scan quadratic in the line's length
  // would take hours on either.
  it('a 10 MB single line of values, a 10 MB token, 10 MB of whitespace or braces', () => {
    const big = 10 * 1024 * 1024;
    timed('10 MB line of values', () => expectBvhError(header + '1 '.repeat(big / 2), 33, /more motion data/));
    timed('10 MB token', () => expectBvhError(header + '1'.repeat(big), 33, /out-of-range motion value '1{37}\.\.\.'/));
    timed('10 MB whitespace', () => expectBvhError(header + ' \t'.repeat(big / 2), 32, /found 0/));
    timed('10 MB of newlines', () => expectBvhError(header + '\n'.repeat(big), 32, /found 0/));
    timed('10 MB of braces', () => expectBvhError('HIERARCHY\nROOT A\n{\n' + '{'.repeat(big), 4, /unexpected '\{'/));
    timed('10 MB joint name', () => expectBvhError('HIERARCHY\nROOT ' + 'a'.repeat(big), 2, /expected '\{'/));
  });

  it('a huge declared frame count with 20 MB of data: linear, bounded memory, says how many were found', () => {
    const values = '0 '.repeat(15 * 600000);
    timed('huge Frames:', () => expectBvhError(withLine(31, 'Frames: 999999999').replace(/(Frame Time: 0.0333333\n)[\s\S]*$/, `$1${values}`), 33, /fewer frames.*found 600000$/));
    timed('huge Frames: without data', () => expectBvhError(withLine(31, 'Frames: 999999999999'), 34, /fewer frames.*found 2/));
    timed('huge Frames: without channels', () => expectBvhError('HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\nMOTION\nFrames: 999999999\nFrame Time: 0.1\n', 8, /file too large/));
  });
});

describe('parseBvhNumber', () => {
  it('parses exactly like Number() for valid decimal numbers', () => {
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
      for (const s of [String(d), d.toFixed(6), d.toExponential(5), d.toPrecision(17)]) {
        if (!Number.isFinite(Number(s))) continue;
        expect(parseBvhNumber(s, 0, s.length)).toBe(Number(s));
      }
    }), { numRuns: 2000 });
    for (const s of ['0.0333333', '1.87007e-05', '-543.347000', '105.318000', '1.', '.5', '+3', '-0', '123456789012345678901234567890']) {
      expect(parseBvhNumber(s, 0, s.length)).toBe(Number(s));
    }
  });

  it('rejects non-numbers', () => {
    for (const s of ['', 'abc', '1.2.3', 'nan', 'inf', '-', '.', 'e5', '1e', '1e+', '0x10', '1_000', '1,5', ' 1']) {
      expect(parseBvhNumber(s, 0, s.length)).toBeNaN();
    }
  });
});

describe('bvh-node: readBvhFile and listBvhFiles', () => {
  it('reads files with the path in errors, lists .bvh files recursively and sorted', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mm-bvh-'));
    try {
      mkdirSync(join(dir, 'b', 'deep'), { recursive: true });
      mkdirSync(join(dir, 'a'));
      writeFileSync(join(dir, 'b', 'deep', 'z.BVH'), MINI);
      writeFileSync(join(dir, 'a', 'y.bvh'), MINI);
      writeFileSync(join(dir, 'x.bvh'), withLine(33, 'oops'));
      writeFileSync(join(dir, 'notes.txt'), 'not bvh');
      const files = listBvhFiles([dir]);
      expect(files).toEqual([join(dir, 'a', 'y.bvh'), join(dir, 'b', 'deep', 'z.BVH'), join(dir, 'x.bvh')]);
      expect(listBvhFiles([join(dir, 'x.bvh'), dir]).length).toBe(3);
      const r = readBvhFile(files[1], { scale: 0.01 });
      expect(r.clip.name).toBe('z');
      expect(r.clip.source).toBe(files[1]);
      expect(() => readBvhFile(files[2])).toThrow(BvhError);
      expect(() => readBvhFile(files[2])).toThrow(`${files[2]}:33: non-numeric motion value 'oops'`);
      expect(() => listBvhFiles([join(dir, 'missing')])).toThrow(/no such file or folder: .*missing/);
      expect(() => listBvhFiles([join(dir, 'notes.txt')])).toThrow(/not a .bvh file/);
      expect(() => readBvhFile(join(dir, 'missing.bvh'))).toThrow(`cannot read BVH file '${join(dir, 'missing.bvh')}': no such file`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('readBvhFile refuses FIFOs, devices, folders and oversized files before reading', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mm-bvh-'));
    try {
      const fifo = join(dir, 'pipe.bvh');
      const made = spawnSync('mkfifo', [fifo]).status === 0;
      const t0 = performance.now();
      if (made) expect(() => readBvhFile(fifo)).toThrow(`cannot read BVH file '${fifo}': it is a FIFO (named pipe), not a regular file`);
      expect(performance.now() - t0).toBeLessThan(10_000); // a FIFO must not block: a hang guard
      if (existsSync('/dev/zero')) expect(() => readBvhFile('/dev/zero')).toThrow(/it is a device, not a regular file/);
      mkdirSync(join(dir, 'folder.bvh'));
      expect(() => readBvhFile(join(dir, 'folder.bvh'))).toThrow(/it is a directory/);
      writeFileSync(join(dir, 'big.bvh'), MINI);
      const err = (() => { try { readBvhFile(join(dir, 'big.bvh'), { maxBytes: 100 }); } catch (e) { return e; } })();
      expect(err).toBeInstanceOf(FileAccessError);
      expect((err as FileAccessError).message).toMatch(/big\.bvh'.*larger than the 100 bytes/);
      expect(readBvhFile(join(dir, 'big.bvh'), { maxBytes: MINI.length, scale: 0.01 }).clip.frameCount).toBe(2);
      expect(BVH_MAX_FILE_BYTES).toBeGreaterThanOrEqual(64 * 1024 * 1024);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bvh-node: listBvhFiles never leaves the folder it was given', () => {
  /** dir/inner: a.bvh, sub/b.bvh, plus links; dir/outside.bvh lies outside `inner`. */
  function tree(): { dir: string; inner: string } {
    const dir = mkdtempSync(join(tmpdir(), 'mm-bvh-links-'));
    const inner = join(dir, 'inner');
    mkdirSync(join(inner, 'sub'), { recursive: true });
    writeFileSync(join(inner, 'a.bvh'), MINI);
    writeFileSync(join(inner, 'sub', 'b.bvh'), MINI);
    writeFileSync(join(dir, 'outside.bvh'), MINI);
    return { dir, inner };
  }

  it("skips links to '..', to '/' and to files outside, and reports each", () => {
    const { dir, inner } = tree();
    try {
      symlinkSync('..', join(inner, 'up'));
      symlinkSync('/', join(inner, 'fsroot'));
      symlinkSync(join(dir, 'outside.bvh'), join(inner, 'outside-link.bvh'));
      const skipped: SkippedBvhEntry[] = [];
      const files = listBvhFiles([inner], { onSkip: (s) => skipped.push(s) });
      expect(files).toEqual([join(inner, 'a.bvh'), join(inner, 'sub', 'b.bvh')]);
      expect(skipped.map((s) => [basename(s.path), s.reason]).sort()).toEqual([
        ['fsroot', `a link leading outside '${inner}'`],
        ['outside-link.bvh', `a link leading outside '${inner}'`],
        ['up', `a link leading outside '${inner}'`],
      ]);
      // Without a callback the links are still left out.
      expect(listBvhFiles([inner])).toEqual(files);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('follows links that stay inside, lists each file once, survives loops and broken links', () => {
    const { dir, inner } = tree();
    try {
      symlinkSync('sub', join(inner, 'alias'));            // a folder link inside: followed once
      symlinkSync('.', join(inner, 'sub', 'loop'));        // a loop back up
      symlinkSync('a.bvh', join(inner, 'again.bvh'));      // a second name for a.bvh
      symlinkSync('missing.bvh', join(inner, 'broken.bvh'));
      const skipped: SkippedBvhEntry[] = [];
      const files = listBvhFiles([inner], { onSkip: (s) => skipped.push(s) });
      // 'alias' sorts before 'sub', so b.bvh is listed under the alias and once only.
      expect(files).toEqual([join(inner, 'a.bvh'), join(inner, 'alias', 'b.bvh')]);
      expect(skipped.map((s) => [basename(s.path), s.reason])).toEqual([
        ['again.bvh', `the same file as '${join(inner, 'a.bvh')}'`],
        ['broken.bvh', 'a broken link'],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a named folder that is itself a link is followed (its target is the boundary)', () => {
    const { dir, inner } = tree();
    try {
      symlinkSync(inner, join(dir, 'named'));
      expect(listBvhFiles([join(dir, 'named')])).toEqual([join(dir, 'named', 'a.bvh'), join(dir, 'named', 'sub', 'b.bvh')]);
      // Naming the outer folder covers everything below it, inner links included.
      expect(listBvhFiles([dir]).map((f) => relative(dir, f))).toEqual([join('inner', 'a.bvh'), join('inner', 'sub', 'b.bvh'), 'outside.bvh']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
