import { describe, it, expect } from 'vitest';
import { createRandom as rng } from '../../src/util/prng.js';
import { solveTwoBoneIk, solveTwoBoneIkGeneral, solveTwoBoneIkInto, createTwoBoneIkScratch, TWO_BONE_IK_EPS } from '../../src/math/two-bone-ik.js';
import { forwardKinematics } from '../../src/anim/pose.js';
import { quatFromAxisAngle, quatMultiply, quatNormalize, quatRotateVec3 } from '../../src/math/quat.js';

// Chain: 0 root (parent of the hip, arbitrarily rotated), 1 hip, 2 knee, 3 ankle, 4 toe.
const parents = new Int32Array([-1, 0, 1, 2, 3]);
const J = 5;


interface Pose {
  local: Float64Array;
  pos: Float64Array;
  wr: Float64Array;
  wp: Float64Array;
}

function randomUnit(r: () => number): [number, number, number] {
  for (;;) {
    const x = 2 * r() - 1, y = 2 * r() - 1, z = 2 * r() - 1;
    const l = Math.hypot(x, y, z);
    if (l > 0.1 && l < 1) return [x / l, y / l, z / l];
  }
}

function makePose(r: () => number, thigh: number, shin: number, randomLocals = true): Pose {
  const local = new Float64Array(4 * J);
  const pos = new Float64Array(3 * J);
  for (let j = 0; j < J; j++) {
    if (randomLocals) {
      const [ax, ay, az] = randomUnit(r);
      quatFromAxisAngle(local, 4 * j, ax, ay, az, (r() - 0.5) * 2.5);
    } else {
      local[4 * j + 3] = 1;
    }
  }
  pos.set([r() * 2 - 1, 1 + r(), r() * 2 - 1], 0); // root anywhere
  pos.set([0.1, -0.05, 0.02], 3); // hip below the root
  pos.set([0.01, -thigh, 0.02], 6); // knee: offset not purely along an axis
  pos.set([-0.02, -Math.sqrt(shin * shin - 0.0008), 0.02], 9); // ankle
  pos.set([0, -0.05, 0.12], 12); // toe
  const wr = new Float64Array(4 * J), wp = new Float64Array(3 * J);
  forwardKinematics(parents, local, 0, pos, 0, wr, wp);
  return { local, pos, wr, wp };
}

function dist(a: Float64Array, ao: number, b: ArrayLike<number>, bo: number): number {
  return Math.hypot(a[ao] - b[bo], a[ao + 1] - b[bo + 1], a[ao + 2] - b[bo + 2]);
}

function fk(p: Pose): { wr: Float64Array; wp: Float64Array } {
  const wr = new Float64Array(4 * J), wp = new Float64Array(3 * J);
  forwardKinematics(parents, p.local, 0, p.pos, 0, wr, wp);
  return { wr, wp };
}

