/**
 * BVH (Biovision Hierarchy) importer: text in, Skeleton + Clip (metres, unit quaternions) out.
 *
 * Pure: no file system access, so it runs in Node and in the browser alike (see bvh/bvh-node.ts for the
 * file helpers). The parser is a hand-written scanner over the string (charCodeAt), linear in the
 * size of the input, and every malformed input ends in a BvhError naming the file, line and reason.
 * This module runs the steps, each in a module of its own: tokens.ts (numbers, scanner),
 * hierarchy.ts (joints, offsets, channels), motion.ts (MOTION, Frames, Frame Time), frames.ts
 * (values to local poses), units.ts (unit detection and scaling).
 *
 * Format accepted (see docs/bvh.md for the full description):
 *   HIERARCHY
 *   ROOT <name> { OFFSET x y z  CHANNELS n <names...>  (JOINT <name> { ... } | End Site { OFFSET x y z })* }
 *   MOTION
 *   Frames: <count>
 *   Frame Time: <seconds>
 *   <count * (total channels) numbers, whitespace separated, wrapping across lines allowed>
 *
 * Translation conventions (the `translationMode` option):
 *   - 'replace' (default; Blender, MotionBuilder): a joint's position channels ARE its local
 *     translation. Axes without a position channel keep the OFFSET's value. This is what real mocap
 *     exports need: files where every joint carries 6 channels write the bone length into the
 *     non-root position channels and use the root/hips OFFSET as a start position, so adding the
 *     OFFSET would double every bone.
 *   - 'add' (three.js BVHLoader): local translation = OFFSET + position channel values.
 *   Joints without position channels use their OFFSET in both modes.
 */
import type { Skeleton } from '../../anim/skeleton.js';
import { validateSkeleton } from '../../anim/skeleton.js';
import type { Clip } from '../../anim/clip.js';
import { BvhError } from '../errors.js';
import { type BvhFail, type BvhChannelName, BvhScanner, BVH_CHANNEL_NAMES } from './tokens.js';
import { parseBvhHierarchy, type BvhHierarchy } from './hierarchy.js';
import { parseBvhMotionHeader } from './motion.js';
import { bvhChannelLayout, parseBvhFrames, type BvhChannelLayout } from './frames.js';
import { type BvhUnit, bodyLength, unitForBodyLength, scaleToMetres } from './units.js';

export { parseBvhNumber, BVH_CHANNEL_NAMES, type BvhChannelName } from './tokens.js';
export { BVH_MAX_ABS_VALUE } from './hierarchy.js';
export { snapFrameRate } from './motion.js';
export { BVH_UNIT_SCALES, BVH_REFERENCE_LENGTH, type BvhUnit } from './units.js';

export type BvhTranslationMode = 'replace' | 'add';

export interface BvhParseOptions {
  /** File name used in error messages, clip.source and (without its extension) clip.name. */
  file?: string;
  /** Metres per file unit, or 'auto' (default) to detect m / cm / mm / inches from the body's proportions (units.ts), or fit it to a person's size when none does. */
  scale?: number | 'auto';
  /** How position channels combine with OFFSET; default 'replace'. See the module comment. */
  translationMode?: BvhTranslationMode;
}

/** The channels of one joint as declared in the file. */
export interface BvhJointChannels {
  /** Channel names in file order. */
  names: BvhChannelName[];
  /** Index of this joint's first value within a frame's values (file order of the hierarchy). */
  firstValue: number;
  /** Axes of the rotation channels in listed order, e.g. "ZXY" (q = qZ * qX * qY); "" when none. */
  rotationOrder: string;
  /** True when the joint has at least one position channel. */
  hasPosition: boolean;
}

export interface BvhImport {
  skeleton: Skeleton;
  clip: Clip;
  /** Metres per file unit that was applied to offsets and translations. */
  scale: number;
  /** The unit chosen by 'auto' ('fit': none made a person of the body, scaled to one), or 'given' when a numeric scale was passed. */
  detectedUnit: BvhUnit | 'given';
  /** The body's length along its bones after scaling (m; units.ts bodyLength): files of one rig agree on it. */
  bodyLength: number;
  /** Seconds per frame exactly as written in the file (clip.fps = 1 / frameTime, snapped; see snapFrameRate), at a rate within MIN_FPS..MAX_FPS (anim/frame-rate.ts). */
  frameTime: number;
  /** Per joint (skeleton order, which is file order), its channels. */
  channels: BvhJointChannels[];
  /** Values per frame (sum of all joints' channel counts). */
  channelCount: number;
}

