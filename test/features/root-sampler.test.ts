import { describe, expect, it } from 'vitest';
import { ClipRootSampler } from '../../src/features/root-sampler.js';
import type { ClipMotion } from '../../src/features/extract.js';
import { wrapAngle } from '../../src/math/angle.js';
import { quatFromYaw } from '../../src/math/quat.js';

/** A root track: positions (x, z) and yaw per frame from the given functions of the frame. */
function track(frames: number, fps: number, at: (f: number) => [number, number, number], loop = false): ClipMotion {
  const rootPos = new Float64Array(frames * 3), rootRot = new Float64Array(frames * 4);
  for (let f = 0; f < frames; f++) {
    const [x, z, yaw] = at(f);
    rootPos[3 * f] = x; rootPos[3 * f + 2] = z;
    quatFromYaw(rootRot, 4 * f, yaw);
  }
  return { frames, fps, joints: 1, worldPos: new Float64Array(frames * 3), worldVel: new Float64Array(frames * 3), rootPos, rootRot, loop };
}

/**
 * The sample computed from scratch for each frame asked, as extraction did before the sampler kept
 * its per-clip tables: the reference the sampler must equal bit for bit.
 */
function sampleFromScratch(m: ClipMotion, t: number): [number, number, number] {
  const F = m.frames, p = m.rootPos;
  const yawOf = (f: number): number => 2 * Math.atan2(m.rootRot[4 * f + 1], m.rootRot[4 * f + 3]);
  if (t >= 0 && t < F) return [p[3 * t], p[3 * t + 2], yawOf(t)];
  if (F < 2) return [p[0], p[2], yawOf(0)];
  const toWorld = (x: number, z: number, yaw: number): [number, number] => { const c = Math.cos(yaw), s = Math.sin(yaw); return [c * x + s * z, -s * x + c * z]; };
  const toLocal = (x: number, z: number, yaw: number): [number, number] => { const c = Math.cos(yaw), s = Math.sin(yaw); return [c * x - s * z, s * x + c * z]; };
  const after = t >= F;
  if (m.loop) {
    const k = Math.floor(t / F), local = t - k * F, yaw0 = yawOf(0);
    const endX = 2 * p[3 * (F - 1)] - p[3 * (F - 2)], endZ = 2 * p[3 * (F - 1) + 2] - p[3 * (F - 2) + 2];
    const endYaw = yawOf(F - 1) + wrapAngle(yawOf(F - 1) - yawOf(F - 2));
    const [cx, cz] = toLocal(endX - p[0], endZ - p[2], yaw0);
    const cyaw = endYaw - yaw0;
    let x = p[0], z = p[2], yaw = yaw0;
    for (let i = 0; i < Math.abs(k); i++) {
      if (k > 0) { const [wx, wz] = toWorld(cx, cz, yaw); x += wx; z += wz; yaw += cyaw; }
      else { yaw -= cyaw; const [wx, wz] = toWorld(cx, cz, yaw); x -= wx; z -= wz; }
    }
    const [lx, lz] = toLocal(p[3 * local] - p[0], p[3 * local + 2] - p[2], yaw0);
    const [wx, wz] = toWorld(lx, lz, yaw);
    return [x + wx, z + wz, yaw + (yawOf(local) - yaw0)];
  }
  const span = Math.max(1, Math.min(F - 1, Math.round(0.25 * m.fps)));
  const b = after ? F - 1 : 0, a = after ? F - 1 - span : span, per = after ? span : -span;
  const vx = (p[3 * b] - p[3 * a]) / per, vz = (p[3 * b + 2] - p[3 * a + 2]) / per;
  const yawB = yawOf(b);
  const lx = Math.cos(yawB) * vx - Math.sin(yawB) * vz, lz = Math.sin(yawB) * vx + Math.cos(yawB) * vz;
  const yawRate = wrapAngle(yawB - yawOf(a)) / per;
  const n = after ? t - (F - 1) : -t, dir = after ? 1 : -1;
  let x = p[3 * b], z = p[3 * b + 2];
  for (let i = 1; i <= n; i++) {
    const h = yawB + dir * yawRate * (i - 0.5);
    const c = Math.cos(h), sn = Math.sin(h);
    x += dir * (c * lx + sn * lz); z += dir * (-sn * lx + c * lz);
  }
  return [x, z, yawB + dir * yawRate * n];
}

/** A wandering track: speed and turn varying with the frame. */
const wander = (f: number): [number, number, number] => [Math.sin(f * 0.07) * 2 + f * 0.01, f * 0.04 + Math.cos(f * 0.05), 0.3 * Math.sin(f * 0.03) + 0.002 * f];

describe('ClipRootSampler', () => {
  it('inside the clip: the root track as it is', () => {
    const m = track(40, 30, wander), s = new ClipRootSampler(m), out = new Float64Array(3);
    for (let t = 0; t < 40; t++) {
      s.sample(t, out);
      expect([out[0], out[1]]).toEqual([m.rootPos[3 * t], m.rootPos[3 * t + 2]]);
      expect(out[2]).toBeCloseTo(0.3 * Math.sin(t * 0.03) + 0.002 * t, 12);
    }
  });

  it('past a clip\'s ends: the root goes on at the velocity of its last (first) quarter second', () => {
    // 1.5 m/s along +Z facing +Z, no turn: a second past the end is 1.5 m further, before the start 1.5 m back.
    const m = track(60, 30, (f) => [0, 1.5 * f / 30, 0]), s = new ClipRootSampler(m), out = new Float64Array(3);
    s.sample(59 + 30, out);
    expect(out[1] - m.rootPos[3 * 59 + 2]).toBeCloseTo(1.5, 9);
    expect(out[0]).toBeCloseTo(0, 9);
    s.sample(-30, out);
    expect(out[1]).toBeCloseTo(-1.5, 9);
  });

  it('past a turning clip\'s end: the heading keeps turning at its rate', () => {
    const rate = 0.02; // rad per frame
    const m = track(60, 30, (f) => [0, 0, rate * f]), s = new ClipRootSampler(m), out = new Float64Array(3);
    s.sample(59 + 45, out);
    expect(out[2]).toBeCloseTo(rate * (59 + 45), 9);
  });

  it('a loop continues from its start, moved on by the cycle\'s displacement', () => {
    // 30 frames per cycle, 1 cm per frame along +X (facing +Z): frame 30 + k is frame k moved on 30 cm.
    const m = track(30, 30, (f) => [0.01 * f, 0, 0], true), s = new ClipRootSampler(m), out = new Float64Array(3);
    s.sample(35, out);
    expect(out[0]).toBeCloseTo(0.35, 9);
    s.sample(-5, out);
    expect(out[0]).toBeCloseTo(-0.05, 9);
  });

  it('equals sampling each frame from scratch, bit for bit, in any order of frames asked (loops, both ends, short clips)', () => {
    const out = new Float64Array(3);
    for (const [frames, loop] of [[90, false], [90, true], [2, false], [3, true], [1, false], [17, false]] as const) {
      const m = track(frames, 30, wander, loop);
      // Asked in a scrambled order, so that the end tables are extended out of order.
      const ts = [frames + 40, -3, frames + 5, frames - 1, -70, frames + 200, 0, frames + 41, -4, 2 * frames + 7, -2 * frames - 1];
      const s = new ClipRootSampler(m);
      for (const t of ts) {
        s.sample(t, out);
        expect(Array.from(out), `${frames} frames${loop ? ' (loop)' : ''}, frame ${t}`).toEqual(sampleFromScratch(m, t));
      }
    }
  });
});
