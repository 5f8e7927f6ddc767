import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  dampingFromHalfLife,
  decaySpringUpdate,
  halfLifeFromDamping,
  springCharacterPredict,
  springCharacterUpdate,
  springRotationPredict,
  springRotationUpdate,
} from '../../src/math/spring.js';
import { quatFromYaw, quatYaw } from '../../src/math/quat.js';

/** Angle in radians between two rotations (q and −q are one rotation; chord-based, exact near 0). */
function sameRotation(q: ArrayLike<number>, qo: number, r: ArrayLike<number>, ro: number): number {
  const dot = q[qo] * r[ro] + q[qo + 1] * r[ro + 1] + q[qo + 2] * r[ro + 2] + q[qo + 3] * r[ro + 3];
  const s = dot < 0 ? -1 : 1;
  let d2 = 0;
  for (let k = 0; k < 4; k++) d2 += (q[qo + k] - s * r[ro + k]) ** 2;
  return 4 * Math.asin(Math.min(1, Math.sqrt(d2) / 2));
}

describe('half-life and damping', () => {
  it('y = 2 ln2 / h and back', () => {
    expect(dampingFromHalfLife(0.1)).toBeCloseTo((2 * Math.LN2) / 0.1, 12);
    expect(halfLifeFromDamping(dampingFromHalfLife(0.27))).toBeCloseTo(0.27, 12);
  });
  it('rejects non-positive or non-finite half-lives', () => {
    for (const h of [0, -1, NaN, Infinity]) expect(() => dampingFromHalfLife(h)).toThrow(RangeError);
    expect(() => decaySpringUpdate([1], 0, [0], 0, 0.1, -0.01)).toThrow(/dt must be a finite number >= 0/);
    expect(() => decaySpringUpdate([1], 0, [0], 0, 0.1, NaN)).toThrow(/dt/);
    expect(() => springCharacterUpdate([0], 0, [0], 0, [0], 0, [1], 0, -0.2, 0.1, 1)).toThrow(/halfLife/);
  });
});

describe('decay spring', () => {
  it('dt = 0 changes nothing; it decays to zero without overshoot from rest', () => {
    const x = Float64Array.of(1, -2, 0.5), v = new Float64Array(3);
    decaySpringUpdate(x, 0, v, 0, 0.1, 0, 3);
    expect(Array.from(x)).toEqual([1, -2, 0.5]);
    expect(Array.from(v)).toEqual([0, 0, 0]);
    let prev = 1;
    for (let i = 0; i < 100; i++) {
      decaySpringUpdate(x, 0, v, 0, 0.1, 0.01, 3);
      expect(x[0]).toBeGreaterThan(0); // critically damped: no overshoot
      expect(x[0]).toBeLessThanOrEqual(prev);
      prev = x[0];
    }
    // After 10 half-lives: e^(−20 ln2)·(1 + 20 ln2) ≈ 1.4e-5 of the start.
    expect(Math.abs(x[0])).toBeLessThan(2e-5);
    expect(Math.abs(x[1])).toBeLessThan(4e-5);
    for (let i = 0; i < 200; i++) decaySpringUpdate(x, 0, v, 0, 0.1, 0.01, 3);
    for (let k = 0; k < 3; k++) {
      expect(Math.abs(x[k])).toBeLessThan(1e-12);
      expect(Math.abs(v[k])).toBeLessThan(1e-10);
    }
  });

  it('property: one step of dt equals many smaller steps (exact closed form)', () => {
    const val = fc.double({ min: -10, max: 10, noNaN: true });
    fc.assert(
      fc.property(val, val, fc.double({ min: 0.01, max: 1, noNaN: true }), fc.double({ min: 0, max: 2, noNaN: true }), fc.integer({ min: 2, max: 50 }),
        (x0, v0, h, dt, n) => {
          const x1 = [x0], v1 = [v0], x2 = [x0], v2 = [v0];
          decaySpringUpdate(x1, 0, v1, 0, h, dt);
          for (let i = 0; i < n; i++) decaySpringUpdate(x2, 0, v2, 0, h, dt / n);
          expect(Math.abs(x1[0] - x2[0])).toBeLessThan(1e-9);
          expect(Math.abs(v1[0] - v2[0])).toBeLessThan(1e-8);
        }),
    );
  });

  it('its velocity is the derivative of its position', () => {
    const h = 0.1, eps = 1e-6;
    const x = [0.7], v = [3];
    decaySpringUpdate(x, 0, v, 0, h, 0.05);
    const xa = [x[0]], va = [v[0]], xb = [x[0]], vb = [v[0]];
    decaySpringUpdate(xa, 0, va, 0, h, eps);
    decaySpringUpdate(xb, 0, vb, 0, h, 2 * eps);
    // Forward difference of second order: (−3x0 + 4x1 − x2) / 2ε.
    const derivative = (-3 * x[0] + 4 * xa[0] - xb[0]) / (2 * eps);
    expect(derivative).toBeCloseTo(v[0], 5);
  });

  it('is deterministic', () => {
    const run = () => {
      const x = Float64Array.of(0.3, -0.2, 0.1), v = Float64Array.of(1, 2, -3);
      for (let i = 0; i < 500; i++) decaySpringUpdate(x, 0, v, 0, 0.13, 1 / 60, 3);
      return [...x, ...v];
    };
    expect(run()).toEqual(run());
  });
});

