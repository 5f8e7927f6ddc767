import type { ControllerInput } from '../runtime/controller/controller.js';
import { mulberry32Next, mulberry32Output } from '../util/prng.js';
import { wrapAngle } from '../math/angle.js';

export type ScenarioName = 'wander' | 'path' | 'stop-go' | 'strafe' | 'crowd' | 'mixed';
/**
 * wander: new heading and gait every 2-5 s; path: straight to random waypoints; stop-go: move and
 * stand in turns; strafe: sidesteps, diagonals and backward walks under a fixed facing; crowd: the
 * browser demo's agents (idle, walk, jog, run, some sidesteps and backward walks, inside a disc);
 * mixed: each agent one of the first four.
 */
export const SCENARIOS: readonly ScenarioName[] = ['wander', 'path', 'stop-go', 'strafe', 'crowd', 'mixed'];
/** The scenarios `quality` reports and `mixed` draws from. */
export const QUALITY_SCENARIOS = ['wander', 'path', 'stop-go', 'strafe'] as const;

/** Speeds an agent picks from (m/s): stand, walk, brisk walk, jog, run. */
const SPEEDS = [0, 1.2, 1.6, 2.5, 3.5];
/** Sidesteps and backward walks are slower. */
const STRAFE_SPEEDS = [0.8, 1.0, 1.2];
/** The strafe's facings against its travel (radians): forward, diagonals, sidesteps, backward. */
const STRAFE_FACING_OFFSETS = [0, Math.PI / 4, -Math.PI / 4, Math.PI / 2, -Math.PI / 2, Math.PI];

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
// The random generator's 32-bit state, the seconds per drive() call, and the crowd scenario's disc radius.
const D_RANDOM = 12, D_DT = 13, D_RADIUS = 14;

export class ScriptedDriver {
  /** Values a driver keeps (the size of the `storage` its constructor accepts). */
  static readonly storageSize = D_RADIUS + 1;
  readonly kind: Exclude<ScenarioName, 'mixed'>;
  private readonly S: Float64Array;
  /** Tag filters the driven character's locomotion searches keep to (null: none; see searchTags). */
  private requireTags: readonly string[] | null = null;
  private excludeTags: readonly string[] | null = null;

