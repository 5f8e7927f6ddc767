import type { Skeleton } from '../anim/skeleton.js';
import { refuseUnknownOptions, type OptionKeys } from '../util/option-keys.js';
import { describeArgument, requireOptionsObject } from '../util/arguments.js';
import type { Clip } from '../anim/clip.js';
import { worldTransformsOfFrames, finiteDifferenceVelocities } from '../anim/pose.js';
import { DEFAULT_SCHEMA, type BoneRole, type FeatureSchema, endMarginFrames, paddedStride, schemaDims } from '../features/schema.js';
import { findBoneRoles, type BoneRoles } from '../features/roles.js';
import { estimateHipsForwardAxis, computeRootTrack, legRootJoint } from '../features/root.js';
import { extractClipFeatures, computeNormalization, normalizeRows } from '../features/extract.js';
import { schemaGroupBones } from '../features/schema.js';
import { footContacts, contactJoints, DEFAULT_CONTACT_OPTIONS, type ContactOptions } from '../features/contacts.js';
import { mirrorClip, mirrorSetup } from '../features/mirror.js';
import { symmetrizeJointFrames } from '../features/symmetric-frames.js';
import { validateSchema, checkSchemaSize } from '../features/schema-validate.js';
import { globMatcher, type GlobMatcher } from '../util/glob.js';
import type { ClipRange, Database } from './database.js';
import { isSupportedFrameRate, MAX_FPS, MIN_FPS } from '../anim/frame-rate.js';
import { DatabaseBuildError } from './build-error.js';
import { alignToFirstSkeleton } from './skeleton-match.js';
import { chooseDatabaseFps, resampleClip, sameRate } from './resample.js';
import { openLoop } from './loops.js';
import { clipFloor, clipFloorShifts, floorHeight, floorShift } from './floor.js';
import { UP_AXES, detectUpAxis, turnUpright, type UpAxis, type UpAxisFinding } from './up-axis.js';
import { trimCalibrationFrames, type CalibrationTrim } from './calibration-frames.js';
import { splitAtPlaceJumps } from './place-jumps.js';
import { repairGlitches, type GlitchRepair } from './glitch-frames.js';

export { DatabaseBuildError } from './build-error.js';
export { chooseDatabaseFps, resampleClip } from './resample.js';

export interface SourceMotion {
  skeleton: Skeleton;
  clip: Clip;
  /** Marks the clip as looping (true) or not (false), overriding clip.loop and BuildOptions.loops. */
  loop?: boolean;
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
  /**
   * Globs (* and ?, case-insensitive) over clip names: matching clips loop. A looping clip's last
   * frame flows into its first: its frames stay search candidates to the end, and features that
   * look ahead continue into the next cycle. A loop that repeats its first pose as its last frame
   * loses that frame (see loops.ts). SourceMotion.loop overrides.
   */
  loops?: string[];
  /** Called as work proceeds (done of total steps), e.g. for a progress bar. */
  onProgress?: (done: number, total: number, label: string) => void;
  /**
   * The axis the captures stand along (up-axis.ts): 'auto' (default) finds it from the rest pose
   * and the motion; a set standing along another axis than +y is turned upright before anything
   * is measured.
   */
  up?: UpAxis | 'auto';
  /** Called once with where the set was found (or said) to stand. */
  onUpAxis?: (finding: UpAxisFinding) => void;
  /**
   * Frames a body cannot make: a calibration pose at a take's ends (a T-pose held before the motion,
   * calibration-frames.ts), a jump of the hips' place within a take (spliced takes), a glitch of a
   * few frames (glitch-frames.ts), a take whose floor is apart from the others' (floor.ts). 'fix'
   * (default) leaves the pose out, cuts the take at the jump, interpolates over the glitch and moves
   * the take onto the others' floor; 'keep' keeps every frame as captured.
   */
  captureFaults?: 'fix' | 'keep';
  /** Called once with the clips whose ends were left out (calibration-frames.ts; empty when none; none with captureFaults 'keep'). */
  onCalibrationTrim?: (trims: CalibrationTrim[]) => void;
  /**
   * Called once with the takes cut where their hips jump further in a frame than they ever move
   * (splitAtPlaceJumps: spliced takes, a reset capture volume; empty when none; none with captureFaults 'keep').
   */
  onPlaceJumps?: (cuts: PlaceJump[]) => void;
  /** Called once with the capture glitches interpolated inside takes (glitch-frames.ts; empty when none; none with captureFaults 'keep'). */
  onGlitches?: (repairs: GlitchRepair[]) => void;
  /** Called once with the takes moved onto the other takes' floor (floor.ts; empty when none; none with captureFaults 'keep'). */
  onFloorMoves?: (moves: FloorMove[]) => void;
}