describe('trajectory spring (springCharacterUpdate)', () => {
  it('velocity converges to the desired velocity, acceleration to zero, position keeps going', () => {
    const x = new Float64Array(3), v = new Float64Array(3), a = new Float64Array(3);
    const vd = Float64Array.of(1.5, 0, -0.5);
    for (let i = 0; i < 60 * 5; i++) springCharacterUpdate(x, 0, v, 0, a, 0, vd, 0, 0.27, 1 / 60);
    for (let k = 0; k < 3; k++) {
      expect(v[k]).toBeCloseTo(vd[k], 6);
      expect(Math.abs(a[k])).toBeLessThan(1e-5);
    }
    // Started at rest, so it lags the desired velocity by a constant distance (the spring's lag):
    // x → v_d·t − v_d/y·(1 + ...) ; check it is close to v_d·(t − 2/y).
    const y = dampingFromHalfLife(0.27);
    expect(x[0]).toBeCloseTo(1.5 * (5 - 2 / y), 4);
  });

  it('dt = 0 changes nothing, and one step equals many (exact closed form)', () => {
    const x = Float64Array.of(1, 2, 3), v = Float64Array.of(-1, 0, 1), a = Float64Array.of(0.5, 0.5, 0);
    const vd = Float64Array.of(2, 0, 0);
    springCharacterUpdate(x, 0, v, 0, a, 0, vd, 0, 0.27, 0);
    expect(Array.from(x)).toEqual([1, 2, 3]);
    expect(Array.from(v)).toEqual([-1, 0, 1]);
    expect(Array.from(a)).toEqual([0.5, 0.5, 0]);
    const x2 = Float64Array.from(x), v2 = Float64Array.from(v), a2 = Float64Array.from(a);
    springCharacterUpdate(x, 0, v, 0, a, 0, vd, 0, 0.27, 0.5);
    for (let i = 0; i < 30; i++) springCharacterUpdate(x2, 0, v2, 0, a2, 0, vd, 0, 0.27, 0.5 / 30);
    for (let k = 0; k < 3; k++) {
      expect(x2[k]).toBeCloseTo(x[k], 10);
      expect(v2[k]).toBeCloseTo(v[k], 10);
      expect(a2[k]).toBeCloseTo(a[k], 10);
    }
  });

  it('v is the derivative of x, and a the derivative of v', () => {
    const eps = 1e-6;
    const state = () => ({ x: [0.2], v: [0.4], a: [-1] });
    const vd = [1.2];
    const s0 = state(), s1 = state(), s2 = state();
    springCharacterUpdate(s1.x, 0, s1.v, 0, s1.a, 0, vd, 0, 0.27, eps, 1);
    springCharacterUpdate(s2.x, 0, s2.v, 0, s2.a, 0, vd, 0, 0.27, 2 * eps, 1);
    expect((-3 * s0.x[0] + 4 * s1.x[0] - s2.x[0]) / (2 * eps)).toBeCloseTo(s0.v[0], 5);
    expect((-3 * s0.v[0] + 4 * s1.v[0] - s2.v[0]) / (2 * eps)).toBeCloseTo(s0.a[0], 4);
  });

  it('prediction fills future samples equal to stepping the spring', () => {
    const x = Float64Array.of(0, 0, 0), v = Float64Array.of(0.5, 0, 0), a = new Float64Array(3);
    const vd = Float64Array.of(0, 0, 2);
    const offsets = Float64Array.of(1 / 3, 2 / 3, 1);
    const outX = new Float64Array(9), outV = new Float64Array(9), outA = new Float64Array(9);
    springCharacterPredict(outX, outV, outA, x, 0, v, 0, a, 0, vd, 0, 0.27, offsets, 3);
    const sx = Float64Array.from(x), sv = Float64Array.from(v), sa = Float64Array.from(a);
    let t = 0;
    for (let i = 0; i < 3; i++) {
      springCharacterUpdate(sx, 0, sv, 0, sa, 0, vd, 0, 0.27, offsets[i] - t);
      t = offsets[i];
      for (let k = 0; k < 3; k++) {
        expect(outX[3 * i + k]).toBeCloseTo(sx[k], 10);
        expect(outV[3 * i + k]).toBeCloseTo(sv[k], 10);
        expect(outA[3 * i + k]).toBeCloseTo(sa[k], 10);
      }
    }
    // The state itself is untouched, and outputs may be skipped.
    expect(Array.from(x)).toEqual([0, 0, 0]);
    const onlyX = new Float64Array(9);
    springCharacterPredict(onlyX, null, null, x, 0, v, 0, a, 0, vd, 0, 0.27, offsets, 3);
    expect(Array.from(onlyX)).toEqual(Array.from(outX));
    expect(() => springCharacterPredict(onlyX, null, null, x, 0, v, 0, a, 0, vd, 0, 0.27, [-1], 1)).toThrow(/dt/);
  });

  it('gives the same results whatever was computed before (remembered exponentials are per argument)', () => {
    // Each spring evaluates e^(-y dt) once per distinct (y dt) and reuses it: interleaving calls
    // with other half-lives, steps and offsets must not change any result, bit for bit.
    const vd = Float64Array.of(1, 0, -0.5);
    const run = (h: number, dt: number, offsets: Float64Array) => {
      const x = Float64Array.of(0.1, 0, 0.2), v = Float64Array.of(0.5, 0, 0), a = Float64Array.of(0, 0, 0.3);
      springCharacterUpdate(x, 0, v, 0, a, 0, vd, 0, h, dt);
      const outX = new Float64Array(3 * offsets.length);
      springCharacterPredict(outX, null, null, x, 0, v, 0, a, 0, vd, 0, h, offsets, offsets.length);
      const r = quatFromYaw(new Float64Array(4), 0, 0.4), w = Float64Array.of(0, 0.2, 0), goal = quatFromYaw(new Float64Array(4), 0, -1);
      springRotationUpdate(r, 0, w, 0, goal, 0, h, dt);
      const outR = new Float64Array(4 * offsets.length);
      springRotationPredict(outR, null, r, 0, w, 0, goal, 0, h, offsets, offsets.length);
      const d = Float64Array.of(0.3), dv = Float64Array.of(-1);
      decaySpringUpdate(d, 0, dv, 0, h, dt);
      return [...x, ...v, ...a, ...outX, ...r, ...w, ...outR, d[0], dv[0]];
    };
    const offsetsA = Float64Array.of(0.2, 0.4, 0.6), offsetsB = Float64Array.of(0.5, 1);
    const first = run(0.3, 1 / 30, offsetsA);
    run(0.1, 1 / 60, offsetsB);
    run(0.3, 1 / 60, offsetsA);
    expect(run(0.3, 1 / 30, offsetsA)).toEqual(first);
    // And they are Math.exp's values: a spring step equals the closed form written out here.
    const y = (2 * Math.LN2) / 0.3, dt = 1 / 30, e = Math.exp(-y * dt);
    const d = Float64Array.of(0.3), dv = Float64Array.of(-1);
    decaySpringUpdate(d, 0, dv, 0, 0.3, dt);
    const j = -1 + 0.3 * y;
    expect(d[0]).toBe(e * (0.3 + j * dt));
    expect(dv[0]).toBe(e * (-1 - j * y * dt));
  });
});

