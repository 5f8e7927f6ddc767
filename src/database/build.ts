import type { Skeleton } from '../anim/skeleton.js';
import type { Clip } from '../anim/clip.js';
import { sampleClipPose, worldTransformsOfFrames, finiteDifferenceVelocities } from '../anim/pose.js';
import { DEFAULT_SCHEMA, type BoneRole, type FeatureSchema, paddedStride, schemaDims } from '../features/schema.js';
import { findBoneRoles, type BoneRoles } from '../features/roles.js';
import { estimateHipsForwardAxis, computeRootTrack, legRootJoint } from '../features/root.js';
import { extractClipFeatures, computeNormalization, normalizeRows } from '../features/extract.js';
import { schemaGroupBones } from '../features/schema.js';
import { footContacts, DEFAULT_CONTACT_OPTIONS, type ContactOptions } from '../features/contacts.js';
import { mirrorClip, mirrorSetup } from '../features/mirror.js';
import { symmetrizeJointFrames } from '../features/symmetric-frames.js';
import { validateSchema } from '../features/schema-validate.js';
import type { ClipRange, Database } from './database.js';
import { isSupportedFrameRate, MAX_FPS, MIN_FPS } from '../anim/frame-rate.js';

export interface SourceMotion {
  skeleton: Skeleton;
  clip: Clip;
}

/**
 * Adds `tag` to every clip whose name matches the glob `pattern` (* and ?), or, with `from`/`to`
 * (seconds from the clip's start), to that range of its frames only.
 */
export interface TagRule {
  tag: string;
  pattern: string;
  from?: number;
  to?: number;
}

export interface BuildOptions {
  schema?: FeatureSchema;
  mirror?: boolean;
  bones?: Partial<Record<BoneRole, string>>;
  /** Output rate; default: the sources' common rate, else the highest. */
  fps?: number;
  contacts?: ContactOptions;
  tagRules?: TagRule[];
  /** Called as work proceeds (done of total steps), e.g. for a progress bar. */
  onProgress?: (done: number, total: number, label: string) => void;
}

export class DatabaseBuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseBuildError';
  }
}

/** Throws unless every source uses the first source's joint names and hierarchy. */
export function checkSameSkeleton(sources: readonly SourceMotion[]): void {
  const ref = sources[0].skeleton;
  for (const s of sources) {
    const sk = s.skeleton;
    const same = sk.names.length === ref.names.length && sk.names.every((n, i) => n === ref.names[i] && sk.parents[i] === ref.parents[i]);
    if (!same) {
      throw new DatabaseBuildError(
        `${s.clip.source}: its skeleton (${sk.names.length} joints: ${sk.names.slice(0, 6).join(', ')}...) differs from ${sources[0].clip.source} ` +
        `(${ref.names.length} joints: ${ref.names.slice(0, 6).join(', ')}...): a database holds one skeleton; build separate databases or retarget first`,
      );
    }
  }
}

/** The rate every clip shares, else the highest (clips are resampled to it). */
export function chooseDatabaseFps(clips: readonly Clip[]): number {
  const rates = clips.map((c) => c.fps);
  const first = rates[0];
  if (rates.every((r) => Math.abs(r - first) < 1e-9 * first)) return first;
  return Math.max(...rates);
}

/** Resamples a clip to `fps` by pose sampling (slerp/lerp); returns the clip itself when already there. */
export function resampleClip(clip: Clip, fps: number, joints: number): Clip {
  if (Math.abs(clip.fps - fps) < 1e-9 * fps) return clip;
  const duration = (clip.frameCount - 1) / clip.fps;
  const frames = Math.max(1, Math.floor(duration * fps + 1e-9) + 1);
  const rot = new Float64Array(frames * joints * 4), pos = new Float64Array(frames * joints * 3);
  const r = new Float64Array(joints * 4), p = new Float64Array(joints * 3);
  for (let f = 0; f < frames; f++) {
    sampleClipPose(clip, f / fps, 'clamp', r, p);
    rot.set(r, f * joints * 4); pos.set(p, f * joints * 3);
  }
  return { ...clip, fps, frameCount: frames, rotations: rot, translations: pos };
}

