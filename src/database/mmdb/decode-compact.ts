/**
 * Reading a compact `.mmdb` file (version 2, docs/compact.md) into a Database: the poses are
 * decoded (compact/), the mirrored copies mirrored from their originals, and everything derived
 * from poses (root track, features, contacts, candidates, normalisation) rebuilt by the build's own
 * deriveDatabase, so the result is what a float32 database of the decoded poses holds. Every
 * problem is a DatabaseFormatError naming the source and the section. Pure and browser-safe.
 */
import type { Database } from '../database.js';
import { composeJoint } from '../../anim/forward-kinematics.js';
import { deriveDatabase, type WorkClip } from '../build.js';
import { checkSearchableDatabase, checkStoredPoseSections } from '../database-check.js';
import type { ContactOptions } from '../../features/contacts.js';
import { CompactFormatError } from '../compact/clip-layout.js';
import { checkMirrorLinks, type MirrorLinks } from '../compact/mirror-links.js';
import { GENERAL_REFLECTION, framesOfAxes } from '../../features/mirror.js';
import { decodeDatabasePoses } from '../compact/database-poses.js';
import { bitsFromTagRuns } from '../compact/tag-runs.js';
import { FieldReader, type Container } from './container.js';
import { readCompactClipTable } from './compact-clip-table.js';
import { readSchema, readSkeleton, readSourceRates, type Meta } from './decode.js';
import { DatabaseFormatError, describeValue, fmt, type SectionTag } from './format.js';

/**
 * A compact file may decode to at most this many times its own size (poses alone), or
 * MIN_DECODED_CAP bytes, whichever is larger: a clip of constant tracks costs no bytes per frame,
 * so without a cap a few hostile bytes could ask for gigabytes. Real captures decode to ~20x.
 */
export const MAX_DECODED_RATIO = 1024;
export const MIN_DECODED_CAP = 64 * 1024 * 1024;

function readContacts(r: FieldReader): ContactOptions {
  const o = r.object(r.json('contactOptions'), 'contact options', ['filterSeconds', 'speedThreshold']);
  r.done();
  const speed = o.speedThreshold, filter = o.filterSeconds;
  if (typeof speed !== 'number' || !(speed > 0 && speed <= 100)) r.fail('inconsistent', `contact speed threshold is ${describeValue(speed)}, expected a speed in (0, 100] m/s`);
  if (typeof filter !== 'number' || !(filter >= 0 && filter <= 10)) r.fail('inconsistent', `contact filter is ${describeValue(filter)}, expected [0, 10] seconds`);
  return { speedThreshold: speed, filterSeconds: filter };
}

/**
 * worldTransformsOfFrames of float32 poses for the joints `joints` (parents first, each with its
 * parent), written straight into the clip's output: each frame's local poses are widened into a
 * float64 scratch (exactly) and composed by the same composeJoint, in the same order, so each
 * joint's results are those of forwardKinematics on float64 copies of the poses. The skeleton has
 * been checked (parents first).
 */
function worldTransformsOfFloat32Frames(parents: Int32Array, joints: Int32Array, rot: Float32Array, pos: Float32Array, frames: number, outRot: Float64Array, outPos: Float64Array): void {
  const J = parents.length, R = 4 * J, P = 3 * J;
  const lr = new Float64Array(R), lp = new Float64Array(P);
  for (let f = 0; f < frames; f++) {
    const fj = f * J;
    for (let i = 0; i < joints.length; i++) {
      const j = joints[i], p = parents[j], r = 4 * (fj + j), t = 3 * (fj + j);
      lr[4 * j] = rot[r]; lr[4 * j + 1] = rot[r + 1]; lr[4 * j + 2] = rot[r + 2]; lr[4 * j + 3] = rot[r + 3];
      lp[3 * j] = pos[t]; lp[3 * j + 1] = pos[t + 1]; lp[3 * j + 2] = pos[t + 2];
      if (p < 0) {
        outRot[r] = lr[4 * j]; outRot[r + 1] = lr[4 * j + 1]; outRot[r + 2] = lr[4 * j + 2]; outRot[r + 3] = lr[4 * j + 3];
        outPos[t] = lp[3 * j]; outPos[t + 1] = lp[3 * j + 1]; outPos[t + 2] = lp[3 * j + 2];
      } else {
        composeJoint(outPos, outRot, fj + j, outPos, 3 * (fj + p), outRot, 4 * (fj + p), lp, 3 * j, lr, 4 * j);
      }
    }
  }
}

