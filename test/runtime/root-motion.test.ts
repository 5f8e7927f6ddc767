import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  applyRootDeltaLocal,
  applyYawRootDeltaLocal,
  blendRootDelta,
  blendRootDeltaLocal,
  blendRootMotionLocal,
  blendRootPositionsNaive,
  blendYawRootMotionLocal,
  composeRootDeltaLocal,
  composeYawRootDeltaLocal,
  integrateBlendedDelta,
  intervalMeanWeight,
  loopRootDelta,
  loopRootDeltaBetween,
  loopRootDeltaLocal,
  loopYawRootDeltaLocal,
  rootDeltaLocal,
  rootDeltaLocalFromTrack,
  yawRootDeltaLocal,
  type IntegrationReport,
} from '../../src/runtime/root-motion/index.js';
import { quatFromAxisAngle, quatFromYaw, quatNormalize, quatRotateVec3, quatYaw } from '../../src/math/quat.js';

// The contract's worked case.
const A = { start: 0, end: 0.1 };
const B = { start: 10, end: 10.3 };
const OFFSETS = [-100, -10, 0, 10, 100];

const shift = (s: { start: number; end: number }, off: number) => ({ start: s.start + off, end: s.end + off });

/** Angle difference folded into (−π, π]. */
function angleDiff(a: number, b: number): number {
  let d = (a - b) % (2 * Math.PI);
  if (d > Math.PI) d -= 2 * Math.PI;
  if (d <= -Math.PI) d += 2 * Math.PI;
  return d;
}

/** Same rotation to within `tol` radians (q and −q are one rotation; chord-based, exact near 0). */
function expectSameRotation(q: ArrayLike<number>, r: ArrayLike<number>, tol = 1e-9): void {
  const dot = q[0] * r[0] + q[1] * r[1] + q[2] * r[2] + q[3] * r[3];
  const s = dot < 0 ? -1 : 1;
  const chord = Math.hypot(q[0] - s * r[0], q[1] - s * r[1], q[2] - s * r[2], q[3] - s * r[3]);
  expect(4 * Math.asin(Math.min(1, chord / 2))).toBeLessThan(tol);
}

/** rotY(yaw) applied to (x, y, z), matching quatFromYaw: +Z turns towards +X. */
function rotY(yaw: number, x: number, y: number, z: number): [number, number, number] {
  const c = Math.cos(yaw), s = Math.sin(yaw);
  return [x * c + z * s, y, -x * s + z * c];
}

describe('contract figures (scalar)', () => {
  it('naive position blend gives 2.22 m, 0.22 m after shifting B by -10 m (wrong-order reference)', () => {
    expect(blendRootPositionsNaive(A, B, 0.4, 0.6)).toBeCloseTo(2.22, 12);
    expect(Math.abs(blendRootPositionsNaive(A, B, 0.4, 0.6) - 2.22)).toBeLessThan(1e-12);
    expect(Math.abs(blendRootPositionsNaive(A, shift(B, -10), 0.4, 0.6) - 0.22)).toBeLessThan(1e-12);
  });

  it('delta blend with the interval mean weight gives 0.20 m', () => {
    const w = intervalMeanWeight(0.4, 0.6);
    expect(w).toBe(0.5);
    expect(Math.abs(blendRootDelta(A, B, w) - 0.2)).toBeLessThan(1e-12);
  });

  it('all 25 origin-offset pairs keep 0.20 m; the naive blend does not', () => {
    const naive = new Set<string>();
    let pairs = 0;
    for (const offA of OFFSETS) {
      for (const offB of OFFSETS) {
        const d = blendRootDelta(shift(A, offA), shift(B, offB), 0.5);
        expect(Math.abs(d - 0.2), `offsets (${offA}, ${offB})`).toBeLessThan(1e-12);
        naive.add(blendRootPositionsNaive(shift(A, offA), shift(B, offB), 0.4, 0.6).toFixed(6));
        pairs++;
      }
    }
    expect(pairs).toBe(25);
    // The position blend depends on the origins: it takes many different values over the same pairs.
    expect(naive.size).toBeGreaterThan(5);
  });

  it('non-constant velocity: one call gives 0.20 m, splitting at the velocity change gives 0.30 m', () => {
    // A still; B still for the first half, 0.40 m in the second half; B's weight 0 -> 1 over [0, 1].
    const sampleA = (_t: number) => 0;
    const sampleB = (t: number) => (t <= 0.5 ? 0 : 0.8 * (t - 0.5));
    const weight = (t: number) => t;
    const oneCall = blendRootDelta({ start: sampleA(0), end: sampleA(1) }, { start: sampleB(0), end: sampleB(1) }, intervalMeanWeight(0, 1));
    expect(Math.abs(oneCall - 0.2)).toBeLessThan(1e-12);

    // Split by hand at t = 0.5, each half with its own mean weight.
    const firstHalf = blendRootDelta({ start: 0, end: 0 }, { start: sampleB(0), end: sampleB(0.5) }, intervalMeanWeight(0, 0.5));
    const secondHalf = blendRootDelta({ start: 0, end: 0 }, { start: sampleB(0.5), end: sampleB(1) }, intervalMeanWeight(0.5, 1));
    expect(Math.abs(firstHalf + secondHalf - 0.3)).toBeLessThan(1e-12);

    // The integrator, told where the velocity changes: one exact sub-step per piece.
    const report: IntegrationReport = { steps: 0, errorEstimate: 0, converged: false };
    const split = integrateBlendedDelta(sampleA, sampleB, weight, 0, 1, { breakpoints: [0.5], adaptive: false, report });
    expect(Math.abs(split - 0.3)).toBeLessThan(1e-12);
    expect(report.steps).toBe(2);

    // The integrator without being told: step doubling finds the kink's effect by itself.
    const adaptive = integrateBlendedDelta(sampleA, sampleB, weight, 0, 1, { report });
    expect(Math.abs(adaptive - 0.3)).toBeLessThan(1e-6);
    expect(report.converged).toBe(true);

    // And with any origins on the tracks.
    for (const offA of OFFSETS) {
      for (const offB of OFFSETS) {
        const d = integrateBlendedDelta((t) => sampleA(t) + offA, (t) => sampleB(t) + offB, weight, 0, 1, { breakpoints: [0.5], adaptive: false });
        expect(Math.abs(d - 0.3)).toBeLessThan(1e-12);
      }
    }
  });
});

