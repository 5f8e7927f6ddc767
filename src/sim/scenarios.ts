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
// The driver's numbers, at these offsets of its storage (a crowd keeps them in each agent's block:
// as object fields, every double would be a separate heap box to fetch per step).
const D_TIME = 0, D_NEXT_CHANGE = 1, D_HEADING = 2, D_SPEED = 3, D_FACING_OFFSET = 4, D_FACE_EXPLICITLY = 5, D_MOVING = 6, D_WAYPOINT = 7;
// The heading whose sine and cosine were computed last, and them (headings change every few seconds).
const D_TRIG_HEADING = 9, D_SIN = 10, D_COS = 11;

export class ScriptedDriver {
  /** Values a driver keeps (the size of the `storage` its constructor accepts). */
  static readonly storageSize = D_COS + 1;
  readonly kind: Exclude<ScenarioName, 'mixed'>;
  private readonly random: () => number;
  private readonly S: Float64Array;

  /**
   * `dt`: seconds per step (every drive() call advances the script by it). `storage` (optional, at
   * least ScriptedDriver.storageSize values, overwritten) holds the driver's state.
   */
  constructor(scenario: ScenarioName, seed: number, agent: number, private readonly dt: number, storage?: Float64Array) {
    if (!(Number.isFinite(dt) && dt > 0)) throw new RangeError(`ScriptedDriver: dt must be a finite number > 0, got ${dt}`);
    if (storage !== undefined && !(storage instanceof Float64Array && storage.length >= ScriptedDriver.storageSize)) {
      throw new RangeError(`ScriptedDriver: storage must be a Float64Array of at least ${ScriptedDriver.storageSize} values`);
    }
    const S = (this.S = storage ? storage.subarray(0, ScriptedDriver.storageSize).fill(0) : new Float64Array(ScriptedDriver.storageSize));
    S[D_MOVING] = 1;
    S[D_TRIG_HEADING] = Number.NaN;
    this.random = createRandom((Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(agent + 1, 0xc2b2ae35)) >>> 0);
    this.kind = scenario === 'mixed' ? (['wander', 'path', 'stop-go', 'strafe'] as const)[Math.floor(this.random() * 4)] : scenario;
    S[D_HEADING] = this.random() * 2 * Math.PI - Math.PI;
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
    const S = this.S, heading = S[D_HEADING], speed = S[D_SPEED];
    if (heading !== S[D_TRIG_HEADING]) { S[D_TRIG_HEADING] = heading; S[D_SIN] = Math.sin(heading); S[D_COS] = Math.cos(heading); }
    input.velocityX = S[D_SIN] * speed;
    input.velocityZ = S[D_COS] * speed;
    input.facing = S[D_FACE_EXPLICITLY] !== 0 ? heading + S[D_FACING_OFFSET] : Number.NaN;
    input.requireTags = null;
    input.excludeTags = null;
    S[D_TIME] += this.dt;
  }

  /** New direction and speed every 2-5 s, turns of up to 180 degrees. */
  private wander(): void {
    if (this.S[D_TIME] < this.S[D_NEXT_CHANGE]) return;
    this.S[D_HEADING] += (this.random() * 2 - 1) * Math.PI;
    this.S[D_SPEED] = SPEEDS[1 + Math.floor(this.random() * (SPEEDS.length - 1))];
    this.S[D_NEXT_CHANGE] = this.S[D_TIME] + 2 + 3 * this.random();
  }

  /** Walk or run to random waypoints within 20 m, steering straight at them. */
  private path(position: Float64Array): void {
    const dx = this.S[D_WAYPOINT] - position[0], dz = this.S[D_WAYPOINT + 1] - position[2];
    if (this.S[D_TIME] === 0 || dx * dx + dz * dz < 1) {
      this.S[D_WAYPOINT] = (this.random() * 2 - 1) * 20;
      this.S[D_WAYPOINT + 1] = (this.random() * 2 - 1) * 20;
      this.S[D_SPEED] = SPEEDS[1 + Math.floor(this.random() * (SPEEDS.length - 1))];
      return;
    }
    this.S[D_HEADING] = Math.atan2(dx, dz);
  }

  /** Move 2-4 s, stand 1-2 s. */
  private stopGo(): void {
    if (this.S[D_TIME] < this.S[D_NEXT_CHANGE]) return;
    this.S[D_MOVING] = this.S[D_MOVING] !== 0 ? 0 : 1;
    if (this.S[D_MOVING] !== 0) {
      this.S[D_HEADING] += (this.random() * 2 - 1) * 0.5 * Math.PI;
      this.S[D_SPEED] = SPEEDS[1 + Math.floor(this.random() * 3)];
      this.S[D_NEXT_CHANGE] = this.S[D_TIME] + 2 + 2 * this.random();
    } else {
      this.S[D_SPEED] = 0;
      this.S[D_NEXT_CHANGE] = this.S[D_TIME] + 1 + this.random();
    }
  }

  /** Walk sideways, diagonally or backwards while facing a fixed direction, changing every 2-4 s (speeds a sidestep allows). */
  private strafe(): void {
    if (this.S[D_TIME] < this.S[D_NEXT_CHANGE]) return;
    const options = [0, Math.PI / 4, -Math.PI / 4, Math.PI / 2, -Math.PI / 2, Math.PI];
    this.S[D_FACING_OFFSET] = options[Math.floor(this.random() * options.length)];
    this.S[D_FACE_EXPLICITLY] = 1;
    this.S[D_HEADING] += (this.random() * 2 - 1) * 0.25 * Math.PI;
    this.S[D_SPEED] = STRAFE_SPEEDS[Math.floor(this.random() * STRAFE_SPEEDS.length)];
    this.S[D_NEXT_CHANGE] = this.S[D_TIME] + 2 + 2 * this.random();
  }
}
