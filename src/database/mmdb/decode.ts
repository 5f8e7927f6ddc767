/**
 * Reading a `.mmdb` file into a Database (docs/mmdb-format.md). The container is checked first
 * (mmdb/container.ts), then META, whose counts size every other field: each field must have exactly
 * the length META implies before it is allocated. The decoded database then goes through
 * checkDatabaseConsistency. Every problem is a DatabaseFormatError naming the source, the section
 * and what is wrong. Pure and browser-safe.
 */
import type { ClipRange, Database } from '../database.js';
import type { Skeleton } from '../../anim/skeleton.js';
import type { BoneRole, FeatureSchema } from '../../features/schema.js';
import { paddedStride } from '../../features/schema.js';
import { checkDatabaseConsistency } from '../database-check.js';
import { MAX_FPS, MAX_TAGS, MIN_FPS, isSupportedFps } from '../limits.js';
import { FieldReader, readContainer, toBytes, type Container } from './container.js';
import { BONE_ROLES, DEFAULT_SOURCE, MMDB_COMPACT_VERSION, describeNumber, describeValue, fmt, type SectionTag } from './format.js';
import { decodeCompactDatabase } from './decode-compact.js';

export interface Meta {
  fps: number;
  frames: number;
  joints: number;
  endSites: number;
  clips: number;
  tags: number;
  dims: number;
  stride: number;
  generator: string;
}

/** Reads and checks META: the rate and the counts that size every other section. */
export function readMeta(bytes: Uint8Array, c: Container, source: string): Meta {
  const r: FieldReader = new FieldReader(bytes, c.known.get('META')!, source, 'META');
  const fps = r.f64('fps', 1, 'one rate')[0];
  const counts = r.u32('counts', 7, 'frames, joints, end sites, clips, tags, dims, stride');
  const generator = r.text('generator');
  r.done();
  const [frames, joints, endSites, clips, tags, dims, stride] = counts;
  const meta: Meta = { fps, frames, joints, endSites, clips, tags, dims, stride, generator };
  if (!Number.isFinite(meta.fps)) r.fail('not-finite', `fps is ${describeNumber(meta.fps)}`);
  if (!isSupportedFps(meta.fps)) r.fail('inconsistent', `fps is ${meta.fps}, expected a rate in [${MIN_FPS}, ${MAX_FPS}] frames per second`);
  if (meta.joints < 1) r.fail('inconsistent', 'the skeleton has no joints');
  if (meta.tags > MAX_TAGS) r.fail('inconsistent', `${meta.tags} tags, at most ${MAX_TAGS} fit in the per-frame bits`);
  if (meta.stride !== paddedStride(meta.dims)) r.fail('inconsistent', `stride is ${meta.stride}, expected ${paddedStride(meta.dims)} (${meta.dims} dims padded to a multiple of 4)`);
  return meta;
}

/** The optional `rate` section: clip i's source rate, or 0 when the clip was not resampled. */
export function readSourceRates(bytes: Uint8Array, c: Container, source: string, clipCount: number): Float64Array | undefined {
  const sec = c.known.get('rate');
  if (!sec) return undefined;
  const r: FieldReader = new FieldReader(bytes, sec, source, 'rate');
  const rates = r.f64('sourceFps', clipCount, `one per clip, ${fmt(clipCount)} clips`);
  r.done();
  for (let i = 0; i < rates.length; i++) {
    const v = rates[i];
    if (!Number.isFinite(v)) r.fail('not-finite', `source rate of clip ${i} is ${describeNumber(v)}`);
    if (v !== 0 && !isSupportedFps(v)) r.fail('inconsistent', `source rate of clip ${i} is ${v}, expected 0 (not resampled) or a rate in [${MIN_FPS}, ${MAX_FPS}]`);
  }
  return rates;
}

export function readClips(r: FieldReader, meta: Meta, rates: Float64Array | undefined): ClipRange[] {
  const clipsJson = r.json('clips');
  r.done();
  if (!Array.isArray(clipsJson)) r.fail('bad-section', `the clip list is ${describeValue(clipsJson)}, expected an array`);
  if (clipsJson.length !== meta.clips) r.fail('inconsistent', `${fmt(clipsJson.length)} clips but META declares ${fmt(meta.clips)}`);
  return clipsJson.map((v, i) => {
    const o = r.object(v, `clip ${i}`, ['count', 'loop', 'mirrored', 'name', 'source', 'start', 'tags']);
    const clip = {
      name: o.name,
      source: o.source,
      start: o.start,
      count: o.count,
      loop: o.loop,
      mirrored: o.mirrored,
      tags: r.stringArray(o.tags, `clip ${i} tags`),
    } as ClipRange;
    if (typeof clip.name !== 'string' || typeof clip.source !== 'string') r.fail('bad-section', `clip ${i}: name and source must be strings`);
    if (typeof clip.start !== 'number' || typeof clip.count !== 'number') r.fail('bad-section', `clip ${i}: start and count must be numbers`);
    if (typeof clip.loop !== 'boolean' || typeof clip.mirrored !== 'boolean') r.fail('bad-section', `clip ${i}: loop and mirrored must be booleans`);
    // Only resampled clips carry the key, so that decode -> encode reproduces the bytes.
    if (rates && rates[i] !== 0) clip.sourceFps = rates[i];
    return clip;
  });
}

