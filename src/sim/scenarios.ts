import type { ControllerInput } from '../runtime/controller.js';
import { createRandom } from '../util/prng.js';

export type ScenarioName = 'wander' | 'path' | 'stop-go' | 'strafe' | 'mixed';
export const SCENARIOS: readonly ScenarioName[] = ['wander', 'path', 'stop-go', 'strafe', 'mixed'];

/** Speeds an agent picks from (m/s): stand, walk, brisk walk, jog, run. */
const SPEEDS = [0, 1.2, 1.6, 2.5, 3.5];
/** Sidesteps and backward walks are slower. */
const STRAFE_SPEEDS = [0.8, 1.0, 1.2];

/**
 * A seeded, scripted driver for one agent: writes a desired velocity and facing into `input` each
 * step. Every decision comes from the agent's own generator, so an agent's inputs depend only on
 * (seed, agent index) and never on other agents or on how agents are split across workers.
 */
export class ScriptedDriver {
  readonly kind: Exclude<ScenarioName, 'mixed'>;
  private readonly random: () => number;
  private time = 0;
  private nextChange = 0;
  private heading = 0;
  private speed = 0;
  private facingOffset = 0;
  private faceExplicitly = false;
  private moving = true;
  private readonly waypoint = new Float64Array(2);

  /** `dt`: seconds per step (every drive() call advances the script by it). */
  constructor(scenario: ScenarioName, seed: number, agent: number, private readonly dt: number) {
    if (!(Number.isFinite(dt) && dt > 0)) throw new RangeError(`ScriptedDriver: dt must be a finite number > 0, got ${dt}`);
    this.random = createRandom((Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(agent + 1, 0xc2b2ae35)) >>> 0);
    this.kind = scenario === 'mixed' ? (['wander', 'path', 'stop-go', 'strafe'] as const)[Math.floor(this.random() * 4)] : scenario;
    this.heading = this.random() * 2 * Math.PI - Math.PI;
  }

  /**
   * Fills `input` for the step that starts now; `position` is the agent's current (x, y, z).
   * Takes no number arguments: in a crowd's loop a number passed to a call that is not inlined is
   * heap-allocated, per agent per step.
   */
  drive(position: Float64Array, input: ControllerInput): void {
    switch (this.kind) {
      case 'wander': this.wander(); break;
      case 'path': this.path(position); break;
      case 'stop-go': this.stopGo(); break;
      case 'strafe': this.strafe(); break;
    }
    input.velocityX = Math.sin(this.heading) * this.speed;
    input.velocityZ = Math.cos(this.heading) * this.speed;
    input.facing = this.faceExplicitly ? this.heading + this.facingOffset : Number.NaN;
    input.requireTags = null;
    input.excludeTags = null;
    this.time += this.dt;
  }

  /** New direction and speed every 2-5 s, turns of up to 180 degrees. */
  private wander(): void {
    if (this.time < this.nextChange) return;
    this.heading += (this.random() * 2 - 1) * Math.PI;
    this.speed = SPEEDS[1 + Math.floor(this.random() * (SPEEDS.length - 1))];
    this.nextChange = this.time + 2 + 3 * this.random();
  }

  /** Walk or run to random waypoints within 20 m, steering straight at them. */
  private path(position: Float64Array): void {
    const dx = this.waypoint[0] - position[0], dz = this.waypoint[1] - position[2];
    if (this.time === 0 || dx * dx + dz * dz < 1) {
      this.waypoint[0] = (this.random() * 2 - 1) * 20;
      this.waypoint[1] = (this.random() * 2 - 1) * 20;
      this.speed = SPEEDS[1 + Math.floor(this.random() * (SPEEDS.length - 1))];
      return;
    }
    this.heading = Math.atan2(dx, dz);
  }

  /** Move 2-4 s, stand 1-2 s. */
  private stopGo(): void {
    if (this.time < this.nextChange) return;
    this.moving = !this.moving;
    if (this.moving) {
      this.heading += (this.random() * 2 - 1) * 0.5 * Math.PI;
      this.speed = SPEEDS[1 + Math.floor(this.random() * 3)];
      this.nextChange = this.time + 2 + 2 * this.random();
    } else {
      this.speed = 0;
      this.nextChange = this.time + 1 + this.random();
    }
  }

  /** Walk sideways, diagonally or backwards while facing a fixed direction, changing every 2-4 s (speeds a sidestep allows). */
  private strafe(): void {
    if (this.time < this.nextChange) return;
    const options = [0, Math.PI / 4, -Math.PI / 4, Math.PI / 2, -Math.PI / 2, Math.PI];
    this.facingOffset = options[Math.floor(this.random() * options.length)];
    this.faceExplicitly = true;
    this.heading += (this.random() * 2 - 1) * 0.25 * Math.PI;
    this.speed = STRAFE_SPEEDS[Math.floor(this.random() * STRAFE_SPEEDS.length)];
    this.nextChange = this.time + 2 + 2 * this.random();
  }
}
