/**
 * The lexical layer of the BVH importer: numbers, whitespace, keywords, channel names and a
 * token scanner with line tracking. Everything here works on the text by index (charCodeAt) and
 * allocates nothing per token, so a 50 MB file scans in linear time.
 */

export type BvhChannelName = 'Xposition' | 'Yposition' | 'Zposition' | 'Xrotation' | 'Yrotation' | 'Zrotation';

/** Channel names indexed by channel code: 0-2 position x/y/z, 3-5 rotation x/y/z. */
export const BVH_CHANNEL_NAMES: readonly BvhChannelName[] = ['Xposition', 'Yposition', 'Zposition', 'Xrotation', 'Yrotation', 'Zrotation'];

/** Reports a malformed file at a 1-based line; never returns (throws a BvhError naming the file). */
export type BvhFail = (line: number, reason: string) => never;

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
// Characters and words

/** Any whitespace, line breaks included (ASCII blanks, no-break space, byte-order mark). */
export function isBvhSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 160 || c === 0xfeff;
}

/** Whitespace that does not end a line. */
export function isBvhBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 11 || c === 12 || c === 160 || c === 0xfeff;
}

/** Quote a token for a message, shortened so that a pathological 50 MB token stays readable. */
export function quoteToken(s: string): string {
  return `'${s.length > 40 ? s.slice(0, 37) + '...' : s}'`;
}

/** Lower-cased keywords that end a list of values (OFFSET numbers, CHANNELS names, motion data). */
export const STRUCTURAL_KEYWORDS: ReadonlySet<string> = new Set(['{', '}', 'hierarchy', 'root', 'joint', 'end', 'offset', 'channels', 'motion', 'frames:', 'frames', 'frame']);

/** Lower-cased keywords that only make sense inside a joint block. */
export const JOINT_KEYWORDS: ReadonlySet<string> = new Set(['{', '}', 'root', 'joint', 'end', 'site', 'offset', 'channels']);

/** Channel code 0-5 of the channel name text[s, e) (case-insensitive), or -1. */
export function channelCode(t: string, s: number, e: number): number {
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
// Scanner

/** A saved scanner position (see BvhScanner.mark / reset). */
export type BvhScannerMark = readonly number[];

/**
 * Whitespace-separated tokens with line tracking (LF, CR and CRLF each end one line). In the
 * hierarchy, '{' and '}' are tokens of their own even when glued to a word.
 */
export class BvhScanner {
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
      } else if (isBvhBlank(c)) p++;
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
        if (isBvhSpace(c) || c === 123 || c === 125) break;
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

  /** The token's channel code (see channelCode), or -1. */
  channel(): number {
    return channelCode(this.text, this.start, this.end);
  }

  mark(): BvhScannerMark {
    return [this.pos, this.line, this.start, this.end, this.tokLine, this.lastLine];
  }

  reset(m: BvhScannerMark): void {
    this.pos = m[0]; this.line = m[1]; this.start = m[2]; this.end = m[3]; this.tokLine = m[4]; this.lastLine = m[5];
  }
}