describe('two-bone IK', () => {
  const scratch = createTwoBoneIkScratch();

  it('reaches reachable targets within 1e-6 m and keeps bone lengths', () => {
    const r = rng(1);
    for (let i = 0; i < 500; i++) {
      const p = makePose(r, 0.3 + 0.3 * r(), 0.3 + 0.3 * r());
      const lab = dist(p.wp, 3, p.wp, 6), lcb = dist(p.wp, 6, p.wp, 9);
      const [dx, dy, dz] = randomUnit(r);
      const lo = Math.abs(lab - lcb) + 1e-3, hi = lab + lcb - 1e-3;
      const d = lo + (hi - lo) * r();
      const target = new Float64Array([p.wp[3] + d * dx, p.wp[4] + d * dy, p.wp[5] + d * dz]);
      const pole = i % 2 === 0 ? new Float64Array(randomUnit(r)) : null;
      const residual = solveTwoBoneIk(p.local, p.wp, p.wr, parents, 1, 2, 3, target, scratch, pole);
      expect(residual).toBeLessThan(1e-9);
      const w = fk(p);
      expect(dist(w.wp, 9, target, 0)).toBeLessThan(1e-6);
      expect(Math.abs(dist(w.wp, 3, w.wp, 6) - lab)).toBeLessThan(1e-9);
      expect(Math.abs(dist(w.wp, 6, w.wp, 9) - lcb)).toBeLessThan(1e-9);
      // The hip stays put and the solver's world outputs agree with forward kinematics.
      expect(dist(w.wp, 3, p.wp, 3)).toBeLessThan(1e-12);
      for (const j of [2, 3]) expect(dist(w.wp, 3 * j, p.wp, 3 * j)).toBeLessThan(1e-9);
      for (const j of [1, 2, 3]) {
        const dq = Math.abs(w.wr[4 * j] * p.wr[4 * j] + w.wr[4 * j + 1] * p.wr[4 * j + 1] + w.wr[4 * j + 2] * p.wr[4 * j + 2] + w.wr[4 * j + 3] * p.wr[4 * j + 3]);
        expect(dq).toBeGreaterThan(1 - 1e-9);
      }
      // Outputs are unit quaternions.
      for (const j of [1, 2]) expect(Math.hypot(p.local[4 * j], p.local[4 * j + 1], p.local[4 * j + 2], p.local[4 * j + 3])).toBeCloseTo(1, 12);
    }
  });

  it('takes the same solve on its scalar path as on the general one, with and without a pole, reachable or not', () => {
    const r = rng(7);
    let largest = 0;
    for (let i = 0; i < 2000; i++) {
      const p = makePose(r, 0.3 + 0.3 * r(), 0.3 + 0.3 * r());
      const [dx, dy, dz] = randomUnit(r);
      const d = 1.4 * r(); // within reach and beyond it
      const target = new Float64Array([p.wp[3] + d * dx, p.wp[4] + d * dy, p.wp[5] + d * dz]);
      const pole = i % 3 === 0 ? null : new Float64Array(randomUnit(r));
      const a = { local: p.local.slice(), wp: p.wp.slice(), wr: p.wr.slice() };
      const b = { local: p.local.slice(), wp: p.wp.slice(), wr: p.wr.slice() };
      solveTwoBoneIkInto(a.local, a.wp, a.wr, parents, 1, 2, 3, target, scratch, pole);
      solveTwoBoneIkGeneral(b.local, b.wp, b.wr, parents, 1, 2, 3, target, scratch, pole);
      for (let k = 0; k < a.wp.length; k++) largest = Math.max(largest, Math.abs(a.wp[k] - b.wp[k]));
      // Quaternions up to sign.
      for (const j of [1, 2]) {
        const dq = Math.abs(a.local[4 * j] * b.local[4 * j] + a.local[4 * j + 1] * b.local[4 * j + 1] + a.local[4 * j + 2] * b.local[4 * j + 2] + a.local[4 * j + 3] * b.local[4 * j + 3]);
        expect(dq).toBeGreaterThan(1 - 1e-12);
      }
    }
    expect(largest).toBeLessThan(1e-9);
  });

  it('clamps unreachable targets along the hip-target direction', () => {
    const r = rng(2);
    for (let i = 0; i < 200; i++) {
      const p = makePose(r, 0.45, 0.42);
      const lab = dist(p.wp, 3, p.wp, 6), lcb = dist(p.wp, 6, p.wp, 9);
      const [dx, dy, dz] = randomUnit(r);
      const far = i % 2 === 0;
      const d = far ? (lab + lcb) * (1.05 + 2 * r()) : Math.abs(lab - lcb) * r() * 0.9;
      const target = new Float64Array([p.wp[3] + d * dx, p.wp[4] + d * dy, p.wp[5] + d * dz]);
      const residual = solveTwoBoneIk(p.local, p.wp, p.wr, parents, 1, 2, 3, target, scratch, new Float64Array([0, 0, 1]));
      const reach = far ? lab + lcb - TWO_BONE_IK_EPS : Math.abs(lab - lcb) + TWO_BONE_IK_EPS;
      const w = fk(p);
      expect(residual).toBeCloseTo(Math.abs(d - reach), 9);
      const expected = [p.wp[3] + reach * dx, p.wp[4] + reach * dy, p.wp[5] + reach * dz];
      expect(dist(w.wp, 9, expected, 0)).toBeLessThan(1e-6);
      // Never fully straight: the knee keeps a measurable bend.
      if (far) expect(dist(w.wp, 3, w.wp, 9)).toBeLessThan(lab + lcb - 0.5 * TWO_BONE_IK_EPS);
    }
  });

  it('bends the knee towards the pole', () => {
    const r = rng(3);
    for (let i = 0; i < 300; i++) {
      const p = makePose(r, 0.44, 0.43, i % 3 !== 0);
      const [dx, dy, dz] = randomUnit(r);
      const d = 0.2 + 0.6 * r();
      const target = new Float64Array([p.wp[3] + d * dx, p.wp[4] + d * dy, p.wp[5] + d * dz]);
      const pole = new Float64Array(randomUnit(r));
      solveTwoBoneIk(p.local, p.wp, p.wr, parents, 1, 2, 3, target, scratch, pole);
      const w = fk(p);
      const u = [dx, dy, dz];
      const k = [w.wp[6] - w.wp[3], w.wp[7] - w.wp[4], w.wp[8] - w.wp[5]];
      const kd = k[0] * u[0] + k[1] * u[1] + k[2] * u[2];
      const kp = [k[0] - kd * u[0], k[1] - kd * u[1], k[2] - kd * u[2]];
      const pd = pole[0] * u[0] + pole[1] * u[1] + pole[2] * u[2];
      const pp = [pole[0] - pd * u[0], pole[1] - pd * u[1], pole[2] - pd * u[2]];
      const cos = (kp[0] * pp[0] + kp[1] * pp[1] + kp[2] * pp[2]) / (Math.hypot(kp[0], kp[1], kp[2]) * Math.hypot(pp[0], pp[1], pp[2]));
      expect(cos).toBeGreaterThan(1 - 1e-9);
    }
  });

  it('bends a straight leg forward with a forward pole (knee in front, hinge-like)', () => {
    const p = makePose(rng(4), 0.44, 0.43, false);
    // Straight chain hanging down (rest offsets nearly vertical); target 10 cm up.
    const target = new Float64Array([p.wp[9], p.wp[10] + 0.1, p.wp[11]]);
    solveTwoBoneIk(p.local, p.wp, p.wr, parents, 1, 2, 3, target, scratch, new Float64Array([0, 0, 1]));
    const w = fk(p);
    expect(dist(w.wp, 9, target, 0)).toBeLessThan(1e-6);
    const midZ = 0.5 * (w.wp[5] + w.wp[11]);
    expect(w.wp[8]).toBeGreaterThan(midZ + 0.05);
  });

  it('never produces NaN for degenerate targets and poles', () => {
    const r = rng(5);
    const cases: Array<(p: Pose) => { target: Float64Array; pole: Float64Array | null }> = [
      (p) => ({ target: new Float64Array([p.wp[3], p.wp[4], p.wp[5]]), pole: new Float64Array([0, 0, 1]) }), // target on the hip
      (p) => ({ target: new Float64Array([p.wp[3], p.wp[4], p.wp[5]]), pole: null }),
      (p) => ({ target: new Float64Array([p.wp[3], p.wp[4] - 0.5, p.wp[5]]), pole: new Float64Array([0, -1, 0]) }), // pole along the target direction
      (p) => ({ target: new Float64Array([p.wp[3], p.wp[4] - 0.5, p.wp[5]]), pole: new Float64Array([0, 0, 0]) }), // zero pole
      (p) => ({ target: new Float64Array([p.wp[3], p.wp[4] - 5, p.wp[5]]), pole: new Float64Array([0, 1, 0]) }), // unreachable, colinear pole
      (p) => ({ target: new Float64Array([p.wp[9], p.wp[10], p.wp[11]]), pole: null }), // already there
      (p) => ({ target: new Float64Array([p.wp[3] + 1e-13, p.wp[4], p.wp[5]]), pole: new Float64Array([1, 0, 0]) }),
    ];
    for (const straight of [true, false]) {
      for (const make of cases) {
        const p = makePose(r, 0.44, 0.43, !straight);
        if (straight) {
          // Exactly straight chain: the bend plane is undefined.
          p.pos.set([0, -0.44, 0], 6); p.pos.set([0, -0.43, 0], 9);
          forwardKinematics(parents, p.local, 0, p.pos, 0, p.wr, p.wp);
        }
        const { target, pole } = make(p);
        const res = solveTwoBoneIk(p.local, p.wp, p.wr, parents, 1, 2, 3, target, scratch, pole);
        expect(Number.isFinite(res)).toBe(true);
        for (const x of p.local) expect(Number.isFinite(x)).toBe(true);
        for (const x of p.wp) expect(Number.isFinite(x)).toBe(true);
        const w = fk(p);
        expect(Math.abs(dist(w.wp, 3, w.wp, 6) - 0.44)).toBeLessThan(1e-3);
        for (const j of [1, 2]) expect(Math.hypot(p.local[4 * j], p.local[4 * j + 1], p.local[4 * j + 2], p.local[4 * j + 3])).toBeCloseTo(1, 9);
      }
    }
  });

  it('keeps the bend plane without a pole when the target is along the current direction', () => {
    const r = rng(6);
    for (let i = 0; i < 100; i++) {
      const p = makePose(r, 0.44, 0.43);
      const ax = p.wp[9] - p.wp[3], ay = p.wp[10] - p.wp[4], az = p.wp[11] - p.wp[5];
      const s = 0.8 + 0.15 * r();
      const n0 = normal(p.wp);
      const target = new Float64Array([p.wp[3] + s * ax, p.wp[4] + s * ay, p.wp[5] + s * az]);
      solveTwoBoneIk(p.local, p.wp, p.wr, parents, 1, 2, 3, target, scratch);
      const n1 = normal(fk(p).wp);
      expect(n0[0] * n1[0] + n0[1] * n1[1] + n0[2] * n1[2]).toBeGreaterThan(1 - 1e-9);
    }
  });

  it('rejects joints that are not a chain (the knee not below the hip, or the end not below the knee)', () => {
    const p = makePose(rng(7), 0.44, 0.43);
    expect(() => solveTwoBoneIk(p.local, p.wp, p.wr, parents, 2, 1, 3, new Float64Array(3), scratch)).toThrow(/must hang below/);
    expect(() => solveTwoBoneIk(p.local, p.wp, p.wr, parents, 1, 3, 2, new Float64Array(3), scratch)).toThrow(/must hang below/);
  });

  it('solves a chain whose thigh and shin are split into segments as the same chain unsplit', () => {
    // Split: 0 root, 1 hip, 2 thigh segment, 3 knee, 4 shin segment, 5 ankle, 6 toe. Each segment
    // takes half its bone and a random local rotation, undone in the joint below it, so that both
    // chains pose hip, knee and ankle alike (a twist segment, Daz's lThighTwist, or Rigify's shin.001).
    const split = new Int32Array([-1, 0, 1, 2, 3, 4, 5]), K = 7;
    const r = rng(11);
    for (let i = 0; i < 200; i++) {
      const p = makePose(r, 0.4 + 0.1 * r(), 0.4 + 0.1 * r());
      const local = new Float64Array(4 * K), pos = new Float64Array(3 * K);
      const seg = (at: number, bone: number, child: number): void => {
        const [ax, ay, az] = randomUnit(r);
        quatFromAxisAngle(local, 4 * at, ax, ay, az, (r() - 0.5) * 3);
        for (let k = 0; k < 3; k++) pos[3 * at + k] = 0.5 * p.pos[3 * bone + k];
        // the joint below: its offset and rotation seen from the segment (inv(S) applied)
        const S = local.subarray(4 * at, 4 * at + 4), inv = new Float64Array([-S[0], -S[1], -S[2], S[3]]);
        quatRotateVec3(pos, 3 * child, inv, 0, new Float64Array([0.5 * p.pos[3 * bone], 0.5 * p.pos[3 * bone + 1], 0.5 * p.pos[3 * bone + 2]]), 0);
        quatMultiply(local, 4 * child, inv, 0, p.local, 4 * bone);
      };
      for (const [to, from] of [[0, 0], [1, 1], [6, 4]] as const) { local.set(p.local.subarray(4 * from, 4 * from + 4), 4 * to); pos.set(p.pos.subarray(3 * from, 3 * from + 3), 3 * to); }
      seg(2, 2, 3); // thigh segment, knee below it
      seg(4, 3, 5); // shin segment, ankle below it
      const wr = new Float64Array(4 * K), wp = new Float64Array(3 * K);
      forwardKinematics(split, local, 0, pos, 0, wr, wp);
      for (const [a, b] of [[1, 1], [3, 2], [5, 3]] as const) expect(dist(wp, 3 * a, p.wp, 3 * b)).toBeLessThan(1e-12);
      const [dx, dy, dz] = randomUnit(r);
      const target = new Float64Array([p.wp[3] + 0.6 * dx, p.wp[4] + 0.6 * dy, p.wp[5] + 0.6 * dz]);
      const pole = i % 2 === 0 ? new Float64Array(randomUnit(r)) : null;
      solveTwoBoneIkInto(p.local, p.wp, p.wr, parents, 1, 2, 3, target, scratch, pole);
      solveTwoBoneIkInto(local, wp, wr, split, 1, 3, 5, target, scratch, pole);
      for (const [a, b] of [[1, 1], [3, 2], [5, 3]] as const) {
        expect(dist(wp, 3 * a, p.wp, 3 * b)).toBeLessThan(1e-9);
        for (let k = 0; k < 4; k++) expect(Math.abs(wr[4 * a + k] - p.wr[4 * b + k])).toBeLessThan(1e-9);
      }
      // The segments sit halfway down their bones, and every world entry is what the new locals give.
      for (let k = 0; k < 3; k++) {
        expect(Math.abs(wp[6 + k] - 0.5 * (wp[3 + k] + wp[9 + k]))).toBeLessThan(1e-9);
        expect(Math.abs(wp[12 + k] - 0.5 * (wp[9 + k] + wp[15 + k]))).toBeLessThan(1e-9);
      }
      const wr2 = new Float64Array(4 * K), wp2 = new Float64Array(3 * K);
      forwardKinematics(split, local, 0, pos, 0, wr2, wp2);
      for (let j = 0; j < 6; j++) expect(dist(wp2, 3 * j, wp, 3 * j)).toBeLessThan(1e-9);
    }
  });

  it('solves 100,000 changing poses in a row with finite results (its speed is in `motionmatch bench --sections runtime`)', () => {
    const p = makePose(rng(8), 0.44, 0.43);
    const target = new Float64Array([p.wp[3] + 0.1, p.wp[4] - 0.7, p.wp[5] + 0.2]);
    const pole = new Float64Array([0, 0, 1]);
    const q = new Float64Array(4);
    for (let i = 0; i < 100_000; i++) {
      quatFromAxisAngle(q, 0, 1, 0, 0, 0.001 * (i % 100));
      quatNormalize(p.local, 4, q, 0);
      solveTwoBoneIk(p.local, p.wp, p.wr, parents, 1, 2, 3, target, scratch, pole);
    }
    expect(Array.from(p.local).every(Number.isFinite)).toBe(true);
    expect(Array.from(p.wp).every(Number.isFinite)).toBe(true);
  });
});

function normal(wp: Float64Array): [number, number, number] {
  const ux = wp[6] - wp[3], uy = wp[7] - wp[4], uz = wp[8] - wp[5];
  const vx = wp[9] - wp[6], vy = wp[10] - wp[7], vz = wp[11] - wp[8];
  const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
  const l = Math.hypot(nx, ny, nz);
  return [nx / l, ny / l, nz / l];
}
