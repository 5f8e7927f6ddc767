/**
 * Consistency checks of a Database, shared by the .mmdb encoder (before writing), the decoder
 * (after reading) and the search (before loading a database into WASM memory): one implementation,
 * so that a database the file reader accepts is one the search accepts, and vice versa.
 *
 * Every check costs time proportional to the arrays it looks at, never more: names are looked up
 * in maps, not lists, so a hostile file with many joints and many schema bones cannot make a check
 * quadratic.
 */
import type { Database } from './database.js';
import { validateSkeleton } from '../anim/skeleton.js';
import { paddedStride, schemaDims } from '../features/schema.js';
import { validateSchema } from '../features/schema-validate.js';
import { MAX_FPS, MAX_TAGS, MIN_FPS, isSupportedFps } from './limits.js';
import {
  BONE_ROLES,
  DatabaseFormatError,
  NAME_OF,
  describeNumber,
  describeValue,
  fmt,
  quoted,
  sectionLabel,
  type DatabaseFormatErrorCode,
  type SectionTag,
} from './mmdb/format.js';

/** |q|^2 must be within this of 1 (float32 storage of normalised quaternions is ~1e-7 off). */
const QUAT_NORM2_TOLERANCE = 2e-3;
/** features must equal (raw - mean) / scale within tol * (1 + (|raw| + |mean|) / scale). */
const FEATURE_TOLERANCE = 1e-4;
/** Most feature dimensions accepted: paddedStride rounds up in 32-bit integer arithmetic. */
const MAX_DIMS = 2 ** 30;

/** Index of the first NaN or infinity in `arr`, or -1. */
function firstNonFinite(arr: ArrayLike<number>): number {
  for (let i = 0; i < arr.length; i++) if (arr[i] - arr[i] !== 0) return i;
  return -1;
}

/**
 * firstNonFinite for float32 values, four at a time: their sum (in float64, which four float32
 * values cannot overflow) is finite exactly when all four are. 6x faster than one at a time through
 * a read that also sees other array types.
 */
function firstNonFiniteFloat32(arr: Float32Array): number {
  const n = arr.length - (arr.length % 4);
  for (let i = 0; i < n; i += 4) {
    const sum = (arr[i] + arr[i + 1]) + (arr[i + 2] + arr[i + 3]);
    if (sum - sum !== 0) return i + firstNonFinite(arr.subarray(i, i + 4));
  }
  const tail = firstNonFinite(arr.subarray(n));
  return tail < 0 ? -1 : n + tail;
}

class Checker {
  constructor(readonly source: string) {}

  fail(code: DatabaseFormatErrorCode, tag: SectionTag | undefined, detail: string): never {
    throw new DatabaseFormatError(code, this.source, tag ? `${sectionLabel(tag)}: ${detail}` : detail, tag ? NAME_OF[tag] : undefined);
  }

  length(tag: SectionTag, field: string, arr: { length: number } | undefined | null, expected: number, what: string): void {
    const n = arr == null ? -1 : arr.length;
    if (n !== expected) this.fail('inconsistent', tag, `'${field}' has ${n < 0 ? 'no' : fmt(n)} values, expected ${fmt(expected)} (${what})`);
  }

  finite(tag: SectionTag, field: string, arr: ArrayLike<number>, where: (i: number) => string): void {
    // Float32 arrays (poses, features: millions of values) get a loop of their own, so that its
    // reads stay specialised to one array type.
    const i = arr instanceof Float32Array ? firstNonFiniteFloat32(arr) : firstNonFinite(arr);
    if (i >= 0) this.fail('not-finite', tag, `'${field}' value ${where(i)} is ${describeNumber(arr[i])}`);
  }

  unitQuats(tag: SectionTag, field: string, arr: ArrayLike<number>, where: (q: number) => string): void {
    for (let q = 0, i = 0; i + 3 < arr.length; q++, i += 4) {
      const x = arr[i], y = arr[i + 1], z = arr[i + 2], w = arr[i + 3];
      const n2 = x * x + y * y + z * z + w * w;
      if (!(Math.abs(n2 - 1) <= QUAT_NORM2_TOLERANCE)) {
        this.fail('inconsistent', tag, `'${field}' quaternion ${where(q)} is not unit length (|q| = ${Math.sqrt(n2).toPrecision(6)})`);
      }
    }
  }

