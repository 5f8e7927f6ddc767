/**
 * Overlays on the real captures (../shared/data/mocap; skipped with a printed reason when absent):
 * the standing gestures of the same rig (waving, bye, bowing, raising hands) played over walks and
 * runs, selected by tags. A wave over a walk raises a hand above the shoulders while the legs stay
 * bit-identical (foot IK on), entries and exits stay within the documented jump bound, and the
 * tagged search enters gestures near their start and carries on with another one.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import { buildDatabase } from '../../src/database/build.js';
import { loadBvhSources } from '../../src/database/sources-node.js';
import type { Database } from '../../src/database/database.js';
import { Matcher } from '../../src/search/matcher.js';
import { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { OverlayLayer } from '../../src/runtime/overlay/overlay.js';
import { maskSparesLegs, upperBodyMask } from '../../src/runtime/overlay/bone-mask.js';
import type { PoseSearchPort } from '../../src/runtime/search-port.js';
import { HAS_MOCAP, MOCAP_DIR } from '../helpers/cli.js';

/** The documented bound on an overlay switch's joint velocity jump (docs/overlays.md), m/s. */
const OVERLAY_JUMP_BOUND = 2.5;
const DT = 1 / 30;
const GESTURES = ['dataset-1_bow_normal_001', 'dataset-1_bye_normal_001', 'dataset-1_byebye_normal_001', 'dataset-2_wave-both-hands_normal_002', 'dataset-2_wave-right-hand_normal_001', 'dataset-2_raise-up-both-hands_normal_002'];

describe.skipIf(!HAS_MOCAP)('overlays on the real captures', () => {
  let db: Database;
  let port: PoseSearchPort;
  beforeAll(async () => {
    const files = [join(MOCAP_DIR, 'core'), ...GESTURES.map((g) => join(MOCAP_DIR, 'locomotion', `${g}.bvh`))];
    db = buildDatabase(loadBvhSources(files), {
      mirror: true,
      tagRules: [{ tag: 'wave', pattern: '*wave*' }, { tag: 'gesture', pattern: '*bye*' }, { tag: 'bow', pattern: '*bow*' }, { tag: 'raise', pattern: '*raise*' }],
    });
    port = new MatcherSearchPort(await Matcher.create(db), 'kdtree');
  }, 120_000);

  /** A walk with a turn every 3 s; the overlay plays from 1 s for `duration`. World positions per step. */
  function walk(seconds: number, speed: number, overlay: { tag: string; duration: number } | null) {
    const c = new MotionMatchingController(db, { footIK: true });
    const layer = new OverlayLayer(db, { mask: upperBodyMask(db, { falloff: 2 }) });
    c.setOverlay(layer);
    const input = createInput();
    const steps = Math.round(seconds / DT), J = c.joints, world = new Float64Array(steps * J * 3);
    const clips = new Set<string>();
    let entered = Number.NaN;
    for (let s = 0; s < steps; s++) {
      const t = s * DT;
      if (overlay && s === Math.round(1 / DT)) layer.play({ tag: overlay.tag }, { duration: overlay.duration });
      const h = Math.floor(t / 3) * 0.8, v = speed;
      input.velocityX = Math.sin(h) * v; input.velocityZ = Math.cos(h) * v; input.facing = Number.NaN;
      c.update(DT, input, port);
      if (layer.clipName) { clips.add(layer.clipName); if (Number.isNaN(entered)) entered = layer.clipTime; }
      world.set(c.worldPositions, s * J * 3);
    }
    return { c, layer, world, steps, J, clips, entered };
  }

  it('waves over a walk and a run: a hand goes above the shoulders, the legs stay bit-identical', () => {
    const names = db.skeleton.names, J = names.length;
    const hands = ['Hand_L', 'Hand_R'].map((n) => names.indexOf(n)), shoulders = ['UpperArm_L', 'UpperArm_R'].map((n) => names.indexOf(n));
    for (const speed of [1.3, 3.0]) {
      const base = walk(7, speed, null);
      const wave = walk(7, speed, { tag: 'wave', duration: 5 });
      const mask = wave.layer.mask;
      expect(maskSparesLegs(mask, db)).toBe(true);
      let raised = 0, baseRaised = 0;
      for (let s = 0; s < wave.steps; s++) {
        for (let j = 0; j < J; j++) {
          if (mask.weights[j] > 0) continue;
          for (let k = 0; k < 3; k++) {
            const i = (s * J + j) * 3 + k;
            if (!Object.is(base.world[i], wave.world[i])) throw new Error(`${speed} m/s, step ${s}: ${names[j]} moved`);
          }
        }
        const up = (w: Float64Array) => hands.some((h, i) => w[(s * J + h) * 3 + 1] > w[(s * J + shoulders[i]) * 3 + 1] + 0.05);
        if (up(wave.world)) raised++;
        if (up(base.world)) baseRaised++;
      }
      console.log(`wave over ${speed} m/s: a hand above the shoulders in ${raised} of ${wave.steps} steps (${baseRaised} without the overlay); clips ${[...wave.clips].join(', ')}, entered ${wave.entered.toFixed(2)} s in`);
      expect(baseRaised).toBe(0);
      expect(raised).toBeGreaterThan(30); // over a second of the 5 s
      expect(wave.entered).toBeLessThan(1.01); // near the gesture's start (entryWindow 1 s)
      for (const clip of wave.clips) expect(clip).toMatch(/wave/);
    }
  });

  it('every gesture tag enters and leaves within the jump bound; a long duration carries on with another gesture', () => {
    const names = db.skeleton.names;
    for (const tag of ['wave', 'gesture', 'bow', 'raise']) {
      const base = walk(12, 1.3, null);
      const over = walk(12, 1.3, { tag, duration: 9 });
      const J = over.J, joints = over.layer.mask.joints;
      let worst = 0, worstAt = 0;
      for (let s = 2; s < over.steps; s++) {
        for (const j of joints) {
          let d = 0;
          for (let k = 0; k < 3; k++) {
            const at = (i: number) => over.world[(i * J + j) * 3 + k] - base.world[(i * J + j) * 3 + k];
            const a = (at(s) - 2 * at(s - 1) + at(s - 2)) / DT;
            d += a * a;
          }
          if (Math.sqrt(d) > worst) { worst = Math.sqrt(d); worstAt = s; }
        }
      }
      console.log(`${tag}: clips ${[...over.clips].join(' -> ')}; largest added joint velocity jump ${worst.toFixed(2)} m/s at ${(worstAt * DT).toFixed(2)} s`);
      expect(worst).toBeLessThan(OVERLAY_JUMP_BOUND);
      expect(over.clips.size).toBeGreaterThan(tag === 'raise' ? 1 : 0);
      for (const clip of over.clips) expect(db.clips.find((c) => c.name === clip)!.tags).toContain(tag);
      expect(names.length).toBe(22);
    }
  });
});