  /**
   * `dt`: seconds per step (every drive() call advances the script by it). `storage` (optional, at
   * least ScriptedDriver.storageSize values, overwritten) holds the driver's state.
   */
  constructor(scenario: ScenarioName, seed: number, agent: number, dt: number, storage?: Float64Array) {
    if (!(Number.isFinite(dt) && dt > 0)) throw new RangeError(`ScriptedDriver: dt must be a finite number > 0, got ${dt}`);
    if (storage !== undefined && !(storage instanceof Float64Array && storage.length >= ScriptedDriver.storageSize)) {
      throw new RangeError(`ScriptedDriver: storage must be a Float64Array of at least ${ScriptedDriver.storageSize} values`);
    }
    const S = (this.S = storage ? storage.subarray(0, ScriptedDriver.storageSize).fill(0) : new Float64Array(ScriptedDriver.storageSize));
    S[D_MOVING] = 1;
    S[D_TRIG_HEADING] = Number.NaN;
    S[D_DT] = dt;
    S[D_RADIUS] = 10;
    S[D_RANDOM] = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(agent + 1, 0xc2b2ae35)) >>> 0;
    this.kind = scenario === 'mixed' ? QUALITY_SCENARIOS[Math.floor(this.random() * 4)] : scenario;
    S[D_HEADING] = this.random() * 2 * Math.PI - Math.PI;
    if (this.kind === 'crowd') S[D_FACING_OFFSET] = Number.NaN;
  }

  /** A number in [0, 1) from this driver's own generator (its state lives in the driver's block). */
  random(): number {
    const next = mulberry32Next(this.S[D_RANDOM]);
    this.S[D_RANDOM] = next;
    return mulberry32Output(next);
  }

  /** Seconds each drive() call advances the script (a browser sets it every frame). */
  set stepSeconds(dt: number) {
    if (!(Number.isFinite(dt) && dt >= 0)) throw new RangeError(`ScriptedDriver: dt must be a finite number >= 0, got ${dt}`);
    this.S[D_DT] = dt;
  }

  /** The crowd scenario keeps its agent inside a disc of this radius around the origin (m). */
  set radius(r: number) {
    if (!(Number.isFinite(r) && r > 0)) throw new RangeError(`ScriptedDriver: radius must be a finite number > 0, got ${r}`);
    this.S[D_RADIUS] = r;
  }

  /**
   * The tags every input asks the search for: only frames with all of `require`, none with any of
   * `exclude` (empty or null: no filter). E.g. exclude the gestures a crowd plays as overlays, so
   * that a standing character does not idle on a bow.
   */
  searchTags(require: readonly string[] | null, exclude: readonly string[] | null): void {
    this.requireTags = require !== null && require.length > 0 ? [...require] : null;
    this.excludeTags = exclude !== null && exclude.length > 0 ? [...exclude] : null;
  }

  /** Starts the script over (e.g. after the agent was placed somewhere new) heading along `yaw`. */
  restart(yaw: number): void {
    const S = this.S;
    S[D_HEADING] = yaw;
    S[D_SPEED] = 0;
    S[D_FACING_OFFSET] = this.kind === 'crowd' ? Number.NaN : 0;
    S[D_NEXT_CHANGE] = S[D_TIME] + 0.5 * this.random();
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
      case 'crowd': this.crowd(position); break;
    }
    const S = this.S, heading = S[D_HEADING], speed = S[D_SPEED];
    if (heading !== S[D_TRIG_HEADING]) { S[D_TRIG_HEADING] = heading; S[D_SIN] = Math.sin(heading); S[D_COS] = Math.cos(heading); }
    input.velocityX = S[D_SIN] * speed;
    input.velocityZ = S[D_COS] * speed;
    input.facing = S[D_FACE_EXPLICITLY] !== 0 ? heading + S[D_FACING_OFFSET] : Number.NaN;
    input.requireTags = this.requireTags;
    input.excludeTags = this.excludeTags;
    S[D_TIME] += S[D_DT];
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
    this.S[D_FACING_OFFSET] = STRAFE_FACING_OFFSETS[Math.floor(this.random() * STRAFE_FACING_OFFSETS.length)];
    this.S[D_FACE_EXPLICITLY] = 1;
    this.S[D_HEADING] += (this.random() * 2 - 1) * 0.25 * Math.PI;
    this.S[D_SPEED] = STRAFE_SPEEDS[Math.floor(this.random() * STRAFE_SPEEDS.length)];
    this.S[D_NEXT_CHANGE] = this.S[D_TIME] + 2 + 2 * this.random();
  }

  /**
   * The browser's crowd: every 1.5-5.5 s a new heading (a turn of up to ±120°) and a gait (idle,
   * walk, jog, run); some walks are sidesteps or backward walks facing elsewhere; an agent that has
   * strayed out of the disc heads back towards the middle.
   */
  private crowd(position: Float64Array): void {
    const S = this.S, x = position[0], z = position[2];
    const dist = Math.sqrt(x * x + z * z), R = S[D_RADIUS];
    const outward = dist > R && Math.sin(S[D_HEADING]) * x + Math.cos(S[D_HEADING]) * z > 0;
    if (S[D_TIME] < S[D_NEXT_CHANGE] && !outward) return;
    const r = this.random();
    S[D_FACE_EXPLICITLY] = 0;
    S[D_FACING_OFFSET] = Number.NaN;
    if (dist > R) {
      // Back towards the middle, give or take 45 degrees, at a walk or a jog.
      S[D_HEADING] = Math.atan2(-x, -z) + (this.random() - 0.5) * (Math.PI / 2);
      S[D_SPEED] = r < 0.6 ? 1.2 + 0.4 * this.random() : 2.4 + 0.4 * this.random();
      S[D_NEXT_CHANGE] = S[D_TIME] + 2 + 2 * this.random();
      return;
    }
    S[D_HEADING] = wrapAngle(S[D_HEADING] + (this.random() - 0.5) * (4 * Math.PI / 3));
    if (r < 0.12) {
      S[D_SPEED] = 0; // idle for a while
    } else if (r < 0.62) {
      S[D_SPEED] = 1.0 + 0.6 * this.random();
      const style = this.random();
      if (style < 0.15) {
        // A sidestep (facing across the heading) or a backward walk (facing against it).
        S[D_FACING_OFFSET] = style < 0.1 ? (this.random() < 0.5 ? Math.PI / 2 : -Math.PI / 2) : Math.PI;
        S[D_FACE_EXPLICITLY] = 1;
      }
    } else if (r < 0.85) {
      S[D_SPEED] = 2.2 + 0.6 * this.random();
    } else {
      S[D_SPEED] = 3.5 + 0.8 * this.random();
    }
    S[D_NEXT_CHANGE] = S[D_TIME] + 1.5 + 4 * this.random();
  }
}
