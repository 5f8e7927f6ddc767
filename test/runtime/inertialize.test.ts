import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  createInertializationState,
  inertializeReset,
  inertializeTransition,
  inertializeTransitionFromOutput,
  inertializeUpdate,
  type PoseBuffers,
} from '../../src/runtime/inertialization/inertialize.js';
import { quatFromAxisAngle, quatFromYaw, quatYaw } from '../../src/math/quat.js';

function makePose(J: number): PoseBuffers & { [k: string]: Float64Array } {
  return {
    positions: new Float64Array(J * 3),
    rotations: new Float64Array(J * 4),
    velocities: new Float64Array(J * 3),
    angularVelocities: new Float64Array(J * 3),
  };
}

/** Deterministic pseudo-random pose (xorshift), unit rotations about arbitrary axes. */
function randomPose(J: number, seed: number): PoseBuffers & { [k: string]: Float64Array } {
  let s = seed >>> 0 || 1;
  const rnd = () => {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    return s / 4294967296 * 2 - 1;
  };
  const p = makePose(J);
  for (let j = 0; j < J; j++) {
    for (let k = 0; k < 3; k++) {
      p.positions[3 * j + k] = rnd();
      p.velocities[3 * j + k] = 2 * rnd();
      p.angularVelocities[3 * j + k] = 3 * rnd();
    }
    const ax = rnd(), ay = rnd(), az = rnd();
    const n = Math.hypot(ax, ay, az) || 1;
    quatFromAxisAngle(p.rotations, 4 * j, ax / n, ay / n, az / n, 3 * rnd());
  }
  return p;
}

function copyPose(p: PoseBuffers): PoseBuffers & { [k: string]: Float64Array } {
  return {
    positions: Float64Array.from(p.positions),
    rotations: Float64Array.from(p.rotations),
    velocities: Float64Array.from(p.velocities),
    angularVelocities: Float64Array.from(p.angularVelocities),
  };
}

function maxRotationGap(a: ArrayLike<number>, b: ArrayLike<number>, J: number): number {
  let worst = 0;
  for (let j = 0; j < J; j++) {
    const i = 4 * j;
    const dot = a[i] * b[i] + a[i + 1] * b[i + 1] + a[i + 2] * b[i + 2] + a[i + 3] * b[i + 3];
    // Angle between the rotations, robust near 0 (uses the chord, not acos).
    let d = 0;
    const s = dot < 0 ? -1 : 1;
    for (let k = 0; k < 4; k++) d += (a[i + k] - s * b[i + k]) ** 2;
    worst = Math.max(worst, 4 * Math.asin(Math.min(1, Math.sqrt(d) / 2)));
  }
  return worst;
}