/** A take moved up (or down, negative) onto the other takes' floor (BuildOptions.onFloorMoves). */
export interface FloorMove {
  clip: string;
  source: string;
  /** m */
  shift: number;
}

/** A take cut in two where its hips jumped (BuildOptions.onPlaceJumps). */
export interface PlaceJump {
  clip: string;
  source: string;
  /** The first frame of the second part (source frames), and how far the hips moved (m). */
  frame: number;
  step: number;
}

/** Every BuildOptions key (the compiler keeps the table complete). */
const BUILD_OPTION_KEYS: OptionKeys<BuildOptions> = { schema: true, mirror: true, bones: true, fps: true, contacts: true, tagRules: true, loops: true, onProgress: true, up: true, onUpAxis: true, captureFaults: true, onCalibrationTrim: true, onPlaceJumps: true, onGlitches: true, onFloorMoves: true };

/**
 * A case-insensitive matcher for a clip-name glob (* any run, ? one character), linear in the
 * worst case (util/glob.ts; a regular expression backtracks exponentially on runs of *).
 */
export function globToRegExp(glob: string): GlobMatcher {
  return globMatcher(glob);
}

/**
 * A clip's poses as deriveDatabase reads them: the build's float64 clips, or float32 views into the
 * database's own pose arrays (the compact loader; the same values, without a float64 copy).
 */
export type WorkClipPoses = Omit<Clip, 'rotations' | 'translations'> & { rotations: Float64Array | Float32Array; translations: Float64Array | Float32Array };

/** A clip on its way into a database, with the world transforms of its frames. */
export interface WorkClip {
  clip: WorkClipPoses;
  mirrored: boolean;
  /** The source's own rate when it was resampled. */
  sourceFps: number | undefined;
  /**
   * The world transforms of its frames (frames*J*4, frames*J*3), or null: deriveDatabase then asks
   * DeriveInput.worldTransforms for them when it reads the clip (the compact loader).
   */
  worldRot: Float64Array | null;
  worldPos: Float64Array | null;
}

/** A work clip with its world transforms (the build's own). */
type PosedWorkClip = WorkClip & { worldRot: Float64Array; worldPos: Float64Array };

/** Hip to knee plus knee to ankle of the leg ending in `foot`, in the rest pose (m; 1 without a leg). */
function legLength(s: Skeleton, foot: number): number {
  const knee = s.parents[foot];
  if (foot < 0 || knee < 0) return 1;
  const o = s.offsets, n = (j: number) => Math.hypot(o[3 * j], o[3 * j + 1], o[3 * j + 2]);
  return n(foot) + n(knee);
}

/** Each source's clip with its loop flag: SourceMotion.loop, else clip.loop or a matching glob. */
function markLoops(sources: readonly SourceMotion[], globs: readonly string[]): Clip[] {
  const res = globs.map(globToRegExp);
  return sources.map((s) => {
    const loop = s.loop ?? (s.clip.loop || res.some((re) => re.test(s.clip.name)));
    return loop === s.clip.loop ? s.clip : { ...s.clip, loop };
  });
}

/**
 * Builds a motion matching database from clips that share one skeleton (files listing the joints
 * in another order are matched by name): loops, one frame rate (resampling the others), forward
 * kinematics, root track, features, contacts, candidate flags, tags, normalisation.
 */
