/**
 * A look at a `.mmdb` file without decoding its bulk arrays: the container (magic, version, CRCs,
 * section table) and META, for `motionmatch info`-style tools. Pure and browser-safe.
 */
import { readContainer, toBytes } from './container.js';
import { readMeta } from './decode.js';
import { DEFAULT_SOURCE, isKnownTag, sectionName } from './format.js';

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
