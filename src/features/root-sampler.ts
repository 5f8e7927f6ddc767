/**
 * A clip's root track sampled at any integer frame, inside the clip or past either end: what the
 * trajectory features read. Short clips are the norm in real mocap (a run of 2 s), so clamping
 * future samples at the end would make every clip's last second look like a stop; instead the root
 * keeps the velocity and turning rate it had over its last quarter second (and its first, before
 * the start). Looping clips continue from their start with the cycle's displacement accumulated.
 *
 * Everything a sample needs that does not depend on the frame asked for is computed once per clip:
 * each frame's yaw, and past a non-looping clip's ends the arc walked frame by frame (kept as a
 * table, extended as far as the furthest sample asked for). The arithmetic is the one of sampling
 * each frame from scratch, in the same order, so the features are bit for bit what they were.
 */
import { wrapAngle } from '../math/angle.js';
import type { ClipMotion } from './extract.js';

/** Frames over which the end velocity used for extrapolation is measured (about 0.25 s). */
function extrapolationSpan(m: ClipMotion): number {
  return Math.max(1, Math.min(m.frames - 1, Math.round(0.25 * m.fps)));
}

/** The heading (rad) of a yaw-only rotation at frame f of a frame-major quaternion array. */
export function yawOf(rot: Float64Array, f: number): number {
  const y = rot[4 * f + 1], w = rot[4 * f + 3];
  return 2 * Math.atan2(y, w);
}

/**
 * The root moving on past one end of a clip: from edge frame `b`, with the velocity (in b's heading)
 * and turning rate measured over `span` frames inside it. x/z[n] is the root n frames past the edge,
 * each frame an arc step whose heading at its midpoint carries the edge's local velocity.
 */
class EndArc {
  readonly x0: number; readonly z0: number;
  readonly yawB: number; readonly yawRate: number; readonly dir: number;
  private readonly lx: number; private readonly lz: number;
  x = new Float64Array(1); z = new Float64Array(1);
  /** Frames past the edge tabulated so far. */
  n = 0;

  constructor(m: ClipMotion, yaw: Float64Array, after: boolean) {
    const F = m.frames, span = extrapolationSpan(m);
    const b = after ? F - 1 : 0, a = after ? F - 1 - span : span;
    const per = after ? span : -span;
    const vx = (m.rootPos[3 * b] - m.rootPos[3 * a]) / per, vz = (m.rootPos[3 * b + 2] - m.rootPos[3 * a + 2]) / per;
    this.yawB = yaw[b];
    this.lx = Math.cos(this.yawB) * vx - Math.sin(this.yawB) * vz;
    this.lz = Math.sin(this.yawB) * vx + Math.cos(this.yawB) * vz;
    this.yawRate = wrapAngle(this.yawB - yaw[a]) / per;
    this.dir = after ? 1 : -1;
    this.x0 = m.rootPos[3 * b]; this.z0 = m.rootPos[3 * b + 2];
    this.x[0] = this.x0; this.z[0] = this.z0;
  }

  /** Tabulates the arc up to `n` frames past the edge (if not done yet). */
  extendTo(n: number): void {
    if (n <= this.n) return;
    if (n >= this.x.length) {
      const size = Math.max(n + 1, 2 * this.x.length);
      const x = new Float64Array(size), z = new Float64Array(size);
      x.set(this.x.subarray(0, this.n + 1)); z.set(this.z.subarray(0, this.n + 1));
      this.x = x; this.z = z;
    }
    const dir = this.dir, lx = this.lx, lz = this.lz;
    let x = this.x[this.n], z = this.z[this.n];
    for (let i = this.n + 1; i <= n; i++) {
      const h = this.yawB + dir * this.yawRate * (i - 0.5);
      const c = Math.cos(h), sn = Math.sin(h);
      x += dir * (c * lx + sn * lz); z += dir * (-sn * lx + c * lz);
      this.x[i] = x; this.z[i] = z;
    }
    this.n = n;
  }
}

