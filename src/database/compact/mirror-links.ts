/**
 * Which clips of a database are the mirrored copies of which: those are rebuilt on load by
 * mirroring the decoded original (features/mirror.ts), not stored. A pair is linked only when
 * mirroring the stored original reproduces the copy's poses (to float32 rounding), so a database
 * whose copies came about otherwise still round-trips: such a copy is stored like any clip.
 */
import type { Clip } from '../../anim/clip.js';
import type { Skeleton } from '../../anim/skeleton.js';
import type { ClipRange, Database } from '../database.js';
import { GENERAL_REFLECTION, axisFrame, mirrorClip, mirrorSetup, type MirrorSetup } from '../../features/mirror.js';
import { CompactFormatError } from './clip-layout.js';

/** Mirrored poses further than this from the mirror of their original are stored, not linked. */
export const MIRROR_MATCH_TOLERANCE = 1e-5;

/** A database clip's poses as a Clip (float64 copies, which mirrorClip and the rebuild read). */
export function clipOfRange(db: Pick<Database, 'skeleton' | 'fps' | 'rotations' | 'translations'>, c: ClipRange): Clip {
  const J = db.skeleton.names.length;
  return {
    name: c.name, source: c.source, fps: db.fps, frameCount: c.count, loop: c.loop, tags: c.tags,
    rotations: new Float64Array(db.rotations.subarray(c.start * J * 4, (c.start + c.count) * J * 4)),
    translations: new Float64Array(db.translations.subarray(c.start * J * 3, (c.start + c.count) * J * 3)),
  };
}

function near(a: ArrayLike<number>, b: ArrayLike<number>, bStart: number): boolean {
  for (let i = 0; i < a.length; i++) if (!(Math.abs(a[i] - b[bStart + i]) <= MIRROR_MATCH_TOLERANCE)) return false;
  return true;
}

export interface MirrorLinks {
  /** Per clip: the index of the clip it is the mirror of, or -1 when it is stored. */
  mirrorOf: Int32Array;
  setup: MirrorSetup;
}

/** Links every mirrored clip to its original where mirroring the original reproduces it. */
export function findMirrorLinks(db: Database): MirrorLinks {
  const J = db.skeleton.names.length;
  const originals = db.clips.filter((c) => !c.mirrored);
  const setup = mirrorSetup(db.skeleton, originals.map((c) => clipOfRange(db, c)));
  const mirrorOf = new Int32Array(db.clips.length).fill(-1);
  const byName = new Map(db.clips.map((c, i) => [c.name, i] as const));
  db.clips.forEach((c, i) => {
    if (!c.mirrored || !c.name.endsWith('_mirror')) return;
    const o = byName.get(c.name.slice(0, -'_mirror'.length));
    const orig = o === undefined ? undefined : db.clips[o];
    // The compact clip table rebuilds a linked copy's name, source, length and loop flag from its original.
    if (o === undefined || !orig || orig.mirrored || orig.count !== c.count || orig.loop !== c.loop || orig.source !== c.source || o > i) return;
    const m = mirrorClip(db.skeleton, clipOfRange(db, db.clips[o]), setup);
    if (near(m.rotations, db.rotations, c.start * J * 4) && near(m.translations, db.translations, c.start * J * 3)) mirrorOf[i] = o;
  });
  return { mirrorOf, setup };
}

/** Checks links read from a file: each points at a stored clip of the same length; partner and axes are sane. */
export function checkMirrorLinks(links: MirrorLinks, clips: readonly ClipRange[], skeleton: Skeleton): void {
  const J = skeleton.names.length;
  links.mirrorOf.forEach((o, i) => {
    if (o === -1) return;
    if (!(o >= 0 && o < clips.length) || links.mirrorOf[o] !== -1) throw new CompactFormatError(`clip ${i} is declared the mirror of clip ${o}, which is not a stored clip`);
    if (clips[o].count !== clips[i].count) throw new CompactFormatError(`clip ${i} has ${clips[i].count} frames but its original, clip ${o}, has ${clips[o].count}`);
    if (!clips[i].mirrored) throw new CompactFormatError(`clip ${i} is rebuilt by mirroring but is not marked mirrored`);
  });
  const { partner, axes, frames } = links.setup;
  const expected = new Float64Array(4);
  for (let j = 0; j < J; j++) {
    if (!(partner[j] >= 0 && partner[j] < J) || partner[partner[j]] !== j) throw new CompactFormatError(`joint ${j}'s mirror partner ${partner[j]} is not a joint whose partner is ${j}`);
    if (!(axes[j] >= 0 && axes[j] <= GENERAL_REFLECTION)) throw new CompactFormatError(`joint ${j}'s mirror axis is ${axes[j]}, expected 0, 1, 2 or ${GENERAL_REFLECTION} (general)`);
    const [x, y, z, w] = frames.subarray(4 * j, 4 * j + 4);
    if (!(Math.abs(Math.hypot(x, y, z, w) - 1) <= 1e-9)) throw new CompactFormatError(`joint ${j}'s mirror frame (${x}, ${y}, ${z}, ${w}) is not a unit quaternion`);
    if (axes[j] !== GENERAL_REFLECTION) {
      axisFrame(expected, 0, axes[j]);
      if (expected.some((v, k) => v !== frames[4 * j + k])) throw new CompactFormatError(`joint ${j}'s mirror frame (${x}, ${y}, ${z}, ${w}) is not the half turn of its axis ${axes[j]}`);
    }
  }
}