function maxGap(a: ArrayLike<number>, b: ArrayLike<number>, n: number): number {
  let worst = 0;
  for (let i = 0; i < n; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

function expectPosesClose(a: PoseBuffers, b: PoseBuffers, J: number, tol: number): void {
  expect(maxGap(a.positions, b.positions, 3 * J)).toBeLessThan(tol);
  expect(maxGap(a.velocities, b.velocities, 3 * J)).toBeLessThan(tol);
  expect(maxRotationGap(a.rotations, b.rotations, J)).toBeLessThan(tol);
  expect(maxGap(a.angularVelocities, b.angularVelocities, 3 * J)).toBeLessThan(tol);
}

const J = 5;
const H = 0.1;

describe('inertialization', () => {
  it('with zero offsets the output is the playing pose', () => {
    const state = createInertializationState(J);
    const pose = randomPose(J, 7), out = makePose(J);
    inertializeUpdate(state, pose, 1 / 60, H, out);
    expectPosesClose(out, pose, J, 1e-15);
  });

  it('property: right after a transition the output equals the source pose (1e-9), velocities included', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 }), fc.integer({ min: 1, max: 2 ** 31 }), (seedA, seedB) => {
        const state = createInertializationState(J);
        const src = randomPose(J, seedA), dst = randomPose(J, seedB), out = makePose(J);
        inertializeTransition(state, src, dst);
        inertializeUpdate(state, dst, 0, H, out);
        expectPosesClose(out, src, J, 1e-9);
      }),
      { numRuns: 200 },
    );
  });

  it('a second transition mid-blend keeps the output continuous (offset ← source + old offset − destination)', () => {
    const state = createInertializationState(J);
    const a = randomPose(J, 11), b = randomPose(J, 22), c = randomPose(J, 33);
    const before = makePose(J), after = makePose(J);
    inertializeTransition(state, a, b);
    for (let i = 0; i < 5; i++) inertializeUpdate(state, b, 1 / 60, H, before);
    // `before` is what the viewer sees now; switch from b (playing) to c.
    inertializeTransition(state, b, c);
    inertializeUpdate(state, c, 0, H, after);
    expectPosesClose(after, before, J, 1e-9);
  });

  it('transition from the shown output equals transition from the raw playing pose', () => {
    const viaPlaying = createInertializationState(J), viaOutput = createInertializationState(J);
    const a = randomPose(J, 12), b = randomPose(J, 23), c = randomPose(J, 34);
    const shown = makePose(J);
    inertializeTransition(viaPlaying, a, b);
    inertializeTransition(viaOutput, a, b);
    for (let i = 0; i < 4; i++) {
      inertializeUpdate(viaPlaying, b, 1 / 60, H, shown);
      inertializeUpdate(viaOutput, b, 1 / 60, H, makePose(J));
    }
    inertializeTransition(viaPlaying, b, c);
    inertializeTransitionFromOutput(viaOutput, shown, c);
    const o1 = makePose(J), o2 = makePose(J);
    inertializeUpdate(viaPlaying, c, 0, H, o1);
    inertializeUpdate(viaOutput, c, 0, H, o2);
    expectPosesClose(o2, o1, J, 1e-9);
    expectPosesClose(o2, shown, J, 1e-9);
    // Handing the shown pose to inertializeTransition would count the old offsets twice.
    const doubled = createInertializationState(J);
    inertializeTransition(doubled, a, b);
    for (let i = 0; i < 4; i++) inertializeUpdate(doubled, b, 1 / 60, H, makePose(J));
    inertializeTransition(doubled, shown, c);
    const o3 = makePose(J);
    inertializeUpdate(doubled, c, 0, H, o3);
    expect(maxGap(o3.positions, shown.positions, 3 * J)).toBeGreaterThan(1e-3);
  });

  it('position velocity is continuous: the output moves at the source velocity just after the switch', () => {
    const state = createInertializationState(J);
    const src = randomPose(J, 5), dst = randomPose(J, 6);
    inertializeTransition(state, src, dst);
    const out0 = makePose(J), out1 = makePose(J), out2 = makePose(J);
    inertializeUpdate(state, dst, 0, H, out0);
    // The destination keeps playing at its own velocity; sample the output at ε and 2ε (separate
    // states so each update decays from the transition) and take a second-order forward
    // difference, since the offset's large acceleration (≈ y²·offset) spoils a first-order one.
    const eps = 1e-5;
    const later = (dt: number, out: PoseBuffers) => {
      const s = createInertializationState(J);
      inertializeTransition(s, src, dst);
      const moved = copyPose(dst);
      for (let i = 0; i < 3 * J; i++) moved.positions[i] += dst.velocities[i] * dt;
      inertializeUpdate(s, moved, dt, H, out);
    };
    later(eps, out1);
    later(2 * eps, out2);
    for (let i = 0; i < 3 * J; i++) {
      const slope = (-3 * out0.positions[i] + 4 * out1.positions[i] - out2.positions[i]) / (2 * eps);
      expect(slope).toBeCloseTo(src.velocities[i], 5);
    }
  });

  it('converges to the destination after ~10 half-lives, and exactly enough after 30', () => {
    const state = createInertializationState(J);
    const src = randomPose(J, 101), dst = randomPose(J, 202), out = makePose(J);
    inertializeTransition(state, src, dst);
    inertializeUpdate(state, dst, 0, H, out);
    const initialGap = Math.max(maxGap(out.positions, dst.positions, 3 * J), maxRotationGap(out.rotations, dst.rotations, J));
    const steps = 60; // 10 half-lives at 60 steps of H/6
    for (let i = 0; i < steps; i++) inertializeUpdate(state, dst, H / 6, H, out);
    // Critically damped decay: e^(−20 ln2)·(1 + 20 ln2 + velocity term) — a few 1e-5 of the jump.
    expect(maxGap(out.positions, dst.positions, 3 * J)).toBeLessThan(1e-3 * initialGap);
    expect(maxRotationGap(out.rotations, dst.rotations, J)).toBeLessThan(1e-3 * initialGap);
    for (let i = 0; i < 120; i++) inertializeUpdate(state, dst, H / 6, H, out);
    expectPosesClose(out, dst, J, 1e-9);
  });

  it('is deterministic and allows out === playing (in place)', () => {
    const run = (inPlace: boolean) => {
      const state = createInertializationState(J);
      const src = randomPose(J, 3), dst = randomPose(J, 4);
      inertializeTransition(state, src, dst);
      const frame = copyPose(dst);
      const out = inPlace ? frame : makePose(J);
      inertializeUpdate(state, frame, 0.05, H, out);
      return [...out.positions, ...out.rotations, ...out.velocities, ...out.angularVelocities];
    };
    expect(run(false)).toEqual(run(false));
    expect(run(true)).toEqual(run(false));
  });

  it('rotation offsets take the short path (170° to −170° is a 20° offset)', () => {
    const deg = Math.PI / 180;
    const state = createInertializationState(1);
    const src = makePose(1), dst = makePose(1), out = makePose(1);
    quatFromYaw(src.rotations, 0, 170 * deg);
    quatFromYaw(dst.rotations, 0, -170 * deg);
    // Store the destination with a negative w so a naive log would take the long way.
    for (let k = 0; k < 4; k++) dst.rotations[k] = -dst.rotations[k];
    inertializeTransition(state, src, dst);
    const o = state.rotationOffsets;
    expect(Math.hypot(o[0], o[1], o[2])).toBeCloseTo(20 * deg, 12);
    for (let i = 0; i < 60; i++) {
      inertializeUpdate(state, dst, 1 / 60, H, out);
      // On the way from 170° to 190° (= −170°): never swings back through 0°.
      expect(Math.abs(quatYaw(out.rotations, 0))).toBeGreaterThan(169.999 * deg);
    }
  });

  it('reset clears the offsets', () => {
    const state = createInertializationState(J);
    inertializeTransition(state, randomPose(J, 1), randomPose(J, 2));
    inertializeReset(state);
    for (const buf of [state.positionOffsets, state.velocityOffsets, state.rotationOffsets, state.angularVelocityOffsets]) {
      expect(buf.every((x) => x === 0)).toBe(true);
    }
  });

  it('rejects wrong sizes, non-finite poses and bad parameters', () => {
    const state = createInertializationState(J);
    const good = randomPose(J, 9);
    const short = makePose(J - 1);
    expect(() => inertializeTransition(state, short, good)).toThrow(/source\.positions has 12 values, needs at least 15/);
    expect(() => inertializeUpdate(state, good, 0.1, H, short)).toThrow(/out\.positions/);
    const bad = copyPose(good);
    bad.rotations[6] = NaN;
    expect(() => inertializeTransition(state, good, bad)).toThrow(/destination\.rotations\[6\] must be a finite number/);
    expect(() => inertializeUpdate(state, good, -1, H, makePose(J))).toThrow(/dt/);
    expect(() => inertializeUpdate(state, good, 0.1, 0, makePose(J))).toThrow(/halfLife/);
    expect(() => createInertializationState(-1)).toThrow(/jointCount/);
  });
});
