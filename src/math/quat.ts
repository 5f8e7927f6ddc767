/**
 * Quaternions (x, y, z, w) stored in flat numeric buffers, gl-matrix style: every function writes
 * into an out-buffer at an offset and allocates nothing, so the same code serves one pose or a
 * whole clip stored contiguously.
 *
 * Buffers are Float64Array only, on purpose: these functions sit in every character's per-frame
 * path, and V8 keeps them fast only while each sees a single array type (mixing Float32Array or
 * plain arrays in, e.g. while building a database, made the whole runtime ~40% slower).
 */
export type Buf = Float64Array;

export function quatSetIdentity(out: Buf, o = 0): Buf {
  out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 1;
  return out;
}

/** out = a * b (apply b first, then a). Safe when out aliases a or b at the same offset. */
export function quatMultiply(out: Buf, oo: number, a: Buf, ao: number, b: Buf, bo: number): Buf {
  const ax = a[ao], ay = a[ao + 1], az = a[ao + 2], aw = a[ao + 3];
  const bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  out[oo] = aw * bx + ax * bw + ay * bz - az * by;
  out[oo + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[oo + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[oo + 3] = aw * bw - ax * bx - ay * by - az * bz;
  return out;
}

/** out = conj(a) * b, i.e. inverse(a) * b for unit quaternions. */
export function quatInvMultiply(out: Buf, oo: number, a: Buf, ao: number, b: Buf, bo: number): Buf {
  const ax = -a[ao], ay = -a[ao + 1], az = -a[ao + 2], aw = a[ao + 3];
  const bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  out[oo] = aw * bx + ax * bw + ay * bz - az * by;
  out[oo + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[oo + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[oo + 3] = aw * bw - ax * bx - ay * by - az * bz;
  return out;
}

/** out = a * conj(b), i.e. a * inverse(b) for unit quaternions. */
export function quatMultiplyInv(out: Buf, oo: number, a: Buf, ao: number, b: Buf, bo: number): Buf {
  const ax = a[ao], ay = a[ao + 1], az = a[ao + 2], aw = a[ao + 3];
  const bx = -b[bo], by = -b[bo + 1], bz = -b[bo + 2], bw = b[bo + 3];
  out[oo] = aw * bx + ax * bw + ay * bz - az * by;
  out[oo + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[oo + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[oo + 3] = aw * bw - ax * bx - ay * by - az * bz;
  return out;
}

export function quatNormalize(out: Buf, oo: number, a: Buf, ao: number): Buf {
  const x = a[ao], y = a[ao + 1], z = a[ao + 2], w = a[ao + 3];
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  if (len === 0) return quatSetIdentity(out, oo);
  const s = 1 / len;
  out[oo] = x * s; out[oo + 1] = y * s; out[oo + 2] = z * s; out[oo + 3] = w * s;
  return out;
}

/** Rotation of `angle` radians about the unit axis (ax, ay, az). */
export function quatFromAxisAngle(out: Buf, oo: number, ax: number, ay: number, az: number, angle: number): Buf {
  const h = 0.5 * angle, s = Math.sin(h);
  out[oo] = ax * s; out[oo + 1] = ay * s; out[oo + 2] = az * s; out[oo + 3] = Math.cos(h);
  return out;
}

/** Rotation about +Y (yaw); a positive angle turns +Z towards +X. */
/**
 * The shortest rotation taking unit vector a onto unit vector b: (a × b, 1 + a·b) normalised. For
 * opposite vectors (no unique shortest rotation) a half turn about an axis perpendicular to a.
 */
export function quatFromTo(out: Buf, oo: number, a: Buf, ao: number, b: Buf, bo: number): Buf {
  const ax = a[ao], ay = a[ao + 1], az = a[ao + 2], bx = b[bo], by = b[bo + 1], bz = b[bo + 2];
  const w = 1 + ax * bx + ay * by + az * bz;
  if (w < 1e-12) {
    // Half turn: about a × x, or a × y when a is along x.
    let px = 0, py = -az, pz = ay;
    if (py * py + pz * pz < 1e-12) { px = az; py = 0; pz = -ax; }
    const n = Math.sqrt(px * px + py * py + pz * pz);
    out[oo] = px / n; out[oo + 1] = py / n; out[oo + 2] = pz / n; out[oo + 3] = 0;
    return out;
  }
  const x = ay * bz - az * by, y = az * bx - ax * bz, z = ax * by - ay * bx;
  const n = Math.sqrt(x * x + y * y + z * z + w * w);
  out[oo] = x / n; out[oo + 1] = y / n; out[oo + 2] = z / n; out[oo + 3] = w / n;
  return out;
}

export function quatFromYaw(out: Buf, oo: number, yaw: number): Buf {
  const h = 0.5 * yaw;
  out[oo] = 0; out[oo + 1] = Math.sin(h); out[oo + 2] = 0; out[oo + 3] = Math.cos(h);
  return out;
}

/** Yaw angle of the rotated +Z axis projected to the ground: atan2(fx, fz). */
export function quatYaw(q: Buf, o = 0): number {
  const x = q[o], y = q[o + 1], z = q[o + 2], w = q[o + 3];
  const fx = 2 * (x * z + w * y);
  const fz = 1 - 2 * (x * x + y * y);
  return Math.atan2(fx, fz);
}

/** Shortest-path spherical interpolation; falls back to nlerp for nearly equal rotations. */
export function quatSlerp(out: Buf, oo: number, a: Buf, ao: number, b: Buf, bo: number, t: number): Buf {
  const ax = a[ao], ay = a[ao + 1], az = a[ao + 2], aw = a[ao + 3];
  let bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  let cos = ax * bx + ay * by + az * bz + aw * bw;
  if (cos < 0) { cos = -cos; bx = -bx; by = -by; bz = -bz; bw = -bw; }
  let s0: number, s1: number;
  if (cos > 0.9995) {
    s0 = 1 - t; s1 = t;
  } else {
    const theta = Math.acos(cos), sin = Math.sin(theta);
    s0 = Math.sin((1 - t) * theta) / sin;
    s1 = Math.sin(t * theta) / sin;
  }
  const x = s0 * ax + s1 * bx, y = s0 * ay + s1 * by, z = s0 * az + s1 * bz, w = s0 * aw + s1 * bw;
  const inv = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
  out[oo] = x * inv; out[oo + 1] = y * inv; out[oo + 2] = z * inv; out[oo + 3] = w * inv;
  return out;
}

/** out3 = q applied to vector v. */
export function quatRotateVec3(out: Buf, oo: number, q: Buf, qo: number, v: Buf, vo: number): Buf {
  const qx = q[qo], qy = q[qo + 1], qz = q[qo + 2], qw = q[qo + 3];
  const vx = v[vo], vy = v[vo + 1], vz = v[vo + 2];
  // t = 2 * cross(q.xyz, v); v' = v + w t + cross(q.xyz, t)
  const tx = 2 * (qy * vz - qz * vy), ty = 2 * (qz * vx - qx * vz), tz = 2 * (qx * vy - qy * vx);
  out[oo] = vx + qw * tx + (qy * tz - qz * ty);
  out[oo + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[oo + 2] = vz + qw * tz + (qx * ty - qy * tx);
  return out;
}

/** out3 = inverse(q) applied to vector v. */
export function quatInvRotateVec3(out: Buf, oo: number, q: Buf, qo: number, v: Buf, vo: number): Buf {
  const qx = -q[qo], qy = -q[qo + 1], qz = -q[qo + 2], qw = q[qo + 3];
  const vx = v[vo], vy = v[vo + 1], vz = v[vo + 2];
  const tx = 2 * (qy * vz - qz * vy), ty = 2 * (qz * vx - qx * vz), tz = 2 * (qx * vy - qy * vx);
  out[oo] = vx + qw * tx + (qy * tz - qz * ty);
  out[oo + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[oo + 2] = vz + qw * tz + (qx * ty - qy * tx);
  return out;
}

/**
 * Scaled angle-axis (rotation vector, angle * axis) of a unit quaternion, taking the short way
 * round. This is the "log" used by springs and inertialization.
 */
export function quatToScaledAngleAxis(out: Buf, oo: number, q: Buf, qo: number): Buf {
  let x = q[qo], y = q[qo + 1], z = q[qo + 2], w = q[qo + 3];
  if (w < 0) { x = -x; y = -y; z = -z; w = -w; }
  const len = Math.sqrt(x * x + y * y + z * z);
  if (len < 1e-8) {
    out[oo] = 2 * x; out[oo + 1] = 2 * y; out[oo + 2] = 2 * z;
    return out;
  }
  const angle = 2 * Math.atan2(len, w);
  const s = angle / len;
  out[oo] = x * s; out[oo + 1] = y * s; out[oo + 2] = z * s;
  return out;
}

/** Inverse of quatToScaledAngleAxis. */
export function quatFromScaledAngleAxis(out: Buf, oo: number, v: Buf, vo: number): Buf {
  const x = v[vo], y = v[vo + 1], z = v[vo + 2];
  const angle = Math.sqrt(x * x + y * y + z * z);
  if (angle < 1e-8) {
    out[oo] = 0.5 * x; out[oo + 1] = 0.5 * y; out[oo + 2] = 0.5 * z; out[oo + 3] = 1;
    return quatNormalize(out, oo, out, oo);
  }
  const h = 0.5 * angle, s = Math.sin(h) / angle;
  out[oo] = x * s; out[oo + 1] = y * s; out[oo + 2] = z * s; out[oo + 3] = Math.cos(h);
  return out;
}

const eulerScratch = new Float64Array(4);

/** Unit quaternion from Euler angles (radians) applied in the given intrinsic order, e.g. "ZXY". */
export function quatFromEulerOrder(out: Buf, oo: number, angles: readonly number[], axes: string): Buf {
  quatSetIdentity(out, oo);
  const tmp = eulerScratch;
  for (let i = 0; i < axes.length; i++) {
    const c = axes.charCodeAt(i) | 0x20; // lower-case
    const a = angles[i];
    quatFromAxisAngle(tmp, 0, c === 120 ? 1 : 0, c === 121 ? 1 : 0, c === 122 ? 1 : 0, a);
    quatMultiply(out, oo, out, oo, tmp, 0);
  }
  return out;
}
