import type { Buf } from './quat.js';

export function vec3Length(a: Buf, o = 0): number {
  return Math.hypot(a[o], a[o + 1], a[o + 2]);
}

export function vec3Distance(a: Buf, ao: number, b: Buf, bo: number): number {
  return Math.hypot(a[ao] - b[bo], a[ao + 1] - b[bo + 1], a[ao + 2] - b[bo + 2]);
}

export function vec3Copy(out: Buf, oo: number, a: Buf, ao: number): Buf {
  out[oo] = a[ao]; out[oo + 1] = a[ao + 1]; out[oo + 2] = a[ao + 2];
  return out;
}

/** out = a + (b - a) * t */
export function vec3Lerp(out: Buf, oo: number, a: Buf, ao: number, b: Buf, bo: number, t: number): Buf {
  out[oo] = a[ao] + (b[bo] - a[ao]) * t;
  out[oo + 1] = a[ao + 1] + (b[bo + 1] - a[ao + 1]) * t;
  out[oo + 2] = a[ao + 2] + (b[bo + 2] - a[ao + 2]) * t;
  return out;
}
