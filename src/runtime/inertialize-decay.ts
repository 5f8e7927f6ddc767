/**
 * Inertialization offsets in closed form, for characters stepped every frame (crowds).
 *
 * The decay spring of GUIDE §5 has an exact solution: τ seconds after a transition that left an
 * offset x0 with velocity v0,
 *   x(τ) = e^(−yτ) (x0 + j0 τ),   v(τ) = e^(−yτ) (v0 − j0 y τ),   j0 = v0 + y x0,  y = 4 ln2 / (2 halfLife).
 * So a step needs no per-offset state update: it reads x0 and j0 and writes the output pose. The
 * velocities are rebuilt only at the next transition, and whether anything is left to apply is one
 * scalar bound instead of a scan. Per step this reads half the memory {@link inertializeApplyPose}
 * reads and writes none of it, which is what a crowd of thousands is limited by.
 *
 * Transitions go through {@link inertializeTransition} on a materialised state (shared scratch), so
 * both paths compute the same offsets; they differ from the stepwise spring by rounding only.
 */
import { createInertializationState, inertializeTransition, type InertializationState, type PoseBuffers } from './inertialize.js';

/** Offsets below this (m, rad; and velocity × dt) are not applied any more. */
const EPSILON = 1e-7;

const scratchByJoints = new Map<number, InertializationState>();

function materialisedScratch(J: number): InertializationState {
  let s = scratchByJoints.get(J);
  if (!s) { s = createInertializationState(J); scratchByJoints.set(J, s); }
  return s;
}

export interface InertializationDecayOptions {
  /**
   * Joints whose translations may differ between the poses it blends (databaseRuntime's
   * `movingTranslations`); the other joints' position offsets are not kept. They are zero (to
   * rounding) when those translations, hence their velocities, are the same in every frame.
   * Default: every joint.
   */
  movingJoints?: Int32Array;
  /** A block of at least storageSize(...) values to keep the offsets in (e.g. a crowd's buffer). */
  storage?: Float64Array;
}

export class InertializationDecay {
  readonly jointCount: number;
  private readonly moving: Int32Array;
  /** x0 and j0 of the moving joints' positions (M*3 each), of every rotation (scaled angle-axis, J*3 each). */
  private readonly x0p: Float64Array;
  private readonly j0p: Float64Array;
  private readonly x0r: Float64Array;
  private readonly j0r: Float64Array;
  /** Seconds since the last transition. */
  private tau = 0;
  private active = false;
  /** Largest |x0|, |j0| and |v0| over every component (the bound that retires the offsets). */
  private maxX = 0;
  private maxJ = 0;
  private maxV = 0;

  /** Values kept for `jointCount` joints of which `movingJoints` have changing translations. */
  static storageSize(jointCount: number, movingJoints = jointCount): number {
    return 6 * (jointCount + movingJoints);
  }

  constructor(jointCount: number, options: InertializationDecayOptions = {}) {
    if (!(Number.isSafeInteger(jointCount) && jointCount >= 0)) throw new RangeError(`InertializationDecay: jointCount must be a non-negative integer, got ${String(jointCount)}`);
    const moving = options.movingJoints ?? Int32Array.from({ length: jointCount }, (_, j) => j);
    for (let i = 0; i < moving.length; i++) {
      if (!(moving[i] >= 0 && moving[i] < jointCount)) throw new RangeError(`InertializationDecay: moving joint ${moving[i]} is not in [0, ${jointCount})`);
    }
    const n = 3 * jointCount, m = 3 * moving.length, size = InertializationDecay.storageSize(jointCount, moving.length);
    const storage = options.storage;
    if (storage !== undefined && !(storage instanceof Float64Array && storage.length >= size)) {
      throw new RangeError(`InertializationDecay: storage must be a Float64Array of at least ${size} values`);
    }
    const buf = storage ?? new Float64Array(size);
    this.jointCount = jointCount;
    this.moving = moving;
    this.x0r = buf.subarray(0, n);
    this.j0r = buf.subarray(n, 2 * n);
    this.x0p = buf.subarray(2 * n, 2 * n + m);
    this.j0p = buf.subarray(2 * n + m, 2 * n + 2 * m);
    this.reset();
  }

  /** Drops every offset (teleports, resets). */
  reset(): void {
    this.x0p.fill(0); this.j0p.fill(0); this.x0r.fill(0); this.j0r.fill(0);
    this.tau = 0;
    this.active = false;
    this.maxX = this.maxJ = this.maxV = 0;
  }

  /** True while offsets are still being applied. */
  get isActive(): boolean {
    return this.active;
  }

  /** Writes the current offsets (positions, velocities, rotations, angular velocities) into `out`. */
  materialise(halfLife: number, out: InertializationState): void {
    const n = 3 * this.jointCount, y = (2 * Math.LN2) / halfLife, t = this.tau, e = Math.exp(-y * t);
    const po = out.positionOffsets, vo = out.velocityOffsets, ro = out.rotationOffsets, wo = out.angularVelocityOffsets;
    po.fill(0, 0, n); vo.fill(0, 0, n);
    for (let k = 0; k < this.moving.length; k++) {
      for (let d = 0; d < 3; d++) {
        const i = 3 * this.moving[k] + d, x = this.x0p[3 * k + d], j = this.j0p[3 * k + d];
        po[i] = e * (x + j * t);
        vo[i] = e * (j - y * x - j * y * t);
      }
    }
    for (let i = 0; i < n; i++) {
      const x = this.x0r[i], j = this.j0r[i];
      ro[i] = e * (x + j * t);
      wo[i] = e * (j - y * x - j * y * t);
    }
  }

