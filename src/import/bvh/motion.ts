/**
 * The header of a BVH file's MOTION section: the MOTION keyword, "Frames: <n>" and
 * "Frame Time: <seconds>". The frame values that follow are read by bvh/frames.ts.
 */
import { MAX_FPS, MIN_FPS, isSupportedFrameRate } from '../../anim/frame-rate.js';
import { type BvhFail, type BvhScanner, isBvhBlank, isBvhSpace, parseBvhNumber, quoteToken as q } from './tokens.js';

export interface BvhMotionHeader {
  /** Declared frame count (>= 1). */
  frames: number;
  /** Line of the 'Frames:' header. */
  framesLine: number;
  /** Seconds per frame exactly as written (the rate it gives lies within MIN_FPS..MAX_FPS). */
  frameTime: number;
  /** Frames per second: 1 / frameTime, snapped to a whole rate when within rounding (see snapFrameRate). */
  fps: number;
  /** Line of the 'Frame Time:' header. */
  frameTimeLine: number;
}

/**
 * Reads MOTION, 'Frames:' and 'Frame Time:' after the hierarchy (the scanner stands on the root's
 * closing '}'); leaves the scanner at the end of the 'Frame Time:' line.
 */
export function parseBvhMotionHeader(sc: BvhScanner, fail: BvhFail): BvhMotionHeader {
  const motionLine = readMotionKeyword(sc, fail);
  const frames = readHeaderValue(sc, 'frames', motionLine, fail, (vs, ve, line) => frameCountValue(sc.text, vs, ve, line, fail));
  const framesLine = sc.lastLine;
  const frameTime = readHeaderValue(sc, 'frametime', framesLine, fail, (vs, ve, line) => frameTimeValue(sc.text, vs, ve, line, fail));
  return { frames, framesLine, frameTime, fps: snapFrameRate(1 / frameTime), frameTimeLine: sc.lastLine };
}

/** The MOTION keyword; what else stands there usually says how the hierarchy went wrong. */
function readMotionKeyword(sc: BvhScanner, fail: BvhFail): number {
  if (!sc.next()) fail(sc.lastLine, 'missing MOTION section: the file ends after the hierarchy');
  const kw = sc.lower();
  if (kw !== 'motion') {
    if (kw === '}') fail(sc.tokLine, "unbalanced '}': no joint is open here (extra '}')");
    if (kw === 'root') fail(sc.tokLine, 'a second ROOT is not supported: only one skeleton per file');
    if (kw === 'joint' || kw === 'end' || kw === 'offset' || kw === 'channels') {
      fail(sc.tokLine, `${q(sc.tok())} outside the ROOT block: an extra '}' closed the root early?`);
    }
    fail(sc.tokLine, `missing MOTION: expected 'MOTION' after the hierarchy, found ${q(sc.tok())}`);
  }
  return sc.tokLine;
}

function frameCountValue(text: string, vs: number, ve: number, line: number, fail: BvhFail): number {
  const s = text.slice(vs, Math.min(ve, vs + 40));
  if (ve - vs > 15 || !/^[0-9]+$/.test(s)) fail(line, `invalid frame count ${q(text.slice(vs, ve))} in 'Frames:': expected a whole number >= 1`);
  const n = parseInt(s, 10);
  if (n < 1) fail(line, "'Frames: 0': the file must contain at least one frame");
  return n;
}

/** Seconds per frame; refused unless positive, finite, and at a supported rate (MIN_FPS..MAX_FPS). */
function frameTimeValue(text: string, vs: number, ve: number, line: number, fail: BvhFail): number {
  const v = parseBvhNumber(text, vs, ve);
  if (!(v > 0 && v < Infinity && 1 / v < Infinity)) fail(line, `invalid frame time ${q(text.slice(vs, ve))} in 'Frame Time:': expected a positive, finite number of seconds`);
  const fps = snapFrameRate(1 / v);
  if (!isSupportedFrameRate(fps)) {
    fail(line, `frame time ${q(text.slice(vs, ve))} in 'Frame Time:' means ${formatRate(fps)} frames per second: ` +
      `supported rates are ${MIN_FPS} to ${MAX_FPS} fps (a frame time from ${1 / MAX_FPS} to ${1 / MIN_FPS} s)`);
  }
  return v;
}

/** A rate for a message, to 4 significant digits ("1000000000", "1e-300", "1001"). */
function formatRate(fps: number): string {
  return String(+fps.toPrecision(4));
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

/**
 * Reads a header line "Frames: <n>" / "Frame Time: <s>" at the scanner's position. The label is
 * matched case-insensitively, ignoring spaces and tabs inside it ("Frames :", "FrameTime:"), and the
 * colon is optional. The value must be the last thing on the line.
 */
function readHeaderValue(
  sc: BvhScanner, label: 'frames' | 'frametime', prevLine: number, fail: BvhFail,
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
  while (p < n && isBvhBlank(t.charCodeAt(p))) p++;
  if (p < n && t.charCodeAt(p) === 58) p++;
  while (p < n && isBvhBlank(t.charCodeAt(p))) p++;
  const vs = p;
  while (p < n && !isBvhSpace(t.charCodeAt(p))) p++;
  const ve = p;
  while (p < n && isBvhBlank(t.charCodeAt(p))) p++;
  if (vs === ve) fail(line, `${pretty} has no value`);
  if (p < n && t.charCodeAt(p) !== 10 && t.charCodeAt(p) !== 13) {
    let e = p;
    while (e < n && !isBvhSpace(t.charCodeAt(e))) e++;
    fail(line, `unexpected ${q(t.slice(p, e))} after the ${pretty} value`);
  }
  const v = value(vs, ve, line);
  sc.pos = p;
  sc.lastLine = line;
  return v;
}
