/**
 * The overlay layer on its own: input checks that leave the layer as it was, the life of a play
 * (fades, durations, loops, stops, resets), the expanded blend against its readable form, arcs that
 * never flip mid-fade, the tagged search, and random play/stop sequences through the controller
 * (finite unit rotations, legs bit-identical).
 */
import { describe, it, expect, beforeAll } from 'vitest';
import fc from 'fast-check';
import { buildDatabase } from '../../src/database/build.js';
import { builtinSources } from '../../src/database/sources-node.js';
import type { Database } from '../../src/database/database.js';
import { databaseRuntime, framePoseAt } from '../../src/runtime/database-runtime.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { OverlayLayer, DEFAULT_OVERLAY_OPTIONS, type OverlayHost } from '../../src/runtime/overlay/overlay.js';
import { armsMask, boneMaskFromSubtree, upperBodyMask } from '../../src/runtime/overlay/bone-mask.js';
import { overlayClipFromDatabase, overlayClipFromRotations } from '../../src/runtime/overlay/clip.js';
import { configRotation, CONFIG_Q, overlayPower } from '../../src/runtime/overlay/blend.js';
import { overlayFeaturesAt, overlayIndex, searchOverlayIndex } from '../../src/runtime/overlay/search.js';
import { quatFromAxisAngle, quatMultiply } from '../../src/math/quat.js';
import type { PoseSearchPort } from '../../src/runtime/search-port.js';
import { makeRootTrackDatabase } from '../helpers/root-track-db.js';

let db: Database;
beforeAll(() => { db = buildDatabase(builtinSources(), { tagRules: [{ tag: 'still', pattern: 'idle' }, { tag: 'pivot', pattern: 'turn_in_place_*' }] }); });
const DT = 1 / 30;
const keepPlaying: PoseSearchPort = { searchPose(_r, out) { out.frame = -1; out.cost = Infinity; } };

/** A host whose base pose is a database frame (rotations copied in before every apply). */
function frameHost(frame: number): OverlayHost & { base: Float64Array } {
  const rt = databaseRuntime(db), J = rt.joints;
  const base = new Float64Array(4 * J);
  framePoseAt(rt, frame, base, 0, new Float64Array(3 * J), 0);
  return { rt, rotations: Float64Array.from(base), frame, stepSeconds: DT, base };
}

function step(layer: OverlayLayer, host: OverlayHost & { base: Float64Array }, n = 1): void {
  for (let i = 0; i < n; i++) { host.rotations.set(host.base); layer.apply(host); }
}