/** Root position (x, z) and facing (yaw) of one clip at any integer frame (see the file's comment). */
export class ClipRootSampler {
  /** Each frame's yaw. */
  readonly yaw: Float64Array;
  private readonly after: EndArc | null;
  private readonly before: EndArc | null;
  // A loop's cycle: displacement (in the first frame's heading) and turn from frame 0 to frame F
  // (the next cycle's first, extrapolated from the last two frames).
  private readonly yaw0: number;
  private readonly cycleX: number;
  private readonly cycleZ: number;
  private readonly cycleYaw: number;

  constructor(private readonly m: ClipMotion) {
    const F = m.frames;
    this.yaw = new Float64Array(F);
    for (let f = 0; f < F; f++) this.yaw[f] = yawOf(m.rootRot, f);
    const arcs = F >= 2 && !m.loop;
    this.after = arcs ? new EndArc(m, this.yaw, true) : null;
    this.before = arcs ? new EndArc(m, this.yaw, false) : null;
    this.yaw0 = F > 0 ? this.yaw[0] : 0;
    if (m.loop && F >= 2) {
      const p = m.rootPos;
      const endX = 2 * p[3 * (F - 1)] - p[3 * (F - 2)], endZ = 2 * p[3 * (F - 1) + 2] - p[3 * (F - 2) + 2];
      const endYaw = this.yaw[F - 1] + wrapAngle(this.yaw[F - 1] - this.yaw[F - 2]);
      // = toLocal(endX - p[0], endZ - p[2], yaw0)
      const c = Math.cos(this.yaw0), s = Math.sin(this.yaw0), dx = endX - p[0], dz = endZ - p[2];
      this.cycleX = c * dx - s * dz; this.cycleZ = s * dx + c * dz;
      this.cycleYaw = endYaw - this.yaw0;
    } else {
      this.cycleX = 0; this.cycleZ = 0; this.cycleYaw = 0;
    }
  }

  /** The root at integer frame t (any integer): out[0..3) = x, z, yaw. */
  sample(t: number, out: Float64Array): void {
    const m = this.m, F = m.frames, p = m.rootPos;
    if (t >= 0 && t < F) {
      out[0] = p[3 * t]; out[1] = p[3 * t + 2]; out[2] = this.yaw[t];
      return;
    }
    if (F < 2) { out[0] = p[0]; out[1] = p[2]; out[2] = this.yaw0; return; }
    if (m.loop) { this.sampleLoop(t, out); return; }
    const after = t >= F, arc = after ? this.after! : this.before!;
    const n = after ? t - (F - 1) : -t;
    arc.extendTo(n);
    out[0] = arc.x[n]; out[1] = arc.z[n]; out[2] = arc.yawB + arc.dir * arc.yawRate * n;
  }

  /** A looping clip's root at frame t outside [0, F): k whole cycles on (or back) from frame t - kF. */
  private sampleLoop(t: number, out: Float64Array): void {
    const m = this.m, F = m.frames, p = m.rootPos, yaw0 = this.yaw0;
    const k = Math.floor(t / F), local = t - k * F;
    const cx = this.cycleX, cz = this.cycleZ, cyaw = this.cycleYaw;
    let x = p[0], z = p[2], yaw = yaw0;
    for (let i = 0; i < Math.abs(k); i++) {
      // = toWorld(cx, cz, yaw): the cycle's displacement in the heading reached so far.
      if (k > 0) { const c = Math.cos(yaw), s = Math.sin(yaw); x += c * cx + s * cz; z += -s * cx + c * cz; yaw += cyaw; }
      else { yaw -= cyaw; const c = Math.cos(yaw), s = Math.sin(yaw); x -= c * cx + s * cz; z -= -s * cx + c * cz; }
    }
    // Frame `local` relative to frame 0 (toLocal by yaw0), then turned to the cycle's heading (toWorld by yaw).
    const c0 = Math.cos(yaw0), s0 = Math.sin(yaw0), dx = p[3 * local] - p[0], dz = p[3 * local + 2] - p[2];
    const lx = c0 * dx - s0 * dz, lz = s0 * dx + c0 * dz;
    const c = Math.cos(yaw), s = Math.sin(yaw);
    out[0] = x + (c * lx + s * lz); out[1] = z + (-s * lx + c * lz); out[2] = yaw + (this.yaw[local] - yaw0);
  }
}