  integer(tag: SectionTag, field: string, v: unknown, min: number, max: number): number {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      this.fail('inconsistent', tag, `'${field}' is ${describeValue(v)}, expected an integer in [${fmt(min)}, ${fmt(max)}]`);
    }
    return v;
  }
}

/**
 * Throws DatabaseFormatError unless `db` is internally consistent: everything the decoder checks
 * after reading a file (fps in [MIN_FPS, MAX_FPS], array lengths agree with frames/joints/stride,
 * clips in order and in range, contact/candidate/tag bits valid, finite floats, unit quaternions,
 * valid skeleton and schema, dims == schemaDims(schema), stride == paddedStride(dims),
 * features == (raw - mean) / scale). The encoder runs it before writing (unless told not to).
 */
export function checkDatabaseConsistency(db: Database, source = 'database'): void {
  const c = new Checker(source);
  checkRate(c, db.fps);
  const N = checkFrameCount(c, db);
  const J = checkSkeleton(c, db);
  const tagSet = checkTags(c, db, N); // before clips: clip tags must be known tags
  checkClips(c, db, N, tagSet);
  checkPoses(c, db, N, J);
  checkRoot(c, db, N);
  checkContacts(c, db, N);
  checkCandidates(c, db, N);
  checkSchema(c, db);
  const D = schemaDims(db.schema);
  if (db.dims !== D) c.fail('inconsistent', 'META', `dims is ${describeValue(db.dims)} but the schema has ${D} dimensions`);
  const S = checkStride(c, db, D);
  checkNormalisation(c, db, D, S);
  const rowCol = rowColumn(S);
  c.length('FRAW', 'rawFeatures', db.rawFeatures, N * S, `${fmt(N)} frames x stride ${S}`);
  c.finite('FRAW', 'rawFeatures', db.rawFeatures, rowCol);
  checkFeatureMatrix(c, db, N, D, S);
  checkNormalisedFeatures(c, db, N, D, S);
}

/** What a compact file stores of a database (the rest is derived from it on load). */
export type StoredPoseSections = Pick<Database, 'skeleton' | 'roles' | 'fps' | 'frameCount' | 'clips' | 'rotations' | 'translations' | 'tagNames' | 'tagBits' | 'schema' | 'dims' | 'stride'>;

/**
 * checkDatabaseConsistency's checks of the parts a compact file stores (rate, frame count,
 * skeleton, tags, clips, poses, schema, dims and stride), before the rest is derived from them:
 * without placeholder arrays for the derived parts (two N x stride float arrays allocated and
 * checked only to be replaced: 3-5 ms of a built-in database's 95 ms load).
 */
export function checkStoredPoseSections(db: StoredPoseSections, source = 'database'): void {
  const c = new Checker(source);
  // (the checks below read only the fields of StoredPoseSections)
  const d = db as Database;
  checkRate(c, d.fps);
  const N = checkFrameCount(c, d);
  const J = checkSkeleton(c, d);
  const tagSet = checkTags(c, d, N);
  checkClips(c, d, N, tagSet);
  checkPoses(c, d, N, J);
  checkSchema(c, d);
  const D = schemaDims(d.schema);
  if (d.dims !== D) c.fail('inconsistent', 'META', `dims is ${describeValue(d.dims)} but the schema has ${D} dimensions`);
  checkStride(c, d, D);
}

/**
 * Throws DatabaseFormatError unless the parts of `db` the search reads are consistent: frameCount,
 * dims and stride (stride == paddedStride(dims)), tag names and per-frame tag bits, candidate flags
 * (0 or 1), mean and scale (finite, scale > 0, padding columns 0 and 1) and the feature matrix
 * (N x stride, finite, padding 0). Linear in the feature matrix; it does not look at poses, the
 * skeleton, the schema or the raw features (checkDatabaseConsistency does), so it also accepts the
 * minimal databases search tests build. Every database checkDatabaseConsistency accepts passes.
 */
export function checkSearchableDatabase(db: Database, source = 'database'): void {
  const c = new Checker(source);
  const N = checkFrameCount(c, db);
  checkTags(c, db, N);
  checkCandidates(c, db, N);
  const D = c.integer('META', 'dims', db.dims, 1, MAX_DIMS);
  const S = checkStride(c, db, D);
  checkNormalisation(c, db, D, S);
  checkFeatureMatrix(c, db, N, D, S);
}

