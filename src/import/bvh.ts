/**
 * BVH (Biovision Hierarchy) importer: text in, Skeleton + Clip (metres, unit quaternions) out.
 *
 * Pure: no file system access, so it runs in Node and in the browser alike (see bvh-node.ts for the
 * file helpers). The parser is a hand-written scanner over the string (charCodeAt), linear in the
 * size of the input, and every malformed input ends in a BvhError naming the file, line and reason.
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
import type { Skeleton } from '../anim/skeleton.js';
import { validateSkeleton } from '../anim/skeleton.js';
import type { Clip } from '../anim/clip.js';
import { forwardKinematics } from '../anim/pose.js';
import { quatRotateVec3 } from '../math/quat.js';
import { BvhError } from './errors.js';

export type BvhChannelName = 'Xposition' | 'Yposition' | 'Zposition' | 'Xrotation' | 'Yrotation' | 'Zrotation';

/** Channel names indexed by channel code: 0-2 position x/y/z, 3-5 rotation x/y/z. */
export const BVH_CHANNEL_NAMES: readonly BvhChannelName[] = ['Xposition', 'Yposition', 'Zposition', 'Xrotation', 'Yrotation', 'Zrotation'];

export type BvhUnit = 'm' | 'cm' | 'mm' | 'in';

/** Metres per file unit for the units that `scale: 'auto'` can detect. */
export const BVH_UNIT_SCALES: Readonly<Record<BvhUnit, number>> = { m: 1, cm: 0.01, mm: 0.001, in: 0.0254 };

/** Height (m) that unit detection aims for: the unit whose scaled skeleton extent is closest to it (in log terms) wins. */
export const BVH_REFERENCE_HEIGHT = 1.75;

export type BvhTranslationMode = 'replace' | 'add';

export interface BvhParseOptions {
  /** File name used in error messages, clip.source and (without its extension) clip.name. */
  file?: string;
  /** Metres per file unit, or 'auto' (default) to detect m / cm / mm / inches from the skeleton's height. */
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
  /** The unit chosen by 'auto', or 'given' when a numeric scale was passed. */
  detectedUnit: BvhUnit | 'given';
  /** Seconds per frame exactly as written in the file (clip.fps = 1 / frameTime, snapped; see snapFrameRate). */
  frameTime: number;
  /** Per joint (skeleton order, which is file order), its channels. */
  channels: BvhJointChannels[];
  /** Values per frame (sum of all joints' channel counts). */
  channelCount: number;
}

/** Values whose magnitude exceeds this are rejected as corrupt (keeps every pose finite). */
export const BVH_MAX_ABS_VALUE = 1e10;

/** Upper bound on frames * joints of one clip (2^25: about 1.9 GB of pose arrays). */
const MAX_JOINT_FRAMES = 1 << 25;

const DEG_TO_HALF_RAD = Math.PI / 360;

// ---------------------------------------------------------------------------------------------
// Numbers

const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
const MAX_EXACT_INT = 9007199254740991;

/**
 * Parses text[s, e) as a decimal number: optional sign, digits with an optional fraction (at least one
 * digit in all), optional exponent. Returns NaN for anything else ("abc", "1.2.3", "nan", "inf",
 * "1e"), and +-Infinity on overflow. Exact: values with up to 15-16 significant digits take the
 * correctly rounded fast path (integer mantissa times or over an exact power of ten); the rest go
 * through Number(), which is correctly rounded too.
 */
export function parseBvhNumber(t: string, s: number, e: number): number {
  let i = s;
  if (i >= e) return NaN;
  let c = t.charCodeAt(i);
  let neg = false;
  if (c === 45) { neg = true; i++; } else if (c === 43) i++;
  const bodyStart = i;
  let mant = 0, digits = 0, frac = 0;
  while (i < e) {
    c = t.charCodeAt(i) - 48;
    if (c < 0 || c > 9) break;
    mant = mant * 10 + c; digits++; i++;
  }
  if (i < e && t.charCodeAt(i) === 46) {
    i++;
    while (i < e) {
      c = t.charCodeAt(i) - 48;
      if (c < 0 || c > 9) break;
      mant = mant * 10 + c; digits++; frac++; i++;
    }
  }
  if (digits === 0) return NaN;
  let exp = 0;
  if (i < e) {
    c = t.charCodeAt(i);
    if (c !== 101 && c !== 69) return NaN;
    i++;
    let eneg = false;
    if (i < e) {
      c = t.charCodeAt(i);
      if (c === 45) { eneg = true; i++; } else if (c === 43) i++;
    }
    let ed = 0;
    while (i < e) {
      c = t.charCodeAt(i) - 48;
      if (c < 0 || c > 9) break;
      if (exp < 1e6) exp = exp * 10 + c;
      ed++; i++;
    }
    if (ed === 0 || i !== e) return NaN;
    if (eneg) exp = -exp;
  }
  const e10 = exp - frac;
  let v: number;
  if (mant <= MAX_EXACT_INT && e10 >= -22 && e10 <= 22) v = e10 < 0 ? mant / POW10[-e10] : mant * POW10[e10];
  else v = Number(t.slice(bodyStart, e));
  return neg ? -v : v;
}