describe('blendRootDelta', () => {
  it('weight 0 gives A, weight 1 gives B, exactly', () => {
    expect(blendRootDelta(A, B, 0)).toBe(A.end - A.start);
    expect(blendRootDelta(A, B, 1)).toBe(B.end - B.start);
  });

  it('still tracks at different origins give zero delta', () => {
    expect(blendRootDelta({ start: -37, end: -37 }, { start: 1e3, end: 1e3 }, 0.3)).toBe(0);
  });

  it('reverse motion gives negative deltas', () => {
    expect(blendRootDelta({ start: 5, end: 4.5 }, { start: -2, end: -3.5 }, 0.5)).toBeCloseTo(-1, 12);
    expect(blendRootDelta({ start: 0, end: -0.1 }, { start: 0, end: 0.1 }, 0.5)).toBeCloseTo(0, 12);
  });

  it('rejects weights outside [0, 1] and NaN', () => {
    for (const w of [-0.1, 1.1, NaN, Infinity, -Infinity]) {
      expect(() => blendRootDelta(A, B, w)).toThrow(RangeError);
      expect(() => blendRootDelta(A, B, w)).toThrow(/weight must be a number in \[0, 1\]/);
    }
  });

  it('rejects NaN and infinities in each of the four samples, naming the sample', () => {
    for (const bad of [NaN, Infinity, -Infinity]) {
      expect(() => blendRootDelta({ start: bad, end: 0.1 }, B, 0.5)).toThrow(/a\.start must be a finite number/);
      expect(() => blendRootDelta({ start: 0, end: bad }, B, 0.5)).toThrow(/a\.end must be a finite number/);
      expect(() => blendRootDelta(A, { start: bad, end: 10.3 }, 0.5)).toThrow(/b\.start must be a finite number/);
      expect(() => blendRootDelta(A, { start: 10, end: bad }, 0.5)).toThrow(/b\.end must be a finite number/);
      expect(() => blendRootDelta(A, { start: 10, end: bad }, 0.5)).toThrow(RangeError);
    }
  });

  it('rejects differences that overflow', () => {
    expect(() => blendRootDelta({ start: -1.7e308, end: 1.7e308 }, B, 0.5)).toThrow(RangeError);
    expect(() => blendRootDelta({ start: -1.7e308, end: 1.7e308 }, B, 0.5)).toThrow(/a\.end - a\.start overflows/);
    expect(() => blendRootDelta(A, { start: 1.7e308, end: -1.7e308 }, 0.5)).toThrow(/b\.end - b\.start overflows/);
    // Large but representable differences are fine.
    expect(blendRootDelta({ start: 0, end: 1.7e308 }, { start: 0, end: 1.7e308 }, 0.5)).toBe(1.7e308);
  });

  it('the naive reference validates its inputs too', () => {
    expect(() => blendRootPositionsNaive(A, B, 0.4, 1.5)).toThrow(/weightAtEnd/);
    expect(() => blendRootPositionsNaive({ start: NaN, end: 0 }, B, 0.4, 0.6)).toThrow(/a\.start/);
  });

  // Bounded samples and offsets: |values|, |offsets| <= 1e3, so shifted samples are below 2e3 and
  // each addition rounds by at most half an ulp(2048) ≈ 2.3e-13; the shifted difference is then off
  // by at most ~1e-12 (two roundings of the samples plus one of the difference), far inside 1e-10.
  const bounded = fc.double({ min: -1e3, max: 1e3, noNaN: true });
  const weightArb = fc.double({ min: 0, max: 1, noNaN: true });

  it('property: any bounded origin offsets leave the delta unchanged (1e-10)', () => {
    fc.assert(
      fc.property(bounded, bounded, bounded, bounded, bounded, bounded, weightArb, (as, ae, bs, be, offA, offB, w) => {
        const reference = blendRootDelta({ start: as, end: ae }, { start: bs, end: be }, w);
        const shifted = blendRootDelta({ start: as + offA, end: ae + offA }, { start: bs + offB, end: be + offB }, w);
        expect(Math.abs(shifted - reference)).toBeLessThanOrEqual(1e-10);
      }),
      { numRuns: 500 },
    );
  });

  it('property: with millimetre samples and metre offsets (exact in binary) the delta is bit-identical', () => {
    // Multiples of 2^-10 m below 2^20 add exactly, so here invariance holds with no rounding at all.
    const mm = fc.integer({ min: -(2 ** 20), max: 2 ** 20 }).map((k) => k / 1024);
    const metres = fc.integer({ min: -1000, max: 1000 });
    fc.assert(
      fc.property(mm, mm, mm, mm, metres, metres, weightArb, (as, ae, bs, be, offA, offB, w) => {
        const reference = blendRootDelta({ start: as, end: ae }, { start: bs, end: be }, w);
        expect(blendRootDelta({ start: as + offA, end: ae + offA }, { start: bs + offB, end: be + offB }, w) + 0).toBe(reference + 0);
      }),
    );
  });

  it('property: linear in the weight; weight 0 gives dA and weight 1 gives dB', () => {
    fc.assert(
      fc.property(bounded, bounded, bounded, bounded, weightArb, (as, ae, bs, be, w) => {
        const a = { start: as, end: ae }, b = { start: bs, end: be };
        const dA = ae - as, dB = be - bs;
        // `=== ` semantics (+0 and −0 are the same displacement), hence the `+ 0`.
        expect(blendRootDelta(a, b, 0) + 0).toBe(dA + 0);
        expect(blendRootDelta(a, b, 1) + 0).toBe(dB + 0);
        const affine = (1 - w) * blendRootDelta(a, b, 0) + w * blendRootDelta(a, b, 1);
        expect(Math.abs(blendRootDelta(a, b, w) - affine)).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(dA) + Math.abs(dB)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('integrateBlendedDelta', () => {
  it('converges to the analytic integral for smooth velocities and a non-linear weight', () => {
    // A(t) = t, B(t) = sin t, w(t) = t on [0, 1]:
    // ∫ (1 − t)·1 + t·cos t dt = 1/2 + sin 1 + cos 1 − 1.
    const exact = 0.5 + Math.sin(1) + Math.cos(1) - 1;
    const report: IntegrationReport = { steps: 0, errorEstimate: 0, converged: false };
    const d = integrateBlendedDelta((t) => t, Math.sin, (t) => t, 0, 1, { maxError: 1e-6, report });
    expect(report.converged).toBe(true);
    // The sum converges as O(h²), so the finest estimate's error is about a third of the last change.
    expect(report.errorEstimate).toBeLessThanOrEqual(1e-6);
    expect(Math.abs(d - exact)).toBeLessThan(1e-6);
    expect(report.steps).toBeGreaterThan(1);
    // Asking for more accuracy than maxSteps allows is reported, not hidden.
    integrateBlendedDelta((t) => t, Math.sin, (t) => t, 0, 1, { maxError: 1e-12, maxSteps: 64, report });
    expect(report.converged).toBe(false);
    expect(report.steps).toBe(64);
    // Smoothstep weight, different origins, still within the requested error.
    const smooth = (t: number) => t * t * (3 - 2 * t);
    const ref = integrateBlendedDelta((t) => t, Math.sin, smooth, 0, 1);
    const shifted = integrateBlendedDelta((t) => t + 100, (t) => Math.sin(t) - 10, smooth, 0, 1);
    expect(Math.abs(ref - shifted)).toBeLessThan(1e-9);
  });

  it('reports non-convergence when maxSteps is too small, and returns the finest estimate', () => {
    const report: IntegrationReport = { steps: 0, errorEstimate: 0, converged: true };
    const sampleB = (t: number) => (t <= 0.5 ? 0 : 0.8 * (t - 0.5));
    const oneStep = integrateBlendedDelta(() => 0, sampleB, (t) => t, 0, 1, { maxSteps: 1, report });
    expect(Math.abs(oneStep - 0.2)).toBeLessThan(1e-12);
    expect(report.converged).toBe(false);
    expect(report.steps).toBe(1);
  });

  it('an empty interval gives zero; breakpoints outside the interval are ignored', () => {
    expect(integrateBlendedDelta((t) => t, (t) => 2 * t, () => 0.5, 3, 3)).toBe(0);
    const d = integrateBlendedDelta(() => 0, (t) => t, () => 1, 0, 1, { breakpoints: [-1, 0, 1, 2], adaptive: false });
    expect(d).toBeCloseTo(1, 12);
  });

  it('rejects bad inputs with clear errors', () => {
    const z = () => 0;
    expect(() => integrateBlendedDelta(z, z, () => 1.5, 0, 1)).toThrow(/weight\(0\) must return a number in \[0, 1\]/);
    expect(() => integrateBlendedDelta(z, () => NaN, () => 0.5, 0, 1)).toThrow(/sampleB\(0\) must return a finite number/);
    expect(() => integrateBlendedDelta(() => Infinity, z, () => 0.5, 0, 1)).toThrow(/sampleA/);
    expect(() => integrateBlendedDelta(z, z, () => 0.5, 1, 0)).toThrow(/t1 .* must be >= t0/);
    expect(() => integrateBlendedDelta(z, z, () => 0.5, NaN, 1)).toThrow(/t0 must be a finite number/);
    expect(() => integrateBlendedDelta(z, z, () => 0.5, 0, 1, { breakpoints: [0.6, 0.4] })).toThrow(/ascending/);
    expect(() => integrateBlendedDelta(z, z, () => 0.5, 0, 1, { breakpoints: [NaN] })).toThrow(/breakpoints\[0\]/);
    expect(() => integrateBlendedDelta(z, z, () => 0.5, 0, 1, { maxError: 0 })).toThrow(/maxError/);
    expect(() => integrateBlendedDelta(z, z, () => 0.5, 0, 1, { maxSteps: 0 })).toThrow(/maxSteps/);
    expect(() => integrateBlendedDelta(z, (t) => (t === 0 ? -1.7e308 : 1.7e308), () => 0.5, 0, 1)).toThrow(/overflows/);
  });
});

describe('loop wrap (scalar)', () => {
  // A looping clip of 1.2 s moving 1 m per cycle, with its origin at 5 m.
  const duration = 1.2;
  const clip = (t: number) => 5 + t / duration;

  it('accumulates across 0..3 wraps instead of subtracting wrapped coordinates', () => {
    for (let k = 0; k <= 3; k++) {
      const t0 = 0.3;
      const elapsed = k * duration + 0.6;
      const t1 = t0 + elapsed; // crosses the loop point k times
      const expected = elapsed / duration;
      expect(Math.abs(loopRootDeltaBetween(clip, duration, t0, t1) - expected), `k=${k}`).toBeLessThan(1e-12);
      // The explicit form with wrapped clip times.
      const local1 = t1 - k * duration;
      expect(Math.abs(loopRootDelta(clip(0), clip(duration), clip(t0), clip(local1), k) - expected)).toBeLessThan(1e-12);
      // Subtracting the wrapped coordinates loses a whole metre per wrap.
      if (k > 0) expect(Math.abs(clip(local1) - clip(t0) - expected)).toBeGreaterThan(0.5);
    }
  });

  it('handles unwrapped start times, exact loop points and a still clip', () => {
    expect(loopRootDeltaBetween(clip, duration, 2 * duration + 0.3, 2 * duration + 0.3 + duration)).toBeCloseTo(1, 12);
    expect(loopRootDeltaBetween(clip, duration, 0, duration)).toBeCloseTo(1, 12);
    expect(loopRootDeltaBetween(clip, duration, 0, 3 * duration)).toBeCloseTo(3, 12);
    expect(loopRootDeltaBetween(() => 7, duration, 0.1, 10)).toBe(0);
  });

  it('rejects bad inputs', () => {
    expect(() => loopRootDelta(0, 1, 0.2, 0.4, -1)).toThrow(/wraps must be a non-negative integer/);
    expect(() => loopRootDelta(0, 1, 0.2, 0.4, 1.5)).toThrow(/wraps/);
    expect(() => loopRootDelta(NaN, 1, 0.2, 0.4, 1)).toThrow(/clipStart/);
    expect(() => loopRootDelta(-1.7e308, 1.7e308, 0.2, 0.4, 2)).toThrow(/overflows/);
    expect(() => loopRootDeltaBetween(clip, 0, 0, 1)).toThrow(/duration must be > 0/);
    expect(() => loopRootDeltaBetween(clip, duration, 1, 0)).toThrow(/t1/);
  });
});

describe('3D and yaw delta blending in the local frame', () => {
  // Track A walks 1 m straight ahead in its own frame; track B walks to (0.5, 0, 0.5) in its own
  // frame while turning 90° (+Z towards +X). Each track has its own absolute heading and origin.
  const A_LOCAL: [number, number, number] = [0, 0, 1];
  const B_LOCAL: [number, number, number] = [0.5, 0, 0.5];
  const B_TURN = Math.PI / 2;

  function yawXform(x: number, z: number, yaw: number): Float64Array {
    return Float64Array.of(x, 0, z, yaw);
  }
  function yawTrack(ox: number, oz: number, heading: number, local: [number, number, number], turn: number) {
    const d = rotY(heading, ...local);
    return { start: yawXform(ox, oz, heading), end: yawXform(ox + d[0], oz + d[2], heading + turn) };
  }
  function quatXform(x: number, y: number, z: number, yaw: number): Float64Array {
    const out = new Float64Array(7);
    out[0] = x; out[1] = y; out[2] = z;
    quatFromYaw(out, 3, yaw);
    return out;
  }
  function quatTrack(ox: number, oz: number, heading: number, local: [number, number, number], turn: number) {
    const d = rotY(heading, ...local);
    return { start: quatXform(ox, 0, oz, heading), end: quatXform(ox + d[0], 0, oz + d[2], heading + turn) };
  }

  const angle = fc.double({ min: -10, max: 10, noNaN: true });
  const origin = fc.double({ min: -1e3, max: 1e3, noNaN: true });
  const weightArb = fc.double({ min: 0, max: 1, noNaN: true });

  it('property (yaw): the blended step is the same whatever each track\'s heading and origin', () => {
    fc.assert(
      fc.property(angle, angle, angle, origin, origin, origin, origin, origin, origin, weightArb,
        (hA, hB, hC, ax, az, bx, bz, cx, cz, w) => {
          const a = yawTrack(ax, az, hA, A_LOCAL, 0);
          const b = yawTrack(bx, bz, hB, B_LOCAL, B_TURN);
          const character = yawXform(cx, cz, hC);
          blendYawRootMotionLocal(character, 0, a.start, 0, a.end, 0, b.start, 0, b.end, 0, w);
          const local: [number, number, number] = [w * B_LOCAL[0], 0, (1 - w) * A_LOCAL[2] + w * B_LOCAL[2]];
          const d = rotY(hC, ...local);
          expect(Math.abs(character[0] - (cx + d[0]))).toBeLessThan(1e-9);
          expect(Math.abs(character[2] - (cz + d[2]))).toBeLessThan(1e-9);
          expect(Math.abs(angleDiff(character[3], hC + w * B_TURN))).toBeLessThan(1e-9);
        }),
      { numRuns: 300 },
    );
  });

  it('property (quaternion): the blended step is the same whatever each track\'s heading and origin', () => {
    const expectedRot = new Float64Array(4);
    fc.assert(
      fc.property(angle, angle, angle, origin, origin, origin, origin, origin, origin, weightArb,
        (hA, hB, hC, ax, az, bx, bz, cx, cz, w) => {
          const a = quatTrack(ax, az, hA, A_LOCAL, 0);
          const b = quatTrack(bx, bz, hB, B_LOCAL, B_TURN);
          const character = quatXform(cx, 0, cz, hC);
          blendRootMotionLocal(character, 0, a.start, 0, a.end, 0, b.start, 0, b.end, 0, w);
          const d = rotY(hC, w * B_LOCAL[0], 0, (1 - w) * A_LOCAL[2] + w * B_LOCAL[2]);
          expect(Math.abs(character[0] - (cx + d[0]))).toBeLessThan(1e-9);
          expect(Math.abs(character[1])).toBeLessThan(1e-9);
          expect(Math.abs(character[2] - (cz + d[2]))).toBeLessThan(1e-9);
          expectSameRotation(character.subarray(3), quatFromYaw(expectedRot, 0, hC + w * B_TURN));
        }),
      { numRuns: 300 },
    );
  });

  it('blending absolute headings instead would depend on the tracks\' headings', () => {
    // Same local motion, two different absolute headings for B: absolute-yaw lerp disagrees.
    const lerpAbs = (hA: number, hB: number) => 0.5 * hA + 0.5 * (hB + B_TURN);
    expect(Math.abs(lerpAbs(0, 0) - lerpAbs(0, 2))).toBeGreaterThan(0.5);
    const c1 = yawXform(0, 0, 0), c2 = yawXform(0, 0, 0);
    const a = yawTrack(0, 0, 0, A_LOCAL, 0);
    const b1 = yawTrack(0, 0, 0, B_LOCAL, B_TURN), b2 = yawTrack(3, -4, 2, B_LOCAL, B_TURN);
    blendYawRootMotionLocal(c1, 0, a.start, 0, a.end, 0, b1.start, 0, b1.end, 0, 0.5);
    blendYawRootMotionLocal(c2, 0, a.start, 0, a.end, 0, b2.start, 0, b2.end, 0, 0.5);
    for (let i = 0; i < 4; i++) expect(c2[i]).toBeCloseTo(c1[i], 12);
  });

  it('property: applying a track\'s local delta at its start reproduces its end (any 3D rotation)', () => {
    const unit = fc.double({ min: -1, max: 1, noNaN: true });
    fc.assert(
      fc.property(unit, unit, unit, unit, unit, unit, unit, unit, origin, origin, origin, origin, origin, origin,
        (q0, q1, q2, q3, r0, r1, r2, r3, x0, y0, z0, x1, y1, z1) => {
          fc.pre(q0 * q0 + q1 * q1 + q2 * q2 + q3 * q3 > 0.01 && r0 * r0 + r1 * r1 + r2 * r2 + r3 * r3 > 0.01);
          const start = Float64Array.of(x0, y0, z0, q0, q1, q2, q3);
          const end = Float64Array.of(x1, y1, z1, r0, r1, r2, r3);
          quatNormalize(start, 3, start, 3);
          quatNormalize(end, 3, end, 3);
          const delta = new Float64Array(7);
          rootDeltaLocal(delta, 0, start, 0, end, 0);
          const got = new Float64Array(7);
          applyRootDeltaLocal(got, 0, start, 0, delta, 0);
          for (let i = 0; i < 3; i++) expect(Math.abs(got[i] - end[i])).toBeLessThan(1e-9);
          expectSameRotation(got.subarray(3), end.subarray(3));
        }),
      { numRuns: 300 },
    );
  });

  it('yaw delta: translation in the start-facing frame, turn the short way', () => {
    const out = new Float64Array(4);
    // Facing +X (yaw 90°), moving +X 1 m: forward in the local frame.
    yawRootDeltaLocal(out, 0, yawXform(5, 5, Math.PI / 2), 0, yawXform(6, 5, Math.PI / 2 + 0.1), 0);
    expect(out[0]).toBeCloseTo(0, 12);
    expect(out[2]).toBeCloseTo(1, 12);
    expect(out[3]).toBeCloseTo(0.1, 12);
    // Crossing ±π: 170° -> −170° is a +20° turn, not −340°.
    yawRootDeltaLocal(out, 0, yawXform(0, 0, (170 * Math.PI) / 180), 0, yawXform(0, 0, (-170 * Math.PI) / 180), 0);
    expect(out[3]).toBeCloseTo((20 * Math.PI) / 180, 12);
  });

  it('3D delta blending: weight 0 and 1 select a track, rotations take the short path', () => {
    const dA = new Float64Array(7), dB = new Float64Array(7), out = new Float64Array(7);
    dA[2] = 1; quatFromYaw(dA, 3, 0);
    dB[0] = 1; quatFromYaw(dB, 3, 0.5);
    blendRootDeltaLocal(out, 0, dA, 0, dB, 0, 0);
    for (let i = 0; i < 7; i++) expect(out[i]).toBeCloseTo(dA[i], 12);
    blendRootDeltaLocal(out, 0, dA, 0, dB, 0, 1);
    for (let i = 0; i < 3; i++) expect(out[i]).toBeCloseTo(dB[i], 12);
    expectSameRotation(out.subarray(3), dB.subarray(3));
    // dB stored with the opposite sign (same rotation): the blend still goes the short way.
    for (let i = 3; i < 7; i++) dB[i] = -dB[i];
    blendRootDeltaLocal(out, 0, dA, 0, dB, 0, 0.5);
    expect(quatYaw(out, 3)).toBeCloseTo(0.25, 9);
  });

  it('composition: first then second', () => {
    const first = Float64Array.of(0, 0, 1, 0, 0, 0, 1);
    quatFromYaw(first, 3, Math.PI / 2);
    const second = Float64Array.of(0, 0, 1, 0, 0, 0, 1);
    const out = composeRootDeltaLocal(new Float64Array(7), 0, first, 0, second, 0);
    // After walking 1 m and turning to face +X, another 1 m forward ends at (1, 0, 1).
    expect(out[0]).toBeCloseTo(1, 12);
    expect(out[2]).toBeCloseTo(1, 12);
    const yawOut = composeYawRootDeltaLocal(new Float64Array(4), 0, Float64Array.of(0, 0, 1, Math.PI / 2), 0, Float64Array.of(0, 0, 1, 0), 0);
    expect(yawOut[0]).toBeCloseTo(1, 12);
    expect(yawOut[2]).toBeCloseTo(1, 12);
    expect(yawOut[3]).toBeCloseTo(Math.PI / 2, 12);
  });

  it('reads deltas straight from a root track (positions frames*3, rotations frames*4)', () => {
    const positions = Float64Array.of(10, 0, 10, 10, 0, 11, 11, 0, 11);
    const rotations = new Float64Array(12);
    quatFromYaw(rotations, 0, 0); quatFromYaw(rotations, 4, 0); quatFromYaw(rotations, 8, Math.PI / 2);
    const out = rootDeltaLocalFromTrack(new Float64Array(7), 0, positions, rotations, 0, 2);
    expect(out[0]).toBeCloseTo(1, 12);
    expect(out[2]).toBeCloseTo(1, 12);
    expect(quatYaw(out, 3)).toBeCloseTo(Math.PI / 2, 12);
    expect(() => rootDeltaLocalFromTrack(out, 0, positions, rotations, 0, 3)).toThrow(/frame1 must be an integer frame in \[0, 2\]/);
  });

  it('rejects non-finite values, bad weights and non-unit rotations', () => {
    const good = quatXform(0, 0, 0, 0);
    const nan = quatXform(0, 0, 0, 0); nan[1] = NaN;
    const inf = quatXform(0, 0, 0, 0); inf[5] = Infinity;
    const scaled = Float64Array.of(0, 0, 0, 0, 0, 0, 2);
    const out = new Float64Array(7);
    expect(() => rootDeltaLocal(out, 0, nan, 0, good, 0)).toThrow(/rootDeltaLocal: start\[1\] must be a finite number/);
    expect(() => rootDeltaLocal(out, 0, good, 0, inf, 0)).toThrow(/end\[5\]/);
    expect(() => rootDeltaLocal(out, 0, good, 0, scaled, 0)).toThrow(/unit quaternion/);
    expect(() => rootDeltaLocal(out, 0, Float64Array.of(-1.7e308, 0, 0, 0, 0, 0, 1), 0, Float64Array.of(1.7e308, 0, 0, 0, 0, 0, 1), 0)).toThrow(/overflows/);
    expect(() => blendRootMotionLocal(good, 0, good, 0, good, 0, good, 0, good, 0, 1.1)).toThrow(/weight/);
    expect(() => blendRootDeltaLocal(out, 0, good, 0, good, 0, NaN)).toThrow(/weight/);
    const yaw = Float64Array.of(0, 0, 0, 0);
    expect(() => yawRootDeltaLocal(out, 0, yaw, 0, Float64Array.of(0, 0, -Infinity, 0), 0)).toThrow(/end\[2\]/);
    expect(() => blendYawRootMotionLocal(yaw, 0, yaw, 0, yaw, 0, yaw, 0, yaw, 0, -0.1)).toThrow(/weight/);
    expect(() => applyYawRootDeltaLocal(yaw, 0, yaw, 0, Float64Array.of(0, NaN, 0, 0), 0)).toThrow(/delta\[1\]/);
  });
});

describe('loop wrap (3D and yaw)', () => {
  // A looping clip that walks a quarter circle of radius R per cycle, turning 90° (+Z towards +X).
  // Repeating the cycle traces one continuous circle, so the displacement between two playback
  // times is the displacement between two points of that circle at the unwrapped angles.
  const R = 2;
  const circleYaw = (theta: number) => Float64Array.of(R - R * Math.cos(theta), 0, R * Math.sin(theta), theta);
  const circleQuat = (theta: number) => {
    const out = Float64Array.of(R - R * Math.cos(theta), 0, R * Math.sin(theta), 0, 0, 0, 1);
    return quatFromYaw(out, 3, theta) as Float64Array;
  };
  const QUARTER = Math.PI / 2;

  it('yaw: crossing the wrap 0..3 times matches the continuous circle', () => {
    const s0 = 0.25, s1 = 0.5; // clip phase at t0 and at t1 (fractions of a cycle)
    for (let k = 0; k <= 3; k++) {
      const out = new Float64Array(4);
      loopYawRootDeltaLocal(out, 0, circleYaw(0), 0, circleYaw(QUARTER), 0, circleYaw(s0 * QUARTER), 0, circleYaw(s1 * QUARTER), 0, k);
      const expected = yawRootDeltaLocal(new Float64Array(4), 0, circleYaw(s0 * QUARTER), 0, circleYaw((k + s1) * QUARTER), 0);
      for (let i = 0; i < 3; i++) expect(Math.abs(out[i] - expected[i]), `k=${k} i=${i}`).toBeLessThan(1e-12);
      expect(Math.abs(angleDiff(out[3], (k + s1 - s0) * QUARTER))).toBeLessThan(1e-12);
    }
    // Four full cycles close the square-ish circle: back where it started, facing the same way.
    const full = loopYawRootDeltaLocal(new Float64Array(4), 0, circleYaw(0), 0, circleYaw(QUARTER), 0, circleYaw(0), 0, circleYaw(0), 0, 4);
    for (let i = 0; i < 3; i++) expect(Math.abs(full[i])).toBeLessThan(1e-12);
    expect(Math.abs(angleDiff(full[3], 0))).toBeLessThan(1e-12);
  });

  it('3D: crossing the wrap 0..3 times matches the continuous circle (and large wrap counts)', () => {
    const s0 = 0.25, s1 = 0.5;
    for (const k of [0, 1, 2, 3, 17]) {
      const out = new Float64Array(7);
      loopRootDeltaLocal(out, 0, circleQuat(0), 0, circleQuat(QUARTER), 0, circleQuat(s0 * QUARTER), 0, circleQuat(s1 * QUARTER), 0, k);
      const expected = new Float64Array(7);
      rootDeltaLocal(expected, 0, circleQuat(s0 * QUARTER), 0, circleQuat((k + s1) * QUARTER), 0);
      for (let i = 0; i < 3; i++) expect(Math.abs(out[i] - expected[i]), `k=${k} i=${i}`).toBeLessThan(1e-9);
      expectSameRotation(out.subarray(3), expected.subarray(3));
    }
  });

  it('a straight looping walk accumulates 1 m per cycle in 3D', () => {
    const start = Float64Array.of(4, 0, -3, 0, 0, 0, 1);
    const end = Float64Array.of(4, 0, -2, 0, 0, 0, 1);
    const at = (s: number) => Float64Array.of(4, 0, -3 + s, 0, 0, 0, 1);
    for (let k = 0; k <= 3; k++) {
      const out = loopRootDeltaLocal(new Float64Array(7), 0, start, 0, end, 0, at(0.3), 0, at(0.8), 0, k);
      expect(out[2]).toBeCloseTo(k + 0.5, 12);
      expect(out[0]).toBeCloseTo(0, 12);
    }
    expect(() => loopRootDeltaLocal(new Float64Array(7), 0, start, 0, end, 0, at(0.3), 0, at(0.8), 0, -1)).toThrow(/wraps/);
  });

  it('applying the accumulated delta moves the character along the loop path', () => {
    const character = Float64Array.of(100, 0, 100, 0, 0, 0, 1);
    quatFromAxisAngle(character, 3, 0, 1, 0, 0.3);
    const delta = loopRootDeltaLocal(new Float64Array(7), 0, circleQuat(0), 0, circleQuat(QUARTER), 0, circleQuat(0), 0, circleQuat(0), 0, 2);
    applyRootDeltaLocal(character, 0, character, 0, delta, 0);
    // Half the circle: 2R sideways (+X in the character's frame), facing backwards.
    const side = quatRotateVec3(new Float64Array(3), 0, quatFromYaw(new Float64Array(4), 0, 0.3), 0, Float64Array.of(2 * R, 0, 0), 0);
    expect(character[0]).toBeCloseTo(100 + side[0], 9);
    expect(character[2]).toBeCloseTo(100 + side[2], 9);
    expect(Math.abs(angleDiff(quatYaw(character, 3), 0.3 + Math.PI))).toBeLessThan(1e-9);
  });
});