function checkRate(c: Checker, fps: unknown): void {
  if (typeof fps !== 'number' || !Number.isFinite(fps)) c.fail('not-finite', 'META', `fps is ${describeValue(fps)}`);
  if (!isSupportedFps(fps)) c.fail('inconsistent', 'META', `fps is ${fps}, expected a rate in [${MIN_FPS}, ${MAX_FPS}] frames per second`);
}

function checkFrameCount(c: Checker, db: Database): number {
  return c.integer('META', 'frameCount', db.frameCount, 0, 0xffffffff);
}

function checkStride(c: Checker, db: Database, D: number): number {
  const S = paddedStride(D);
  if (db.stride !== S) c.fail('inconsistent', 'META', `stride is ${describeValue(db.stride)}, expected ${S} (${D} dims padded to a multiple of 4)`);
  return S;
}

function rowColumn(S: number): (i: number) => string {
  return (i) => `at frame ${Math.floor(i / S)}, column ${i % S}`;
}

function checkSkeleton(c: Checker, db: Database): number {
  const sk = db.skeleton;
  if (!sk || !Array.isArray(sk.names)) c.fail('inconsistent', 'SKEL', 'the skeleton has no joint name list');
  for (let i = 0; i < sk.names.length; i++) {
    if (typeof sk.names[i] !== 'string') c.fail('inconsistent', 'SKEL', `joint name ${i} is ${describeValue(sk.names[i])}, expected a string`);
  }
  const J = sk.names.length;
  if (!(sk.parents instanceof Int32Array) || !(sk.offsets instanceof Float64Array) || !(sk.endSiteParents instanceof Int32Array) || !(sk.endSiteOffsets instanceof Float64Array)) {
    c.fail('inconsistent', 'SKEL', 'skeleton arrays must be Int32Array (parents) and Float64Array (offsets)');
  }
  c.finite('SKEL', 'offsets', sk.offsets, (i) => `${i % 3} of joint ${Math.floor(i / 3)}`);
  c.finite('SKEL', 'endSiteOffsets', sk.endSiteOffsets, (i) => `${i % 3} of end site ${Math.floor(i / 3)}`);
  try {
    validateSkeleton(sk);
  } catch (e) {
    c.fail('inconsistent', 'SKEL', `invalid skeleton: ${(e as Error).message}`);
  }
  if (!db.roles || typeof db.roles !== 'object') c.fail('inconsistent', 'SKEL', 'roles are missing');
  for (const key of Object.keys(db.roles)) {
    if (!(BONE_ROLES as readonly string[]).includes(key)) c.fail('inconsistent', 'SKEL', `unknown bone role ${quoted(key)}`);
  }
  for (const role of BONE_ROLES) c.integer('SKEL', `roles.${role}`, db.roles[role], -1, J - 1);
  return J;
}

/** Checks the tag names and per-frame tag bits; returns the set of tag names. */
function checkTags(c: Checker, db: Database, N: number): Set<string> {
  if (!Array.isArray(db.tagNames)) c.fail('inconsistent', 'TAGS', 'tag names are missing');
  const T = db.tagNames.length;
  if (T > MAX_TAGS) c.fail('inconsistent', 'TAGS', `${T} tags, at most ${MAX_TAGS} fit in the per-frame bits`);
  const tagSet = new Set<string>();
  for (const t of db.tagNames) {
    if (typeof t !== 'string') c.fail('inconsistent', 'TAGS', `tag name ${describeValue(t)} is not a string`);
    if (tagSet.has(t)) c.fail('inconsistent', 'TAGS', `duplicate tag name ${quoted(t)}`);
    tagSet.add(t);
  }
  c.length('TAGS', 'tagBits', db.tagBits, N, 'one per frame');
  const tagMask = T === 32 ? 0xffffffff : (1 << T) - 1;
  for (let f = 0; f < N; f++) {
    const bits = db.tagBits[f];
    if ((bits & ~tagMask) !== 0) c.fail('inconsistent', 'TAGS', `frame ${f} has tag bits 0x${(bits >>> 0).toString(16)} but only ${T} tags exist`);
  }
  return tagSet;
}

