/**
 * A whole database's poses in compact form: every stored clip compressed on its own (encode-clip.ts),
 * mirrored copies left out (mirror-links.ts); and back: the stored clips decoded into one pair of
 * float32 arrays, then the copies mirrored from them.
 */
import type { Skeleton } from '../../anim/skeleton.js';
import type { ClipRange, Database } from '../database.js';
import { mirrorFramesInto } from '../../features/mirror.js';
import { encodeClip } from './encode-clip.js';
import { decodeClip } from './decode-clip.js';
import type { MirrorLinks } from './mirror-links.js';
import { CompactFormatError } from './clip-layout.js';
import { ERROR_THRESHOLD } from './error-metric.js';

/** The stored clips' blobs, concatenated, with offsets[i]..offsets[i+1] the i-th stored clip's bytes. */
export interface PoseBlobs {
  offsets: Uint32Array;
  data: Uint8Array;
}

/**
 * The share of the error bound each clip is encoded to: a mirrored copy's own poses (rounded to
 * float32 after mirroring in float64) and the mirror of its decoded original differ by float32
 * rounding, ~1e-7 m at the extremities; the 1% margin keeps the copies within the bound as well.
 */
export const ENCODER_MARGIN = 0.99;

/**
 * Compresses every clip not rebuilt by mirroring, in clip order, to `threshold` * ENCODER_MARGIN,
 * times `tighter[i]` for database clip i where given.
 */
export function encodeDatabasePoses(db: Database, links: MirrorLinks, threshold: number = ERROR_THRESHOLD, onClip?: (done: number, total: number, name: string) => void, tighter?: Float64Array): PoseBlobs {
  const J = db.skeleton.names.length;
  const storedIndex = db.clips.map((_, i) => i).filter((i) => links.mirrorOf[i] === -1);
  const stored = storedIndex.map((i) => db.clips[i]);
  const blobs = stored.map((c, i) => {
    const blob = encodeClip({
      parents: db.skeleton.parents, restOffsets: db.skeleton.offsets, frames: c.count,
      rotations: db.rotations.subarray(c.start * J * 4, (c.start + c.count) * J * 4),
      translations: db.translations.subarray(c.start * J * 3, (c.start + c.count) * J * 3),
    }, threshold * ENCODER_MARGIN * (tighter ? tighter[storedIndex[i]] : 1));
    onClip?.(i + 1, stored.length, c.name);
    return blob;
  });
  const offsets = new Uint32Array(blobs.length + 1);
  blobs.forEach((b, i) => { offsets[i + 1] = offsets[i] + b.length; });
  const data = new Uint8Array(offsets[blobs.length]);
  blobs.forEach((b, i) => data.set(b, offsets[i]));
  return { offsets, data };
}

/** A decoded clip: its range's metadata and float32 views of its poses in the database arrays. */
export interface DecodedClip {
  name: string;
  source: string;
  fps: number;
  frameCount: number;
  loop: boolean;
  tags: string[];
  rotations: Float32Array;
  translations: Float32Array;
}

/**
 * Decodes the poses of all `clips` (frames 0..frames-1): stored clips from `blobs`, mirrored ones by
 * mirroring their decoded originals. Returns the float32 arrays and every clip's poses as views into
 * them (forward kinematics and the rebuild read those; float32 values read the same as the float64
 * copies a Clip would hold). Throws CompactFormatError for blobs that do not fit the table.
 */
export function decodeDatabasePoses(
  blobs: PoseBlobs, clips: readonly ClipRange[], frames: number, fps: number, skeleton: Skeleton, links: MirrorLinks,
  onClip?: (done: number, total: number) => void,
): { rotations: Float32Array; translations: Float32Array; clips: DecodedClip[] } {
  const J = skeleton.names.length;
  const rotations = new Float32Array(frames * J * 4), translations = new Float32Array(frames * J * 3);
  const storedCount = links.mirrorOf.reduce((n, o) => n + (o === -1 ? 1 : 0), 0);
  if (blobs.offsets.length !== storedCount + 1) throw new CompactFormatError(`${blobs.offsets.length - 1} compressed clips, but the clip table stores ${storedCount}`);
  const view = (c: ClipRange): DecodedClip => ({
    name: c.name, source: c.source, fps, frameCount: c.count, loop: c.loop, tags: c.tags,
    rotations: rotations.subarray(c.start * J * 4, (c.start + c.count) * J * 4),
    translations: translations.subarray(c.start * J * 3, (c.start + c.count) * J * 3),
  });
  const decoded: DecodedClip[] = new Array(clips.length);
  let k = 0, done = 0;
  clips.forEach((c, i) => {
    if (links.mirrorOf[i] !== -1) return;
    const a = blobs.offsets[k], b = blobs.offsets[k + 1];
    if (!(a <= b && b <= blobs.data.length)) throw new CompactFormatError(`compressed clip ${k + 1} lies outside the pose data (bytes ${a}..${b} of ${blobs.data.length})`);
    try {
      decodeClip(blobs.data.subarray(a, b), J, skeleton.offsets, c.count, rotations, translations, c.start);
    } catch (e) {
      if (e instanceof CompactFormatError) throw new CompactFormatError(`clip ${i} ('${c.name.slice(0, 60)}'): ${e.message}`);
      throw e;
    }
    decoded[i] = view(c);
    k++;
    onClip?.(++done, clips.length);
  });
  if (blobs.offsets[k] !== blobs.data.length) throw new CompactFormatError(`${blobs.data.length - blobs.offsets[k]} bytes of pose data belong to no clip`);
  clips.forEach((c, i) => {
    const o = links.mirrorOf[i];
    if (o === -1) return;
    // One-axis reflections only negate and swap values: float32 in, the same float32 values out.
    mirrorFramesInto(skeleton, links.setup, rotations, translations, clips[o].start, c.start, c.count);
    decoded[i] = view(c);
    onClip?.(++done, clips.length);
  });
  return { rotations, translations, clips: decoded };
}
