/**
 * A look at a `.mmdb` file without decoding its bulk arrays: the container (magic, version, CRCs,
 * section table) and META, for `motionmatch info`-style tools. Pure and browser-safe.
 */
import { FieldReader, readContainer, toBytes } from './container.js';
import { readMeta } from './decode.js';
import { DEFAULT_SOURCE, MMDB_COMPACT_VERSION, MMDB_HEADER_BYTES, MMDB_SECTION_HEADER_BYTES, align8, fmt, isKnownTag, sectionName } from './format.js';
import type { PoseErrorReport } from '../compact/pose-error.js';

export interface MmdbSectionInfo {
  tag: string;
  /** Section name for known sections ('features', ...), else the tag. */
  name: string;
  /** Payload offset and length in bytes. */
  offset: number;
  length: number;
  crc: number;
  /** False for unknown lowercase (optional, skipped) sections. */
  known: boolean;
}

export interface MmdbInfo {
  version: number;
  /** 'compact' for version 2 files (compressed poses, rebuilt on load), else 'float32'. */
  kind: 'float32' | 'compact';
  byteLength: number;
  generator: string;
  fps: number;
  frameCount: number;
  jointCount: number;
  clipCount: number;
  dims: number;
  stride: number;
  sections: MmdbSectionInfo[];
}

/**
 * Checks the container (magic, version, CRCs, section table) and reads META without decoding the
 * bulk arrays. Throws DatabaseFormatError like decodeDatabase.
 */
export function inspectDatabase(bytes: Uint8Array | ArrayBuffer, source: string = DEFAULT_SOURCE): MmdbInfo {
  const b = toBytes(bytes);
  const c = readContainer(b, source);
  const meta = readMeta(b, c, source);
  return {
    version: c.version,
    kind: c.version === MMDB_COMPACT_VERSION ? 'compact' : 'float32',
    byteLength: b.length,
    generator: meta.generator,
    fps: meta.fps,
    frameCount: meta.frames,
    jointCount: meta.joints,
    clipCount: meta.clips,
    dims: meta.dims,
    stride: meta.stride,
    sections: c.sections.map((s) => ({ tag: s.tag, name: sectionName(s.tag), offset: s.offset, length: s.length, crc: s.crc, known: isKnownTag(s.tag) })),
  };
}

/** Which part of a database each section holds, for size reports. */
const PART_OF: Record<string, string> = {
  POSE: 'poses', CPOS: 'poses', CMIR: 'poses',
  CLIP: 'clipTable', rate: 'clipTable',
  SCHM: 'schema',
  TAGS: 'tags', CTAG: 'tags',
  ROOT: 'derived', CONT: 'derived', CAND: 'derived', NORM: 'derived', FRAW: 'derived', FEAT: 'derived',
};

/**
 * Bytes per part (poses, clipTable, schema, tags, derived = root track, contacts, features; other =
 * META, SKEL, contact options, the error report, unknown sections), section headers included.
 */
export function partSizes(info: MmdbInfo): Record<string, number> {
  const out: Record<string, number> = { poses: 0, clipTable: 0, schema: 0, tags: 0, derived: 0, other: MMDB_HEADER_BYTES };
  for (const s of info.sections) out[PART_OF[s.tag] ?? 'other'] += MMDB_SECTION_HEADER_BYTES + align8(s.length);
  return out;
}

/**
 * The pose error a compact file records (section `cerr`, measured when it was written against the
 * poses it was built from), in metres; undefined for a float32 file. Throws DatabaseFormatError like
 * decodeDatabase for a damaged file.
 */
export function readPoseErrorReport(bytes: Uint8Array | ArrayBuffer, source: string = DEFAULT_SOURCE): PoseErrorReport | undefined {
  const b = toBytes(bytes);
  const c = readContainer(b, source);
  const meta = readMeta(b, c, source);
  const sec = c.known.get('cerr');
  if (!sec) return undefined;
  const r = new FieldReader(b, sec, source, 'cerr');
  const v = r.f32('error', 2 * meta.clips + 2, `max and 99.9th percentile per clip and overall, ${fmt(meta.clips)} clips`);
  r.done();
  for (let i = 0; i < v.length; i++) if (!(v[i] >= 0 && v[i] < 1e6)) r.fail('inconsistent', `error value ${i} is ${v[i]}, expected a distance in metres`);
  const clips = Array.from({ length: meta.clips }, (_, i) => ({ max: v[2 * i], p999: v[2 * i + 1] }));
  return { clips, overall: { max: v[2 * meta.clips], p999: v[2 * meta.clips + 1] } };
}