describe('rotation spring', () => {
  it('converges to the goal facing and its angular velocity to zero', () => {
    const rot = quatFromYaw(new Float64Array(4), 0, 0), w = new Float64Array(3);
    const goal = quatFromYaw(new Float64Array(4), 0, 1.2);
    for (let i = 0; i < 60 * 3; i++) springRotationUpdate(rot, 0, w, 0, goal, 0, 0.2, 1 / 60);
    // From rest about a fixed axis the angle left is θ0·e^(−y·t)·(1 + y·t): 15 half-lives here.
    const y = dampingFromHalfLife(0.2);
    const left = 1.2 * Math.exp(-y * 3) * (1 + y * 3);
    expect(sameRotation(rot, 0, goal, 0)).toBeCloseTo(left, 12);
    expect(left).toBeLessThan(3e-8);
    expect(Math.hypot(w[0], w[1], w[2])).toBeLessThan(1e-5);
    for (let i = 0; i < 60 * 3; i++) springRotationUpdate(rot, 0, w, 0, goal, 0, 0.2, 1 / 60);
    expect(sameRotation(rot, 0, goal, 0)).toBeLessThan(1e-12);
  });

  it('takes the short way round (170° to −170° passes through 180°, not 0°)', () => {
    const deg = Math.PI / 180;
    const rot = quatFromYaw(new Float64Array(4), 0, 170 * deg), w = new Float64Array(3);
    const goal = quatFromYaw(new Float64Array(4), 0, -170 * deg);
    for (let i = 0; i < 120; i++) {
      springRotationUpdate(rot, 0, w, 0, goal, 0, 0.1, 1 / 60);
      expect(Math.abs(quatYaw(rot, 0))).toBeGreaterThan(169.999 * deg);
    }
    expect(sameRotation(rot, 0, goal, 0)).toBeLessThan(1e-6);
  });

  it('one step equals many; prediction equals stepping; deterministic', () => {
    const start = quatFromYaw(new Float64Array(4), 0, -0.4), goal = quatFromYaw(new Float64Array(4), 0, 0.9);
    const w0 = Float64Array.of(0, 2, 0);
    const r1 = Float64Array.from(start), w1 = Float64Array.from(w0);
    const r2 = Float64Array.from(start), w2 = Float64Array.from(w0);
    springRotationUpdate(r1, 0, w1, 0, goal, 0, 0.2, 0.3);
    for (let i = 0; i < 10; i++) springRotationUpdate(r2, 0, w2, 0, goal, 0, 0.2, 0.03);
    expect(sameRotation(r1, 0, r2, 0)).toBeLessThan(1e-12);
    for (let k = 0; k < 3; k++) expect(w2[k]).toBeCloseTo(w1[k], 10);

    const offsets = [0.1, 0.3];
    const outR = new Float64Array(8), outW = new Float64Array(6);
    springRotationPredict(outR, outW, start, 0, w0, 0, goal, 0, 0.2, offsets, 2);
    expect(sameRotation(outR, 4, r1, 0)).toBeLessThan(1e-12);
    for (let k = 0; k < 3; k++) expect(outW[3 + k]).toBeCloseTo(w1[k], 10);
    const again = new Float64Array(8);
    springRotationPredict(again, null, start, 0, w0, 0, goal, 0, 0.2, offsets, 2);
    expect(Array.from(again)).toEqual(Array.from(outR));
  });
});
