import { describe, expect, it } from 'vitest';
import { createInertializationState, inertializeTransition, inertializeUpdate, type PoseBuffers } from '../../src/runtime/inertialization/inertialize.js';
import { InertializationDecay } from '../../src/runtime/inertialization/decay.js';
import { quatFromAxisAngle } from '../../src/math/quat.js';

function randomPose(J: number, seed: number): PoseBuffers & { [k: string]: Float64Array } {
  let s = seed >>> 0 || 1;
  const rnd = () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return (s / 4294967296) * 2 - 1; };
  const p = { positions: new Float64Array(J * 3), rotations: new Float64Array(J * 4), velocities: new Float64Array(J * 3), angularVelocities: new Float64Array(J * 3) };
  for (let j = 0; j < J; j++) {
    for (let k = 0; k < 3; k++) { p.positions[3 * j + k] = rnd(); p.velocities[3 * j + k] = 2 * rnd(); p.angularVelocities[3 * j + k] = 3 * rnd(); }
    const ax = rnd(), ay = rnd(), az = rnd(), n = Math.sqrt(ax * ax + ay * ay + az * az) || 1;
    quatFromAxisAngle(p.rotations, 4 * j, ax / n, ay / n, az / n, 3 * rnd());
  }
  return p;
}

function maxGap(a: ArrayLike<number>, b: ArrayLike<number>, n: number): number {
  let worst = 0;
  for (let i = 0; i < n; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

/** Quaternions equal up to sign. */
function maxQuatGap(a: ArrayLike<number>, b: ArrayLike<number>, J: number): number {
  let worst = 0;
  for (let j = 0; j < J; j++) {
    const i = 4 * j, s = a[i] * b[i] + a[i + 1] * b[i + 1] + a[i + 2] * b[i + 2] + a[i + 3] * b[i + 3] < 0 ? -1 : 1;
    for (let k = 0; k < 4; k++) worst = Math.max(worst, Math.abs(a[i + k] - s * b[i + k]));
  }
  return worst;
}

const J = 6, H = 0.1;

describe('InertializationDecay (closed-form offsets)', () => {
  it('matches the stepwise decay spring over transitions, steps of varying length and a float32 source', () => {
    const stepwise = createInertializationState(J);
    const closed = new InertializationDecay(J);
    const out = { positions: new Float64Array(J * 3), rotations: new Float64Array(J * 4), velocities: new Float64Array(J * 3), angularVelocities: new Float64Array(J * 3) };
    const outP = new Float64Array(J * 3), outQ = new Float64Array(J * 4);
    let playing = randomPose(J, 1);
    let worstP = 0, worstQ = 0;
    for (let step = 0; step < 120; step++) {
      if (step % 17 === 0) {
        const next = randomPose(J, 100 + step);
        inertializeTransition(stepwise, playing, next);
        closed.transition(playing, next, H);
        playing = next;
      }
      const dt = step % 3 === 0 ? 1 / 60 : 1 / 30;
      inertializeUpdate(stepwise, playing, dt, H, out);
      // The closed form reads the playing pose in place, here from float32 arrays at an offset.
      const P = new Float32Array(3 * J + 5), Q = new Float32Array(4 * J + 7);
      P.set(playing.positions, 5); Q.set(playing.rotations, 7);
      const expectedP = Float64Array.from(P.subarray(5)), expectedQ = Float64Array.from(Q.subarray(7));
      expect(closed.apply(dt, H, P, 5, Q, 7, outP, outQ)).toBe(true);
      // Same offsets as the stepwise spring, applied to the float32 pose.
      const stepP = new Float64Array(3 * J);
      for (let i = 0; i < 3 * J; i++) stepP[i] = expectedP[i] + stepwise.positionOffsets[i];
      worstP = Math.max(worstP, maxGap(outP, stepP, 3 * J));
      const stepQ = { ...playing, rotations: expectedQ };
      const tmp = { positions: new Float64Array(3 * J), rotations: new Float64Array(4 * J), velocities: new Float64Array(3 * J), angularVelocities: new Float64Array(3 * J) };
      const frozen = createInertializationState(J);
      frozen.positionOffsets.set(stepwise.positionOffsets); frozen.rotationOffsets.set(stepwise.rotationOffsets);
      inertializeUpdate(frozen, stepQ, 0, H, tmp);
      worstQ = Math.max(worstQ, maxQuatGap(outQ, tmp.rotations, J));
    }
    // Rounding only (the two forms accumulate it differently).
    expect(worstP).toBeLessThan(1e-10);
    expect(worstQ).toBeLessThan(1e-10);
    // And the materialised velocities agree with the spring's.
    const m = createInertializationState(J);
    closed.materialise(H, m);
    expect(maxGap(m.velocityOffsets, stepwise.velocityOffsets, 3 * J)).toBeLessThan(1e-10);
    expect(maxGap(m.angularVelocityOffsets, stepwise.angularVelocityOffsets, 3 * J)).toBeLessThan(1e-10);
  });

  it('keeps the output continuous across a transition', () => {
    const closed = new InertializationDecay(J);
    const a = randomPose(J, 7), b = randomPose(J, 8);
    const beforeP = new Float64Array(3 * J), beforeQ = new Float64Array(4 * J), afterP = new Float64Array(3 * J), afterQ = new Float64Array(4 * J);
    closed.apply(0, H, a.positions, 0, a.rotations, 0, beforeP, beforeQ);
    closed.transition(a, b, H);
    closed.apply(0, H, b.positions, 0, b.rotations, 0, afterP, afterQ);
    expect(maxGap(afterP, beforeP, 3 * J)).toBeLessThan(1e-12);
    expect(maxQuatGap(afterQ, beforeQ, J)).toBeLessThan(1e-12);
  });

  it('retires its offsets once they are provably below 1e-7 and then copies the playing pose', () => {
    const closed = new InertializationDecay(J);
    const a = randomPose(J, 3), b = randomPose(J, 4);
    closed.transition(a, b, H);
    const P = new Float64Array(3 * J), Q = new Float64Array(4 * J);
    let steps = 0;
    while (closed.apply(1 / 30, H, b.positions, 0, b.rotations, 0, P, Q)) {
      steps++;
      expect(steps).toBeLessThan(300);
    }
    expect(closed.isActive).toBe(false);
    // Retired within a few half-lives of the bound, not at once.
    expect(steps / 30).toBeGreaterThan(0.5);
    expect(steps / 30).toBeLessThan(3);
    expect(maxGap(P, b.positions, 3 * J)).toBe(0);
    expect(maxGap(Q, b.rotations, 4 * J)).toBe(0);
  });

  it('keeps position offsets only for moving joints, with the same output when the others never move', () => {
    const all = new InertializationDecay(J), rootOnly = new InertializationDecay(J, { movingJoints: Int32Array.of(0) });
    const a = randomPose(J, 11), b = randomPose(J, 12);
    // Only joint 0 translates: the others have the same translation everywhere, hence zero velocity.
    for (let i = 3; i < 3 * J; i++) { b.positions[i] = a.positions[i]; a.velocities[i] = 0; b.velocities[i] = 0; }
    all.transition(a, b, H); rootOnly.transition(a, b, H);
    const p1 = new Float64Array(3 * J), q1 = new Float64Array(4 * J), p2 = new Float64Array(3 * J), q2 = new Float64Array(4 * J);
    let firstRootGap = 0;
    for (let step = 0; step < 10; step++) {
      all.apply(1 / 30, H, b.positions, 0, b.rotations, 0, p1, q1);
      rootOnly.apply(1 / 30, H, b.positions, 0, b.rotations, 0, p2, q2);
      expect(Array.from(p2)).toEqual(Array.from(p1));
      expect(Array.from(q2)).toEqual(Array.from(q1));
      if (step === 0) firstRootGap = Math.abs(p2[0] - b.positions[0]);
    }
    // The root's offset is really applied (not dropped with the others).
    expect(firstRootGap).toBeGreaterThan(1e-3);
    expect(InertializationDecay.storageSize(J, 1)).toBeLessThan(InertializationDecay.storageSize(J));
  });

  it('with keepStaticTranslations writes only the moving joints\' translations', () => {
    const full = new InertializationDecay(J, { movingJoints: Int32Array.of(0) });
    const kept = new InertializationDecay(J, { movingJoints: Int32Array.of(0), keepStaticTranslations: true });
    const a = randomPose(J, 21), b = randomPose(J, 22);
    for (let i = 3; i < 3 * J; i++) { b.positions[i] = a.positions[i]; a.velocities[i] = 0; b.velocities[i] = 0; }
    const p1 = new Float64Array(3 * J), q1 = new Float64Array(4 * J), q2 = new Float64Array(4 * J);
    // The kept output holds the static translations already (as the controller's does after reset).
    const p2 = Float64Array.from(b.positions);
    // A pose whose static entries are poisoned: they must be neither read nor written.
    const poisoned = Float64Array.from(b.positions); for (let i = 3; i < 3 * J; i++) poisoned[i] = Number.NaN;
    for (const active of [false, true]) {
      if (active) { full.transition(a, b, H); kept.transition(a, b, H); }
      for (let step = 0; step < 5; step++) {
        full.apply(1 / 30, H, b.positions, 0, b.rotations, 0, p1, q1);
        kept.apply(1 / 30, H, poisoned, 0, b.rotations, 0, p2, q2);
        expect(Array.from(p2)).toEqual(Array.from(p1));
        expect(Array.from(q2)).toEqual(Array.from(q1));
      }
    }
    expect(Math.abs(p2[0] - b.positions[0])).toBeGreaterThan(1e-4); // the root's offset is applied
  });

  it('rejects bad sizes', () => {
    expect(() => new InertializationDecay(-1)).toThrow(/jointCount/);
    expect(() => new InertializationDecay(4, { storage: new Float64Array(10) })).toThrow(/at least 53/);
    expect(() => new InertializationDecay(4, { movingJoints: Int32Array.of(4) })).toThrow(/moving joint 4/);
  });
});