// ---------------------------------------------------------------------------------------------
// Scanner

function isWs(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 160 || c === 0xfeff;
}

/** Quote a token for a message, shortened so that a pathological 50 MB token stays readable. */
function q(s: string): string {
  return `'${s.length > 40 ? s.slice(0, 37) + '...' : s}'`;
}

/**
 * Whitespace-separated tokens with line tracking (LF, CR and CRLF each end one line). In the
 * hierarchy, '{' and '}' are tokens of their own even when glued to a word.
 */
class Scanner {
  readonly text: string;
  readonly len: number;
  pos = 0;
  line = 1;
  start = 0;
  end = 0;
  tokLine = 1;
  /** Line of the last token read (for end-of-file messages). */
  lastLine = 1;

  constructor(text: string) {
    this.text = text;
    this.len = text.length;
  }

  skipWs(): void {
    const t = this.text, n = this.len;
    let p = this.pos, line = this.line;
    while (p < n) {
      const c = t.charCodeAt(p);
      if (c === 10) { line++; p++; } else if (c === 13) {
        line++; p++;
        if (p < n && t.charCodeAt(p) === 10) p++;
      } else if (c === 32 || c === 9 || c === 11 || c === 12 || c === 160 || c === 0xfeff) p++;
      else break;
    }
    this.pos = p; this.line = line;
  }

  /** Advances to the next token; false at end of input. */
  next(): boolean {
    this.skipWs();
    const t = this.text, n = this.len;
    let p = this.pos;
    if (p >= n) { this.start = this.end = n; this.tokLine = this.line; return false; }
    this.start = p;
    this.tokLine = this.line;
    let c = t.charCodeAt(p);
    if (c === 123 || c === 125) p++;
    else {
      while (p < n) {
        c = t.charCodeAt(p);
        if (isWs(c) || c === 123 || c === 125) break;
        p++;
      }
    }
    this.end = this.pos = p;
    this.lastLine = this.tokLine;
    return true;
  }

  tok(): string {
    return this.text.slice(this.start, this.end);
  }

  /** Lower-cased token for keyword tests ("" for long tokens, which are never keywords). */
  lower(): string {
    return this.end - this.start > 16 ? '' : this.tok().toLowerCase();
  }

  isBrace(): boolean {
    if (this.end - this.start !== 1) return false;
    const c = this.text.charCodeAt(this.start);
    return c === 123 || c === 125;
  }

  number(): number {
    return parseBvhNumber(this.text, this.start, this.end);
  }

  mark(): number[] {
    return [this.pos, this.line, this.start, this.end, this.tokLine, this.lastLine];
  }

  reset(m: number[]): void {
    this.pos = m[0]; this.line = m[1]; this.start = m[2]; this.end = m[3]; this.tokLine = m[4]; this.lastLine = m[5];
  }
}

const STRUCTURAL = new Set(['{', '}', 'hierarchy', 'root', 'joint', 'end', 'offset', 'channels', 'motion', 'frames:', 'frames', 'frame']);

const JOINT_KEYWORDS = new Set(['{', '}', 'root', 'joint', 'end', 'site', 'offset', 'channels']);

