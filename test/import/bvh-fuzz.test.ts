/**
 * Fuzz tests for the BVH importer: random mutations of valid files either throw a BvhError that
 * names a line of the file, or parse to finite data at a supported frame rate, always within a
 * time budget. The structured mutations (hostile numbers, truncations, deleted braces, changed
 * channel counts, hostile frame times and counts) also run the parsed clip through a database
 * build, because some hostile values (a frame time of 1e-9 s) only hurt downstream.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseBvh } from '../../src/import/bvh/bvh.js';
import type { BvhImport } from '../../src/import/bvh/bvh.js';
import { BvhError } from '../../src/import/errors.js';
import { validateSkeleton } from '../../src/anim/skeleton.js';
import { worldPositionsOfFrames } from '../../src/anim/pose.js';
import { MIN_FPS, MAX_FPS } from '../../src/anim/frame-rate.js';
import { buildDatabase, DatabaseBuildError } from '../../src/database/build.js';
import { BoneRoleError } from '../../src/features/roles.js';
import { MINI, bipedBvh, expectFinitePose } from './bvh-fixtures.js';

/** Everything a successful parse must satisfy: a valid skeleton, finite poses, a supported rate. */
function expectSoundImport(r: BvhImport): void {
  validateSkeleton(r.skeleton);
  expectFinitePose(r);
  const J = r.skeleton.names.length;
  expect(r.clip.rotations.length).toBe(r.clip.frameCount * J * 4);
  expect(r.clip.translations.length).toBe(r.clip.frameCount * J * 3);
  expect(r.clip.fps).toBeGreaterThanOrEqual(MIN_FPS);
  expect(r.clip.fps).toBeLessThanOrEqual(MAX_FPS);
  const w = new Float64Array(r.clip.frameCount * J * 3);
  worldPositionsOfFrames(r.skeleton.parents, r.clip.rotations, r.clip.translations, r.clip.frameCount, w);
  for (let i = 0; i < w.length; i++) expect(Number.isFinite(w[i])).toBe(true);
}

/** A BvhError must name the file and a line that exists in the text. */
function expectLocatedError(e: unknown, text: string, file: string): void {
  if (!(e instanceof BvhError)) throw e;
  const lines = text.split(/\r\n|\r|\n/).length;
  expect(e.file).toBe(file);
  expect(e.line).toBeGreaterThanOrEqual(1);
  expect(e.line).toBeLessThanOrEqual(lines);
  expect(e.reason.length).toBeGreaterThan(0);
  expect(e.message).toBe(`${file}:${e.line}: ${e.reason}`);
}