function checkClips(c: Checker, db: Database, N: number, tagSet: ReadonlySet<string>): void {
  if (!Array.isArray(db.clips)) c.fail('inconsistent', 'CLIP', 'clip list is missing');
  let prevEnd = 0;
  db.clips.forEach((clip, i) => {
    const what = `clip ${i}${clip && typeof clip.name === 'string' ? ` ${quoted(clip.name)}` : ''}`;
    if (!clip || typeof clip !== 'object') c.fail('inconsistent', 'CLIP', `${what} is not an object`);
    if (typeof clip.name !== 'string') c.fail('inconsistent', 'CLIP', `${what}: name is ${describeValue(clip.name)}, expected a string`);
    if (typeof clip.source !== 'string') c.fail('inconsistent', 'CLIP', `${what}: source is ${describeValue(clip.source)}, expected a string`);
    if (typeof clip.loop !== 'boolean') c.fail('inconsistent', 'CLIP', `${what}: loop is ${describeValue(clip.loop)}, expected a boolean`);
    if (typeof clip.mirrored !== 'boolean') c.fail('inconsistent', 'CLIP', `${what}: mirrored is ${describeValue(clip.mirrored)}, expected a boolean`);
    if (clip.sourceFps !== undefined && !isSupportedFps(clip.sourceFps)) {
      c.fail('inconsistent', 'CLIP', `${what}: sourceFps is ${describeValue(clip.sourceFps)}, expected a rate in [${MIN_FPS}, ${MAX_FPS}] frames per second (or none)`);
    }
    if (!Array.isArray(clip.tags)) c.fail('inconsistent', 'CLIP', `${what}: tags is ${describeValue(clip.tags)}, expected an array`);
    for (const t of clip.tags) {
      if (typeof t !== 'string' || !tagSet.has(t)) c.fail('inconsistent', 'CLIP', `${what}: tag ${describeValue(t)} is not one of the database's tag names`);
    }
    c.integer('CLIP', `${what} start`, clip.start, 0, 0xffffffff);
    c.integer('CLIP', `${what} count`, clip.count, 1, 0xffffffff);
    if (clip.start < prevEnd) c.fail('inconsistent', 'CLIP', `${what} starts at frame ${clip.start}, before the previous clip ends (${prevEnd}): clips must be in order and must not overlap`);
    if (clip.start + clip.count > N) c.fail('inconsistent', 'CLIP', `${what} covers frames [${clip.start}, ${clip.start + clip.count}) but the database has ${fmt(N)} frames`);
    prevEnd = clip.start + clip.count;
  });
}

function checkPoses(c: Checker, db: Database, N: number, J: number): void {
  c.length('POSE', 'rotations', db.rotations, N * J * 4, `${fmt(N)} frames x ${J} joints x 4`);
  c.length('POSE', 'translations', db.translations, N * J * 3, `${fmt(N)} frames x ${J} joints x 3`);
  const fj = (i: number, k: number): string => `${i % k} of frame ${Math.floor(i / (k * J))}, joint ${Math.floor(i / k) % J}`;
  c.finite('POSE', 'rotations', db.rotations, (i) => fj(i, 4));
  c.finite('POSE', 'translations', db.translations, (i) => fj(i, 3));
  c.unitQuats('POSE', 'rotations', db.rotations, (q) => `of frame ${Math.floor(q / J)}, joint ${q % J}`);
}

function checkRoot(c: Checker, db: Database, N: number): void {
  c.length('ROOT', 'rootPositions', db.rootPositions, N * 3, `${fmt(N)} frames x 3`);
  c.length('ROOT', 'rootRotations', db.rootRotations, N * 4, `${fmt(N)} frames x 4`);
  c.finite('ROOT', 'rootPositions', db.rootPositions, (i) => `${i % 3} of frame ${Math.floor(i / 3)}`);
  c.finite('ROOT', 'rootRotations', db.rootRotations, (i) => `${i % 4} of frame ${Math.floor(i / 4)}`);
  c.unitQuats('ROOT', 'rootRotations', db.rootRotations, (q) => `of frame ${q}`);
}

function checkContacts(c: Checker, db: Database, N: number): void {
  c.length('CONT', 'contacts', db.contacts, N, 'one per frame');
  for (let f = 0; f < N; f++) if (!(db.contacts[f] <= 3)) c.fail('inconsistent', 'CONT', `frame ${f} has contact bits ${db.contacts[f]}, expected 0..3`);
}

