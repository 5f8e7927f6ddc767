/**
 * The demo's overlays: the wave key (G, or the gamepad's Y) plays a wave over whatever the player
 * is doing, and a toggle lets the crowd wave on a seeded schedule too. The wave is the database's
 * clips tagged `wave` over the upper body (`motionmatch build --tag wave=*wave*`), or, on a
 * database without any (the built-in one), a wave made from the rig over the right arm.
 * `window.motionmatch.overlay` drives both for tests.
 */
import type { Database } from '../../src/database/database.js';
import type { MotionMatchingController } from '../../src/runtime/controller/controller.js';
import { OverlayLayer } from '../../src/runtime/overlay/overlay.js';
import { armsMask } from '../../src/runtime/overlay/bone-mask.js';
import { crowdWaveSettings, latestCrowdOverlays, waveChoice, type CrowdOverlaySettings, type WaveChoice } from './overlay-crowd.js';

export interface OverlayHandle {
  /** What the wave key plays on this database (null before one is loaded). */
  readonly source: string | null;
  /** The player's overlay: playing (fading in, on or out), its weight and clip. */
  readonly playing: boolean;
  readonly weight: number;
  readonly clip: string | null;
  /** How far the player's highest hand is above its shoulder (m): a wave lifts it. */
  readonly handRise: number;
  /** Plays the wave over the player (from the start when one plays). */
  wave(): Promise<{ ok: boolean; message: string }>;
  /** Fades the player's wave out. */
  stop(): Promise<void>;
  /** Whether the crowd waves on its schedule. */
  readonly crowd: boolean;
  setCrowd(on: boolean): Promise<void>;
  /** Agents whose overlay shows (main thread + batched search only; null when the agents live in workers). */
  readonly crowdActive: number | null;
}

declare module './handle.js' {
  interface MotionmatchHandle {
    /** The wave overlay (web/src/overlay-demo.ts). */
    overlay: OverlayHandle;
  }
}

/** What the demo needs from the page. */
export interface OverlayDemoHost {
  database(): Database | null;
  player(): MotionMatchingController | null;
  /** Runs fn between two steps. */
  between<T>(fn: () => T): Promise<T>;
  /** Hands the crowd its new overlay settings. */
  applyCrowd(): Promise<void>;
  /** True when the agents live in worker threads. */
  agentsInWorkers(): boolean;
  message(text: string, kind: 'error' | 'info'): void;
}

export class OverlayDemo {
  private crowdOn = false;
  private choice: { db: Database; wave: WaveChoice } | null = null;
  private readonly status: HTMLElement | null;
  private readonly button: HTMLButtonElement | null;
  private readonly toggle: HTMLInputElement | null;

  constructor(private readonly host: OverlayDemoHost) {
    this.status = document.getElementById('wave-status');
    this.button = document.getElementById('wave-btn') as HTMLButtonElement | null;
    this.toggle = document.getElementById('t-crowd-wave') as HTMLInputElement | null;
    const canvas = document.getElementById('viewport');
    // Give the keyboard back to the scene after using a control.
    const refocus = (e: Event): void => { (e.target as HTMLElement).blur(); canvas?.focus(); };
    this.button?.addEventListener('click', (e) => { void this.toggleWave(); refocus(e); });
    this.toggle?.addEventListener('change', (e) => { void this.setCrowd(this.toggle!.checked); refocus(e); });
  }

  /** The wave of the database in use (made once per database). */
  private wave(db: Database): WaveChoice {
    if (this.choice?.db !== db) this.choice = { db, wave: waveChoice(db) };
    return this.choice.wave;
  }

  /** The crowd's overlay settings for `db` (null while the crowd does not wave). */
  crowdSettings(db: Database | undefined): CrowdOverlaySettings | null {
    return this.crowdOn && db ? crowdWaveSettings(db) : null;
  }

  /** The wave key: plays the wave, or fades it out when one plays. */
  async toggleWave(): Promise<void> {
    const layer = this.host.player()?.overlay;
    if (layer?.playing && !layer.stopping) await this.stop();
    else await this.play();
    // The status line says so at once, not at the next of its redraws (every 6 frames: under
    // software WebGL in a loaded test run, a few seconds, and a short wave could end unseen there).
    this.update();
  }

  /** Plays the wave over the player; resolves with what happened (never rejects). */
  async play(): Promise<{ ok: boolean; message: string }> {
    try {
      return await this.host.between(() => {
        const db = this.host.database(), player = this.host.player();
        if (!db || !player) return { ok: false, message: 'no database loaded yet' };
        const wave = this.wave(db);
        let layer = player.overlay;
        if (!layer || layer.mask !== wave.mask) {
          layer = new OverlayLayer(db, { mask: wave.mask });
          player.setOverlay(layer);
        }
        layer.play(wave.source, { duration: wave.duration });
        return { ok: true, message: `waving: ${wave.label}` };
      });
    } catch (e) {
      const message = `cannot wave: ${(e as Error).message}`;
      this.host.message(message, 'error');
      return { ok: false, message };
    }
  }

  async stop(): Promise<void> {
    await this.host.between(() => this.host.player()?.stopOverlay());
  }

  async setCrowd(on: boolean): Promise<void> {
    this.crowdOn = on;
    if (this.toggle) this.toggle.checked = on;
    try {
      await this.host.applyCrowd();
    } catch (e) {
      this.host.message(`the crowd cannot wave: ${(e as Error).message}`, 'error');
    }
  }

  /** The status line under the controls (called every few frames). */
  update(): void {
    if (!this.status) return;
    const db = this.host.database(), layer = this.host.player()?.overlay;
    if (!db) return;
    let source: string;
    try { source = this.wave(db).label; } catch (e) { source = (e as Error).message; }
    this.status.textContent = layer?.playing ? `waving (${(100 * layer.weight).toFixed(0)}%): ${layer.clipName ?? ''}` : `G waves: ${source}`;
  }

  /** How far the player's highest hand is above its shoulder (m): the end of each arm chain against its first joint. */
  private handRise(): number {
    const db = this.host.database(), player = this.host.player();
    if (!db || !player) return Number.NaN;
    const parents = db.skeleton.parents, J = parents.length, wp = player.worldPositions;
    let arms;
    try { arms = armsMask(db); } catch { return Number.NaN; }
    let best = -Infinity;
    for (const root of arms.joints) {
      if (arms.weights[parents[root]] > 0) continue; // not the first joint of an arm
      let end = root;
      for (let j = root + 1; j < J; j++) if (parents[j] === end) end = j; // down the arm (parents first)
      best = Math.max(best, wp[3 * end + 1] - wp[3 * root + 1]);
    }
    return best;
  }

  handle(): OverlayHandle {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const demo = this;
    return {
      get source() { const db = demo.host.database(); if (!db) return null; try { return demo.wave(db).label; } catch { return null; } },
      get playing() { return demo.host.player()?.overlay?.playing ?? false; },
      get weight() { return demo.host.player()?.overlay?.weight ?? 0; },
      get clip() { return demo.host.player()?.overlay?.clipName ?? null; },
      get handRise() { return demo.handRise(); },
      wave: () => demo.play(),
      stop: () => demo.stop(),
      get crowd() { return demo.crowdOn; },
      setCrowd: (on: boolean) => demo.setCrowd(on),
      get crowdActive() { return demo.host.agentsInWorkers() ? null : latestCrowdOverlays()?.active ?? 0; },
    };
  }
}
