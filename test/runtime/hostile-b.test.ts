/**
 * Hostile arguments to the library (issue 28 §3, case 6): hand-made bone masks with NaN weights or
 * joint indices out of range, malformed masks, and a search without a query are refused with a
 * TypeError or RangeError whose one-line message says what is wrong, instead of doing nothing or
 * failing inside with a raw TypeError.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import type { Database } from '../../src/database/database.js';
import { Matcher } from '../../src/search/matcher.js';
import { OverlayLayer } from '../../src/runtime/overlay/overlay.js';
import { BoneMaskError, upperBodyMask, type BoneMask } from '../../src/runtime/overlay/bone-mask.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

let db: Database;
let good: BoneMask;
beforeAll(() => {
  db = builtinDatabase();
  good = upperBodyMask(db, { falloff: 2 });
});

/** `fn` throws an error of class `type` with a one-line message matching `message`. */
function expectThrows(fn: () => unknown, type: new (...a: never[]) => Error, message: RegExp): void {
  let error: unknown = null;
  try { fn(); } catch (e) { error = e; }
  expect(error, 'no error thrown').toBeInstanceOf(type);
  const m = (error as Error).message;
  expect(m).toMatch(message);
  expect(m.includes('\n'), m).toBe(false);
  expect(m.length).toBeLessThan(300);
}

describe('overlay masks', () => {
  it('refuses a NaN weight (it used to take over no joint, silently)', () => {
    const weights = Float64Array.from(good.weights);
    const j = good.joints[0];
    weights[j] = Number.NaN;
    const mask: BoneMask = { ...good, weights };
    expectThrows(() => new OverlayLayer(db, { mask }), RangeError, /^overlay: mask\.weights\[\d+\] \(.*\) must be in \[0, 1\], got NaN$/);
    expectThrows(() => new OverlayLayer(db, { mask }), BoneMaskError, /NaN/);
  });

  it('refuses joint indices 999 and -5 (they used to be skipped, silently)', () => {
    for (const bad of [999, -5]) {
      const joints = Int32Array.from(good.joints);
      joints[joints.length - 1] = bad;
      const mask: BoneMask = { ...good, joints };
      expectThrows(() => new OverlayLayer(db, { mask }), RangeError, new RegExp(`^overlay: mask\\.joints\\[\\d+\\] is ${bad}, not a joint index in \\[0, \\d+\\]$`));
    }
  });

  it('refuses joints that do not match the weights', () => {
    const mask: BoneMask = { ...good, joints: good.joints.subarray(1) };
    expectThrows(() => new OverlayLayer(db, { mask }), RangeError, /^overlay: mask\.joints lists \d+ joints, but \d+ have a weight above 0$/);
  });

  it('refuses a malformed mask with a TypeError saying what it must be (it used to be a raw TypeError)', () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /^overlay: mask\.weights must be a Float64Array \(one weight per joint\), got undefined$/],
      [{ ...good, weights: [1, 2] }, /^overlay: mask\.weights must be a Float64Array \(one weight per joint\), got an array of 2$/],
      [{ ...good, joints: [0] }, /^overlay: mask\.joints must be an Int32Array of joint indices, got an array of 1$/],
      [{ ...good, jointNames: undefined }, /^overlay: mask\.jointNames must be an array of joint names, got undefined$/],
      ['upper', /^overlay: mask must be a BoneMask \{ weights, joints, jointNames, label \}, got a string$/],
    ];
    for (const [mask, message] of cases) expectThrows(() => new OverlayLayer(db, { mask: mask as BoneMask }), TypeError, message);
    expectThrows(() => new OverlayLayer(db, null as never), TypeError, /^overlay: options must be an object, got null$/);
  });

  it('refuses a bad play() source, and quotes at most 80 characters of an unknown tag', () => {
    const layer = new OverlayLayer(db, { mask: good });
    expectThrows(() => layer.play(null as never), TypeError, /^overlay\.play: source must be \{ tag \}, \{ clip \} or an OverlayClip, got null$/);
    expectThrows(() => layer.play({ tag: 'x'.repeat(10_000) }), RangeError, /^overlay: the database has no frames tagged 'x{80}…' \(its tags: /);
    expectThrows(() => layer.play({ tag: 'wave\u001b[31m' }), RangeError, /tagged 'wave\\u001b\[31m'/);
    expect(layer.playing).toBe(false);
  });
});

describe('Matcher argument checks', () => {
  it('search(null) and other non-queries throw a TypeError naming the entry point and the expected query', async () => {
    const matcher = await Matcher.create(db, { backend: 'js' });
    const width = db.dims === db.stride ? `${db.dims} values` : `${db.dims} values \\(dims\\) or ${db.stride} \\(stride\\)`;
    expectThrows(() => matcher.search(null as never), TypeError, new RegExp(`^matcher\\.search: query must be a Float32Array of ${width}, got null$`));
    expectThrows(() => matcher.search(undefined as never), TypeError, /^matcher\.search: query must be a Float32Array of .*, got undefined$/);
    expectThrows(() => matcher.search('abc' as never), TypeError, /got a string$/);
    expectThrows(() => matcher.search({ length: 27 } as never), TypeError, /got an object$/);
    expectThrows(() => matcher.search(new Float32Array(db.stride), null as never), TypeError, /^matcher\.search: options must be an object or left out, got null$/);
    expectThrows(() => matcher.searchBatch(null as never, 1), TypeError, /^matcher\.searchBatch: queries must be a Float32Array of k x .*, got null$/);
    expectThrows(() => matcher.searchBatch(new Float32Array(db.stride), '1' as never), TypeError, /^matcher\.searchBatch: k must be the number of queries, got a string$/);
    expectThrows(() => matcher.normalizeQuery(null as never), TypeError, /^matcher\.normalizeQuery: query must be a Float32Array/);
    // The wrong width is a RangeError (as before), and a good query still works.
    expectThrows(() => matcher.search(new Float32Array(3)), RangeError, /query has 3 floats; expected/);
    expect(matcher.search(new Float32Array(db.stride)).frame).toBeGreaterThanOrEqual(0);
  });
});