/** File name without folders and extension ("a/b/walk_01.bvh" -> "walk_01"). */
export function bvhClipName(file: string): string {
  const base = file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

/**
 * Parses BVH text. Throws BvhError for malformed input (never another error type for any string
 * input); throws RangeError for invalid options.
 *
 * The steps: hierarchy, motion header, frames (local poses in file units), units, then the
 * skeleton and clip in metres.
 */
export function parseBvh(text: string, options: BvhParseOptions = {}): BvhImport {
  const file = options.file ?? '<string>';
  const scaleOpt = options.scale ?? 'auto';
  if (scaleOpt !== 'auto' && !(typeof scaleOpt === 'number' && Number.isFinite(scaleOpt) && scaleOpt > 0)) {
    throw new RangeError(`parseBvh: scale must be 'auto' or a finite number > 0 (metres per file unit), got ${String(scaleOpt)}`);
  }
  const mode = options.translationMode ?? 'replace';
  if (mode !== 'replace' && mode !== 'add') {
    throw new RangeError(`parseBvh: translationMode must be 'replace' or 'add', got ${String(mode)}`);
  }
  if (typeof text !== 'string') throw new TypeError('parseBvh: text must be a string');

  const fail: BvhFail = (line, reason) => { throw new BvhError(file, line, reason); };
  const sc = new BvhScanner(text);
  const hierarchy = parseBvhHierarchy(sc, fail);
  const header = parseBvhMotionHeader(sc, fail);
  const layout = bvhChannelLayout(hierarchy.channelCodes);
  const poses = parseBvhFrames(sc, fail, hierarchy, layout, header, mode === 'add');

  const length = bodyLength(hierarchy);
  const detected = scaleOpt === 'auto' ? unitForBodyLength(length) : null;
  const detectedUnit: BvhUnit | 'given' = detected ? detected.unit : 'given';
  const scale = detected ? detected.scale : scaleOpt as number;
  const offsets = Float64Array.from(hierarchy.offsets);
  scaleToMetres(scale, poses, offsets, hierarchy.endSiteOffsets);

  const skeleton = skeletonOf(hierarchy, offsets, fail);
  const clip: Clip = {
    name: options.file !== undefined ? bvhClipName(options.file) : 'untitled',
    source: file,
    fps: header.fps,
    frameCount: header.frames,
    rotations: poses.rotations,
    translations: poses.translations,
    loop: false,
    tags: [],
  };
  return { skeleton, clip, scale, detectedUnit, bodyLength: length * scale, frameTime: header.frameTime, channels: jointChannels(hierarchy, layout), channelCount: layout.total };
}

/** The validated Skeleton of a hierarchy, with offsets already in metres. */
function skeletonOf(h: BvhHierarchy, offsets: Float64Array, fail: BvhFail): Skeleton {
  const skeleton: Skeleton = {
    names: h.names,
    parents: Int32Array.from(h.parents),
    offsets,
    endSiteParents: Int32Array.from(h.endSiteParents),
    endSiteOffsets: Float64Array.from(h.endSiteOffsets),
  };
  try {
    validateSkeleton(skeleton);
  } catch (e) {
    fail(1, `invalid skeleton: ${(e as Error).message}`);
  }
  return skeleton;
}

function jointChannels(h: BvhHierarchy, layout: BvhChannelLayout): BvhJointChannels[] {
  return h.channelCodes.map((codes, j) => ({
    names: codes.map((c) => BVH_CHANNEL_NAMES[c]),
    firstValue: layout.first[j],
    rotationOrder: codes.filter((c) => c >= 3).map((c) => 'XYZ'[c - 3]).join(''),
    hasPosition: codes.some((c) => c < 3),
  }));
}
