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

export class InertializationDecay {
  readonly jointCount: number;
  /** x0 of positions (J*3), j0 of positions, x0 of rotations (scaled angle-axis), j0 of rotations. */
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

  /** `storage`: optional block of >= 12 * jointCount values to keep the offsets in. */
  constructor(jointCount: number, storage?: Float64Array) {
    if (!(Number.isSafeInteger(jointCount) && jointCount >= 0)) throw new RangeError(`InertializationDecay: jointCount must be a non-negative integer, got ${String(jointCount)}`);
    const n = 3 * jointCount;
    if (storage !== undefined && !(storage instanceof Float64Array && storage.length >= 4 * n)) {
      throw new RangeError(`InertializationDecay: storage must be a Float64Array of at least ${4 * n} values`);
    }
    const buf = storage ?? new Float64Array(4 * n);
    this.jointCount = jointCount;
    this.x0p = buf.subarray(0, n);
    this.j0p = buf.subarray(n, 2 * n);
    this.x0r = buf.subarray(2 * n, 3 * n);
    this.j0r = buf.subarray(3 * n, 4 * n);
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
    for (let i = 0; i < n; i++) {
      const xp = this.x0p[i], jp = this.j0p[i], xr = this.x0r[i], jr = this.j0r[i];
      po[i] = e * (xp + jp * t);
      vo[i] = e * (jp - y * xp - jp * y * t);
      ro[i] = e * (xr + jr * t);
      wo[i] = e * (jr - y * xr - jr * y * t);
    }
  }

  /**
   * A transition from `source` (the raw playing pose) to `destination` (see inertializeTransition):
   * the output stays continuous and the new offsets start decaying from now.
   */
  transition(source: PoseBuffers, destination: PoseBuffers, halfLife: number): void {
    const state = materialisedScratch(this.jointCount);
    this.materialise(halfLife, state);
    inertializeTransition(state, source, destination);
    const n = 3 * this.jointCount, y = (2 * Math.LN2) / halfLife;
    const po = state.positionOffsets, vo = state.velocityOffsets, ro = state.rotationOffsets, wo = state.angularVelocityOffsets;
    let maxX = 0, maxJ = 0, maxV = 0;
    for (let i = 0; i < n; i++) {
      const jp = vo[i] + y * po[i], jr = wo[i] + y * ro[i];
      this.x0p[i] = po[i]; this.j0p[i] = jp; this.x0r[i] = ro[i]; this.j0r[i] = jr;
      maxX = Math.max(maxX, Math.abs(po[i]), Math.abs(ro[i]));
      maxJ = Math.max(maxJ, Math.abs(jp), Math.abs(jr));
      maxV = Math.max(maxV, Math.abs(vo[i]), Math.abs(wo[i]));
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
    if (this.active) {
      this.tau += dt;
      const y = (2 * Math.LN2) / halfLife, t = this.tau, e = Math.exp(-y * t);
      // |x(τ)| <= e (max|x0| + max|j0| τ) and |v(τ)| <= e (max|v0| + max|j0| y τ).
      if (e * (this.maxX + this.maxJ * t) < EPSILON && e * (this.maxV + this.maxJ * y * t) * dt < EPSILON) {
        this.reset();
      } else {
        this.applyOffsets(e, t, playingPositions, posAt, playingRotations, rotAt, outPositions, outRotations);
        return true;
      }
    }
    for (let i = 0; i < 3 * J; i++) outPositions[i] = playingPositions[posAt + i];
    for (let i = 0; i < 4 * J; i++) outRotations[i] = playingRotations[rotAt + i];
    return false;
  }

  private applyOffsets(
    e: number, t: number,
    P: Float32Array | Float64Array, pAt: number, Q: Float32Array | Float64Array, qAt: number,
    outP: Float64Array, outQ: Float64Array,
  ): void {
    const x0p = this.x0p, j0p = this.j0p, x0r = this.x0r, j0r = this.j0r;
    for (let i3 = 0, i4 = 0; i3 < x0p.length; i3 += 3, i4 += 4) {
      outP[i3] = P[pAt + i3] + e * (x0p[i3] + j0p[i3] * t);
      outP[i3 + 1] = P[pAt + i3 + 1] + e * (x0p[i3 + 1] + j0p[i3 + 1] * t);
      outP[i3 + 2] = P[pAt + i3 + 2] + e * (x0p[i3 + 2] + j0p[i3 + 2] * t);
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