/** SKEL: joint names, parents, rest offsets, end sites and the bone roles. */
export function readSkeleton(r: FieldReader, J: number, E: number): { skeleton: Skeleton; roles: Record<BoneRole, number> } {
  const names = r.stringArray(r.json('names'), 'names', J);
  const parents = r.i32('parents', J, `one per joint, ${J} joints`);
  const offsets = r.f64('offsets', 3 * J, `3 per joint, ${J} joints`);
  const endSiteParents = r.i32('endSiteParents', E, `one per end site, ${E} end sites`);
  const endSiteOffsets = r.f64('endSiteOffsets', 3 * E, `3 per end site, ${E} end sites`);
  const rolesObj = r.object(r.json('roles'), 'roles', BONE_ROLES);
  r.done();
  const roles = {} as Record<BoneRole, number>;
  for (const role of BONE_ROLES) {
    const v = rolesObj[role];
    if (typeof v !== 'number') r.fail('bad-section', `role '${role}' is ${describeValue(v)}, expected a joint index`);
    roles[role] = v;
  }
  const skeleton: Skeleton = { names, parents, offsets, endSiteParents, endSiteOffsets };

  return { skeleton, roles };
}

/** SCHM: the feature schema (checked in full by checkDatabaseConsistency). */
export function readSchema(r: FieldReader): FeatureSchema {
  const schemaJson = r.json('schema');
  r.done();
  if (schemaJson === null || typeof schemaJson !== 'object' || Array.isArray(schemaJson)) r.fail('bad-section', `the schema is ${describeValue(schemaJson)}, expected an object`);
  return schemaJson as FeatureSchema;
}

export interface DecodeOptions {
  /** Compact files: called as the poses are decoded and the database rebuilt (done of total steps). */
  onProgress?: (done: number, total: number, label: string) => void;
  /**
   * Float32 files: the database's arrays are views of `bytes` (where aligned, on a little-endian
   * host) instead of copies, and `bytes` must not change while the database lives. For a caller
   * that owns the bytes it decodes (readDatabaseFile): no second copy of the file in fresh memory
   * (the real set read in 245 ms against 400 on this project's VM).
   */
  viewsOfBytes?: boolean;
}

/**
 * Parses a .mmdb file, float32 (version 1) or compact (version 2, rebuilt from its poses: see
 * decode-compact.ts). Validates the magic, version, header CRC, every section's bounds and CRC,
 * the absence of trailing bytes, and the decoded database's consistency (checkDatabaseConsistency).
 * Arrays are copied into fresh (aligned) typed arrays and `bytes` is not retained, unless
 * `options.viewsOfBytes` asks for views of it.
 * @param source file name or description used in error messages.
 * @throws DatabaseFormatError for anything wrong with the bytes.
 */
export function decodeDatabase(bytes: Uint8Array | ArrayBuffer, source: string = DEFAULT_SOURCE, options: DecodeOptions = {}): Database {
  const b = toBytes(bytes);
  const c = readContainer(b, source);
  const meta = readMeta(b, c, source);
  if (c.version === MMDB_COMPACT_VERSION) return decodeCompactDatabase(b, c, meta, source, options.onProgress);
  const N = meta.frames, J = meta.joints, E = meta.endSites, S = meta.stride;
  const reader = (tag: SectionTag): FieldReader => new FieldReader(b, c.known.get(tag)!, source, tag, options.viewsOfBytes === true);

  const { skeleton, roles } = readSkeleton(reader('SKEL'), J, E);

  // CLIP (with the optional per-clip source rates)
  const clips = readClips(reader('CLIP'), meta, readSourceRates(b, c, source, meta.clips));

  let r: FieldReader;
  // POSE, ROOT, CONT, CAND
  r = reader('POSE');
  const rotations = r.f32('rotations', N * J * 4, `${fmt(N)} frames x ${J} joints x 4`);
  const translations = r.f32('translations', N * J * 3, `${fmt(N)} frames x ${J} joints x 3`);
  r.done();
  r = reader('ROOT');
  const rootPositions = r.f32('rootPositions', N * 3, `${fmt(N)} frames x 3`);
  const rootRotations = r.f32('rootRotations', N * 4, `${fmt(N)} frames x 4`);
  r.done();
  r = reader('CONT');
  const contacts = r.u8('contacts', N, `one per frame, ${fmt(N)} frames`);
  r.done();
  r = reader('CAND');
  const candidates = r.u8('candidates', N, `one per frame, ${fmt(N)} frames`);
  r.done();

  // TAGS
  r = reader('TAGS');
  const tagNames = r.stringArray(r.json('names'), 'names', meta.tags);
  const tagBits = r.u32('bits', N, `one per frame, ${fmt(N)} frames`);
  r.done();

  const schema = readSchema(reader('SCHM'));

  // NORM, FRAW, FEAT
  r = reader('NORM');
  const mean = r.f32('mean', S, `one per column, stride ${S}`);
  const scale = r.f32('scale', S, `one per column, stride ${S}`);
  r.done();
  r = reader('FRAW');
  const rawFeatures = r.f32('rawFeatures', N * S, `${fmt(N)} frames x stride ${S}`);
  r.done();
  r = reader('FEAT');
  const features = r.f32('features', N * S, `${fmt(N)} frames x stride ${S}`);
  r.done();

  const db: Database = {
    skeleton,
    roles,
    fps: meta.fps,
    frameCount: N,
    clips,
    rotations,
    translations,
    rootPositions,
    rootRotations,
    contacts,
    candidates,
    tagNames,
    tagBits,
    schema,
    dims: meta.dims,
    stride: S,
    rawFeatures,
    features,
    mean,
    scale,
  };
  checkDatabaseConsistency(db, source);
  return db;
}
