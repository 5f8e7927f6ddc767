/**
 * Overlay figures of a simulation: how often agents started and ended overlays, and the largest
 * joint velocity jump at overlay entry and exit (the change of a masked joint's world velocity over
 * one step, the measure QualityMeter uses for transitions), next to the same measure while an
 * overlay plays and without one. Steps on which the base motion transitions are left out: their
 * jumps belong to the locomotion (the controller's own transition figure).
 *
 * Entry: from a start (or a switch to a new overlay) until the fade-in is over and SETTLE after it.
 * Exit: from the start of the fade-out until SETTLE after the overlay ended (its offsets decay).
 */
import type { MotionMatchingController } from '../../runtime/controller/controller.js';
import type { OverlayLayer } from '../../runtime/overlay/overlay.js';
import { percentile } from '../../runtime/quality/histogram.js';

/** Seconds after a fade-in or an exit still counted as part of it. */
const SETTLE = 0.2;
const JUMP_BINS = 500; // 0.02 m/s bins up to 10 m/s, as the transition figure
const JUMP_BIN = 0.02;

type Phase = 'entry' | 'exit' | 'playing' | 'none';
const PHASES: readonly Phase[] = ['entry', 'exit', 'playing', 'none'];

/** Counts and jump histograms of many agents (mergeable by adding; structured-cloneable fields). */
export class OverlayStats {
  entries = 0;
  exits = 0;
  steps = 0;
  activeSteps = 0;
  /** Steps left out because the base motion transitioned on them. */
  transitionSteps = 0;
  max = { entry: 0, exit: 0, playing: 0, none: 0 };
  hist = { entry: new Float64Array(JUMP_BINS + 1), exit: new Float64Array(JUMP_BINS + 1), playing: new Float64Array(JUMP_BINS + 1), none: new Float64Array(JUMP_BINS + 1) };

  record(phase: Phase, jump: number): void {
    if (jump > this.max[phase]) this.max[phase] = jump;
    this.hist[phase][Math.min(JUMP_BINS, Math.floor(jump / JUMP_BIN))]++;
  }

  merge(o: OverlayStats): void {
    this.entries += o.entries; this.exits += o.exits; this.steps += o.steps; this.activeSteps += o.activeSteps; this.transitionSteps += o.transitionSteps;
    for (const p of PHASES) {
      this.max[p] = Math.max(this.max[p], o.max[p]);
      for (let i = 0; i <= JUMP_BINS; i++) this.hist[p][i] += o.hist[p][i];
    }
  }

  /** Stats from a structured clone (a worker's message). */
  static from(o: OverlayStats): OverlayStats {
    const s = new OverlayStats();
    s.merge(o);
    return s;
  }

  report(): OverlayReport {
    const p95 = (p: Phase) => round(percentile(this.hist[p], 0.95) * JUMP_BIN);
    return {
      entries: this.entries, exits: this.exits,
      activeShare: round(this.steps > 0 ? this.activeSteps / this.steps : 0),
      entryJumpMax: round(this.max.entry), entryJumpP95: p95('entry'),
      exitJumpMax: round(this.max.exit), exitJumpP95: p95('exit'),
      playingJumpP95: p95('playing'), playingJumpMax: round(this.max.playing),
      withoutJumpP95: p95('none'), withoutJumpMax: round(this.max.none),
      transitionStepsSkipped: this.transitionSteps,
    };
  }
}

/** The overlay figures in a simulation report (m/s for jumps, over the masked joints). */
export interface OverlayReport {
  entries: number;
  exits: number;
  /** Share of agent-steps with the overlay editing the pose. */
  activeShare: number;
  entryJumpMax: number;
  entryJumpP95: number;
  exitJumpMax: number;
  exitJumpP95: number;
  /** While an overlay plays between its entry and exit, and on steps without one (for scale). */
  playingJumpP95: number;
  playingJumpMax: number;
  withoutJumpP95: number;
  withoutJumpMax: number;
  transitionStepsSkipped: number;
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

// Scalars of a meter's block, then the masked joints' world positions one and two steps ago (M*3 each).
const HAS = 0, PREV_DT = 1, WAS_PLAYING = 2, SINCE_END = 3, LAST_ELAPSED = 4, SCALARS = 5;

/** One agent's overlay observer: call observe() after every step. */
export class OverlayMeter {
  private readonly S: Float64Array;
  private readonly joints: Int32Array;
  private slot = 0;

  static storageSize(maskedJoints: number): number {
    return SCALARS + 6 * maskedJoints;
  }

  constructor(private readonly controller: MotionMatchingController, private readonly layer: OverlayLayer, private readonly stats: OverlayStats, storage?: Float64Array) {
    this.joints = layer.mask.joints;
    const size = OverlayMeter.storageSize(this.joints.length);
    if (storage !== undefined && !(storage instanceof Float64Array && storage.length >= size)) throw new RangeError(`OverlayMeter: storage must be a Float64Array of at least ${size} values`);
    this.S = storage ? storage.subarray(0, size).fill(0) : new Float64Array(size);
    this.S[SINCE_END] = Infinity;
  }

  observe(dt: number): void {
    const S = this.S, layer = this.layer, stats = this.stats, c = this.controller;
    const playing = layer.playing;
    // A start or a switch: the clock since play() went back.
    const started = playing && (S[WAS_PLAYING] === 0 || layer.elapsed < S[LAST_ELAPSED]);
    if (started) stats.entries++;
    if (!playing && S[WAS_PLAYING] !== 0) { stats.exits++; S[SINCE_END] = 0; }
    else if (!playing) S[SINCE_END] += dt;
    S[WAS_PLAYING] = playing ? 1 : 0;
    S[LAST_ELAPSED] = playing ? layer.elapsed : 0;
    let phase: Phase;
    if (playing && layer.stopping) phase = 'exit';
    else if (playing) phase = layer.elapsed <= layer.options.fadeIn + SETTLE ? 'entry' : 'playing';
    else phase = layer.active || S[SINCE_END] <= SETTLE ? 'exit' : 'none';
    stats.steps++;
    if (layer.active) stats.activeSteps++;
    const M = this.joints.length, wp = c.worldPositions;
    const p1 = SCALARS + this.slot * 3 * M, p2 = SCALARS + (1 - this.slot) * 3 * M;
    if (S[HAS] >= 2 && dt > 0) {
      if (c.transitioned) stats.transitionSteps++;
      else {
        const a = 1 / dt, b = 1 / S[PREV_DT];
        let worst = 0;
        for (let k = 0; k < M; k++) {
          const j3 = 3 * this.joints[k], k3 = 3 * k;
          let d = 0;
          for (let e = 0; e < 3; e++) {
            const x1 = S[p1 + k3 + e];
            const acc = (wp[j3 + e] - x1) * a - (x1 - S[p2 + k3 + e]) * b;
            d += acc * acc;
          }
          if (d > worst) worst = d;
        }
        stats.record(phase, Math.sqrt(worst));
      }
    }
    // This step becomes the previous one, over the older slot.
    for (let k = 0; k < M; k++) for (let e = 0; e < 3; e++) S[p2 + 3 * k + e] = wp[3 * this.joints[k] + e];
    this.slot = 1 - this.slot;
    S[PREV_DT] = dt;
    S[HAS] = Math.min(2, S[HAS] + 1);
  }
}
