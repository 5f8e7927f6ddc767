/**
 * A wave made from the rig itself, for databases that have no gesture to play (the built-in one):
 * the right upper arm raised out to the side, the forearm up and swinging side to side twice a
 * second, everything else as in a reference frame of the database. A looping overlay clip over the
 * right arm's mask (the joints from the shoulder or clavicle down), built once per database.
 *
 * The arm is found by the shape of the skeleton and the joints' names: the side is the one whose
 * first joint below the spine is named right (Right, _R, r_, ...), its joints are followed down the
 * largest subtree (shoulder, upper arm, forearm, hand). Directions are in the character's frame
 * (Y up, Z forward, X to the character's left).
 */
import type { Database } from '../../database/database.js';
import { forwardKinematics } from '../../anim/pose.js';
import { jointNameInfo } from '../../features/bone-names.js';
import { quatFromTo, quatInvMultiply, quatMultiply, quatRotateVec3 } from '../../math/quat.js';
import { armsMask, boneMaskFromSubtree, type BoneMask } from './bone-mask.js';
import { databaseRuntime, framePoseAt } from '../database-runtime.js';
import { overlayClipFromRotations, type OverlayClip } from './clip.js';

export interface SynthesizedWave {
  clip: OverlayClip;
  /** The waving arm, from its first joint below the spine. */
  mask: BoneMask;
}

/** Waves per second, and how far the forearm swings to each side (radians). */
const WAVE_HZ = 2;
const SWING = 0.45;

const cache = new WeakMap<Database, SynthesizedWave>();

/** The rig's wave (cached per database); throws when the rig has no right arm to wave with. */
export function synthesizedWave(db: Database): SynthesizedWave {
  let wave = cache.get(db);
  if (!wave) { wave = makeWave(db); cache.set(db, wave); }
  return wave;
}

function makeWave(db: Database): SynthesizedWave {
  const sk = db.skeleton, parents = sk.parents, J = parents.length;
  const arms = armsMask(db);
  const info = jointNameInfo(sk.names);
  const roots = Array.from(arms.joints).filter((j) => arms.weights[parents[j]] === 0 || parents[j] < 0);
  const root = roots.find((j) => info[j].side === 'right') ?? -1;
  if (root < 0) throw new RangeError(`wave: no arm named right hangs from the spine (arms: ${roots.map((j) => sk.names[j]).join(', ') || 'none'})`);
  const size = new Int32Array(J).fill(1);
  for (let j = J - 1; j > 0; j--) size[parents[j]] += size[j];
  const chain = [root];
  for (;;) {
    const at = chain[chain.length - 1];
    let best = -1;
    for (let j = 0; j < J; j++) if (parents[j] === at && (best < 0 || size[j] > size[best])) best = j;
    if (best < 0) break;
    chain.push(best);
  }
  if (chain.length < 3) throw new RangeError(`wave: the right arm (${chain.map((j) => sk.names[j]).join(', ')}) needs an upper arm, a forearm and a hand`);
  const [upper, lower, hand] = chain.length >= 4 ? chain.slice(1, 4) : chain.slice(0, 3);
  // The reference pose: the first frame of a clip tagged idle (standing), else the first frame.
  const rt = databaseRuntime(db);
  const idle = db.tagNames.indexOf('idle');
  const ref = idle >= 0 ? Math.max(0, db.clips.findIndex((c) => (db.tagBits[c.start] >>> idle) & 1)) : 0;
  const f = db.clips[ref].start;
  const localR = new Float64Array(4 * J), localT = new Float64Array(3 * J);
  framePoseAt(rt, f, localR, 0, localT, 0);
  const wr = new Float64Array(4 * J), wp = new Float64Array(3 * J);
  forwardKinematics(parents, localR, 0, localT, 0, wr, wp);
  const frames = Math.round(db.fps / WAVE_HZ);
  const out = new Float64Array(frames * J * 4);
  const d0 = new Float64Array(3), d1 = new Float64Array(3), rotated = new Float64Array(3), turn = new Float64Array(4), w = new Float64Array(4), wl = new Float64Array(4);
  const direction = (out3: Float64Array, a: number, b: number) => {
    const x = wp[3 * b] - wp[3 * a], y = wp[3 * b + 1] - wp[3 * a + 1], z = wp[3 * b + 2] - wp[3 * a + 2], n = Math.hypot(x, y, z);
    out3[0] = x / n; out3[1] = y / n; out3[2] = z / n;
  };
  const unit = (out3: Float64Array, x: number, y: number, z: number) => { const n = Math.hypot(x, y, z); out3[0] = x / n; out3[1] = y / n; out3[2] = z / n; };
  for (let k = 0; k < frames; k++) {
    const o = k * J * 4;
    out.set(localR, o);
    // Upper arm out to the (character's) right and up: its world rotation turned onto that direction.
    direction(d0, upper, lower);
    unit(d1, -0.55, 0.75, 0.2);
    quatFromTo(turn, 0, d0, 0, d1, 0);
    quatMultiply(w, 0, turn, 0, wr, 4 * upper);
    quatInvMultiply(out, o + 4 * upper, wr, 4 * parents[upper], w, 0);
    // The forearm, carried along by the upper arm's turn, then turned up and swinging.
    direction(d0, lower, hand);
    quatRotateVec3(rotated, 0, turn, 0, d0, 0);
    const phase = Math.sin((2 * Math.PI * k) / frames);
    unit(d1, -0.1 + SWING * phase, 1, 0.1);
    quatFromTo(turn, 0, rotated, 0, d1, 0);
    quatMultiply(wl, 0, w, 0, localR, 4 * lower); // the forearm's world rotation after the upper arm's turn
    quatMultiply(wl, 0, turn, 0, wl, 0);
    quatInvMultiply(out, o + 4 * lower, w, 0, wl, 0);
  }
  const clip = overlayClipFromRotations(sk, out, db.fps, { name: 'wave (synthesized)', loop: true });
  return { clip, mask: boneMaskFromSubtree(sk, sk.names[root], { label: `right arm (${sk.names[root]})` }) };
}