export function buildDatabase(sources: readonly SourceMotion[], options: BuildOptions = {}): Database {
  if (!Array.isArray(sources)) throw new TypeError(`buildDatabase: sources must be an array of { skeleton, clip } (loadBvhSources, builtinSources), got ${describeArgument(sources)}`);
  requireOptionsObject(options, 'buildDatabase', 'options');
  refuseUnknownOptions(options, BUILD_OPTION_KEYS, 'build option ');
  if (sources.length === 0) throw new DatabaseBuildError('no clips to build from');
  for (const s of sources) {
    if (!isSupportedFrameRate(s.clip.fps)) throw new DatabaseBuildError(`${s.clip.source}: clip '${s.clip.name}' runs at ${s.clip.fps} fps; supported rates are ${MIN_FPS} to ${MAX_FPS} fps`);
  }
  const aligned0 = alignToFirstSkeleton(sources);
  const schema = options.schema ?? DEFAULT_SCHEMA;
  checkSchemaSize(schema);
  validateSchema(schema);
  const J = sources[0].skeleton.names.length;
  const roles: BoneRoles = findBoneRoles(sources[0].skeleton, options.bones, sources[0].clip.source);
  // Stand the set along +y (up-axis.ts) before anything is measured from the ground.
  const up = options.up ?? 'auto';
  if (up !== 'auto' && !UP_AXES.includes(up)) throw new DatabaseBuildError(`up axis must be auto or one of ${UP_AXES.join(', ')}, got ${String(up)}`);
  const finding: UpAxisFinding = up === 'auto'
    ? detectUpAxis(sources[0].skeleton, aligned0.map((s) => s.clip), roles.hips, roles.leftFoot, roles.rightFoot)
    : { axis: up, rest: null, motion: null, how: 'given', unconfirmed: null };
  options.onUpAxis?.(finding);
  const upright = turnUpright(sources[0].skeleton, aligned0.map((s) => s.clip), finding.axis);
  const rig = upright.skeleton;
  const faults = options.captureFaults ?? 'fix';
  if (faults !== 'fix' && faults !== 'keep') throw new DatabaseBuildError(`captureFaults must be 'fix' or 'keep', got ${String(faults)}`);
  // Frames a body cannot make, before anything reads the clips: a glitch of a few frames inside a
  // take is interpolated over (glitch-frames.ts), a calibration pose at a take's ends left out
  // (calibration-frames.ts; tag ranges count from the first frame kept), a take cut where the hips'
  // place jumps (place-jumps.ts).
  const trims: CalibrationTrim[] = [], jumps: PlaceJump[] = [], glitches: GlitchRepair[] = [];
  const legLen = legLength(rig, roles.leftFoot);
  const aligned: SourceMotion[] = aligned0.flatMap((s, i) => {
    if (faults === 'keep') return [{ ...s, skeleton: rig, clip: upright.clips[i] }];
    // Glitches first: their way out and back would look like a pose at an end (two large steps).
    const g = repairGlitches(rig, upright.clips[i], roles.hips, legLen);
    if (g.runs.length > 0) glitches.push({ clip: g.clip.name, source: g.clip.source, runs: g.runs });
    const r = trimCalibrationFrames(rig, g.clip, roles.hips, legLen);
    if (r.trim) trims.push(r.trim);
    const parts = splitAtPlaceJumps(rig, r.clip, roles.hips, legLen);
    for (const c of parts.cuts) jumps.push({ clip: r.clip.name, source: r.clip.source, frame: c.frame + (r.trim?.start ?? 0), step: c.step });
    return parts.clips.map((clip) => ({ ...s, skeleton: rig, clip }));
  });
  options.onCalibrationTrim?.(trims);
  options.onPlaceJumps?.(jumps);
  options.onGlitches?.(glitches);
  const clips = markLoops(aligned, options.loops ?? []).map((c) => openLoop(c, rig, roles.hips));
  const fps = options.fps ?? chooseDatabaseFps(clips);
  if (!isSupportedFrameRate(fps)) throw new DatabaseBuildError(`invalid database rate ${fps} fps: supported rates are ${MIN_FPS} to ${MAX_FPS} fps`);
  const contactOpts = options.contacts ?? DEFAULT_CONTACT_OPTIONS;
  const progress = options.onProgress ?? (() => {});
  const rules = (options.tagRules ?? []).map((r) => ({ ...r, re: globToRegExp(r.pattern), ranged: r.from !== undefined || r.to !== undefined }));
  for (const r of rules) {
    if (!/^[A-Za-z0-9_.-]+$/.test(r.tag)) throw new DatabaseBuildError(`tag "${r.tag}": use letters, digits, '_', '-' and '.'`);
    if (r.ranged && !((r.from ?? 0) >= 0 && (r.to ?? Infinity) > (r.from ?? 0))) throw new DatabaseBuildError(`tag "${r.tag}": the range must satisfy 0 <= from < to (seconds)`);
  }

  const resampled = clips.map((c) => resampleClip(c, fps, J));
  const sourceFps = clips.map((c) => (sameRate(c.fps, fps) ? undefined : c.fps));
  // Mirrored copies are only blendable with the originals when left and right joint frames mirror
  // each other; re-express the right side first where the rig does not (world poses unchanged).
  const sym = options.mirror ? symmetrizeJointFrames(rig, resampled) : null;
  const skeleton = sym ? sym.skeleton : rig;
  const base = sym ? sym.clips : resampled;
  const setup = options.mirror ? mirrorSetup(skeleton, base) : null;
  const all: Array<{ clip: Clip; mirrored: boolean; sourceFps: number | undefined }> = base.map((clip, i) => ({ clip, mirrored: false, sourceFps: sourceFps[i] }));
  if (setup) base.forEach((clip, i) => all.push({ clip: mirrorClip(skeleton, clip, setup), mirrored: true, sourceFps: sourceFps[i] }));
  const total = 2 * all.length;
  let done = 0;

  // Pass 1: forward kinematics of every clip.
  const work: PosedWorkClip[] = all.map(({ clip, mirrored, sourceFps }) => {
    const worldRot = new Float64Array(clip.frameCount * J * 4);
    const worldPos = new Float64Array(clip.frameCount * J * 3);
    worldTransformsOfFrames(skeleton.parents, clip.rotations, clip.translations, clip.frameCount, worldRot, worldPos);
    progress(++done, total, clip.name);
    return { clip, mirrored, sourceFps, worldRot, worldPos };
  });
  // Joint 0 carries every frame's world placement, so moving its translation moves the whole figure.
  const raise = (w: PosedWorkClip, dy: number): void => {
    const t = Float64Array.from(w.clip.translations);
    for (let f = 0; f < w.clip.frameCount; f++) {
      t[f * J * 3 + 1] += dy;
      for (let j = 0; j < J; j++) w.worldPos[(f * J + j) * 3 + 1] += dy;
    }
    w.clip = { ...w.clip, translations: t };
  };
  const [leftContact, rightContact] = contactJoints(roles);
  const footJoints = [leftContact, rightContact, roles.leftFoot, roles.rightFoot];
  // The takes agree on their floor first (floor.ts): a take from a session calibrated apart is moved
  // onto the others' (its mirrored copy with it, base.length clips on).
  const moved: FloorMove[] = [];
  if (faults === 'fix') {
    const shifts = clipFloorShifts(base.map((_, i) => clipFloor(work[i].worldPos, footJoints, J)), legLength(skeleton, roles.leftFoot));
    shifts.forEach((dy, i) => {
      if (dy === 0) return;
      raise(work[i], dy);
      if (setup) raise(work[base.length + i], dy);
      moved.push({ clip: base[i].name, source: base[i].source, shift: dy });
    });
  }
  options.onFloorMoves?.(moved);
  // Then stand the captures on y = 0 where their feet are elsewhere (floor.ts).
  const shift = floorShift(floorHeight(work.filter((w) => !w.mirrored).map((w) => w.worldPos), footJoints, J), legLength(skeleton, roles.leftFoot));
  if (shift !== 0) for (const w of work) raise(w, shift);

  const db = deriveDatabase({ skeleton, roles, fps, schema, contacts: contactOpts, work, onClip: (name) => progress(++done, total, name) });

  // Tags: each clip's own, the whole-clip rules matching its name, and ranges of frames.
  const rangeTags: Array<{ tag: string; start: number; end: number }> = [];
  for (const range of db.clips) {
    const F = range.count;
    const matching = rules.filter((r) => r.re.test(range.name));
    range.tags = [...new Set([...range.tags, ...matching.filter((r) => !r.ranged).map((r) => r.tag)])];
    for (const r of matching.filter((m) => m.ranged)) {
      const a = Math.max(0, Math.round((r.from ?? 0) * fps)), b = Math.min(F, Math.round((r.to ?? Infinity) * fps));
      if (b > a) rangeTags.push({ tag: r.tag, start: range.start + a, end: range.start + b });
    }
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
  return db;
}

/** What deriveDatabase needs: the clips' poses (and their world transforms) and how to measure them. */
export interface DeriveInput {
  skeleton: Skeleton;
  roles: Record<BoneRole, number>;
  fps: number;
  schema: FeatureSchema;
  contacts: ContactOptions;
  /** Clips in database order, with their world transforms (forward kinematics of their poses) or without (see worldTransforms). */
  work: WorkClip[];
  /**
   * For work clips without world transforms: forward kinematics of work clip `clip`'s frames for
   * `joints` (parents first, each after its parent) into `outRot` and `outPos` (frames*J*4,
   * frames*J*3; the other joints' entries are left as they are: nothing derived reads them).
   * deriveDatabase computes each such clip when it reads it, into one scratch for all of them: the
   * compact loader held every clip's transforms at once (62 MB for the shared real set; computed
   * clip by clip, its decode is 8% faster, docs/compact.md).
   */
  worldTransforms?: (clip: number, joints: Int32Array, outRot: Float64Array, outPos: Float64Array) => void;
  /**
   * The clips' poses already laid out as the database stores them (float32, clips back to back, the
   * same values as the work clips'): adopted instead of allocated and copied (the compact loader).
   */
  poses?: { rotations: Float32Array; translations: Float32Array };
  /** Called after each clip is measured (progress). */
  onClip?: (name: string) => void;
}

/**
 * Everything a database derives from its poses: root track, features, contacts, candidate flags,
 * normalisation. Shared by the build and by the compact loader (mmdb/decode-compact.ts), so a database
 * rebuilt from decoded poses is exactly what a build of those poses stores. Clip ranges carry
 * each clip's own tags; tagNames and tagBits are left empty for the caller.
 */
export function deriveDatabase(input: DeriveInput): Database {
  const { skeleton, roles, fps, schema, work } = input;
  const contactOpts = input.contacts;
  const J = skeleton.names.length;
  const groupBones = schemaGroupBones(schema, skeleton, roles);
  const hasMirrored = work.some((w) => w.mirrored);
  // The hips' forward axis, estimated once per handedness over all frames so that every clip's
  // facing is measured the same way (mirrored clips have their own estimate).
  const hips = roles.hips;
  const leftLeg = legRootJoint(skeleton, hips, roles.leftFoot);
  const rightLeg = legRootJoint(skeleton, hips, roles.rightFoot);
  const transformsOf = worldTransformsReader(input, J);
  const axisJoints = withAncestors(skeleton, [hips, leftLeg, rightLeg]);
  const forwardAxis = (mirrored: boolean): Float64Array => {
    const acc = [0, 0, 0];
    for (let i = 0; i < work.length; i++) {
      const w = work[i];
      if (w.mirrored !== mirrored) continue;
      let a: number[] = [0, 0, 1];
      if (leftLeg >= 0 && rightLeg >= 0) {
        const [worldRot, worldPos] = transformsOf(i, axisJoints);
        a = estimateHipsForwardAxis(worldRot, worldPos, J, w.clip.frameCount, hips, leftLeg, rightLeg);
      }
      for (let k = 0; k < 3; k++) acc[k] += a[k] * w.clip.frameCount;
    }
    const n = Math.hypot(acc[0], acc[1], acc[2]) || 1;
    return new Float64Array([acc[0] / n, acc[1] / n, acc[2] / n]);
  };
  const axes = { false: forwardAxis(false), true: hasMirrored ? forwardAxis(true) : new Float64Array([0, 0, 1]) };

  const N = work.reduce((n, w) => n + w.clip.frameCount, 0);
  const dims = schemaDims(schema);
  const stride = paddedStride(dims);
  const db: Database = {
    skeleton, roles, fps, frameCount: N, clips: [],
    rotations: input.poses?.rotations ?? new Float32Array(N * J * 4), translations: input.poses?.translations ?? new Float32Array(N * J * 3),
    rootPositions: new Float32Array(N * 3), rootRotations: new Float32Array(N * 4),
    contacts: new Uint8Array(N), candidates: new Uint8Array(N),
    tagNames: [], tagBits: new Uint32Array(N),
    schema, dims, stride,
    rawFeatures: new Float32Array(N * stride), features: new Float32Array(N * stride),
    mean: new Float32Array(stride), scale: new Float32Array(stride),
  };
  const smoothFrames = Math.round(schema.facingSmoothingSeconds * fps);
  const positionSmoothFrames = Math.round((schema.positionSmoothingSeconds ?? schema.facingSmoothingSeconds) * fps);
  const [leftContactJoint, rightContactJoint] = contactJoints(roles);

  // Pass 2: root track, features, contacts, per clip.
  let start = 0;
  // One velocity scratch for all clips, written for the joints read from it (the velocity groups'
  // bones and the contact joints; the others' columns are never read, and hold an older clip's).
  const velScratch = new Float64Array(work.reduce((m, w) => Math.max(m, w.clip.frameCount), 0) * J * 3);
  const velocityJoints = [...new Set([leftContactJoint, rightContactJoint, ...schema.groups.flatMap((g, i) => (g.kind === 'boneVelocity' ? groupBones[i] : []))])];
  const readJoints = derivedJoints(skeleton, roles, schema);
  for (let i = 0; i < work.length; i++) {
    const w = work[i], F = w.clip.frameCount;
    const [worldRot, worldPos] = transformsOf(i, readJoints);
    const worldVel = velScratch.subarray(0, F * J * 3);
    for (const j of velocityJoints) finiteDifferenceVelocities(worldPos, J * 3, F, fps, worldVel, 3 * j, 3 * j + 3);
    const rootPos = new Float64Array(F * 3), rootRot = new Float64Array(F * 4);
    computeRootTrack(worldRot, worldPos, J, F, hips, axes[`${w.mirrored}`], smoothFrames, rootPos, rootRot, positionSmoothFrames, w.clip.loop);
    extractClipFeatures({ frames: F, fps, joints: J, worldPos, worldVel, rootPos, rootRot, loop: w.clip.loop }, schema, groupBones, stride, db.rawFeatures, start);
    footContacts(worldVel, J, F, fps, leftContactJoint, rightContactJoint, contactOpts, db.contacts, start);
    if (!input.poses) {
      db.rotations.set(w.clip.rotations, start * J * 4);
      db.translations.set(w.clip.translations, start * J * 3);
    }
    db.rootPositions.set(rootPos, start * 3);
    db.rootRotations.set(rootRot, start * 4);
    const endMargin = endMarginFrames(schema, fps, F, w.clip.loop);
    for (let f = 0; f < F; f++) db.candidates[start + f] = f < F - endMargin ? 1 : 0;
    const range: ClipRange = { name: w.clip.name, source: w.clip.source, start, count: F, loop: w.clip.loop, mirrored: w.mirrored, tags: [...w.clip.tags] };
    if (w.sourceFps !== undefined) range.sourceFps = w.sourceFps;
    db.clips.push(range);
    start += F;
    input.onClip?.(w.clip.name);
  }

  computeNormalization(db.rawFeatures, N, stride, schema, db.mean, db.scale);
  normalizeRows(db.rawFeatures, N, stride, dims, db.mean, db.scale, db.features);
  return db;
}

/**
 * The joints whose world transforms deriveDatabase reads (the hips, the legs' roots, the contact
 * joints, the schema's bones) and their ancestors, parents first: the others' world transforms are
 * never read.
 */
export function derivedJoints(skeleton: Skeleton, roles: Record<BoneRole, number>, schema: FeatureSchema): Int32Array {
  const bones = [roles.hips, legRootJoint(skeleton, roles.hips, roles.leftFoot), legRootJoint(skeleton, roles.hips, roles.rightFoot), ...contactJoints(roles)];
  for (const group of schemaGroupBones(schema, skeleton, roles)) bones.push(...group);
  return withAncestors(skeleton, bones);
}

/** `joints` (-1s and out-of-range indices skipped) and their ancestors, in index order (parents first: the skeleton has been checked). */
function withAncestors(skeleton: Skeleton, joints: readonly number[]): Int32Array {
  const J = skeleton.names.length, need = new Uint8Array(J);
  for (const j of joints) for (let k = j; k >= 0 && k < J && !need[k]; k = skeleton.parents[k]) need[k] = 1;
  const list: number[] = [];
  for (let j = 0; j < J; j++) if (need[j]) list.push(j);
  return Int32Array.from(list);
}

/**
 * Work clip i's world transforms for `joints`: its own, or computed by input.worldTransforms into
 * a scratch shared by every clip (valid until the next call).
 */
function worldTransformsReader(input: DeriveInput, J: number): (i: number, joints: Int32Array) => [Float64Array, Float64Array] {
  const { work, worldTransforms } = input;
  const frames = work.reduce((m, w) => (w.worldRot === null || w.worldPos === null ? Math.max(m, w.clip.frameCount) : m), 0);
  const rot = new Float64Array(frames * J * 4), pos = new Float64Array(frames * J * 3);
  return (i, joints) => {
    const w = work[i];
    if (w.worldRot !== null && w.worldPos !== null) return [w.worldRot, w.worldPos];
    if (!worldTransforms) throw new RangeError(`deriveDatabase: work clip ${i} has no world transforms and no worldTransforms was given`);
    const F = w.clip.frameCount, r = rot.subarray(0, F * J * 4), p = pos.subarray(0, F * J * 3);
    worldTransforms(i, joints, r, p);
    return [r, p];
  };
}
