/**
 * The wave made from the rig (databases without gestures): it raises the right hand above the
 * shoulder and swings it, on the built-in rig and on the capture rig, over a walk; its mask is the
 * right arm alone, so the rest of the body (legs included) is the locomotion's, bit for bit.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import { buildDatabase } from '../../src/database/build.js';
import { builtinSources, loadBvhSources } from '../../src/database/sources-node.js';
import type { Database } from '../../src/database/database.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { OverlayLayer } from '../../src/runtime/overlay/overlay.js';
import { synthesizedWave } from '../../src/runtime/overlay/wave.js';
import { maskSparesLegs } from '../../src/runtime/overlay/bone-mask.js';
import type { PoseSearchPort } from '../../src/runtime/search-port.js';
import { HAS_MOCAP, MOCAP_DIR } from '../helpers/cli.js';
import { makeRootTrackDatabase } from '../helpers/root-track-db.js';

const keepPlaying: PoseSearchPort = { searchPose(_r, out) { out.frame = -1; out.cost = Infinity; } };

/** Walks 3 s, waving from 0.5 s; returns how high the right hand got above its shoulder, and the steps it was above it. */
function waveOver(db: Database, hand: string, shoulder: string) {
  const wave = synthesizedWave(db);
  const base = new MotionMatchingController(db, { footIK: true });
  const c = new MotionMatchingController(db, { footIK: true });
  c.setOverlay(new OverlayLayer(db, { mask: wave.mask }));
  const input = createInput();
  input.velocityZ = 1.3;
  const h = db.skeleton.names.indexOf(hand), s = db.skeleton.names.indexOf(shoulder);
  let highest = -Infinity, above = 0;
  for (let k = 0; k < 90; k++) {
    if (k === 15) c.overlay!.play(wave.clip, { loop: true });
    c.update(1 / 30, input, keepPlaying);
    base.update(1 / 30, input, keepPlaying);
    const rise = c.worldPositions[3 * h + 1] - c.worldPositions[3 * s + 1];
    highest = Math.max(highest, rise);
    if (rise > 0.1) above++;
    for (let j = 0; j < c.joints; j++) {
      if (wave.mask.weights[j] > 0) continue;
      for (let d = 0; d < 3; d++) expect(c.worldPositions[3 * j + d]).toBe(base.worldPositions[3 * j + d]);
    }
  }
  return { wave, highest, above };
}

describe('the synthesized wave', () => {
  let builtin: Database;
  beforeAll(() => { builtin = buildDatabase(builtinSources()); });

  it('waves the built-in character\'s right hand above its shoulder, the rest of the body untouched', () => {
    const { wave, highest, above } = waveOver(builtin, 'hand_r', 'upperarm_r');
    expect(wave.mask.label).toBe('right arm (clavicle_r)');
    expect(maskSparesLegs(wave.mask, builtin)).toBe(true);
    expect(wave.clip.loop).toBe(true);
    expect(wave.clip.frames).toBe(15);
    expect(highest).toBeGreaterThan(0.3);
    expect(above).toBeGreaterThan(50);
    expect(synthesizedWave(builtin)).toBe(wave);
  });

  it.skipIf(!HAS_MOCAP)('works on the capture rig too', () => {
    const db = buildDatabase(loadBvhSources([join(MOCAP_DIR, 'core', 'dataset-2_walk_normal_005.bvh')]));
    const { wave, highest, above } = waveOver(db, 'Hand_R', 'UpperArm_R');
    expect(wave.mask.label).toBe('right arm (Shoulder_R)');
    expect(highest).toBeGreaterThan(0.3);
    expect(above).toBeGreaterThan(50);
  });

  it('a rig without a right arm says so', () => {
    const db = makeRootTrackDatabase([{ z: [0, 0.04, 0.08], loop: false }], 30);
    expect(() => synthesizedWave(db)).toThrow(/arms mask: no left\/right joints hang from the spine/);
  });
});