  /**
   * A transition from `source` (the raw playing pose) to `destination` (see inertializeTransition):
   * the output stays continuous and the new offsets start decaying from now. `checkValues` false
   * skips the finite-value scan of both poses (for poses read from a validated database).
   */
  transition(source: PoseBuffers, destination: PoseBuffers, halfLife: number, checkValues = true): void {
    const state = materialisedScratch(this.jointCount);
    this.materialise(halfLife, state);
    inertializeTransition(state, source, destination, checkValues);
    const n = 3 * this.jointCount, y = (2 * Math.LN2) / halfLife;
    const po = state.positionOffsets, vo = state.velocityOffsets, ro = state.rotationOffsets, wo = state.angularVelocityOffsets;
    let maxX = 0, maxJ = 0, maxV = 0;
    for (let k = 0; k < this.moving.length; k++) {
      for (let d = 0; d < 3; d++) {
        const i = 3 * this.moving[k] + d, j = vo[i] + y * po[i];
        this.x0p[3 * k + d] = po[i]; this.j0p[3 * k + d] = j;
        maxX = Math.max(maxX, Math.abs(po[i])); maxJ = Math.max(maxJ, Math.abs(j)); maxV = Math.max(maxV, Math.abs(vo[i]));
      }
    }
    for (let i = 0; i < n; i++) {
      const j = wo[i] + y * ro[i];
      this.x0r[i] = ro[i]; this.j0r[i] = j;
      maxX = Math.max(maxX, Math.abs(ro[i])); maxJ = Math.max(maxJ, Math.abs(j)); maxV = Math.max(maxV, Math.abs(wo[i]));
    }
    this.maxX = maxX; this.maxJ = maxJ; this.maxV = maxV;
    this.tau = 0;
    this.active = true;
  }

  /**
   * Advances by dt and writes playing pose + offsets into the output:
   *   position = playing + offset,  rotation = exp(offset) · playing.
   * The playing pose is read at `posAt` / `rotAt` of its arrays (a database frame can be read in
   * place). Once the offsets are provably below 1e-7 (and their velocities below 1e-7 / dt) the
   * playing pose is copied through and this returns false.
   */
  apply(
    dt: number, halfLife: number,
    playingPositions: Float32Array | Float64Array, posAt: number,
    playingRotations: Float32Array | Float64Array, rotAt: number,
    outPositions: Float64Array, outRotations: Float64Array,
  ): boolean {
    const J = this.jointCount;
    for (let i = 0; i < 3 * J; i++) outPositions[i] = playingPositions[posAt + i];
    if (this.active) {
      this.tau += dt;
      const y = (2 * Math.LN2) / halfLife, t = this.tau, e = Math.exp(-y * t);
      // |x(τ)| <= e (max|x0| + max|j0| τ) and |v(τ)| <= e (max|v0| + max|j0| y τ).
      if (e * (this.maxX + this.maxJ * t) < EPSILON && e * (this.maxV + this.maxJ * y * t) * dt < EPSILON) {
        this.reset();
      } else {
        const mv = this.moving, x0p = this.x0p, j0p = this.j0p;
        for (let k = 0; k < mv.length; k++) {
          const o = 3 * mv[k], a = 3 * k;
          outPositions[o] += e * (x0p[a] + j0p[a] * t);
          outPositions[o + 1] += e * (x0p[a + 1] + j0p[a + 1] * t);
          outPositions[o + 2] += e * (x0p[a + 2] + j0p[a + 2] * t);
        }
        this.applyRotationOffsets(e, t, playingRotations, rotAt, outRotations);
        return true;
      }
    }
    for (let i = 0; i < 4 * J; i++) outRotations[i] = playingRotations[rotAt + i];
    return false;
  }

  private applyRotationOffsets(e: number, t: number, Q: Float32Array | Float64Array, qAt: number, outQ: Float64Array): void {
    const x0r = this.x0r, j0r = this.j0r;
    for (let i3 = 0, i4 = 0; i3 < x0r.length; i3 += 3, i4 += 4) {
      // exp of the scaled angle-axis offset, inline; small angles (most of a decay) by series.
      const x = e * (x0r[i3] + j0r[i3] * t), y = e * (x0r[i3 + 1] + j0r[i3 + 1] * t), z = e * (x0r[i3 + 2] + j0r[i3 + 2] * t);
      const hh = 0.25 * (x * x + y * y + z * z); // (angle / 2)^2
      let s: number, qw: number;
      if (hh < 2.5e-3) {
        s = 0.5 * (1 - hh / 6 + (hh * hh) / 120);
        qw = 1 - hh / 2 + (hh * hh) / 24;
      } else {
        const h = Math.sqrt(hh);
        s = Math.sin(h) / (2 * h);
        qw = Math.cos(h);
      }
      const qx = x * s, qy = y * s, qz = z * s;
      const r = qAt + i4;
      const bx = Q[r], by = Q[r + 1], bz = Q[r + 2], bw = Q[r + 3];
      outQ[i4] = qw * bx + qx * bw + qy * bz - qz * by;
      outQ[i4 + 1] = qw * by - qx * bz + qy * bw + qz * bx;
      outQ[i4 + 2] = qw * bz + qx * by - qy * bx + qz * bw;
      outQ[i4 + 3] = qw * bw - qx * bx - qy * by - qz * bz;
    }
  }
}