/** Channel code 0-5 of a channel name (case-insensitive), or -1. */
function channelCode(t: string, s: number, e: number): number {
  if (e - s !== 9) return -1;
  const axis = t.charCodeAt(s) | 0x20;
  const a = axis === 120 ? 0 : axis === 121 ? 1 : axis === 122 ? 2 : -1;
  if (a < 0) return -1;
  const rest = t.slice(s + 1, e).toLowerCase();
  if (rest === 'position') return a;
  if (rest === 'rotation') return 3 + a;
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Parser

/** File name without folders and extension ("a/b/walk_01.bvh" -> "walk_01"). */
export function bvhClipName(file: string): string {
  const base = file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

/**
 * Parses BVH text. Throws BvhError for malformed input (never another error type for any string
 * input); throws RangeError for invalid options.
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

  const fail = (line: number, reason: string): never => { throw new BvhError(file, line, reason); };
  const sc = new Scanner(text);

  // --- HIERARCHY / ROOT
  if (!sc.next()) fail(sc.line, text.length === 0 ? 'file is empty' : 'file contains only whitespace (empty BVH)');
  let kw = sc.lower();
  if (kw !== 'hierarchy') {
    if (kw === 'root') fail(sc.tokLine, "missing HIERARCHY: a BVH file must start with 'HIERARCHY' before ROOT");
    fail(sc.tokLine, `missing HIERARCHY: expected 'HIERARCHY' at the start of a BVH file, found ${q(sc.tok())}`);
  }
  if (!sc.next()) fail(sc.lastLine, 'missing ROOT: the file ends after HIERARCHY');
  kw = sc.lower();
  if (kw !== 'root') {
    if (kw === 'motion') fail(sc.tokLine, 'missing ROOT: HIERARCHY declares no joints before MOTION');
    if (kw === 'joint') fail(sc.tokLine, "missing ROOT: the hierarchy must start with 'ROOT <name>', found JOINT");
    fail(sc.tokLine, `missing ROOT: expected 'ROOT <name>' after HIERARCHY, found ${q(sc.tok())}`);
  }

  const names: string[] = [];
  const parents: number[] = [];
  const offsets: number[] = [];
  const declLine: number[] = [];
  const chans: number[][] = [];
  const hasOffset: boolean[] = [];
  const hasChannels: boolean[] = [];
  const hasChild: boolean[] = [];
  const firstLineOf = new Map<string, number>();
  const endSiteParents: number[] = [];
  const endSiteOffsets: number[] = [];
  const stack: number[] = [];
  const off3 = [0, 0, 0];

  const beginJoint = (parent: number): void => {
    const line = sc.tokLine;
    const keyword = sc.tok().toUpperCase();
    const parts: string[] = [];
    for (;;) {
      const m = sc.mark();
      if (!sc.next() || sc.tokLine !== line || sc.isBrace()) { sc.reset(m); break; }
      parts.push(sc.tok());
    }
    if (parts.length === 0) fail(line, `${keyword} without a joint name`);
    const name = parts.join(' ');
    const prev = firstLineOf.get(name);
    if (prev !== undefined) fail(line, `duplicate joint name ${q(name)} (first declared on line ${prev}): joint names must be unique`);
    if (!sc.next()) fail(line, `unexpected end of file: expected '{' after ${keyword} ${name}`);
    if (sc.tok() !== '{') fail(sc.tokLine, `expected '{' after '${keyword} ${name}', found ${q(sc.tok())}`);
    firstLineOf.set(name, line);
    names.push(name); parents.push(parent); offsets.push(0, 0, 0); declLine.push(line); chans.push([]);
    hasOffset.push(false); hasChannels.push(false); hasChild.push(false);
    stack.push(names.length - 1);
  };

  /** Reads the 3 values after an OFFSET keyword into off3. */
  const readOffset = (what: string): void => {
    const line = sc.tokLine;
    for (let i = 0; i < 3; i++) {
      const m = sc.mark();
      if (!sc.next()) fail(line, `OFFSET of ${what} needs 3 values, found ${i} (unexpected end of file)`);
      const v = sc.number();
      if (Number.isNaN(v)) {
        if (sc.tokLine !== line || STRUCTURAL.has(sc.lower())) { sc.reset(m); fail(line, `OFFSET of ${what} needs 3 values, found ${i}`); }
        fail(sc.tokLine, `invalid OFFSET value ${q(sc.tok())} in ${what}: not a number`);
      }
      if (!(Math.abs(v) <= BVH_MAX_ABS_VALUE)) fail(sc.tokLine, `OFFSET value ${q(sc.tok())} in ${what} is not finite or out of range (|value| > ${BVH_MAX_ABS_VALUE})`);
      off3[i] = v;
    }
    const m = sc.mark();
    if (sc.next() && !Number.isNaN(sc.number())) fail(sc.tokLine, `OFFSET of ${what} has more than 3 values (extra value ${q(sc.tok())})`);
    sc.reset(m);
  };

  const readChannels = (j: number): void => {
    const line = sc.tokLine;
    const who = `joint ${q(names[j])}`;
    if (!sc.next()) fail(line, `CHANNELS of ${who} has no count (unexpected end of file)`);
    if (channelCode(sc.text, sc.start, sc.end) >= 0) fail(line, `CHANNELS of ${who} needs a channel count before the names, found ${q(sc.tok())}`);
    const countTok = sc.tok();
    if (sc.tokLine !== line || !/^[0-9]{1,3}$/.test(sc.end - sc.start > 3 ? 'xxxx' : countTok)) {
      fail(sc.tokLine, `invalid CHANNELS count ${q(countTok)} in ${who}: expected a whole number from 0 to 6`);
    }
    const n = parseInt(countTok, 10);
    if (n > 6) fail(line, `CHANNELS count ${n} in ${who} is more than 6 (at most one each of X/Y/Z position and rotation)`);
    const codes = chans[j];
    for (let i = 0; i < n; i++) {
      const m = sc.mark();
      if (!sc.next()) fail(line, `CHANNELS of ${who} declares ${n} channels but lists ${i} (unexpected end of file)`);
      const code = channelCode(sc.text, sc.start, sc.end);
      if (code < 0) {
        if (sc.tokLine !== line || STRUCTURAL.has(sc.lower())) { sc.reset(m); fail(line, `CHANNELS of ${who} declares ${n} channels but lists ${i}`); }
        fail(sc.tokLine, `unknown channel name ${q(sc.tok())} in ${who}: expected Xposition, Yposition, Zposition, Xrotation, Yrotation or Zrotation`);
      }
      if (codes.includes(code)) fail(sc.tokLine, `duplicate channel ${BVH_CHANNEL_NAMES[code]} in ${who}`);
      codes.push(code);
    }
    const m = sc.mark();
    if (sc.next() && (channelCode(sc.text, sc.start, sc.end) >= 0 || (sc.tokLine === line && !sc.isBrace()))) {
      fail(line, `CHANNELS of ${who} declares ${n} channels but lists more (${q(sc.tok())})`);
    }
    sc.reset(m);
  };

  const readEndSite = (j: number): void => {
    const line = sc.tokLine;
    // "End Site" (any case); other words on the same line ("End Site LeftToe") are ignored.
    for (;;) {
      const m = sc.mark();
      if (!sc.next() || sc.tokLine !== line || sc.isBrace()) { sc.reset(m); break; }
    }
    if (!sc.next()) fail(line, "unexpected end of file: expected '{' after End Site");
    if (sc.tok() !== '{') fail(sc.tokLine, `expected '{' after End Site, found ${q(sc.tok())}`);
    let got = false;
    const what = `the End Site of joint ${q(names[j])}`;
    for (;;) {
      if (!sc.next()) fail(sc.lastLine, `unexpected end of file: End Site (line ${line}) is missing its closing '}'`);
      const k = sc.lower();
      if (k === 'offset') {
        if (got) fail(sc.tokLine, `duplicate OFFSET in ${what}`);
        readOffset(what);
        endSiteParents.push(j); endSiteOffsets.push(off3[0], off3[1], off3[2]);
        got = true;
      } else if (k === '}') {
        if (!got) fail(sc.tokLine, `End Site without OFFSET (${what}, line ${line})`);
        return;
      } else if (k === 'channels') {
        fail(sc.tokLine, `End Site cannot have CHANNELS (${what})`);
      } else if (k === 'joint' || k === 'end' || k === 'motion' || k === 'root') {
        fail(sc.tokLine, `unexpected ${q(sc.tok())} inside ${what} (line ${line}): End Site is missing its closing '}'`);
      } else {
        fail(sc.tokLine, `unexpected ${q(sc.tok())} in ${what}: expected OFFSET or '}'`);
      }
    }
  };

  beginJoint(-1);
  while (stack.length > 0) {
    const j = stack[stack.length - 1];
    const who = `joint ${q(names[j])}`;
    if (!sc.next()) fail(sc.lastLine, `unexpected end of file: ${who} (line ${declLine[j]}) is missing its closing '}'`);
    kw = sc.lower();
    if (kw === 'offset') {
      if (hasOffset[j]) fail(sc.tokLine, `duplicate OFFSET in ${who}`);
      if (hasChild[j]) fail(sc.tokLine, `OFFSET of ${who} must come before its child joints`);
      readOffset(who);
      offsets[3 * j] = off3[0]; offsets[3 * j + 1] = off3[1]; offsets[3 * j + 2] = off3[2];
      hasOffset[j] = true;
    } else if (kw === 'channels') {
      if (hasChannels[j]) fail(sc.tokLine, `duplicate CHANNELS in ${who}`);
      if (hasChild[j]) fail(sc.tokLine, `CHANNELS of ${who} must come before its child joints`);
      readChannels(j);
      hasChannels[j] = true;
    } else if (kw === 'joint' || kw === 'end') {
      if (!hasOffset[j]) fail(sc.tokLine, `${who} (line ${declLine[j]}) has no OFFSET before its children`);
      hasChild[j] = true;
      if (kw === 'joint') beginJoint(j); else readEndSite(j);
    } else if (kw === '}') {
      if (!hasOffset[j]) fail(sc.tokLine, `${who} (line ${declLine[j]}) has no OFFSET`);
      stack.pop();
    } else if (kw === 'motion') {
      fail(sc.tokLine, `MOTION before the hierarchy is complete: ${who} (line ${declLine[j]}) is missing its closing '}'`);
    } else if (kw === 'root') {
      fail(sc.tokLine, `unexpected ROOT inside ${who}: only one ROOT is supported (missing '}'?)`);
    } else {
      fail(sc.tokLine, `unexpected ${q(sc.tok())} in ${who}: expected OFFSET, CHANNELS, JOINT, End Site or '}'`);
    }
  }

  // --- MOTION
  if (!sc.next()) fail(sc.lastLine, 'missing MOTION section: the file ends after the hierarchy');
  kw = sc.lower();
  if (kw !== 'motion') {
    if (kw === '}') fail(sc.tokLine, "unbalanced '}': no joint is open here (extra '}')");
    if (kw === 'root') fail(sc.tokLine, 'a second ROOT is not supported: only one skeleton per file');
    if (kw === 'joint' || kw === 'end' || kw === 'offset' || kw === 'channels') {
      fail(sc.tokLine, `${q(sc.tok())} outside the ROOT block: an extra '}' closed the root early?`);
    }
    fail(sc.tokLine, `missing MOTION: expected 'MOTION' after the hierarchy, found ${q(sc.tok())}`);
  }
  const motionLine = sc.tokLine;

  const frames = readHeader(sc, 'frames', motionLine, fail, (vs, ve, line): number => {
    const s = text.slice(vs, Math.min(ve, vs + 40));
    if (ve - vs > 15 || !/^[0-9]+$/.test(s)) fail(line, `invalid frame count ${q(text.slice(vs, ve))} in 'Frames:': expected a whole number >= 1`);
    const n = parseInt(s, 10);
    if (n < 1) fail(line, "'Frames: 0': the file must contain at least one frame");
    return n;
  });
  const framesLine = sc.lastLine;
  const frameTime = readHeader(sc, 'frametime', framesLine, fail, (vs, ve, line): number => {
    const v = parseBvhNumber(text, vs, ve);
    if (!(v > 0 && v < Infinity && 1 / v < Infinity)) fail(line, `invalid frame time ${q(text.slice(vs, ve))} in 'Frame Time:': expected a positive, finite number of seconds`);
    return v;
  });
  const frameTimeLine = sc.lastLine;

  // --- channel layout
  const J = names.length;
  const chFirst = new Int32Array(J);
  const chCount = new Int32Array(J);
  let C = 0;
  for (let j = 0; j < J; j++) { chFirst[j] = C; chCount[j] = chans[j].length; C += chans[j].length; }
  const chType = new Uint8Array(C);
  const chJoint = new Int32Array(C);
  for (let j = 0; j < J; j++) for (let i = 0; i < chans[j].length; i++) { chType[chFirst[j] + i] = chans[j][i]; chJoint[chFirst[j] + i] = j; }
  const describeChannel = (k: number): string => `${names[chJoint[k]]} ${BVH_CHANNEL_NAMES[chType[k]]}`;

  // A file of L remaining characters holds at most (L + 1) / 2 values. When that cannot fill the
  // declared frames the file is bound to fail ("fewer frames than declared"): the values are then
  // only counted, so a huge declared frame count never makes us allocate a huge clip.
  const countOnly = C > 0 && frames > Math.floor((text.length - sc.pos + 1) / 2 / C);
  if (!countOnly && frames * J > MAX_JOINT_FRAMES) {
    fail(framesLine, `file too large: ${frames} frames of ${J} joints exceed the importer's limit of ${MAX_JOINT_FRAMES} joint-frames`);
  }
  const capacity = countOnly ? 0 : frames;
  let rotations: Float64Array, translations: Float64Array;
  try {
    rotations = new Float64Array(capacity * J * 4);
    translations = new Float64Array(capacity * J * 3);
  } catch {
    return fail(framesLine, `cannot allocate memory for ${capacity} frames of ${J} joints`);
  }

  const off = Float64Array.from(offsets);
  const add = mode === 'add';
  const vals = new Float64Array(Math.max(C, 1));

  const convertFrame = (f: number): void => {
    const rb = f * J * 4, pb = f * J * 3;
    for (let j = 0; j < J; j++) {
      const o3 = 3 * j;
      let tx = off[o3], ty = off[o3 + 1], tz = off[o3 + 2];
      let qx = 0, qy = 0, qz = 0, qw = 1;
      const c0 = chFirst[j], c1 = c0 + chCount[j];
      for (let ci = c0; ci < c1; ci++) {
        const v = vals[ci];
        const type = chType[ci];
        if (type < 3) {
          if (type === 0) tx = add ? off[o3] + v : v;
          else if (type === 1) ty = add ? off[o3 + 1] + v : v;
          else tz = add ? off[o3 + 2] + v : v;
          continue;
        }
        const h = v * DEG_TO_HALF_RAD;
        const s = Math.sin(h), c = Math.cos(h);
        // q = q * axisQuat(s, c): the rotation channels multiply in listed order.
        let nx: number, ny: number, nz: number, nw: number;
        if (type === 3) { nx = qw * s + qx * c; ny = qy * c + qz * s; nz = qz * c - qy * s; nw = qw * c - qx * s; } else if (type === 4) { nx = qx * c - qz * s; ny = qw * s + qy * c; nz = qx * s + qz * c; nw = qw * c - qy * s; } else { nx = qx * c + qy * s; ny = qy * c - qx * s; nz = qw * s + qz * c; nw = qw * c - qz * s; }
        qx = nx; qy = ny; qz = nz; qw = nw;
      }
      const inv = 1 / Math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
      const r = rb + 4 * j;
      rotations[r] = qx * inv; rotations[r + 1] = qy * inv; rotations[r + 2] = qz * inv; rotations[r + 3] = qw * inv;
      const p = pb + o3;
      translations[p] = tx; translations[p + 1] = ty; translations[p + 2] = tz;
    }
  };

  // --- motion values: a stream of numbers; frames may wrap across lines.
  // Layout check: when the first or second data line holds exactly C values the file is taken to
  // have one frame per line, and every line must then hold exactly C values (precise per-frame
  // errors); otherwise values are only counted as a stream.
  const n = text.length;
  let p = sc.pos, ln = sc.line;
  let lastLine = frameTimeLine;
  let frame = 0, k = 0, onLine = 0;
  const lineMode = C > 0 && firstLineCounts(text, p).includes(C);
  if (C === 0) {
    sc.pos = p; sc.line = ln;
    if (sc.next()) fail(sc.tokLine, `unexpected motion data ${q(sc.tok())}: the hierarchy declares no channels`);
    for (let f = 0; f < frames; f++) convertFrame(f);
    frame = frames;
  } else {
    for (;;) {
      while (p < n) {
        const c = text.charCodeAt(p);
        if (c === 10 || c === 13) {
          if (lineMode && onLine !== 0 && onLine !== C) {
            fail(ln, `frame ${frame + 1} on line ${ln} has ${onLine} values, expected ${C} (the total channel count of the hierarchy)`);
          }
          onLine = 0;
          ln++; p++;
          if (c === 13 && p < n && text.charCodeAt(p) === 10) p++;
        } else if (c === 32 || c === 9 || c === 11 || c === 12 || c === 160 || c === 0xfeff) p++;
        else break;
      }
      if (p >= n) break;
      const s = p;
      while (p < n) {
        const c = text.charCodeAt(p);
        if (c > 32 ? c === 160 || c === 0xfeff : c === 32 || (c >= 9 && c <= 13)) break;
        p++;
      }
      const v = parseBvhNumber(text, s, p);
      if (!(v >= -BVH_MAX_ABS_VALUE && v <= BVH_MAX_ABS_VALUE)) {
        const tok = text.slice(s, Math.min(p, s + 41));
        const lower = tok.toLowerCase();
        if (JOINT_KEYWORDS.has(lower)) fail(ln, `unexpected ${q(tok)} in the motion data: joints must be declared in the HIERARCHY, before MOTION`);
        if (STRUCTURAL.has(lower)) fail(ln, `unexpected ${q(tok)} in the motion data: only one HIERARCHY and one MOTION section are supported`);
        const what = Number.isNaN(v) ? 'non-numeric' : 'non-finite or out-of-range';
        fail(ln, `${what} motion value ${q(tok)} at frame ${frame + 1}, channel ${k + 1} of ${C} (${describeChannel(k)})`);
      }
      if (lineMode && ++onLine > C) {
        fail(ln, `line ${ln} has more than ${C} values: each frame line must hold exactly the ${C} channel values declared in the hierarchy`);
      }
      if (frame >= frames) {
        fail(ln, `more motion data than declared: 'Frames: ${frames}' (line ${framesLine}) but values continue at line ${ln} ${q(text.slice(s, Math.min(p, s + 41)))}`);
      }
      vals[k++] = v;
      lastLine = ln;
      if (k === C) {
        if (!countOnly) convertFrame(frame);
        frame++; k = 0;
      }
    }
    if (lineMode && onLine !== 0 && onLine !== C) {
      fail(ln, `frame ${frame + 1} on line ${ln} has ${onLine} values, expected ${C} (the total channel count of the hierarchy)`);
    }
    if (frame < frames) {
      const partial = k > 0 ? ` complete frames plus ${k} of the ${C} values of frame ${frame + 1}` : '';
      fail(lastLine, `fewer frames than declared: 'Frames: ${frames}' (line ${framesLine}) but found ${frame}${partial}`);
    }
  }

  // --- units
  let scale: number;
  let detectedUnit: BvhUnit | 'given';
  if (scaleOpt === 'auto') {
    const h = standingHeight(parents, rotations, translations, endSiteParents, endSiteOffsets);
    detectedUnit = 'm';
    if (h > 0 && Number.isFinite(h)) {
      let best = Infinity;
      for (const u of ['m', 'cm', 'mm', 'in'] as const) {
        const d = Math.abs(Math.log(h * BVH_UNIT_SCALES[u] / BVH_REFERENCE_HEIGHT));
        if (d < best) { best = d; detectedUnit = u; }
      }
    }
    scale = BVH_UNIT_SCALES[detectedUnit];
  } else {
    scale = scaleOpt;
    detectedUnit = 'given';
  }
  if (scale !== 1) {
    for (let i = 0; i < translations.length; i++) translations[i] *= scale;
    for (let i = 0; i < off.length; i++) off[i] *= scale;
    for (let i = 0; i < endSiteOffsets.length; i++) endSiteOffsets[i] *= scale;
  }

  const skeleton: Skeleton = {
    names,
    parents: Int32Array.from(parents),
    offsets: off,
    endSiteParents: Int32Array.from(endSiteParents),
    endSiteOffsets: Float64Array.from(endSiteOffsets),
  };
  try {
    validateSkeleton(skeleton);
  } catch (e) {
    fail(1, `invalid skeleton: ${(e as Error).message}`);
  }
  const clip: Clip = {
    name: options.file !== undefined ? bvhClipName(options.file) : 'untitled',
    source: file,
    fps: snapFrameRate(1 / frameTime),
    frameCount: frames,
    rotations,
    translations,
    loop: false,
    tags: [],
  };
  const channels: BvhJointChannels[] = chans.map((codes, j) => ({
    names: codes.map((c) => BVH_CHANNEL_NAMES[c]),
    firstValue: chFirst[j],
    rotationOrder: codes.filter((c) => c >= 3).map((c) => 'XYZ'[c - 3]).join(''),
    hasPosition: codes.some((c) => c < 3),
  }));
  return { skeleton, clip, scale, detectedUnit, frameTime, channels, channelCount: C };
}

/**
 * Reads a header line "Frames: <n>" / "Frame Time: <s>" at the scanner's position. The label is
 * matched case-insensitively, ignoring spaces and tabs inside it ("Frames :", "FrameTime:"), and the
 * colon is optional. The value must be the last thing on the line.
 */
function readHeader(
  sc: Scanner, label: 'frames' | 'frametime', prevLine: number,
  fail: (line: number, reason: string) => never,
  value: (vs: number, ve: number, line: number) => number,
): number {
  const pretty = label === 'frames' ? "'Frames:'" : "'Frame Time:'";
  const after = label === 'frames' ? 'MOTION' : "'Frames:'";
  const t = sc.text, n = sc.len;
  sc.skipWs();
  if (sc.pos >= n) fail(prevLine, `missing ${pretty} line after ${after} (unexpected end of file)`);
  const line = sc.line;
  let p = sc.pos;
  let matched = true;
  for (let i = 0; i < label.length;) {
    if (p >= n) { matched = false; break; }
    const c = t.charCodeAt(p);
    if (i > 0 && (c === 32 || c === 9)) { p++; continue; }
    if ((c | 0x20) !== label.charCodeAt(i)) { matched = false; break; }
    i++; p++;
  }
  if (!matched) {
    sc.next();
    const tok = sc.tok();
    if (!Number.isNaN(sc.number())) fail(line, `missing ${pretty} line after ${after} (found the value ${q(tok)})`);
    if (label === 'frames' && sc.lower() === 'frame') fail(line, `missing 'Frames:' line after MOTION (found 'Frame Time:' first)`);
    fail(line, `missing ${pretty} line: expected ${label === 'frames' ? "'Frames: <count>'" : "'Frame Time: <seconds>'"} after ${after}, found ${q(tok)}`);
  }
  const isBlank = (c: number): boolean => c === 32 || c === 9 || c === 11 || c === 12 || c === 160 || c === 0xfeff;
  while (p < n && isBlank(t.charCodeAt(p))) p++;
  if (p < n && t.charCodeAt(p) === 58) p++;
  while (p < n && isBlank(t.charCodeAt(p))) p++;
  const vs = p;
  while (p < n && !isWs(t.charCodeAt(p))) p++;
  const ve = p;
  while (p < n && isBlank(t.charCodeAt(p))) p++;
  if (vs === ve) fail(line, `${pretty} has no value`);
  if (p < n && t.charCodeAt(p) !== 10 && t.charCodeAt(p) !== 13) {
    let e = p;
    while (e < n && !isWs(t.charCodeAt(e))) e++;
    fail(line, `unexpected ${q(t.slice(p, e))} after the ${pretty} value`);
  }
  const v = value(vs, ve, line);
  sc.pos = p;
  sc.lastLine = line;
  return v;
}

/** Token counts of the first two non-blank lines from p (to choose the frame-per-line layout check). */
function firstLineCounts(text: string, p: number): number[] {
  const n = text.length;
  const counts: number[] = [];
  let cnt = 0, inTok = false;
  for (; p < n && counts.length < 2; p++) {
    const c = text.charCodeAt(p);
    if (c === 10 || c === 13) {
      if (cnt > 0) counts.push(cnt);
      cnt = 0; inTok = false;
    } else if (isWs(c)) inTok = false;
    else if (!inTok) { inTok = true; cnt++; }
  }
  if (cnt > 0 && counts.length < 2) counts.push(cnt);
  return counts;
}

/**
 * Height of the standing figure in file units: the extent (max over axes of max - min) of the first
 * frame's world positions of the body's joints and end sites. The body is the subtree of the first
 * joint that branches (has several children): single-child nodes above it, such as a ground
 * "reference" root that stays at the origin while the character starts metres away (real mocap
 * exports do this), are left out. A skeleton that never branches is measured whole.
 */
function standingHeight(parents: number[], rot: Float64Array, pos: Float64Array, esParents: number[], esOffsets: number[]): number {
  const J = parents.length;
  if (J === 0 || rot.length < 4 * J) return 0;
  const childCount = new Int32Array(J);
  for (let j = 1; j < J; j++) childCount[parents[j]]++;
  for (const p of esParents) childCount[p]++;
  let body = 0;
  while (childCount[body] === 1) {
    const next = parents.indexOf(body, body + 1);
    if (next < 0) break; // the single child is an end site
    body = next;
  }
  if (childCount[body] <= 1) body = 0; // a plain chain: measure everything
  const inBody = new Uint8Array(J);
  inBody[body] = 1;
  for (let j = body + 1; j < J; j++) inBody[j] = inBody[parents[j]];

  const par = Int32Array.from(parents);
  const wr = new Float64Array(4 * J), wp = new Float64Array(3 * J);
  forwardKinematics(par, rot, 0, pos, 0, wr, wp);
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  const acc = (a: ArrayLike<number>, o: number): void => {
    for (let d = 0; d < 3; d++) { const v = a[o + d]; if (v < lo[d]) lo[d] = v; if (v > hi[d]) hi[d] = v; }
  };
  for (let j = 0; j < J; j++) if (inBody[j]) acc(wp, 3 * j);
  const tmp = new Float64Array(3);
  const eo = Float64Array.from(esOffsets);
  for (let e = 0; e < esParents.length; e++) {
    const pj = esParents[e];
    if (!inBody[pj]) continue;
    quatRotateVec3(tmp, 0, wr, 4 * pj, eo, 3 * e);
    tmp[0] += wp[3 * pj]; tmp[1] += wp[3 * pj + 1]; tmp[2] += wp[3 * pj + 2];
    acc(tmp, 0);
  }
  return Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

/**
 * Frame times are usually written rounded ("0.0333333"), which makes 1 / frameTime 30.00003: snap a
 * rate within 1e-4 (relative) of a whole number of frames per second to it, so that clips from
 * different files share one rate and nothing is resampled for a rounding artefact.
 */
export function snapFrameRate(fps: number): number {
  const whole = Math.round(fps);
  return whole > 0 && Math.abs(fps - whole) <= 1e-4 * whole ? whole : fps;
}