function checkCandidates(c: Checker, db: Database, N: number): void {
  c.length('CAND', 'candidates', db.candidates, N, 'one per frame');
  for (let f = 0; f < N; f++) {
    const v = db.candidates[f];
    if (v !== 0 && v !== 1) c.fail('inconsistent', 'CAND', `frame ${f} has candidate flag ${v}, expected 0 or 1`);
  }
}

function checkSchema(c: Checker, db: Database): void {
  const schema = db.schema;
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) c.fail('inconsistent', 'SCHM', 'the schema is not an object');
  try {
    validateSchema(schema, 'feature schema');
  } catch (e) {
    c.fail('inconsistent', 'SCHM', (e as Error).message);
  }
  // Every bone must resolve as feature extraction resolves it (resolveSchemaBone: a role this
  // skeleton has, else a joint name), looked up in a map so that many bones x many joints stay linear.
  const joints = new Map<string, number>();
  db.skeleton.names.forEach((name, j) => joints.set(name, j));
  const roles = BONE_ROLES as readonly string[];
  for (const g of schema.groups) {
    for (const b of g.bones ?? []) {
      if (roles.includes(b)) {
        if (db.roles[b as (typeof BONE_ROLES)[number]] < 0) c.fail('inconsistent', 'SCHM', `group ${quoted(g.name)}: feature schema uses bone role "${b}", which this skeleton lacks`);
      } else if (!joints.has(b)) {
        c.fail('inconsistent', 'SCHM', `group ${quoted(g.name)}: bone ${describeValue(b)} is neither a bone role (${BONE_ROLES.join(', ')}) nor a joint of the skeleton`);
      } else if (b in db.roles) {
        // resolveSchemaBone tests `bone in roles`, which inherited names ("toString") also pass.
        c.fail('inconsistent', 'SCHM', `group ${quoted(g.name)}: joint ${describeValue(b)} cannot be a schema bone: the name is a built-in property of JavaScript objects`);
      }
    }
  }
}

function checkNormalisation(c: Checker, db: Database, D: number, S: number): void {
  c.length('NORM', 'mean', db.mean, S, 'one per feature column');
  c.length('NORM', 'scale', db.scale, S, 'one per feature column');
  c.finite('NORM', 'mean', db.mean, (i) => `of column ${i}`);
  c.finite('NORM', 'scale', db.scale, (i) => `of column ${i}`);
  for (let d = 0; d < S; d++) {
    if (!(db.scale[d] > 0)) c.fail('inconsistent', 'NORM', `scale of column ${d} is ${db.scale[d]}, expected > 0`);
    if (d >= D && (db.mean[d] !== 0 || db.scale[d] !== 1)) {
      c.fail('inconsistent', 'NORM', `padding column ${d} has mean ${db.mean[d]} and scale ${db.scale[d]}, expected 0 and 1`);
    }
  }
}

/** The normalised feature matrix the search kernels read: N x S, finite, padding columns 0. */
function checkFeatureMatrix(c: Checker, db: Database, N: number, D: number, S: number): void {
  const rowCol = rowColumn(S);
  c.length('FEAT', 'features', db.features, N * S, `${fmt(N)} frames x stride ${S}`);
  c.finite('FEAT', 'features', db.features, rowCol);
  const feat = db.features;
  for (let row = 0; row < N * S; row += S) {
    for (let d = D; d < S; d++) {
      if (feat[row + d] !== 0) c.fail('inconsistent', 'FEAT', `padding value ${rowCol(row + d)} is ${feat[row + d]}, expected 0`);
    }
  }
}

/** features == (raw - mean) / scale, to float32 rounding. */
function checkNormalisedFeatures(c: Checker, db: Database, N: number, D: number, S: number): void {
  const rowCol = rowColumn(S);
  const { rawFeatures: raw, features: feat, mean, scale } = db;
  for (let row = 0; row < N * S; row += S) {
    for (let d = 0; d < D; d++) {
      const r = raw[row + d], m = mean[d], s = scale[d], v = feat[row + d];
      const expected = (r - m) / s;
      if (!(Math.abs(v - expected) <= FEATURE_TOLERANCE * (1 + (Math.abs(r) + Math.abs(m)) / s))) {
        c.fail('inconsistent', 'FEAT', `value ${rowCol(row + d)} is ${v} but (raw - mean) / scale = ${expected}`);
      }
    }
  }
}
