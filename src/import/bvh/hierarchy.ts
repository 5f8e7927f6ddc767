/**
 * The HIERARCHY section of a BVH file: joints, their OFFSETs and CHANNELS, and End Sites.
 *
 * The reader is iterative (an explicit stack of open joints), so a 20,000-deep chain parses
 * without recursion, and every malformed construct ends in a message naming the line and what
 * was expected there.
 */
import { type BvhFail, type BvhScanner, BVH_CHANNEL_NAMES, STRUCTURAL_KEYWORDS, quoteToken as q } from './tokens.js';

/** Values whose magnitude exceeds this are rejected as corrupt (keeps every pose finite). */
export const BVH_MAX_ABS_VALUE = 1e10;

/** The skeleton as declared in the file, in file units, joints in file (parents-first) order. */
export interface BvhHierarchy {
  names: string[];
  /** Parent index per joint, -1 for the root. */
  parents: number[];
  /** Rest OFFSET per joint, 3 values each. */
  offsets: number[];
  /** Channel codes (see BVH_CHANNEL_NAMES) per joint, in listed order. */
  channelCodes: number[][];
  endSiteParents: number[];
  /** End-site OFFSETs, 3 values each. */
  endSiteOffsets: number[];
}

/**
 * Reads "HIERARCHY ROOT <name> { ... }" from the scanner's position; leaves the scanner on the
 * root's closing '}'.
 */
export function parseBvhHierarchy(sc: BvhScanner, fail: BvhFail): BvhHierarchy {
  readHierarchyHeader(sc, fail);
  return new HierarchyReader(sc, fail).read();
}

/** The 'HIERARCHY' keyword and the 'ROOT' that must follow it. */
function readHierarchyHeader(sc: BvhScanner, fail: BvhFail): void {
  if (!sc.next()) fail(sc.line, sc.len === 0 ? 'file is empty' : 'file contains only whitespace (empty BVH)');
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
}

/** State of the joint blocks read so far; one method per construct of the grammar. */
class HierarchyReader {
  private readonly h: BvhHierarchy = { names: [], parents: [], offsets: [], channelCodes: [], endSiteParents: [], endSiteOffsets: [] };
  private readonly declLine: number[] = [];
  private readonly hasOffset: boolean[] = [];
  private readonly hasChannels: boolean[] = [];
  private readonly hasChild: boolean[] = [];
  private readonly firstLineOf = new Map<string, number>();
  /** Joints whose block is open, innermost last. */
  private readonly stack: number[] = [];
  /** The values of the OFFSET read last. */
  private readonly off3 = [0, 0, 0];

  constructor(private readonly sc: BvhScanner, private readonly fail: BvhFail) {}

  /** Reads the root block (the scanner stands on ROOT) with every joint nested in it. */
  read(): BvhHierarchy {
    const { sc, fail, h } = this;
    this.beginJoint(-1);
    while (this.stack.length > 0) {
      const j = this.stack[this.stack.length - 1];
      const who = `joint ${q(h.names[j])}`;
      if (!sc.next()) fail(sc.lastLine, `unexpected end of file: ${who} (line ${this.declLine[j]}) is missing its closing '}'`);
      const kw = sc.lower();
      if (kw === 'offset') {
        if (this.hasOffset[j]) fail(sc.tokLine, `duplicate OFFSET in ${who}`);
        if (this.hasChild[j]) fail(sc.tokLine, `OFFSET of ${who} must come before its child joints`);
        this.readOffset(who);
        h.offsets[3 * j] = this.off3[0]; h.offsets[3 * j + 1] = this.off3[1]; h.offsets[3 * j + 2] = this.off3[2];
        this.hasOffset[j] = true;
      } else if (kw === 'channels') {
        if (this.hasChannels[j]) fail(sc.tokLine, `duplicate CHANNELS in ${who}`);
        if (this.hasChild[j]) fail(sc.tokLine, `CHANNELS of ${who} must come before its child joints`);
        this.readChannels(j);
        this.hasChannels[j] = true;
      } else if (kw === 'joint' || kw === 'end') {
        if (!this.hasOffset[j]) fail(sc.tokLine, `${who} (line ${this.declLine[j]}) has no OFFSET before its children`);
        this.hasChild[j] = true;
        if (kw === 'joint') this.beginJoint(j); else this.readEndSite(j);
      } else if (kw === '}') {
        if (!this.hasOffset[j]) fail(sc.tokLine, `${who} (line ${this.declLine[j]}) has no OFFSET`);
        this.stack.pop();
      } else if (kw === 'motion') {
        fail(sc.tokLine, `MOTION before the hierarchy is complete: ${who} (line ${this.declLine[j]}) is missing its closing '}'`);
      } else if (kw === 'root') {
        fail(sc.tokLine, `unexpected ROOT inside ${who}: only one ROOT is supported (missing '}'?)`);
      } else {
        fail(sc.tokLine, `unexpected ${q(sc.tok())} in ${who}: expected OFFSET, CHANNELS, JOINT, End Site or '}'`);
      }
    }
    return h;
  }

