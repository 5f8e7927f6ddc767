/**
 * The overlay's own motion matching search: which frame of the database's frames carrying a tag
 * (e.g. `wave`) to enter, so that the layer starts from the gesture pose nearest to the body's
 * current one and carries on across clip ends with the best continuation.
 *
 * Features (per masked joint, scaled by its mask weight): its position in the frame of the joint
 * the masked part hangs from (the hips for an upper-body mask; the character root when the mask
 * reaches the hips), now and LOOKAHEAD later (0.1 s: which way it moves). Cost: squared distance.
 * Candidates: tagged frames within `entryWindow` seconds of their clip's start (gestures are entered
 * from their beginning, not half-way through a bow) that leave at least `MIN_REMAINING` to play.
 * Brute force: it runs once per gesture (entry and clip ends), over a few hundred candidates.
 */
import { excerpt } from '../../util/input-text.js';
import type { Database } from '../../database/database.js';
import { composeJoint } from '../../anim/forward-kinematics.js';
import { databaseRuntime, jointLocalAt, type DatabaseRuntime } from '../database-runtime.js';
import type { BoneMask } from './bone-mask.js';

/** Seconds between the two samples of a feature (now, and this much later). */
const LOOKAHEAD_SECONDS = 0.1;
/** A candidate leaves at least this much of its clip to play (s). */
const MIN_REMAINING = 0.5;

export interface OverlayIndex {
  readonly db: Database;
  readonly tag: string;
  /** Database frames a search may return. */
  readonly candidates: Int32Array;
  /** Features of the candidates, candidates.length * dims. */
  readonly features: Float32Array;
  readonly dims: number;
  /** The masked joints the features describe, and their mask weights. */
  readonly featureJoints: Int32Array;
  readonly featureWeights: Float64Array;
  /** The joints forward kinematics visits (the masked joints and their ancestors below `reference`), parents first. */
  readonly chain: Int32Array;
  /** The joint whose frame positions are measured in (-1: the character root). */
  readonly reference: number;
  /** Frames between the two samples of a feature. */
  readonly lookahead: number;
}

const cache = new WeakMap<Database, Map<string, OverlayIndex>>();

/** The search index of `tag`'s frames for `mask` (built on first use, then cached per database). */
export function overlayIndex(db: Database, tag: string, mask: BoneMask, entryWindow = 1): OverlayIndex {
  const key = `${tag}\u0000${entryWindow}\u0000${Array.from(mask.weights).join(',')}`;
  let byKey = cache.get(db);
  if (!byKey) { byKey = new Map(); cache.set(db, byKey); }
  let index = byKey.get(key);
  if (!index) { index = buildOverlayIndex(db, tag, mask, entryWindow); byKey.set(key, index); }
  return index;
}

function buildOverlayIndex(db: Database, tag: string, mask: BoneMask, entryWindow: number): OverlayIndex {
  if (!(Number.isFinite(entryWindow) && entryWindow > 0)) throw new RangeError(`overlay: entryWindow must be a positive number of seconds, got ${entryWindow}`);
  const bit = db.tagNames.indexOf(tag);
  if (bit < 0) {
    // (the tag as typed, cut to a line: a 10,000-character --overlay once made a 30 KB message)
    const t = excerpt(tag), example = t === tag && tag.length <= 40 ? `${tag}=*${tag}*` : 'NAME=GLOB';
    throw new RangeError(`overlay: the database has no frames tagged '${t}' (its tags: ${db.tagNames.length ? excerpt(db.tagNames.join(', '), 200) : 'none'}; tag clips at build time, e.g. --tag ${example})`);
  }
  const parents = db.skeleton.parents, J = parents.length, hips = db.roles.hips;
  const featureJoints = mask.joints;
  if (featureJoints.length === 0) throw new RangeError('overlay: the bone mask has no joint with a weight above zero');
  // Measured from the hips unless the mask reaches them (or above): then from the character root.
  let reference = hips;
  for (let j = hips; j >= 0; j = parents[j]) if (mask.weights[j] > 0) reference = -1;
  const inChain = new Uint8Array(J);
  for (const f of featureJoints) for (let j = f; j >= 0 && j !== reference; j = parents[j]) inChain[j] = 1;
  const chain: number[] = [];
  for (let j = 0; j < J; j++) if (inChain[j]) chain.push(j);
  const rt = databaseRuntime(db);
  const candidates: number[] = [];
  const window = Math.max(1, Math.round(entryWindow * db.fps)), minLeft = Math.round(MIN_REMAINING * db.fps);
  for (const c of db.clips) {
    for (let k = 0; k < c.count && k < window; k++) {
      const f = c.start + k;
      if ((db.tagBits[f] >>> bit) & 1 && c.count - 1 - k >= minLeft) candidates.push(f);
    }
  }
  if (candidates.length === 0) throw new RangeError(`overlay: no clip tagged '${tag}' is long enough to enter (at least ${MIN_REMAINING} s)`);
  const index: OverlayIndex = {
    db, tag, candidates: Int32Array.from(candidates), features: new Float32Array(0), dims: 6 * featureJoints.length,
    featureJoints, featureWeights: Float64Array.from(featureJoints, (j) => mask.weights[j]),
    chain: Int32Array.from(chain), reference, lookahead: Math.max(1, Math.round(LOOKAHEAD_SECONDS * db.fps)),
  };
  const features = new Float32Array(candidates.length * index.dims);
  const out = new Float64Array(index.dims);
  candidates.forEach((f, i) => { overlayFeaturesAt(rt, index, f, out); features.set(out, i * index.dims); });
  return { ...index, features };
}

