/**
 * 3x3 matrices as 9 numbers, row-major (m[3 * row + col]), for setup-time geometry (fitting a
 * joint's mirror reflection), not for per-frame work: each function writes into `out`, which may not
 * alias an input.
 */
export type Mat3 = Float64Array;

export function mat3(): Mat3 {
  return new Float64Array(9);
}

export function mat3Identity(out: Mat3): Mat3 {
  out.fill(0);
  out[0] = out[4] = out[8] = 1;
  return out;
}

/** out = diag(sx, sy, sz). */
export function mat3Diagonal(out: Mat3, sx: number, sy: number, sz: number): Mat3 {
  out.fill(0);
  out[0] = sx; out[4] = sy; out[8] = sz;
  return out;
}

/** out = a b. */
export function mat3Multiply(out: Mat3, a: Mat3, b: Mat3): Mat3 {
  for (let i = 0; i < 3; i++) for (let k = 0; k < 3; k++) out[3 * i + k] = a[3 * i] * b[k] + a[3 * i + 1] * b[3 + k] + a[3 * i + 2] * b[6 + k];
  return out;
}

/** out = aᵀ b. */
export function mat3TransposeMultiply(out: Mat3, a: Mat3, b: Mat3): Mat3 {
  for (let i = 0; i < 3; i++) for (let k = 0; k < 3; k++) out[3 * i + k] = a[i] * b[k] + a[3 + i] * b[3 + k] + a[6 + i] * b[6 + k];
  return out;
}

/** tr(aᵀ b) = Σ a_ik b_ik: the Frobenius inner product. */
export function mat3Dot(a: Mat3, b: Mat3): number {
  let s = 0;
  for (let i = 0; i < 9; i++) s += a[i] * b[i];
  return s;
}

/** The rotation matrix of unit quaternion (x, y, z, w) at q[o]. */
export function mat3FromQuat(out: Mat3, q: ArrayLike<number>, o: number): Mat3 {
  const x = q[o], y = q[o + 1], z = q[o + 2], w = q[o + 3];
  out[0] = 1 - 2 * (y * y + z * z); out[1] = 2 * (x * y - z * w); out[2] = 2 * (x * z + y * w);
  out[3] = 2 * (x * y + z * w); out[4] = 1 - 2 * (x * x + z * z); out[5] = 2 * (y * z - x * w);
  out[6] = 2 * (x * z - y * w); out[7] = 2 * (y * z + x * w); out[8] = 1 - 2 * (x * x + y * y);
  return out;
}

/**
 * The unit quaternion (x, y, z, w) of rotation matrix m (Shepperd's method: the largest of the four
 * squares first), with that largest component positive: the same sign from nearby matrices, also
 * for half turns (w ≈ 0), where a w ≥ 0 rule would flip with rounding.
 */
export function quatFromMat3(out: Float64Array, oo: number, m: Mat3): Float64Array {
  const t = m[0] + m[4] + m[8];
  let x: number, y: number, z: number, w: number;
  if (t >= m[0] && t >= m[4] && t >= m[8]) {
    const s = 2 * Math.sqrt(1 + t);
    w = s / 4; x = (m[7] - m[5]) / s; y = (m[2] - m[6]) / s; z = (m[3] - m[1]) / s;
  } else if (m[0] >= m[4] && m[0] >= m[8]) {
    const s = 2 * Math.sqrt(1 + m[0] - m[4] - m[8]);
    x = s / 4; w = (m[7] - m[5]) / s; y = (m[1] + m[3]) / s; z = (m[2] + m[6]) / s;
  } else if (m[4] >= m[8]) {
    const s = 2 * Math.sqrt(1 - m[0] + m[4] - m[8]);
    y = s / 4; w = (m[2] - m[6]) / s; x = (m[1] + m[3]) / s; z = (m[5] + m[7]) / s;
  } else {
    const s = 2 * Math.sqrt(1 - m[0] - m[4] + m[8]);
    z = s / 4; w = (m[3] - m[1]) / s; x = (m[2] + m[6]) / s; y = (m[5] + m[7]) / s;
  }
  const n = 1 / Math.hypot(x, y, z, w);
  out[oo] = x * n; out[oo + 1] = y * n; out[oo + 2] = z * n; out[oo + 3] = w * n;
  return out;
}

/** The rotation by `angle` about unit axis d (Rodrigues: cos I + sin [d]x + (1 - cos) d dᵀ). */
export function mat3AxisAngle(out: Mat3, d: ArrayLike<number>, angle: number): Mat3 {
  const c = Math.cos(angle), s = Math.sin(angle), k = 1 - c;
  const [x, y, z] = [d[0], d[1], d[2]];
  out[0] = c + k * x * x; out[1] = k * x * y - s * z; out[2] = k * x * z + s * y;
  out[3] = k * x * y + s * z; out[4] = c + k * y * y; out[5] = k * y * z - s * x;
  out[6] = k * x * z - s * y; out[7] = k * y * z + s * x; out[8] = c + k * z * z;
  return out;
}

/**
 * The angle θ maximising tr((a R_d(θ))ᵀ m) over rotations R_d(θ) about unit axis d: with M = aᵀ m,
 * tr(R_d(θ)ᵀ M) = dᵀMd + cos θ (tr M - dᵀMd) + sin θ Σ [d]x_ik M_ik.
 */
export function bestTurnAbout(a: Mat3, m: Mat3, d: ArrayLike<number>): number {
  const M = mat3TransposeMultiply(mat3(), a, m);
  let dMd = 0;
  for (let i = 0; i < 3; i++) for (let k = 0; k < 3; k++) dMd += d[i] * M[3 * i + k] * d[k];
  const along = M[0] + M[4] + M[8] - dMd;
  // [d]x = [[0, -dz, dy], [dz, 0, -dx], [-dy, dx, 0]]
  const across = -d[2] * M[1] + d[1] * M[2] + d[2] * M[3] - d[0] * M[5] - d[1] * M[6] + d[0] * M[7];
  return Math.atan2(across, along);
}

/** The angle of the rotation aᵀ b (a, b both rotations or both reflections). */
export function mat3AngleBetween(a: Mat3, b: Mat3): number {
  const c = (mat3Dot(a, b) - 1) / 2;
  return Math.acos(Math.max(-1, Math.min(1, c)));
}