  /** "ROOT|JOINT <name words...> {": opens the joint's block. */
  private beginJoint(parent: number): void {
    const { sc, fail, h } = this;
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
    const prev = this.firstLineOf.get(name);
    if (prev !== undefined) fail(line, `duplicate joint name ${q(name)} (first declared on line ${prev}): joint names must be unique`);
    if (!sc.next()) fail(line, `unexpected end of file: expected '{' after ${keyword} ${name}`);
    if (sc.tok() !== '{') fail(sc.tokLine, `expected '{' after '${keyword} ${name}', found ${q(sc.tok())}`);
    this.firstLineOf.set(name, line);
    h.names.push(name); h.parents.push(parent); h.offsets.push(0, 0, 0); h.channelCodes.push([]);
    this.declLine.push(line); this.hasOffset.push(false); this.hasChannels.push(false); this.hasChild.push(false);
    this.stack.push(h.names.length - 1);
  }

  /** The 3 values after an OFFSET keyword, into off3. */
  private readOffset(what: string): void {
    const { sc, fail } = this;
    const line = sc.tokLine;
    for (let i = 0; i < 3; i++) {
      const m = sc.mark();
      if (!sc.next()) fail(line, `OFFSET of ${what} needs 3 values, found ${i} (unexpected end of file)`);
      const v = sc.number();
      if (Number.isNaN(v)) {
        if (sc.tokLine !== line || STRUCTURAL_KEYWORDS.has(sc.lower())) { sc.reset(m); fail(line, `OFFSET of ${what} needs 3 values, found ${i}`); }
        fail(sc.tokLine, `invalid OFFSET value ${q(sc.tok())} in ${what}: not a number`);
      }
      if (!(Math.abs(v) <= BVH_MAX_ABS_VALUE)) fail(sc.tokLine, `OFFSET value ${q(sc.tok())} in ${what} is not finite or out of range (|value| > ${BVH_MAX_ABS_VALUE})`);
      this.off3[i] = v;
    }
    const m = sc.mark();
    if (sc.next() && !Number.isNaN(sc.number())) fail(sc.tokLine, `OFFSET of ${what} has more than 3 values (extra value ${q(sc.tok())})`);
    sc.reset(m);
  }

  /** "CHANNELS <count> <names...>" of joint j. */
  private readChannels(j: number): void {
    const { sc, fail } = this;
    const line = sc.tokLine;
    const who = `joint ${q(this.h.names[j])}`;
    if (!sc.next()) fail(line, `CHANNELS of ${who} has no count (unexpected end of file)`);
    if (sc.channel() >= 0) fail(line, `CHANNELS of ${who} needs a channel count before the names, found ${q(sc.tok())}`);
    const countTok = sc.tok();
    if (sc.tokLine !== line || !/^[0-9]{1,3}$/.test(sc.end - sc.start > 3 ? 'xxxx' : countTok)) {
      fail(sc.tokLine, `invalid CHANNELS count ${q(countTok)} in ${who}: expected a whole number from 0 to 6`);
    }
    const n = parseInt(countTok, 10);
    if (n > 6) fail(line, `CHANNELS count ${n} in ${who} is more than 6 (at most one each of X/Y/Z position and rotation)`);
    const codes = this.h.channelCodes[j];
    for (let i = 0; i < n; i++) {
      const m = sc.mark();
      if (!sc.next()) fail(line, `CHANNELS of ${who} declares ${n} channels but lists ${i} (unexpected end of file)`);
      const code = sc.channel();
      if (code < 0) {
        if (sc.tokLine !== line || STRUCTURAL_KEYWORDS.has(sc.lower())) { sc.reset(m); fail(line, `CHANNELS of ${who} declares ${n} channels but lists ${i}`); }
        fail(sc.tokLine, `unknown channel name ${q(sc.tok())} in ${who}: expected Xposition, Yposition, Zposition, Xrotation, Yrotation or Zrotation`);
      }
      if (codes.includes(code)) fail(sc.tokLine, `duplicate channel ${BVH_CHANNEL_NAMES[code]} in ${who}`);
      codes.push(code);
    }
    const m = sc.mark();
    if (sc.next() && (sc.channel() >= 0 || (sc.tokLine === line && !sc.isBrace()))) {
      fail(line, `CHANNELS of ${who} declares ${n} channels but lists more (${q(sc.tok())})`);
    }
    sc.reset(m);
  }

  /** "End Site { OFFSET x y z }" below joint j. */
  private readEndSite(j: number): void {
    const { sc, fail, h } = this;
    const line = sc.tokLine;
    // "End Site" (any case); other words on the same line ("End Site LeftToe") are ignored.
    for (;;) {
      const m = sc.mark();
      if (!sc.next() || sc.tokLine !== line || sc.isBrace()) { sc.reset(m); break; }
    }
    if (!sc.next()) fail(line, "unexpected end of file: expected '{' after End Site");
    if (sc.tok() !== '{') fail(sc.tokLine, `expected '{' after End Site, found ${q(sc.tok())}`);
    let got = false;
    const what = `the End Site of joint ${q(h.names[j])}`;
    for (;;) {
      if (!sc.next()) fail(sc.lastLine, `unexpected end of file: End Site (line ${line}) is missing its closing '}'`);
      const k = sc.lower();
      if (k === 'offset') {
        if (got) fail(sc.tokLine, `duplicate OFFSET in ${what}`);
        this.readOffset(what);
        h.endSiteParents.push(j); h.endSiteOffsets.push(this.off3[0], this.off3[1], this.off3[2]);
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
  }
}
