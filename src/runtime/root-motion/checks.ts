/**
 * Argument checks of the root-motion API: cheap comparisons, strings built only when throwing.
 * Every public function validates its inputs and throws RangeError naming the offending argument:
 * NaN, infinities, weights outside [0, 1], and differences that overflow double precision.
 */
import type { Buf } from '../../math/quat.js';

/** `name` + `suffix` (or `name[index]`) names the argument; joined only when throwing. */
export function requireFinite(fn: string, name: string, x: number, suffix = '', index = -1): void {
  if (!Number.isFinite(x)) {
    const label = index >= 0 ? `${name}[${index}]` : name + suffix;
    throw new RangeError(`${fn}: ${label} must be a finite number, got ${String(x)}`);
  }
}

export function requireWeight(fn: string, name: string, w: number): void {
  // Written as a negated range test so NaN (and non-numbers) fail too.
  if (!(typeof w === 'number' && w >= 0 && w <= 1)) {
    throw new RangeError(`${fn}: ${name} must be a number in [0, 1], got ${String(w)}`);
  }
}

export function requireFiniteResult(fn: string, what: string, x: number): number {
  if (!Number.isFinite(x)) {
    throw new RangeError(`${fn}: ${what} overflows double precision (${String(x)})`);
  }
  return x;
}

/** end − start of one track, rejecting non-finite samples and a difference that overflows. */
export function spanDisplacement(fn: string, label: string, span: { start: number; end: number }): number {
  requireFinite(fn, label, span.start, '.start');
  requireFinite(fn, label, span.end, '.end');
  const d = span.end - span.start;
  if (!Number.isFinite(d)) {
    throw new RangeError(
      `${fn}: ${label}.end - ${label}.start overflows double precision ` +
        `(${span.end} - ${span.start}); the samples are too far apart to difference`,
    );
  }
  return d;
}

/** (1 − w)·dA + w·dB. This form returns dA exactly at w = 0 and dB exactly at w = 1. */
export function lerpDisplacement(dA: number, dB: number, w: number): number {
  return (1 - w) * dA + w * dB;
}

export function requireFiniteRange(fn: string, name: string, buf: Buf, o: number, n: number): void {
  for (let i = 0; i < n; i++) {
    const x = buf[o + i];
    if (!Number.isFinite(x)) {
      throw new RangeError(`${fn}: ${name}[${o + i}] must be a finite number, got ${String(x)}`);
    }
  }
}

/**
 * A root rotation must be finite and (close to) unit length: a wrong layout (e.g. a yaw transform
 * passed where a 3D one is expected) shows up here rather than as a silently scaled rotation.
 */
function requireUnitQuat(fn: string, name: string, buf: Buf, o: number): void {
  requireFiniteRange(fn, name, buf, o, 4);
  const x = buf[o], y = buf[o + 1], z = buf[o + 2], w = buf[o + 3];
  const n2 = x * x + y * y + z * z + w * w;
  if (!(Math.abs(n2 - 1) <= 1e-3)) {
    throw new RangeError(
      `${fn}: ${name}[${o}..${o + 3}] must be a unit quaternion (x, y, z, w), squared length is ${n2}`,
    );
  }
}

export function requireXform(fn: string, name: string, buf: Buf, o: number): void {
  requireFiniteRange(fn, name, buf, o, 3);
  requireUnitQuat(fn, name, buf, o + 3);
}

export function requireWraps(fn: string, wraps: number): void {
  if (!(Number.isSafeInteger(wraps) && wraps >= 0)) {
    throw new RangeError(`${fn}: wraps must be a non-negative integer, got ${String(wraps)}`);
  }
}

export function sampleFinite(fn: string, name: string, f: (t: number) => number, t: number): number {
  const x = f(t);
  if (!Number.isFinite(x)) {
    throw new RangeError(`${fn}: ${name}(${t}) must return a finite number, got ${String(x)}`);
  }
  return x;
}

export function sampleWeight(fn: string, f: (t: number) => number, t: number): number {
  const w = f(t);
  if (!(typeof w === 'number' && w >= 0 && w <= 1)) {
    throw new RangeError(`${fn}: weight(${t}) must return a number in [0, 1], got ${String(w)}`);
  }
  return w;
}