// Forward kinematics scratch (temporaries of one call), grown to the largest skeleton seen.
let FK_POS = new Float64Array(0);
let FK_ROT = new Float64Array(0);
const IDENTITY = new Float64Array([0, 0, 0, 1]);
const ORIGIN = new Float64Array(3);

/** The features of database frame `f` (and of the frame `lookahead` later in its clip) into `out` (dims values). */
export function overlayFeaturesAt(rt: DatabaseRuntime, index: OverlayIndex, f: number, out: Float64Array): void {
  const clip = rt.db.clips[rt.clipOf[f]];
  const g = Math.min(f + index.lookahead, clip.start + clip.count - 1);
  const M = index.featureJoints.length;
  featurePositions(rt, index, f, out, 0);
  featurePositions(rt, index, g, out, 3 * M);
}

/** Positions of the feature joints at frame f relative to the reference joint, weighted, into out[at..]. */
function featurePositions(rt: DatabaseRuntime, index: OverlayIndex, f: number, out: Float64Array, at: number): void {
  const J = rt.joints, parents = rt.db.skeleton.parents, chain = index.chain, ref = index.reference;
  if (FK_POS.length < 3 * J) { FK_POS = new Float64Array(3 * J); FK_ROT = new Float64Array(4 * J); }
  const wp = FK_POS, wr = FK_ROT;
  for (let i = 0; i < chain.length; i++) {
    const j = chain[i], p = parents[j];
    // composeJoint reads float64 locals: copy this joint's (float32) local transform first.
    jointLocalAt(rt, f, j, LOCAL_T, LOCAL_R);
    if (p < 0 || p === ref) composeJoint(wp, wr, j, ORIGIN, 0, IDENTITY, 0, LOCAL_T, 0, LOCAL_R, 0);
    else composeJoint(wp, wr, j, wp, 3 * p, wr, 4 * p, LOCAL_T, 0, LOCAL_R, 0);
  }
  const fj = index.featureJoints, fw = index.featureWeights;
  for (let k = 0; k < fj.length; k++) {
    const j = fj[k], w = fw[k];
    out[at + 3 * k] = w * wp[3 * j]; out[at + 3 * k + 1] = w * wp[3 * j + 1]; out[at + 3 * k + 2] = w * wp[3 * j + 2];
  }
}
const LOCAL_T = new Float64Array(3);
const LOCAL_R = new Float64Array(4);

/**
 * The candidate frame nearest to `query` (dims values), skipping candidates of clip `skipClip`
 * (-1: none) unless no other clip has any; ties go to the lowest frame.
 */
export function searchOverlayIndex(index: OverlayIndex, query: Float64Array, skipClip: number): number {
  const rt = databaseRuntime(index.db), D = index.dims, F = index.features, C = index.candidates;
  let best = -1, bestCost = Infinity, fallback = -1, fallbackCost = Infinity;
  for (let i = 0; i < C.length; i++) {
    let cost = 0;
    for (let d = 0, o = i * D; d < D; d++) { const e = F[o + d] - query[d]; cost += e * e; }
    if (rt.clipOf[C[i]] === skipClip) {
      if (cost < fallbackCost) { fallbackCost = cost; fallback = C[i]; }
    } else if (cost < bestCost) { bestCost = cost; best = C[i]; }
  }
  return best >= 0 ? best : fallback;
}