function globToRegExp(glob: string): RegExp {
  const esc = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${esc}$`, 'i');
}

interface WorkClip {
  clip: Clip;
  mirrored: boolean;
  worldRot: Float64Array;
  worldPos: Float64Array;
}

/**
 * Builds a motion matching database from clips that share one skeleton: forward kinematics,
 * root track, features, contacts, candidate flags, tags, normalisation.
 */
export function buildDatabase(sources: readonly SourceMotion[], options: BuildOptions = {}): Database {
  if (sources.length === 0) throw new DatabaseBuildError('no clips to build from');
  checkSameSkeleton(sources);
  const schema = options.schema ?? DEFAULT_SCHEMA;
  validateSchema(schema);
  const J = sources[0].skeleton.names.length;
  for (const s of sources) {
    if (!isSupportedFrameRate(s.clip.fps)) throw new DatabaseBuildError(`${s.clip.source}: clip '${s.clip.name}' runs at ${s.clip.fps} fps; supported rates are ${MIN_FPS} to ${MAX_FPS} fps`);
  }
  const fps = options.fps ?? chooseDatabaseFps(sources.map((s) => s.clip));
  if (!isSupportedFrameRate(fps)) throw new DatabaseBuildError(`invalid database rate ${fps} fps: supported rates are ${MIN_FPS} to ${MAX_FPS} fps`);
  const contactOpts = options.contacts ?? DEFAULT_CONTACT_OPTIONS;
  const progress = options.onProgress ?? (() => {});

  const resampled = sources.map((s) => resampleClip(s.clip, fps, J));
  // Mirrored copies are only blendable with the originals when left and right joint frames mirror
  // each other; re-express the right side first where the rig does not (world poses unchanged).
  const sym = options.mirror ? symmetrizeJointFrames(sources[0].skeleton, resampled) : null;
  const skeleton = sym ? sym.skeleton : sources[0].skeleton;
  const base = sym ? sym.clips : resampled;
  const roles: BoneRoles = findBoneRoles(skeleton, options.bones, sources[0].clip.source);
  const groupBones = schemaGroupBones(schema, skeleton, roles);
  const setup = options.mirror ? mirrorSetup(skeleton, base) : null;
  const all: Array<{ clip: Clip; mirrored: boolean }> = base.map((clip) => ({ clip, mirrored: false }));
  if (setup) for (const clip of base) all.push({ clip: mirrorClip(skeleton, clip, setup), mirrored: true });
  const total = 2 * all.length;
  let done = 0;

  // Pass 1: forward kinematics of every clip.
  const work: WorkClip[] = all.map(({ clip, mirrored }) => {
    const worldRot = new Float64Array(clip.frameCount * J * 4);
    const worldPos = new Float64Array(clip.frameCount * J * 3);
    worldTransformsOfFrames(skeleton.parents, clip.rotations, clip.translations, clip.frameCount, worldRot, worldPos);
    progress(++done, total, clip.name);
    return { clip, mirrored, worldRot, worldPos };
  });

  // The hips' forward axis, estimated once per handedness over all frames so that every clip's
  // facing is measured the same way (mirrored clips have their own estimate).
  const hips = roles.hips;
  const leftLeg = legRootJoint(skeleton, hips, roles.leftFoot);
  const rightLeg = legRootJoint(skeleton, hips, roles.rightFoot);
  const forwardAxis = (mirrored: boolean): Float64Array => {
    const acc = [0, 0, 0];
    for (const w of work) {
      if (w.mirrored !== mirrored) continue;
      const a = leftLeg >= 0 && rightLeg >= 0
        ? estimateHipsForwardAxis(w.worldRot, w.worldPos, J, w.clip.frameCount, hips, leftLeg, rightLeg)
        : [0, 0, 1];
      for (let k = 0; k < 3; k++) acc[k] += a[k] * w.clip.frameCount;
    }
    const n = Math.hypot(acc[0], acc[1], acc[2]) || 1;
    return new Float64Array([acc[0] / n, acc[1] / n, acc[2] / n]);
  };
  const axes = { false: forwardAxis(false), true: setup ? forwardAxis(true) : new Float64Array([0, 0, 1]) };

  const N = work.reduce((n, w) => n + w.clip.frameCount, 0);
  const dims = schemaDims(schema);
  const stride = paddedStride(dims);
  const db: Database = {
    skeleton, roles, fps, frameCount: N, clips: [],
    rotations: new Float32Array(N * J * 4), translations: new Float32Array(N * J * 3),
    rootPositions: new Float32Array(N * 3), rootRotations: new Float32Array(N * 4),
    contacts: new Uint8Array(N), candidates: new Uint8Array(N),
    tagNames: [], tagBits: new Uint32Array(N),
    schema, dims, stride,
    rawFeatures: new Float32Array(N * stride), features: new Float32Array(N * stride),
    mean: new Float32Array(stride), scale: new Float32Array(stride),
  };
  const smoothFrames = Math.round(schema.facingSmoothingSeconds * fps);
  const margin = Math.round(schema.endMarginSeconds * fps);
  const leftContactJoint = roles.leftToe >= 0 ? roles.leftToe : roles.leftFoot;
  const rightContactJoint = roles.rightToe >= 0 ? roles.rightToe : roles.rightFoot;
  const rules = (options.tagRules ?? []).map((r) => ({ ...r, re: globToRegExp(r.pattern), ranged: r.from !== undefined || r.to !== undefined }));
  for (const r of rules) {
    if (!/^[A-Za-z0-9_.-]+$/.test(r.tag)) throw new DatabaseBuildError(`tag "${r.tag}": use letters, digits, '_', '-' and '.'`);
    if (r.ranged && !((r.from ?? 0) >= 0 && (r.to ?? Infinity) > (r.from ?? 0))) throw new DatabaseBuildError(`tag "${r.tag}": the range must satisfy 0 <= from < to (seconds)`);
  }
  const rangeTags: Array<{ tag: string; start: number; end: number }> = [];

  // Pass 2: root track, features, contacts, per clip.
  let start = 0;
  for (const w of work) {
    const F = w.clip.frameCount;
    const worldVel = new Float64Array(F * J * 3);
    finiteDifferenceVelocities(w.worldPos, J * 3, F, fps, worldVel);
    const rootPos = new Float64Array(F * 3), rootRot = new Float64Array(F * 4);
    computeRootTrack(w.worldRot, w.worldPos, J, F, hips, axes[`${w.mirrored}`], smoothFrames, rootPos, rootRot);
    extractClipFeatures({ frames: F, fps, joints: J, worldPos: w.worldPos, worldVel, rootPos, rootRot, loop: w.clip.loop }, schema, groupBones, stride, db.rawFeatures, start);
    footContacts(worldVel, J, F, leftContactJoint, rightContactJoint, contactOpts, db.contacts, start);
    db.rotations.set(w.clip.rotations, start * J * 4);
    db.translations.set(w.clip.translations, start * J * 3);
    db.rootPositions.set(rootPos, start * 3);
    db.rootRotations.set(rootRot, start * 4);
    for (let f = 0; f < F; f++) db.candidates[start + f] = f < F - margin ? 1 : 0;
    const matching = rules.filter((r) => r.re.test(w.clip.name));
    const tags = [...new Set([...w.clip.tags, ...matching.filter((r) => !r.ranged).map((r) => r.tag)])];
    for (const r of matching.filter((m) => m.ranged)) {
      const a = Math.max(0, Math.round((r.from ?? 0) * fps)), b = Math.min(F, Math.round((r.to ?? Infinity) * fps));
      if (b > a) rangeTags.push({ tag: r.tag, start: start + a, end: start + b });
    }
    const range: ClipRange = { name: w.clip.name, source: w.clip.source, start, count: F, loop: w.clip.loop, mirrored: w.mirrored, tags };
    db.clips.push(range);
    start += F;
    progress(++done, total, w.clip.name);
  }

  db.tagNames = [...new Set([...db.clips.flatMap((c) => c.tags), ...rangeTags.map((r) => r.tag)])].sort();
  if (db.tagNames.length > 32) throw new DatabaseBuildError(`at most 32 distinct tags are supported, got ${db.tagNames.length}`);
  for (const c of db.clips) {
    let bits = 0;
    for (const t of c.tags) bits |= 1 << db.tagNames.indexOf(t);
    db.tagBits.fill(bits >>> 0, c.start, c.start + c.count);
  }
  for (const r of rangeTags) {
    const bit = 1 << db.tagNames.indexOf(r.tag);
    for (let f = r.start; f < r.end; f++) db.tagBits[f] = (db.tagBits[f] | bit) >>> 0;
  }
  computeNormalization(db.rawFeatures, N, stride, schema, db.mean, db.scale);
  normalizeRows(db.rawFeatures, N, stride, dims, db.mean, db.scale, db.features);
  return db;
}
