/**
 * The frame values of a BVH file's MOTION section, turned into local poses: per frame and joint a
 * unit quaternion (rotation channels multiplied in listed order, degrees) and a translation (in
 * file units; bvh/units.ts scales it).
 *
 * This is the hot loop of the importer: one pass over the text, no allocation per value or frame.
 */
import { type BvhFail, type BvhScanner, BVH_CHANNEL_NAMES, JOINT_KEYWORDS, STRUCTURAL_KEYWORDS, isBvhSpace, parseBvhNumber, quoteToken as q } from './tokens.js';
import { BVH_MAX_ABS_VALUE, type BvhHierarchy } from './hierarchy.js';
import type { BvhMotionHeader } from './motion.js';
import { MAX_CLIP_JOINT_FRAMES } from '../../anim/clip.js';

/** Upper bound on frames * joints of one clip (anim/clip.ts MAX_CLIP_JOINT_FRAMES). */
export const MAX_JOINT_FRAMES = MAX_CLIP_JOINT_FRAMES;

const DEG_TO_HALF_RAD = Math.PI / 360;

/** Where each joint's values sit within a frame, and what each value is. */
export interface BvhChannelLayout {
  /** Per joint: index of its first value within a frame. */
  first: Int32Array;
  /** Per joint: number of channels. */
  count: Int32Array;
  /** Per value: channel code (0-2 position, 3-5 rotation x/y/z). */
  type: Uint8Array;
  /** Per value: the joint it belongs to. */
  joint: Int32Array;
  /** Values per frame. */
  total: number;
}

export function bvhChannelLayout(channelCodes: readonly (readonly number[])[]): BvhChannelLayout {
  const J = channelCodes.length;
  const first = new Int32Array(J), count = new Int32Array(J);
  let total = 0;
  for (let j = 0; j < J; j++) { first[j] = total; count[j] = channelCodes[j].length; total += channelCodes[j].length; }
  const type = new Uint8Array(total), joint = new Int32Array(total);
  for (let j = 0; j < J; j++) {
    for (let i = 0; i < channelCodes[j].length; i++) { type[first[j] + i] = channelCodes[j][i]; joint[first[j] + i] = j; }
  }
  return { first, count, type, joint, total };
}

/** Local poses of every frame, frame-major: rotations frames*J*4 (x, y, z, w), translations frames*J*3. */
export interface BvhPoses {
  rotations: Float64Array;
  translations: Float64Array;
}

/**
 * Reads the frame values after the 'Frame Time:' line (the scanner's position) to the end of the
 * text, and converts them to local poses. With `add`, position channels add to the OFFSET
 * (three.js); otherwise they replace it (see bvh/bvh.ts).
 */
export function parseBvhFrames(
  sc: BvhScanner, fail: BvhFail, hierarchy: BvhHierarchy, layout: BvhChannelLayout, header: BvhMotionHeader, add: boolean,
): BvhPoses {
  const text = sc.text;
  const J = hierarchy.names.length, C = layout.total;
  const { frames, framesLine } = header;
  // A file of L remaining characters holds at most (L + 1) / 2 values. When that cannot fill the
  // declared frames the file is bound to fail ("fewer frames than declared"): the values are then
  // only counted, so a huge declared frame count never makes us allocate a huge clip.
  const countOnly = C > 0 && frames > Math.floor((text.length - sc.pos + 1) / 2 / C);
  const poses = allocatePoses(countOnly ? 0 : frames, J, framesLine, fail);
  const off = Float64Array.from(hierarchy.offsets);
  const vals = new Float64Array(Math.max(C, 1));

  if (C === 0) {
    if (sc.next()) fail(sc.tokLine, `unexpected motion data ${q(sc.tok())}: the hierarchy declares no channels`);
    for (let f = 0; f < frames; f++) frameToPose(vals, layout, off, add, J, f, poses);
    return poses;
  }

  const describeChannel = (k: number): string => `${hierarchy.names[layout.joint[k]]} ${BVH_CHANNEL_NAMES[layout.type[k]]}`;
  // Layout check: when the first or second data line holds exactly C values the file is taken to
  // have one frame per line, and every line must then hold exactly C values (precise per-frame
  // errors); otherwise values are only counted as a stream.
  const n = text.length;
  let p = sc.pos, ln = sc.line;
  let lastLine = header.frameTimeLine;
  let frame = 0, k = 0, onLine = 0;
  const lineMode = firstLineCounts(text, p).includes(C);
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
      if (STRUCTURAL_KEYWORDS.has(lower)) fail(ln, `unexpected ${q(tok)} in the motion data: only one HIERARCHY and one MOTION section are supported`);
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
      if (!countOnly) frameToPose(vals, layout, off, add, J, frame, poses);
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
  return poses;
}

/** Pose arrays for `frames` frames of J joints, refused (at the 'Frames:' line) beyond the importer's limit. */
function allocatePoses(frames: number, J: number, framesLine: number, fail: BvhFail): BvhPoses {
  if (frames * J > MAX_JOINT_FRAMES) {
    fail(framesLine, `file too large: ${frames} frames of ${J} joints exceed the importer's limit of ${MAX_JOINT_FRAMES} joint-frames (about 2 GB to build a database from; split the take into shorter files)`);
  }
  try {
    return { rotations: new Float64Array(frames * J * 4), translations: new Float64Array(frames * J * 3) };
  } catch {
    return fail(framesLine, `cannot allocate memory for ${frames} frames of ${J} joints`);
  }
}

/** Converts one frame's channel values `vals` into frame f of the poses. */
function frameToPose(vals: Float64Array, layout: BvhChannelLayout, off: Float64Array, add: boolean, J: number, f: number, poses: BvhPoses): void {
  const { rotations, translations } = poses;
  const chFirst = layout.first, chCount = layout.count, chType = layout.type;
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
    } else if (isBvhSpace(c)) inTok = false;
    else if (!inTok) { inTok = true; cnt++; }
  }
  if (cnt > 0 && counts.length < 2) counts.push(cnt);
  return counts;
}
