/**
 * AI agents: seeded wandering. Every few seconds an agent picks a new heading (a turn of up to
 * ±120°) and a gait (idle, walk, jog, run), sometimes sidesteps or walks backwards while facing
 * elsewhere, and heads home when it strays out of the crowd's disc. The brains only write the
 * controller inputs; the motion itself is the motion matching engine's.
 *
 * State lives in typed arrays (one slot per agent), the random numbers come from a per-agent
 * xorshift generator: the same seed and frame times give the same crowd.
 */
import type { ControllerInput } from '../../src/runtime/controller.js';

const TWO_PI = 2 * Math.PI;

export class AgentBrains {
  private capacity = 0;
  private heading = new Float64Array(0);
  private speed = new Float64Array(0);
  /** Facing relative to the heading (NaN = face where you go). */
  private facingOffset = new Float64Array(0);
  private timer = new Float64Array(0);
  private rng = new Uint32Array(0);
  /** Agents wander inside a disc of this radius around the origin (m). */
  radius = 10;

  constructor(private readonly seed: number) {}

  /** Makes room for `n` agents; new slots start with a fresh decision on their first update. */
  ensure(n: number): void {
    if (n <= this.capacity) return;
    const cap = Math.max(n, this.capacity * 2, 16);
    const grow = <T extends Float64Array | Uint32Array>(a: T, make: (k: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.heading = grow(this.heading, (k) => new Float64Array(k));
    this.speed = grow(this.speed, (k) => new Float64Array(k));
    this.facingOffset = grow(this.facingOffset, (k) => new Float64Array(k));
    this.timer = grow(this.timer, (k) => new Float64Array(k));
    this.rng = grow(this.rng, (k) => new Uint32Array(k));
    for (let i = this.capacity; i < cap; i++) {
      this.rng[i] = mixSeed(this.seed, i);
      this.timer[i] = 0;
      this.facingOffset[i] = Number.NaN;
    }
    this.capacity = cap;
  }

  /** A uniform random number in [0, 1) from agent i's generator. */
  random(i: number): number {
    let x = this.rng[i];
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    this.rng[i] = x;
    return x / 4294967296;
  }

  /** Restarts agent i's plan (e.g. after it was placed somewhere new) facing `yaw`. */
  restart(i: number, yaw: number): void {
    this.heading[i] = yaw;
    this.speed[i] = 0;
    this.facingOffset[i] = Number.NaN;
    this.timer[i] = 0.5 * this.random(i);
  }

  /**
   * Advances agents [0, count) by dt and writes their inputs. positions[i] is agent i's root
   * position (x, y, z) in the world.
   */
  update(dt: number, count: number, positions: ReadonlyArray<Float64Array>, inputs: ControllerInput[]): void {
    this.ensure(count);
    const R = this.radius;
    for (let i = 0; i < count; i++) {
      const p = positions[i];
      const x = p[0], z = p[2];
      this.timer[i] -= dt;
      const dist = Math.hypot(x, z);
      const outward = dist > R && Math.sin(this.heading[i]) * x + Math.cos(this.heading[i]) * z > 0;
      if (this.timer[i] <= 0 || outward) this.decide(i, x, z, dist > R);
      const h = this.heading[i], s = this.speed[i];
      const input = inputs[i];
      input.velocityX = Math.sin(h) * s;
      input.velocityZ = Math.cos(h) * s;
      const off = this.facingOffset[i];
      input.facing = Number.isNaN(off) || s < 0.1 ? Number.NaN : wrap(h + off);
    }
  }

  private decide(i: number, x: number, z: number, goHome: boolean): void {
    const r = this.random(i);
    if (goHome) {
      // Back towards the middle, give or take 45°, at a walk or a jog.
      this.heading[i] = Math.atan2(-x, -z) + (this.random(i) - 0.5) * (Math.PI / 2);
      this.speed[i] = r < 0.6 ? 1.2 + 0.4 * this.random(i) : 2.4 + 0.4 * this.random(i);
      this.facingOffset[i] = Number.NaN;
      this.timer[i] = 2 + 2 * this.random(i);
      return;
    }
    this.heading[i] = wrap(this.heading[i] + (this.random(i) - 0.5) * (2 * Math.PI / 3) * 2);
    this.facingOffset[i] = Number.NaN;
    if (r < 0.12) {
      this.speed[i] = 0; // idle for a while
    } else if (r < 0.62) {
      this.speed[i] = 1.0 + 0.6 * this.random(i);
      const style = this.random(i);
      if (style < 0.1) this.facingOffset[i] = this.random(i) < 0.5 ? Math.PI / 2 : -Math.PI / 2; // sidestep
      else if (style < 0.15) this.facingOffset[i] = Math.PI; // backwards
    } else if (r < 0.85) {
      this.speed[i] = 2.2 + 0.6 * this.random(i);
    } else {
      this.speed[i] = 3.5 + 0.8 * this.random(i);
    }
    this.timer[i] = 1.5 + 4 * this.random(i);
  }
}

function wrap(a: number): number {
  return a - TWO_PI * Math.round(a / TWO_PI);
}

/** A non-zero 32-bit state from a seed and an index (a few rounds of integer hashing). */
function mixSeed(seed: number, i: number): number {
  let h = (seed ^ Math.imul(i + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  return h === 0 ? 0x12345678 : h;
}
