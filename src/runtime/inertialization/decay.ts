/**
 * Inertialization offsets in closed form, for characters stepped every frame (crowds).
 *
 * The decay spring (decaySpringUpdate in src/math/spring.ts) has an exact solution: τ seconds after a transition that left an
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
import { requirePose, rotateByOffsets, type InertializationState, type PoseBuffers } from './inertialize.js';

/** Offsets below this (m, rad; and velocity × dt) are not applied any more. */
const EPSILON = 1e-7;

/**
 * The step being applied: dt, half-life, then the decay factor e^(−yτ) and τ that rotateByOffsets
 * reads (temporaries of one apply() call, shared by every instance of a thread: numbers passed to a
 * call that is not inlined would be heap-allocated per character).
 */
const CALL = new Float64Array(4);
const CALL_DT = 0, CALL_HALF_LIFE = 1, CALL_E = 2, CALL_T = 3;

// After the offsets in the storage block: the scalars (at `scalars`).
const TAU = 0, ACTIVE = 1, MAX_X = 2, MAX_J = 3, MAX_V = 4, SCALARS = 5;

// Results of expMap and rotate (temporaries of one call).
const EXP = new Float64Array(4);
const ROT = new Float64Array(3);

/** EXP = exp of the scaled angle-axis vector (x, y, z), as quatFromScaledAngleAxis computes it. */
function expMap(x: number, y: number, z: number): void {
  const angle = Math.sqrt(x * x + y * y + z * z);
  if (angle < 1e-8) {
    const hx = 0.5 * x, hy = 0.5 * y, hz = 0.5 * z, n = Math.sqrt(hx * hx + hy * hy + hz * hz + 1);
    EXP[0] = hx / n; EXP[1] = hy / n; EXP[2] = hz / n; EXP[3] = 1 / n;
    return;
  }
  const h = 0.5 * angle, s = Math.sin(h) / angle;
  EXP[0] = x * s; EXP[1] = y * s; EXP[2] = z * s; EXP[3] = Math.cos(h);
}

/** ROT = the unit quaternion (qx, qy, qz, qw) applied to (vx, vy, vz): quatRotateVec3 in scalars. */
function rotate(qx: number, qy: number, qz: number, qw: number, vx: number, vy: number, vz: number): void {
  const tx = 2 * (qy * vz - qz * vy), ty = 2 * (qz * vx - qx * vz), tz = 2 * (qx * vy - qy * vx);
  ROT[0] = vx + qw * tx + (qy * tz - qz * ty);
  ROT[1] = vy + qw * ty + (qz * tx - qx * tz);
  ROT[2] = vz + qw * tz + (qx * ty - qy * tx);
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
  /**
   * With `movingJoints`: apply() writes the moving joints' output translations only and leaves the
   * others as they are, for a caller whose output buffer persists and already holds them (they are
   * the same in every pose; the controller writes them at reset). A crowd step then neither reads
   * them from the playing pose (a database frame: a cache miss) nor rewrites them (memory traffic).
   */
  keepStaticTranslations?: boolean;
}

/**
 * One block of a rebase: x = e (x0 + j0 τ) and v = e (j0 − y x0 − j0 y τ) under the old rate y become
 * x0 = x, j0 = v + y2 x under the new one; the largest |x0|, |j0| and |v| go into S.
 */
function rebaseDecay(x0: Float64Array, j0: Float64Array, e: number, t: number, y: number, y2: number, S: Float64Array): void {
  for (let i = 0; i < x0.length; i++) {
    const a = x0[i], b = j0[i];
    const x = e * (a + b * t), v = e * (b - y * a - b * y * t), j = v + y2 * x;
    x0[i] = x; j0[i] = j;
    if (Math.abs(x) > S[MAX_X]) S[MAX_X] = Math.abs(x);
    if (Math.abs(j) > S[MAX_J]) S[MAX_J] = Math.abs(j);
    if (Math.abs(v) > S[MAX_V]) S[MAX_V] = Math.abs(v);
  }
}