describe('checks', () => {
  it('refuses bad options and sources with one-line messages, and leaves the layer as it was', () => {
    const layer = new OverlayLayer(db);
    const host = frameHost(0);
    const small = makeRootTrackDatabase([{ z: [0, 0.1], loop: false }], 30).skeleton;
    const smallClip = overlayClipFromRotations(small, new Float64Array(4 * small.names.length).map((_, i) => (i % 4 === 3 ? 1 : 0)), 30);
    layer.play({ clip: 'idle' }, { loop: true });
    step(layer, host, 20);
    const before = [layer.playing, layer.weight, layer.clipName, layer.clipTime];
    const bad: Array<[() => void, RegExp]> = [
      [() => layer.play({ clip: 'idle' }, { weight: 1.5 }), /weight must be in \[0, 1\], got 1.5/],
      [() => layer.play({ clip: 'idle' }, { fadeIn: -1 }), /fadeIn must be a number of seconds >= 0/],
      [() => layer.play({ clip: 'idle' }, { fadeOut: Number.NaN }), /fadeOut/],
      [() => layer.play({ clip: 'idle' }, { mode: 'mix' as 'override' }), /mode must be override or additive, got 'mix'/],
      [() => layer.play({ clip: 'idle' }, { duration: -2 }), /duration/],
      [() => layer.play({ clip: 'idle' }, { start: 99 }), /start 99 s is past the end of clip 'idle'/],
      [() => layer.play({ clip: 'wave' }), /no clip named 'wave' \(\d+ clips: idle, walk_0.8/],
      [() => layer.play({ clip: 9999 }), /no clip #9999/],
      [() => layer.play({ tag: 'wave' }), /no frames tagged 'wave' \(its tags: backward, cut, idle.*--tag wave=\*wave\*/],
      [() => layer.play({ tag: '' }), /tag must be a non-empty string/],
      [() => layer.play(smallClip), /has \d+ joints, the database's skeleton 22/],
      [() => layer.stop(-1), /fadeOut/],
    ];
    for (const [fn, message] of bad) {
      expect(fn).toThrow(message);
      expect([layer.playing, layer.weight, layer.clipName, layer.clipTime]).toEqual(before);
    }
    expect(() => new OverlayLayer(db, { weight: 2 })).toThrow(/weight/);
    expect(() => new OverlayLayer(db, { halfLife: -0.1 })).toThrow(/halfLife/);
    expect(() => new OverlayLayer(db, { entryWindow: 0 })).toThrow(/entryWindow/);
    expect(() => new OverlayLayer(db, {}, new Float64Array(3))).toThrow(/storage must be a Float64Array of at least/);
    const other = makeRootTrackDatabase([{ z: [0, 0.1, 0.2], loop: false }], 30);
    expect(() => new OverlayLayer(db, { mask: upperBodyMask(other) })).toThrow(/made for another skeleton/);
    expect(() => new MotionMatchingController(other).setOverlay(layer)).toThrow(/made for another database/);
  });

  it('overlay clips of your own are checked', () => {
    expect(() => overlayClipFromRotations(db.skeleton, new Float64Array(22 * 4 + 1), 30)).toThrow(/not a whole number of frames of 22 joints/);
    expect(() => overlayClipFromRotations(db.skeleton, new Float64Array(22 * 4), 30)).toThrow(/frame 0, joint pelvis: not a unit quaternion/);
    const ok = new Float64Array(2 * 22 * 4).map((_, i) => (i % 4 === 3 ? 1 : 0));
    expect(() => overlayClipFromRotations(db.skeleton, ok, 0)).toThrow(/fps must be in/);
    const clip = overlayClipFromRotations(db.skeleton, ok, 30, { name: 'rest' });
    expect(clip.frames).toBe(2);
    expect(clip.databaseStart).toBe(-1);
    expect(Array.from(clip.angularVelocities)).toEqual(new Array(2 * 22 * 3).fill(0));
  });
});

describe('the life of a play', () => {
  it('a clip plays to its end: the fade-out ends with it, then the layer is idle', () => {
    const clip = overlayClipFromDatabase(db, 'turn_in_place_left_90');
    const layer = new OverlayLayer(db, { mask: armsMask(db) });
    const host = frameHost(100);
    layer.play(clip);
    const weights: number[] = [];
    let steps = 0;
    while (layer.active && steps < 1000) { step(layer, host); weights.push(layer.weight); steps++; }
    const length = (clip.frames - 1) / clip.fps;
    expect(steps * DT).toBeGreaterThan(length - 2 * DT);
    expect(steps * DT).toBeLessThan(length + 2 * DT);
    expect(Math.max(...weights)).toBe(1);
    // Up, hold, down: never a jump larger than the fades allow (smootherstep peaks at 1.875 / fade per second).
    for (let i = 1; i < weights.length; i++) expect(Math.abs(weights[i] - weights[i - 1])).toBeLessThan(1.9 * DT / 0.5);
    expect(layer.playing).toBe(false);
    // Idle, the base goes through untouched.
    step(layer, host);
    expect(Array.from(host.rotations)).toEqual(Array.from(host.base));
  });

  it('durations, loops, stops with and without a fade, and resets', () => {
    const layer = new OverlayLayer(db, { mask: armsMask(db) });
    const host = frameHost(0);
    layer.play({ clip: 'turn_in_place_left_90' }, { duration: 1 });
    step(layer, host, 25);
    expect(layer.stopping).toBe(true);
    step(layer, host, 5);
    expect(layer.playing).toBe(false); // faded out by the end of the duration

    layer.play({ clip: 'turn_in_place_left_90' }, { loop: true });
    step(layer, host, 200); // longer than the clip (2.8 s)
    expect(layer.playing).toBe(true);
    expect(layer.weight).toBe(1);
    layer.stop();
    step(layer, host, 5);
    expect(layer.stopping).toBe(true);
    expect(layer.weight).toBeGreaterThan(0);
    layer.stop(0); // at once: the pose is carried out by decaying offsets
    step(layer, host);
    expect(layer.playing).toBe(false);
    expect(layer.active).toBe(true);
    expect(Array.from(host.rotations)).not.toEqual(Array.from(host.base));
    step(layer, host, 60);
    expect(layer.active).toBe(false);

    layer.play({ clip: 'idle' }, { loop: true });
    step(layer, host, 5);
    layer.reset();
    expect(layer.active).toBe(false);
    step(layer, host);
    expect(Array.from(host.rotations)).toEqual(Array.from(host.base));
  });

  it('a new overlay over a playing one takes over from its weight, without a jump', () => {
    const mask = armsMask(db);
    const layer = new OverlayLayer(db, { mask });
    const host = frameHost(0);
    layer.play({ clip: 'turn_in_place_left_90' }, { loop: true });
    step(layer, host, 30);
    const shown = Float64Array.from(host.rotations);
    layer.play({ clip: 'idle' }, { start: 3 });
    step(layer, host);
    expect(layer.weight).toBeGreaterThan(0.99);
    // The step after the switch shows what the old overlay would have shown (to first order).
    for (const j of mask.joints) {
      const d = Math.abs(shown[4 * j] * host.rotations[4 * j] + shown[4 * j + 1] * host.rotations[4 * j + 1] + shown[4 * j + 2] * host.rotations[4 * j + 2] + shown[4 * j + 3] * host.rotations[4 * j + 3]);
      expect(2 * Math.acos(Math.min(1, d))).toBeLessThan(0.1); // radians turned in one step
    }
  });

  it('is deterministic, in its own storage or in a caller\'s block', () => {
    const runOnce = (storage?: Float64Array) => {
      const layer = new OverlayLayer(db, { mask: upperBodyMask(db, { falloff: 2 }) }, storage);
      const host = frameHost(50);
      const out: number[] = [];
      layer.play({ tag: 'pivot' }, { duration: 4 });
      for (let s = 0; s < 90; s++) { step(layer, host); out.push(...host.rotations); if (s === 40) layer.play({ clip: 'idle' }, { fadeIn: 0 }); }
      return out;
    };
    const block = new Float64Array(OverlayLayer.storageSize(upperBodyMask(db, { falloff: 2 })) + 7).fill(Number.NaN);
    expect(runOnce(block.subarray(7))).toEqual(runOnce());
  });
});

describe('blends', () => {
  it('the expanded step equals the readable blend (override and additive, any weight)', () => {
    const rt = databaseRuntime(db), J = rt.joints;
    const clip = overlayClipFromDatabase(db, 'run_3.5');
    fc.assert(fc.property(fc.integer({ min: 0, max: db.frameCount - 1 }), fc.double({ min: 0.01, max: 1, noNaN: true }), fc.constantFrom('override', 'additive'), fc.integer({ min: 0, max: 3 }),
      (frame, weight, mode, falloff) => {
        const mask = upperBodyMask(db, { falloff });
        const layer = new OverlayLayer(db, { mask, halfLife: 0, fadeIn: 0, weight, mode });
        const host = frameHost(frame);
        layer.play(clip, { start: 0.5 });
        step(layer, host);
        for (const j of mask.joints) {
          configRotation(host.base, 4 * j, clip, 0.5, mask.weights[j] * weight, mode === 'additive' ? 1 : 0, j, 0, 0, 0, null, 0);
          for (let k = 0; k < 4; k++) expect(host.rotations[4 * j + k]).toBeCloseTo(CONFIG_Q[k], 12);
        }
        for (let j = 0; j < J; j++) if (mask.weights[j] === 0) for (let k = 0; k < 4; k++) expect(host.rotations[4 * j + k]).toBe(host.base[4 * j + k]);
        expect(rt.joints).toBe(J);
      }), { numRuns: 60 });
  });

  it('overlayPower follows its argument\'s own arc, the long way round too', () => {
    const out = new Float64Array(4), D = new Float64Array(4);
    quatFromAxisAngle(D, 0, 0, 1, 0, (250 * Math.PI) / 180);
    if (D[3] > 0) for (let k = 0; k < 4; k++) D[k] = -D[k]; // the long way: w < 0
    overlayPower(out, D, 0.5);
    // Half of the 250 degree arc: 125 degrees about +Y.
    expect(2 * Math.atan2(out[1], out[3]) * 180 / Math.PI).toBeCloseTo(125, 9);
  });

  it('a fade between rotations about 180 degrees apart, the base wobbling across the half turn, never flips arc', () => {
    // A one-frame overlay clip: every masked joint turned 180 degrees about X from the rest pose.
    const J = db.skeleton.names.length, mask = boneMaskFromSubtree(db.skeleton, 'upperarm_l');
    const rot = new Float64Array(J * 4).map((_, i) => (i % 4 === 3 ? 1 : 0));
    for (const j of mask.joints) { rot[4 * j] = 1; rot[4 * j + 3] = 0; }
    const clip = overlayClipFromRotations(db.skeleton, rot, 30, { name: 'half-turn' });
    const layer = new OverlayLayer(db, { mask, fadeIn: 1, halfLife: 0.1 });
    const rt = databaseRuntime(db);
    const host = { rt, rotations: new Float64Array(J * 4), frame: 0, stepSeconds: DT };
    layer.play(clip, { loop: true });
    const q = new Float64Array(4), j = mask.joints[0];
    let prev: Float64Array | null = null, worst = 0;
    for (let s = 0; s < 45; s++) {
      // The base: the rest pose turned ±12 degrees about Y, back and forth (the overlay's half turn is then 168-192 degrees away).
      host.rotations.fill(0); for (let k = 0; k < J; k++) host.rotations[4 * k + 3] = 1;
      quatFromAxisAngle(q, 0, 0, 1, 0, 0.21 * Math.sin(s * 0.9));
      quatMultiply(host.rotations, 4 * j, q, 0, host.rotations, 4 * j);
      layer.apply(host);
      const r = host.rotations.slice(4 * j, 4 * j + 4);
      if (prev) worst = Math.max(worst, 2 * Math.acos(Math.min(1, Math.abs(r[0] * prev[0] + r[1] * prev[1] + r[2] * prev[2] + r[3] * prev[3]))));
      prev = r;
    }
    // A flip would turn the joint by close to 180 degrees in one step.
    expect(worst).toBeLessThan(0.6);
  });
});

describe('the tagged search', () => {
  it('enters the candidate nearest to the base pose, near a tagged clip\'s start; carries on with another clip', () => {
    const mask = upperBodyMask(db);
    const index = overlayIndex(db, 'pivot', mask);
    expect(overlayIndex(db, 'pivot', mask)).toBe(index); // cached
    const rt = databaseRuntime(db);
    for (const f of index.candidates) {
      const c = db.clips[rt.clipOf[f]];
      expect(c.name).toMatch(/^turn_in_place/);
      expect(f - c.start).toBeLessThan(DEFAULT_OVERLAY_OPTIONS.entryWindow * db.fps);
    }
    const q = new Float64Array(index.dims), row = new Float64Array(index.dims);
    for (const base of [0, 500, 3000, 7000]) {
      overlayFeaturesAt(rt, index, base, q);
      const found = searchOverlayIndex(index, q, -1);
      let best = Infinity, bestFrame = -1;
      for (const f of index.candidates) {
        overlayFeaturesAt(rt, index, f, row);
        let cost = 0;
        for (let d = 0; d < index.dims; d++) cost += (Math.fround(row[d]) - q[d]) ** 2;
        if (cost < best) { best = cost; bestFrame = f; }
      }
      expect(found).toBe(bestFrame);
      const skip = rt.clipOf[found];
      expect(rt.clipOf[searchOverlayIndex(index, q, skip)]).not.toBe(skip);
    }
    // A tag source given longer than its gesture moves on to another gesture.
    const layer = new OverlayLayer(db, { mask });
    const host = frameHost(0);
    layer.play({ tag: 'pivot' }, { duration: 8 });
    const names = new Set<string>();
    for (let s = 0; s < 8 * 30; s++) { step(layer, host); if (layer.clipName) names.add(layer.clipName); }
    expect(names.size).toBeGreaterThan(1);
    for (const n of names) expect(n).toMatch(/^turn_in_place/);
  });
});

describe('random play and stop sequences through the controller', () => {
  it('finite unit rotations, weights in [0, 1], legs bit-identical to the run without the overlay', () => {
    const mask = upperBodyMask(db, { falloff: 1 });
    const legs = Array.from({ length: 22 }, (_, j) => j).filter((j) => mask.weights[j] === 0);
    fc.assert(fc.property(fc.array(fc.record({
      at: fc.integer({ min: 0, max: 89 }), kind: fc.constantFrom('clip', 'tag', 'stop', 'stop0', 'reset'), fade: fc.constantFrom(0, 0.1, 0.5),
      mode: fc.constantFrom('override', 'additive'), weight: fc.double({ min: 0, max: 1, noNaN: true }), loop: fc.boolean(),
    }), { maxLength: 8 }), (events) => {
      const input = createInput();
      input.velocityZ = 1.4;
      const base = new MotionMatchingController(db, { footIK: true });
      const over = new MotionMatchingController(db, { footIK: true });
      const layer = new OverlayLayer(db, { mask });
      over.setOverlay(layer);
      for (let s = 0; s < 90; s++) {
        for (const e of events.filter((x) => x.at === s)) {
          if (e.kind === 'clip') layer.play({ clip: 'run_3.5' }, { fadeIn: e.fade, fadeOut: e.fade, mode: e.mode, weight: e.weight, loop: e.loop });
          else if (e.kind === 'tag') layer.play({ tag: 'still' }, { fadeIn: e.fade, mode: e.mode, weight: e.weight, duration: 1 });
          else if (e.kind === 'stop') layer.stop();
          else if (e.kind === 'stop0') layer.stop(0);
          else layer.reset();
        }
        base.update(DT, input, keepPlaying);
        over.update(DT, input, keepPlaying);
        // Checked in plain loops, one expect per step for each property (an expect per value was
        // 170,000 calls and most of this test's time).
        expect(layer.weight >= 0 && layer.weight <= 1).toBe(true);
        let worstNorm = 0;
        for (let j = 0; j < 22; j++) {
          const r = over.rotations;
          const n = Math.hypot(r[4 * j], r[4 * j + 1], r[4 * j + 2], r[4 * j + 3]);
          if (!(Math.abs(n - 1) <= worstNorm)) worstNorm = Math.abs(n - 1); // NaN-propagating max
        }
        expect(worstNorm).toBeLessThan(1e-6); // float32 database rotations are unit to ~1e-7
        let legMismatch = -1;
        for (const j of legs) for (let k = 0; k < 3; k++) if (legMismatch < 0 && !Object.is(over.worldPositions[3 * j + k], base.worldPositions[3 * j + k])) legMismatch = 3 * j + k;
        expect(legMismatch < 0 ? null : [legMismatch, over.worldPositions[legMismatch]]).toEqual(legMismatch < 0 ? null : [legMismatch, base.worldPositions[legMismatch]]);
      }
    }), { numRuns: 40 });
  });
});
