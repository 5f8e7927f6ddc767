/**
 * Overlays in the demo: which wave a database offers (its frames tagged `wave`, else a wave made
 * from the rig's right arm), and the crowd's overlays (every agent a layer and a seeded schedule,
 * src/sim/overlay/schedule.ts), stepped with the agents' AI. The settings are plain data, so the
 * split engine's workers build the same overlays from them.
 */
import type { Database } from '../../src/database/database.js';
import type { MotionMatchingController } from '../../src/runtime/controller/controller.js';
import { OverlayLayer, type OverlaySource } from '../../src/runtime/overlay/overlay.js';
import { parseBoneMaskSpec, type BoneMask } from '../../src/runtime/overlay/bone-mask.js';
import { synthesizedWave } from '../../src/runtime/overlay/wave.js';
import { OverlaySchedule, overlaySimulation, type OverlaySimulation } from '../../src/sim/overlay/schedule.js';

/** The crowd's overlays (structured-cloneable: they travel to the agent workers). */
export interface CrowdOverlaySettings {
  /** The tag whose frames the agents play; null: the wave made from the rig. */
  tag: string | null;
  /** Seconds from one start to the next, and an overlay's duration (uniform ranges). */
  every: [number, number];
  duration: [number, number];
}

/** What a wave is on a database: its source, the joints it takes and a label for the page. */
export interface WaveChoice {
  source: OverlaySource;
  mask: BoneMask;
  label: string;
  /** Seconds a key press plays it. */
  duration: number;
}

/** The tag of the captured waves the demo plays over the upper body (`motionmatch build --tag wave=*wave*`). */
export const WAVE_TAG = 'wave';

/** The database's wave: its frames tagged `tag` over the upper body, or the rig's own wave over the right arm. */
export function waveChoice(db: Database, tag: string | null = WAVE_TAG): WaveChoice {
  if (tag !== null && db.tagNames.includes(tag)) {
    return { source: { tag }, mask: parseBoneMaskSpec('upper:2', db), label: `the clips tagged '${tag}'`, duration: 4 };
  }
  const wave = synthesizedWave(db);
  return { source: wave.clip, mask: wave.mask, label: `a wave made from the rig (no clip is tagged '${tag ?? 'wave'}')`, duration: 3 };
}

/** The demo's crowd setting for `db`: waves every 4-10 s for 2-4 s. */
export function crowdWaveSettings(db: Database): CrowdOverlaySettings {
  return { tag: db.tagNames.includes('wave') ? 'wave' : null, every: [4, 10], duration: [2, 4] };
}

/** Every agent's overlay layer and schedule. */
export class CrowdOverlays {
  private readonly layers: OverlayLayer[] = [];
  private readonly schedules: OverlaySchedule[] = [];
  private readonly choice: WaveChoice;
  private readonly schedule: OverlaySimulation;

  constructor(private readonly db: Database, readonly settings: CrowdOverlaySettings, private readonly seed: number) {
    this.choice = waveChoice(db, settings.tag);
    this.schedule = overlaySimulation(settings.tag ?? 'wave', { every: settings.every, duration: settings.duration });
  }

  /** Gives the controller of agent `index` its layer and schedule. */
  add(c: MotionMatchingController, index: number): void {
    const layer = new OverlayLayer(this.db, { mask: this.choice.mask });
    c.setOverlay(layer);
    this.layers.push(layer);
    this.schedules.push(new OverlaySchedule(this.schedule, this.seed, index, undefined, this.choice.source));
  }

  /** Forgets the last agent's (the agent was removed). */
  removeLast(): void {
    this.layers.pop();
    this.schedules.pop();
  }

  get count(): number {
    return this.layers.length;
  }

  /** False once turned off: no overlay starts, the playing ones fade out. */
  enabled = true;

  /** Starts the overlays that are due (the agents' AI, before the step). */
  tick(dt: number): void {
    if (!this.enabled) return;
    for (let i = 0; i < this.layers.length; i++) this.schedules[i].tick(this.layers[i], dt);
  }

  /** Turns the schedules off and fades every overlay out (the layers stay attached). */
  disable(): void {
    this.enabled = false;
    for (const l of this.layers) l.stop();
  }

  /** Agents whose overlay shows. */
  get active(): number {
    let n = 0;
    for (const l of this.layers) if (l.active) n++;
    return n;
  }
}

/**
 * The crowd's overlays after a change of settings: the running ones switched back on when the
 * settings are the same, new ones for every agent when they differ, the running ones faded out
 * (and kept) when overlays are turned off.
 */
export function syncCrowdOverlays(
  current: CrowdOverlays | null, wanted: CrowdOverlaySettings | null | undefined, db: Database, seed: number, agents: readonly MotionMatchingController[],
): CrowdOverlays | null {
  let next = current;
  if (!wanted) current?.disable();
  else if (current && JSON.stringify(current.settings) === JSON.stringify(wanted)) current.enabled = true;
  else {
    next = new CrowdOverlays(db, wanted, seed);
    for (let i = 0; i < agents.length; i++) next.add(agents[i], i);
  }
  latest = next;
  return next;
}

let latest: CrowdOverlays | null = null;

/** The overlays of the crowd this thread stepped last (the main thread's: all agents in batched mode, none in split mode). */
export function latestCrowdOverlays(): CrowdOverlays | null {
  return latest;
}