export class InertializationDecay {
  readonly jointCount: number;
  private readonly moving: Int32Array;
  private readonly keepStatic: boolean;
  /** x0 and j0 of the moving joints' positions (M*3 each), of every rotation (scaled angle-axis, J*3 each). */
  private readonly x0p: Float64Array;
  private readonly j0p: Float64Array;
  private readonly x0r: Float64Array;
  private readonly j0r: Float64Array;
  /**
   * The scalars, in the block after the offsets (a character's state stays in one allocation): τ,
   * seconds since the last transition; active (0/1); the largest |x0|, |j0| and |v0| over every
   * component (the bound that retires the offsets).
   */
  private readonly S: Float64Array;

  /** Values kept for `jointCount` joints of which `movingJoints` have changing translations. */
  static storageSize(jointCount: number, movingJoints = jointCount): number {
    return 6 * (jointCount + movingJoints) + SCALARS;
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
    this.keepStatic = options.keepStaticTranslations === true;
    this.jointCount = jointCount;
    this.moving = moving;
    this.x0r = buf.subarray(0, n);
    this.j0r = buf.subarray(n, 2 * n);
    this.x0p = buf.subarray(2 * n, 2 * n + m);
    this.j0p = buf.subarray(2 * n + m, 2 * n + 2 * m);
    this.S = buf.subarray(2 * n + 2 * m, 2 * n + 2 * m + SCALARS);
    this.reset();
  }

  /** Drops every offset (teleports, resets). */
  reset(): void {
    this.x0p.fill(0); this.j0p.fill(0); this.x0r.fill(0); this.j0r.fill(0);
    this.S.fill(0);
  }

  /** True while offsets are still being applied. */
  get isActive(): boolean {
    return this.S[ACTIVE] !== 0;
  }

  /**
   * Goes on decaying the offsets under `newHalfLife` from where they are under `oldHalfLife`: the
   * offsets and their rates now become the start of a new decay (x0 = x, j0 = v + y'·x, τ = 0), so
   * the output stays continuous in value and velocity. (The closed form with the new half-life and
   * the old start would jump: e^(−y'τ) ≠ e^(−yτ).) A level of detail that changes the half-life
   * calls this.
   */
  rebase(oldHalfLife: number, newHalfLife: number): void {
    const S = this.S;
    if (S[ACTIVE] === 0 || oldHalfLife === newHalfLife) return;
    const y = (2 * Math.LN2) / oldHalfLife, y2 = (2 * Math.LN2) / newHalfLife, t = S[TAU], e = Math.exp(-y * t);
    S[MAX_X] = 0; S[MAX_J] = 0; S[MAX_V] = 0;
    rebaseDecay(this.x0p, this.j0p, e, t, y, y2, S);
    rebaseDecay(this.x0r, this.j0r, e, t, y, y2, S);
    S[TAU] = 0;
  }