/** Decodes a compact file whose container and META have been read (decodeDatabase's version-2 path). */
export function decodeCompactDatabase(b: Uint8Array, c: Container, meta: Meta, source: string, onProgress?: (done: number, total: number, label: string) => void): Database {
  const N = meta.frames, J = meta.joints;
  const reader = (tag: SectionTag): FieldReader => new FieldReader(b, c.known.get(tag)!, source, tag);
  const { skeleton, roles } = readSkeleton(reader('SKEL'), J, meta.endSites);
  const schema = readSchema(reader('SCHM'));

  let r = reader('CTAG');
  const tagNames = r.stringArray(r.json('names'), 'names', meta.tags);
  const runCount = r.u32('runCount', 1, 'one count')[0];
  const runs = r.u32('runs', 3 * runCount, `3 per run, ${fmt(runCount)} runs`);
  r.done();
  const contacts = readContacts(reader('CCON'));
  r = reader('CMIR');
  const mirrorOf = r.i32('mirrorOf', meta.clips, `one per clip, ${fmt(meta.clips)} clips`);
  const partner = r.i32('partner', J, `one per joint, ${J} joints`);
  const axes = Int8Array.from(r.u8('axes', J, `one per joint, ${J} joints`));
  // General reflections (docs/compact.md) come with every joint's frame; one-axis ones imply theirs.
  const frames = axes.includes(GENERAL_REFLECTION) ? r.f64('frames', 4 * J, `4 per joint, ${J} joints`) : framesOfAxes(axes);
  const links: MirrorLinks = { mirrorOf, setup: { partner, axes, frames } };
  r.done();
  const clips = readCompactClipTable(reader('CLIP'), meta.clips, links.mirrorOf, readSourceRates(b, c, source, meta.clips));
  // The pose data is read while decoding only: views of the file's bytes, not a copy (2.2 MB of
  // fresh memory for the shared real set, which this VM pays about 3 ns a byte for the first time).
  r = new FieldReader(b, c.known.get('CPOS')!, source, 'CPOS', true);
  const [stored, dataBytes] = r.u32('counts', 2, 'stored clips, data bytes');
  const offsets = r.u32('offsets', stored + 1, `one more than the ${fmt(stored)} stored clips`);
  const data = r.u8('data', dataBytes, `${fmt(dataBytes)} bytes`);
  r.done();

  const fail = (section: SectionTag, detail: string): never => {
    throw new DatabaseFormatError('inconsistent', source, detail, section);
  };
  const decodedBytes = N * J * 28;
  const cap = Math.max(MIN_DECODED_CAP, MAX_DECODED_RATIO * b.length);
  if (decodedBytes > cap) fail('META', `${fmt(N)} frames of ${J} joints would decode to ${fmt(decodedBytes)} bytes of poses, more than ${MAX_DECODED_RATIO} times the file's ${fmt(b.length)} bytes`);
  let next = 0;
  clips.forEach((clip, i) => {
    if (clip.start !== next || !Number.isInteger(clip.count) || clip.count < 1 || clip.start + clip.count > N) fail('CLIP', `clip ${i} covers frames ${clip.start}..${clip.start + clip.count - 1}, expected it to start at ${next} within ${fmt(N)} frames`);
    next += clip.count;
  });
  if (next !== N) fail('CLIP', `the clips cover ${fmt(next)} frames but META declares ${fmt(N)}`);
  if (offsets[0] !== 0) fail('CPOS', `the first clip's data starts at byte ${offsets[0]}, expected 0`);

  let poses: ReturnType<typeof decodeDatabasePoses>;
  let tagBits: Uint32Array;
  try {
    checkMirrorLinks(links, clips, skeleton);
    tagBits = bitsFromTagRuns(runs, N);
    poses = decodeDatabasePoses({ offsets, data }, clips, N, meta.fps, skeleton, links, (d, t) => onProgress?.(d, 2 * t, 'decode'));
  } catch (e) {
    if (e instanceof CompactFormatError) throw new DatabaseFormatError('bad-section', source, `compact poses: ${e.message}`, 'compactPoses');
    throw e;
  }

  // Everything derive reads (skeleton, roles, clips, tags, poses, schema) is checked before it runs.
  checkStoredPoseSections({
    skeleton, roles, fps: meta.fps, frameCount: N, clips, rotations: poses.rotations, translations: poses.translations,
    tagNames, tagBits, schema, dims: meta.dims, stride: meta.stride,
  }, source);

  let done = clips.length;
  // Each clip's world transforms are computed when derive reads it (DeriveInput.worldTransforms).
  const work: WorkClip[] = clips.map((range, i) => ({ clip: poses.clips[i], mirrored: range.mirrored, sourceFps: range.sourceFps, worldRot: null, worldPos: null }));
  const worldTransforms = (i: number, joints: Int32Array, outRot: Float64Array, outPos: Float64Array): void => {
    const clip = poses.clips[i];
    worldTransformsOfFloat32Frames(skeleton.parents, joints, clip.rotations, clip.translations, clip.frameCount, outRot, outPos);
  };
  const db = deriveDatabase({ skeleton, roles, fps: meta.fps, schema, contacts, work, worldTransforms, poses, onClip: (name) => onProgress?.(++done, 2 * clips.length, name) });
  db.clips = clips;
  db.tagNames = tagNames;
  db.tagBits = tagBits;
  checkSearchableDatabase(db, source);
  return db;
}