describe('parseBvh: fuzz (random mutations never crash, never yield NaN)', () => {
  const tokens = MINI.split(/(\s+)/);
  const vocabulary = ['{', '}', 'JOINT', 'ROOT', 'End', 'Site', 'OFFSET', 'CHANNELS', 'MOTION', 'Frames:', 'Frame', 'Time:', '6', '3', '0', '-1', '1e308', '1e9', 'Xrotation', 'Yposition', 'nan', '\n', '\r', ' ', '\t', '.', 'x'];
  const flipChars = ['0', '1', '9', '.', '-', '+', 'e', 'E', 'x', ' ', '\n', '\r', '\t', '{', '}', ':', 'n', 'a', '\u0000', '\ufeff'];

  const mutation = fc.oneof(
    fc.nat(MINI.length).map((n) => MINI.slice(0, n)),
    fc.array(fc.tuple(fc.nat(MINI.length - 1), fc.constantFrom(...flipChars)), { minLength: 1, maxLength: 6 }).map((flips) => {
      const a = [...MINI];
      for (const [i, c] of flips) a[i] = c;
      return a.join('');
    }),
    fc.array(fc.tuple(fc.nat(MINI.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }).map((flips) => {
      const a = [...MINI];
      for (const [i, c] of flips) a[i] = String.fromCharCode(c);
      return a.join('');
    }),
    fc.array(fc.nat(tokens.length - 1), { minLength: 1, maxLength: 4 }).map((dels) => {
      const t = tokens.slice();
      for (const d of dels) t[d] = '';
      return t.join('');
    }),
    fc.array(fc.tuple(fc.nat(tokens.length - 1), fc.constantFrom(...vocabulary)), { minLength: 1, maxLength: 4 }).map((ins) => {
      const t = tokens.slice();
      for (const [i, w] of ins) t[i] = `${t[i]} ${w} `;
      return t.join('');
    }),
    fc.tuple(fc.nat(MINI.length), fc.nat(MINI.length)).map(([a, b]) => MINI.slice(0, Math.min(a, b)) + MINI.slice(Math.max(a, b))),
  );

  it('either parses to a finite pose or throws BvhError', () => {
    let parsed = 0, rejected = 0;
    fc.assert(fc.property(mutation, fc.constantFrom<'replace' | 'add'>('replace', 'add'), fc.constantFrom<number | 'auto'>('auto', 0.01), (text, translationMode, scale) => {
      let r: BvhImport;
      try {
        r = parseBvh(text, { file: 'fuzz.bvh', translationMode, scale });
      } catch (e) {
        expectLocatedError(e, text, 'fuzz.bvh');
        rejected++;
        return;
      }
      parsed++;
      expectSoundImport(r);
    }), { numRuns: 4000 });
    expect(parsed).toBeGreaterThan(0);
    expect(rejected).toBeGreaterThan(0);
  });
});

/** Numbers a corrupt or hostile file might hold where a number belongs. */
const HOSTILE_NUMBERS = [
  '1e300', '-1e300', '1e308', '1e309', '1e-300', '1e-9', '5e-324', '-0', '0', '-1', '-5', '1e10', '10000000001',
  '-10000000000', 'nan', 'NaN', 'inf', '-Infinity', '1.2.3', '0x10', '99999999999999999999', '.', '-', '1e', '4294967296',
];

/** One structured change to a BVH text. */
type Mutation = (text: string, pick: (n: number) => number) => string;

function tokensOf(text: string): string[] {
  return text.split(/(\s+)/);
}

function indicesWhere(tokens: string[], test: (t: string, i: number) => boolean): number[] {
  const out: number[] = [];
  tokens.forEach((t, i) => { if (test(t, i)) out.push(i); });
  return out;
}

const isNumberToken = (t: string): boolean => /^[-+]?[0-9.]+(e[-+]?[0-9]+)?$/i.test(t);

const MUTATIONS: Record<string, Mutation> = {
  hostileNumber: (text, pick) => {
    const t = tokensOf(text);
    const nums = indicesWhere(t, isNumberToken);
    t[nums[pick(nums.length)]] = HOSTILE_NUMBERS[pick(HOSTILE_NUMBERS.length)];
    return t.join('');
  },
  truncate: (text, pick) => {
    const t = tokensOf(text);
    return t.slice(0, pick(t.length + 1)).join('');
  },
  deleteBrace: (text, pick) => {
    const t = tokensOf(text);
    const braces = indicesWhere(t, (s) => s === '{' || s === '}');
    t[braces[pick(braces.length)]] = '';
    return t.join('');
  },
  channelCount: (text, pick) => {
    const t = tokensOf(text);
    const counts = indicesWhere(t, (_s, i) => i >= 2 && t[i - 2].toUpperCase() === 'CHANNELS');
    t[counts[pick(counts.length)]] = String(pick(10));
    return t.join('');
  },
  frameTime: (text, pick) => text.replace(/Frame Time:[^\n]*/, `Frame Time: ${['1e-7', '1e-9', '1e-300', '1e300', '2', '0.00099', '0.001', '1', ...HOSTILE_NUMBERS][pick(8 + HOSTILE_NUMBERS.length)]}`),
  frameCount: (text, pick) => text.replace(/Frames:[^\n]*/, `Frames: ${['0', '1', '2', '11', '13', '999999999', '999999999999', '-1', '1e3'][pick(9)]}`),
  deleteLine: (text, pick) => {
    const lines = text.split('\n');
    lines.splice(pick(lines.length), 1);
    return lines.join('\n');
  },
  duplicateLine: (text, pick) => {
    const lines = text.split('\n');
    const i = pick(lines.length);
    lines.splice(i, 0, lines[i]);
    return lines.join('\n');
  },
};

describe('parseBvh: structured hostile mutations, through to a database build', () => {
  const bases = { 'mini.bvh': MINI, 'biped.bvh': bipedBvh() };
  const names = Object.keys(MUTATIONS);
  const plan = fc.record({
    base: fc.constantFrom(...Object.keys(bases) as Array<keyof typeof bases>),
    steps: fc.array(fc.tuple(fc.constantFrom(...names), fc.array(fc.nat(), { minLength: 2, maxLength: 2 })), { minLength: 1, maxLength: 2 }),
  });

  it('the biped base file builds as it is (so the mutations test something)', () => {
    const r = parseBvh(bases['biped.bvh'], { file: 'biped.bvh' });
    expect(buildDatabase([{ skeleton: r.skeleton, clip: r.clip }]).frameCount).toBe(12);
  });

  it('every mutation gives a located BvhError, or finite data that builds, each within 2 s', () => {
    const seen = { parsed: 0, built: 0, rejected: 0, refusedByBuild: 0 };
    let slowest = 0;
    fc.assert(fc.property(plan, ({ base, steps }) => {
      let text = bases[base];
      for (const [name, seeds] of steps) {
        let k = 0;
        text = MUTATIONS[name](text, (n) => (n <= 0 ? 0 : seeds[k++ % seeds.length] % n));
      }
      const t0 = performance.now();
      try {
        let r: BvhImport;
        try {
          r = parseBvh(text, { file: base });
        } catch (e) {
          expectLocatedError(e, text, base);
          seen.rejected++;
          return;
        }
        seen.parsed++;
        expectSoundImport(r);
        if (base !== 'biped.bvh') return; // the small file has no feet to build from
        try {
          buildDatabase([{ skeleton: r.skeleton, clip: r.clip }]);
          seen.built++;
        } catch (e) {
          // A skeleton that lost its feet or hips to a mutation is refused by name, not by a crash.
          if (!(e instanceof BoneRoleError || e instanceof DatabaseBuildError)) throw e;
          seen.refusedByBuild++;
        }
      } finally {
        slowest = Math.max(slowest, performance.now() - t0);
      }
    }), { numRuns: 2500 });
    console.log(`structured BVH fuzz: ${JSON.stringify(seen)}, slowest case ${slowest.toFixed(0)} ms`);
    expect(slowest).toBeLessThan(10_000); // a hang guard per case, not a speed target
    expect(seen.rejected).toBeGreaterThan(0);
    expect(seen.built).toBeGreaterThan(0);
  });

  it('hostile frame times are refused at their line before any frame is read', () => {
    for (const ft of ['1e-7', '1e-9', '1e-300', '1e300', '2', '0.00099']) {
      const text = bases['biped.bvh'].replace(/Frame Time:[^\n]*/, `Frame Time: ${ft}`);
      const line = text.split('\n').findIndex((l) => l.startsWith('Frame Time:')) + 1;
      const t0 = performance.now();
      let err: unknown;
      try { parseBvh(text, { file: 'biped.bvh' }); } catch (e) { err = e; }
      expect(performance.now() - t0).toBeLessThan(10_000); // refused before frames are read: no hang
      expect(err, ft).toBeInstanceOf(BvhError);
      expect((err as BvhError).line).toBe(line);
      expect((err as BvhError).reason).toMatch(/supported rates are 1 to 1000 fps/);
    }
  });
});