  /** Writes the current offsets (positions, velocities, rotations, angular velocities) into `out`. */
  materialise(halfLife: number, out: InertializationState): void {
    const n = 3 * this.jointCount, y = (2 * Math.LN2) / halfLife, t = this.S[TAU], e = Math.exp(-y * t);
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
   * A transition from `source` (the raw playing pose) to `destination`, as inertializeTransition
   * does it (the output and its velocities stay continuous), on the offsets as they are now; the
   * new offsets start decaying from here. `checkValues` false skips the finite-value scan of both
   * poses (for poses read from a validated database); sizes are always checked.
   */
  transition(source: PoseBuffers, destination: PoseBuffers, halfLife: number, checkValues = true): void {
    const J = this.jointCount;
    requirePose('InertializationDecay.transition', 'source', source, J, checkValues);
    requirePose('InertializationDecay.transition', 'destination', destination, J, checkValues);
    const y = (2 * Math.LN2) / halfLife, t = this.S[TAU], e = this.S[ACTIVE] !== 0 ? Math.exp(-y * t) : 0;
    let maxX = 0, maxJ = 0, maxV = 0;
    const mv = this.moving, x0p = this.x0p, j0p = this.j0p, x0r = this.x0r, j0r = this.j0r;
    const sp = source.positions, sv = source.velocities, dp = destination.positions, dv = destination.velocities;
    for (let k = 0; k < mv.length; k++) {
      for (let d = 0; d < 3; d++) {
        const a = 3 * k + d, i = 3 * mv[k] + d, x = x0p[a], j = j0p[a];
        // offset ← (source + offset) − destination, for positions and velocities
        const po = sp[i] + e * (x + j * t) - dp[i];
        const vo = sv[i] + e * (j - y * x - j * y * t) - dv[i];
        const jn = vo + y * po;
        x0p[a] = po; j0p[a] = jn;
        maxX = Math.max(maxX, Math.abs(po)); maxJ = Math.max(maxJ, Math.abs(jn)); maxV = Math.max(maxV, Math.abs(vo));
      }
    }
    const sr = source.rotations, sw = source.angularVelocities, dr = destination.rotations, dw = destination.angularVelocities;
    for (let i3 = 0, i4 = 0; i3 < 3 * J; i3 += 3, i4 += 4) {
      // The offset now (scaled angle-axis) and its rate.
      const rx = e * (x0r[i3] + j0r[i3] * t), ry = e * (x0r[i3 + 1] + j0r[i3 + 1] * t), rz = e * (x0r[i3 + 2] + j0r[i3 + 2] * t);
      const wx = e * (j0r[i3] - y * x0r[i3] - j0r[i3] * y * t);
      const wy = e * (j0r[i3 + 1] - y * x0r[i3 + 1] - j0r[i3 + 1] * y * t);
      const wz = e * (j0r[i3 + 2] - y * x0r[i3 + 2] - j0r[i3 + 2] * y * t);
      // What the output shows: q = exp(offset), q · source, and its angular velocity w + q·source_w.
      expMap(rx, ry, rz);
      const qx = EXP[0], qy = EXP[1], qz = EXP[2], qw = EXP[3];
      const bx = sr[i4], by = sr[i4 + 1], bz = sr[i4 + 2], bw = sr[i4 + 3];
      // o = quatMultiply(o, q, source rotation)
      const ox = qw * bx + qx * bw + qy * bz - qz * by;
      const oy = qw * by - qx * bz + qy * bw + qz * bx;
      const oz = qw * bz + qx * by - qy * bx + qz * bw;
      const ow = qw * bw - qx * bx - qy * by - qz * bz;
      rotate(qx, qy, qz, qw, sw[i3], sw[i3 + 1], sw[i3 + 2]); // = quatRotateVec3(ROT, q, source ω)
      const owx = wx + ROT[0], owy = wy + ROT[1], owz = wz + ROT[2];
      // New offset: output · destination⁻¹, the short way round (w >= 0), and its log.
      const cx = -dr[i4], cy = -dr[i4 + 1], cz = -dr[i4 + 2], cw = dr[i4 + 3];
      // n = quatMultiplyInv(n, o, destination rotation)
      let nx = ow * cx + ox * cw + oy * cz - oz * cy;
      let ny = ow * cy - ox * cz + oy * cw + oz * cx;
      let nz = ow * cz + ox * cy - oy * cx + oz * cw;
      let nw = ow * cw - ox * cx - oy * cy - oz * cz;
      if (nw < 0) { nx = -nx; ny = -ny; nz = -nz; nw = -nw; }
      const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
      const sc = len < 1e-8 ? 2 : (2 * Math.atan2(len, nw)) / len;
      const lx = nx * sc, ly = ny * sc, lz = nz * sc; // = quatToScaledAngleAxis(l, n)
      // Angular velocity offset: shown − new offset · destination_w. exp(log(n)) is n normalised
      // (up to rounding): normalising saves a sine and a cosine per joint.
      const nl = Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
      rotate(nx / nl, ny / nl, nz / nl, nw / nl, dw[i3], dw[i3 + 1], dw[i3 + 2]);
      const vx = owx - ROT[0], vy = owy - ROT[1], vz = owz - ROT[2];
      x0r[i3] = lx; x0r[i3 + 1] = ly; x0r[i3 + 2] = lz;
      j0r[i3] = vx + y * lx; j0r[i3 + 1] = vy + y * ly; j0r[i3 + 2] = vz + y * lz;
      maxX = Math.max(maxX, Math.abs(lx), Math.abs(ly), Math.abs(lz));
      maxJ = Math.max(maxJ, Math.abs(j0r[i3]), Math.abs(j0r[i3 + 1]), Math.abs(j0r[i3 + 2]));
      maxV = Math.max(maxV, Math.abs(vx), Math.abs(vy), Math.abs(vz));
    }
    const S = this.S;
    S[MAX_X] = maxX; S[MAX_J] = maxJ; S[MAX_V] = maxV;
    S[TAU] = 0;
    S[ACTIVE] = 1;
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
    // The numbers reach the step through scratch: number arguments of a call that is not inlined
    // are heap-allocated (crowds call this per character, and use applyWith).
    CALL[CALL_DT] = dt;
    CALL[CALL_HALF_LIFE] = halfLife;
    return this.applyWith(CALL, 0, playingPositions, posAt, playingRotations, rotAt, outPositions, outRotations);
  }

  /** {@link apply} with dt and the half-life read from `p[po]` and `p[po + 1]`: nothing passed as a number, whether or not V8 inlines the call. */
  applyWith(p: Float64Array, po: number, playingPositions: Float32Array | Float64Array, posAt: number, playingRotations: Float32Array | Float64Array, rotAt: number, outPositions: Float64Array, outRotations: Float64Array): boolean {
    CALL[CALL_DT] = p[po];
    CALL[CALL_HALF_LIFE] = p[po + 1];
    return this.applyStep(playingPositions, posAt, playingRotations, rotAt, outPositions, outRotations);
  }

  private applyStep(
    playingPositions: Float32Array | Float64Array, posAt: number,
    playingRotations: Float32Array | Float64Array, rotAt: number,
    outPositions: Float64Array, outRotations: Float64Array,
  ): boolean {
    const J = this.jointCount, dt = CALL[CALL_DT], halfLife = CALL[CALL_HALF_LIFE], S = this.S;
    if (!this.keepStatic) {
      for (let i = 0; i < 3 * J; i++) outPositions[i] = playingPositions[posAt + i];
    } else {
      const mv = this.moving;
      for (let k = 0; k < mv.length; k++) {
        const o = 3 * mv[k];
        outPositions[o] = playingPositions[posAt + o]; outPositions[o + 1] = playingPositions[posAt + o + 1]; outPositions[o + 2] = playingPositions[posAt + o + 2];
      }
    }
    if (S[ACTIVE] !== 0) {
      const t = (S[TAU] += dt);
      const y = (2 * Math.LN2) / halfLife, e = Math.exp(-y * t);
      // |x(τ)| <= e (max|x0| + max|j0| τ) and |v(τ)| <= e (max|v0| + max|j0| y τ).
      if (e * (S[MAX_X] + S[MAX_J] * t) < EPSILON && e * (S[MAX_V] + S[MAX_J] * y * t) * dt < EPSILON) {
        this.reset();
      } else {
        const mv = this.moving, x0p = this.x0p, j0p = this.j0p;
        for (let k = 0; k < mv.length; k++) {
          const o = 3 * mv[k], a = 3 * k;
          outPositions[o] += e * (x0p[a] + j0p[a] * t);
          outPositions[o + 1] += e * (x0p[a + 1] + j0p[a + 1] * t);
          outPositions[o + 2] += e * (x0p[a + 2] + j0p[a + 2] * t);
        }
        // The rotation offsets now, e (x0 + j0 τ), are formed joint by joint inside the shared pass.
        CALL[CALL_E] = e; CALL[CALL_T] = t;
        rotateByOffsets(this.x0r, this.j0r, CALL, CALL_E, playingRotations, rotAt, outRotations, J);
        return true;
      }
    }
    for (let i = 0; i < 4 * J; i++) outRotations[i] = playingRotations[rotAt + i];
    return false;
  }
}
