/**
 * When simulated agents (and the demo's crowd) play their overlays: a seeded schedule per agent.
 * Each agent starts an overlay after a pause drawn from `every` seconds (counted from its previous
 * start), playing for a duration drawn from `duration`; a start that comes while the previous
 * overlay still plays takes it over (an inertialized switch). The numbers come from the agent's own
 * generator, seeded apart from its scripted driver's, so an agent's overlays depend only on (seed,
 * agent index) and its locomotion is the same with or without them.
 */
import { mulberry32Next, mulberry32Output } from '../../util/prng.js';
import type { OverlayLayer, OverlayMode, OverlaySource } from '../../runtime/overlay/overlay.js';

/** What `simulate --overlay TAG` (and the demo's crowd) play and when (structured-cloneable). */
export interface OverlaySimulation {
  /** The database tag whose frames the overlays play (entered by the overlay's own search). */
  tag: string;
  /** The bone mask, as parseBoneMaskSpec reads it (default 'upper:2'). */
  mask: string;
  mode: OverlayMode;
  /** Seconds from one start to the next (uniform in [min, max]). */
  every: [number, number];
  /** Seconds an overlay plays (uniform in [min, max]). */
  duration: [number, number];
}

export const DEFAULT_OVERLAY_SIMULATION: Readonly<Omit<OverlaySimulation, 'tag'>> = Object.freeze({
  mask: 'upper:2', mode: 'override', every: [3, 8] as [number, number], duration: [2, 5] as [number, number],
});

/** The simulation settings for `tag` with the defaults filled in and every value checked. */
export function overlaySimulation(tag: string, o: Partial<Omit<OverlaySimulation, 'tag'>> = {}): OverlaySimulation {
  if (typeof tag !== 'string' || tag.trim() === '') throw new RangeError('overlay: the tag must be a non-empty string');
  const s: OverlaySimulation = { ...DEFAULT_OVERLAY_SIMULATION, ...o, tag };
  for (const [name, [a, b]] of [['every', s.every], ['duration', s.duration]] as const) {
    if (!(Number.isFinite(a) && Number.isFinite(b) && a > 0 && b >= a && b <= 3600)) {
      throw new RangeError(`overlay: ${name} must be [min, max] seconds with 0 < min <= max <= 3600, got [${a}, ${b}]`);
    }
  }
  if (s.mode !== 'override' && s.mode !== 'additive') throw new RangeError(`overlay: mode must be override or additive, got '${String(s.mode)}'`);
  return s;
}

// The schedule's numbers at these offsets of its storage: the agent's clock, the next start, the generator.
const T_NOW = 0, T_NEXT = 1, T_RANDOM = 2;

export class OverlaySchedule {
  static readonly storageSize = 3;
  private readonly S: Float64Array;

  private readonly source: OverlaySource;

  /** `source`: what to play (default: the settings' tag). */
  constructor(private readonly settings: OverlaySimulation, seed: number, agent: number, storage?: Float64Array, source?: OverlaySource) {
    this.source = source ?? { tag: settings.tag };
    if (storage !== undefined && !(storage instanceof Float64Array && storage.length >= OverlaySchedule.storageSize)) {
      throw new RangeError(`OverlaySchedule: storage must be a Float64Array of at least ${OverlaySchedule.storageSize} values`);
    }
    const S = (this.S = storage ? storage.subarray(0, OverlaySchedule.storageSize).fill(0) : new Float64Array(OverlaySchedule.storageSize));
    // Another stream than the driver's (scenarios.ts mixes the seed with 0x9e3779b9 and 0x85ebca6b).
    S[T_RANDOM] = (Math.imul(seed ^ 0x5bd1e995, 0x27d4eb2f) + Math.imul(agent + 1, 0x165667b1)) >>> 0;
    S[T_NEXT] = this.between(settings.every);
  }

  private random(): number {
    const next = mulberry32Next(this.S[T_RANDOM]);
    this.S[T_RANDOM] = next;
    return mulberry32Output(next);
  }

  private between(range: readonly [number, number]): number {
    return range[0] + (range[1] - range[0]) * this.random();
  }

  /** Seconds until this agent's next start. */
  get nextStart(): number {
    return this.S[T_NEXT] - this.S[T_NOW];
  }

  /**
   * Call once before each step of `dt` seconds: starts the agent's next overlay on `layer` when it
   * is due. Returns true when it started one.
   */
  tick(layer: OverlayLayer, dt: number): boolean {
    const S = this.S;
    const due = S[T_NOW] >= S[T_NEXT];
    if (due) {
      const s = this.settings;
      layer.play(this.source, { duration: this.between(s.duration), mode: s.mode });
      S[T_NEXT] = S[T_NOW] + this.between(s.every);
    }
    S[T_NOW] += dt;
    return due;
  }
}
