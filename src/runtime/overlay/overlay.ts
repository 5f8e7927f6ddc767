/**
 * An overlay layer: a second motion (a gesture clip, or frames of the database carrying a tag,
 * entered by a motion matching search of its own) played over the base locomotion on the joints of
 * a bone mask (docs/overlays.md).
 *
 * Per masked joint j with mask weight m_j and layer weight w (user weight × fades), with B the base
 * local rotation (after the controller's inertialization) and O the overlay clip's:
 *   override:  out = slerp(B, O, m_j·w) = B · (B⁻¹·O)^(m_j·w)   (the clip's local pose replaces the base)
 *   additive:  out = B · (R⁻¹·O)^(m_j·w)                   (the clip's change from its reference
 *                                                          pose R, its first frame, added on top)
 * The relative rotation D (B⁻¹·O or R⁻¹·O) is taken the same way round as on the previous step, so
 * that a blend of rotations about 180 degrees apart never flips to the other arc mid-fade; a blend
 * starts the short way.
 * Fades are smootherstep ramps (6u⁵ − 15u⁴ + 10u³: neither the velocity nor the acceleration
 * jumps where a fade starts or ends). Anything that switches the
 * shown pose at once (a start without fade, a hard stop, a new clip while one plays, a jump to the
 * next gesture) is inertialized: the difference between the old and the new output, per masked
 * joint, becomes a rotation offset that decays with the controller's critically damped spring,
 *   offset(τ) = e^(−yτ)·(x0 + j0·τ),  j0 = v0 + y·x0,  y = 2·ln2 / halfLife,
 *   out = exp(offset) · new output,
 * so neither the pose nor (to first order) its velocity jumps.
 *
 * Joints outside the mask are never written: with a mask that spares the legs, the legs (and foot
 * IK's result) are bit-identical to a run without the overlay.
 *
 * The per-step state lives in one Float64Array (scalars at constant offsets, then the offsets of
 * the masked joints), as the controller's does (docs/runtime.md, "How the hot path is written").
 */
import type { Database } from '../../database/database.js';
import { databaseRuntime, type DatabaseRuntime } from '../database-runtime.js';
import { requireMaskFits, upperBodyMask, type BoneMask } from './bone-mask.js';
import { overlayClipFromDatabase, type OverlayClip } from './clip.js';
import { overlayFeaturesAt, overlayIndex, searchOverlayIndex, type OverlayIndex } from './search.js';
import { configRotation, CONFIG_Q, CONFIG_V, SLERP_BELOW } from './blend.js';

/** What the layer edits: the controller's local pose, and what it reads of the base motion. */
export interface OverlayHost {
  readonly rt: DatabaseRuntime;
  /** The local pose (J*4), after the base's inertialization and before forward kinematics. */
  readonly rotations: Float64Array;
  /** The base's playing database frame (its angular velocities stand for the base's at an event). */
  readonly frame: number;
  /** This step's dt (s). */
  readonly stepSeconds: number;
}

export type OverlayMode = 'override' | 'additive';

export interface OverlayOptions {
  /** The joints the layer takes over and by how much (default: the upper body, falloff over 2 joints). */
  mask: BoneMask;
  mode: OverlayMode;
  /** The layer's weight at full fade, in [0, 1]. */
  weight: number;
  /** Seconds the weight ramps up after play() and down after stop() (smootherstep); 0 = at once (inertialized). */
  fadeIn: number;
  fadeOut: number;
  /** Half-life (s) of the offsets that smooth every switch; 0 turns inertialization off (switches pop). */
  halfLife: number;
  /** Tag sources: entries are searched among frames this close to their clip's start (s). */
  entryWindow: number;
}

export const DEFAULT_OVERLAY_OPTIONS: Readonly<Omit<OverlayOptions, 'mask'>> = Object.freeze({
  mode: 'override', weight: 1, fadeIn: 0.5, fadeOut: 0.5, halfLife: 0.1, entryWindow: 1,
});

/** What to play: a clip (OverlayClip, or a database clip by name or index), or the database's frames carrying a tag. */
export type OverlaySource = OverlayClip | { clip: string | number } | { tag: string };

export interface OverlayPlayOptions {
  mode?: OverlayMode;
  weight?: number;
  fadeIn?: number;
  fadeOut?: number;
  /**
   * Seconds to play. Default: a clip plays to its end, a tag plays the gesture it entered. A tag
   * source given a duration longer than its gesture carries on with the best next gesture (a new
   * search at the clip's end).
   */
  duration?: number;
  /**
   * Play until stop(): a clip wraps (inertialized at its end unless it loops), a tag keeps searching.
   * (A looping clip given a duration wraps until then, too.)
   */
  loop?: boolean;
  /** Clip sources: start this many seconds into the clip. */
  start?: number;
}

// The state block: scalars at these offsets, then x0 (M*3) and j0 (M*3) of the masked joints'
// offsets, and the blend's arcs (M*4).
let next = 0;
const field = (): number => next++;
/** 1 while an overlay plays (fading in, on, or fading out). */
const PLAYING = field();
/** Seconds into the playing clip, and since play(). */
const TIME = field(), ELAPSED = field();
/** Seconds to play (Infinity: until stop(); NaN: until the clip or the entered gesture ends). */
const DURATION = field();
const FADE_IN = field(), FADE_OUT = field();
/** The fade's value at play() (a new overlay over a visible one starts from it) and the fade now. */
const FADE_FROM = field(), FADE = field();
/** ELAPSED when the fade-out began (Infinity: not stopping) and the fade then. */
const STOP_AT = field(), STOP_FROM = field();
const USER_WEIGHT = field();
/** The layer weight of this step: USER_WEIGHT × FADE. */
const WEIGHT = field();
/** 0 override, 1 additive. */
const MODE = field();
/** 1: play until stop(). */
const LOOP = field();
/** 1: the next step is the first of this play (the clock does not advance; a tag source searches). */
const FRESH = field();
/** 1: the shown pose switched since the last step: start offsets from the previous configuration. */
const EVENT = field();
/** The previous configuration (what was shown): clip time, weight, mode, and whether anything showed. */
const PREV_TIME = field(), PREV_WEIGHT = field(), PREV_MODE = field(), PREV_SHOWN = field();
/** Offsets: seconds since they started, 1 while applied, and the bounds that retire them (as InertializationDecay). */
const TAU = field(), OFFSETS = field(), MAX_X = field(), MAX_J = field(), MAX_V = field();
const SCALARS = field();

const MODES: readonly OverlayMode[] = ['override', 'additive'];
/** Offsets below this (rad; and rate × dt) are not applied any more. */
const EPSILON = 1e-7;

// Readable steps shared by every layer of a thread (temporaries of one call).
const QUERY = { buf: new Float64Array(0) };

/** 6u⁵ − 15u⁴ + 10u³ on [0, 1]: a fade whose rate and acceleration are zero where it starts and ends. */
function smootherstep(x: number): number {
  const u = x <= 0 ? 0 : x >= 1 ? 1 : x;
  return u * u * u * (u * (6 * u - 15) + 10);
}

function requireSeconds(what: string, v: number, allowInfinity = false): void {
  if (!(v >= 0 && (allowInfinity || Number.isFinite(v)) && v <= (allowInfinity ? Infinity : 3600))) {
    throw new RangeError(`overlay: ${what} must be a number of seconds >= 0${allowInfinity ? '' : ' (at most 3600)'}, got ${String(v)}`);
  }
}

function requireWeight(v: number): void {
  if (!(v >= 0 && v <= 1)) throw new RangeError(`overlay: weight must be in [0, 1], got ${String(v)}`);
}

function requireMode(m: string): void {
  if (!MODES.includes(m as OverlayMode)) throw new RangeError(`overlay: mode must be ${MODES.join(' or ')}, got '${m}'`);
}

export class OverlayLayer {
  readonly db: Database;
  readonly rt: DatabaseRuntime;
  readonly mask: BoneMask;
  readonly options: Readonly<OverlayOptions>;
  /** The masked joints (weight > 0) and their mask weights. */
  private readonly joints: Int32Array;
  private readonly maskWeights: Float64Array;
  private readonly S: Float64Array;
  private readonly x0: Float64Array;
  private readonly j0: Float64Array;
  /** Per masked joint, the blend's relative rotation D of the last step, signed the way it went (zero: none). */
  private readonly arc: Float64Array;
  /** The clip playing (null before the first play) and the one shown before the last switch. */
  private clip: OverlayClip | null = null;
  private prevClip: OverlayClip | null = null;
  /** The tag search, for tag sources (null for clips). */
  private index: OverlayIndex | null = null;

  /** Values a layer keeps for `mask` (the size of the `storage` its constructor accepts). */
  static storageSize(mask: BoneMask): number {
    return SCALARS + 10 * mask.joints.length;
  }

  constructor(db: Database, options: Partial<OverlayOptions> = {}, storage?: Float64Array) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) throw new TypeError(`overlay: options must be an object, got ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`);
    this.db = db;
    this.rt = databaseRuntime(db);
    const mask = options.mask ?? upperBodyMask(db, { falloff: 2 });
    requireMaskFits(mask, db.skeleton, 'overlay');
    const o: OverlayOptions = { ...DEFAULT_OVERLAY_OPTIONS, ...options, mask };
    requireMode(o.mode); requireWeight(o.weight);
    requireSeconds('fadeIn', o.fadeIn); requireSeconds('fadeOut', o.fadeOut); requireSeconds('halfLife', o.halfLife);
    if (!(o.entryWindow > 0 && Number.isFinite(o.entryWindow))) throw new RangeError(`overlay: entryWindow must be a positive number of seconds, got ${String(o.entryWindow)}`);
    this.options = Object.freeze(o);
    this.mask = mask;
    this.joints = mask.joints;
    this.maskWeights = Float64Array.from(mask.joints, (j) => mask.weights[j]);
    const M = this.joints.length, size = OverlayLayer.storageSize(mask);
    if (storage !== undefined && !(storage instanceof Float64Array && storage.length >= size)) {
      throw new RangeError(`overlay: storage must be a Float64Array of at least ${size} values`);
    }
    const block = storage ? storage.subarray(0, size) : new Float64Array(size);
    this.S = block.subarray(0, SCALARS);
    this.x0 = block.subarray(SCALARS, SCALARS + 3 * M);
    this.j0 = block.subarray(SCALARS + 3 * M, SCALARS + 6 * M);
    this.arc = block.subarray(SCALARS + 6 * M, SCALARS + 10 * M);
    this.reset();
  }

  /** Drops the overlay and its offsets at once (teleports, resets): the next step shows the base. */
  reset(): void {
    this.S.fill(0); this.x0.fill(0); this.j0.fill(0); this.arc.fill(0);
    this.S[STOP_AT] = Infinity; this.S[DURATION] = Number.NaN;
    this.clip = null; this.prevClip = null; this.index = null;
  }

  /** True while an overlay plays (fading in, on, or fading out). */
  get playing(): boolean { return this.S[PLAYING] !== 0; }
  /** True while the layer edits the pose: playing, or offsets of a switch still decaying. */
  get active(): boolean { return this.S[PLAYING] !== 0 || this.S[OFFSETS] !== 0 || this.S[EVENT] !== 0; }
  /** The layer weight of the last step (user weight × fades). */
  get weight(): number { return this.S[PLAYING] !== 0 ? this.S[WEIGHT] : 0; }
  /** True once a stop (or the clip's end) started the fade-out. */
  get stopping(): boolean { return this.S[PLAYING] !== 0 && this.S[STOP_AT] !== Infinity; }
  /** The clip playing (null when none) and the time in it (s). */
  get clipName(): string | null { return this.S[PLAYING] !== 0 && this.clip ? this.clip.name : null; }
  get clipTime(): number { return this.S[TIME]; }
  /** Seconds since play(). */
  get elapsed(): number { return this.S[ELAPSED]; }
  /** The tag of a tag source (null for clips). */
  get tag(): string | null { return this.S[PLAYING] !== 0 && this.index ? this.index.tag : null; }

  /**
   * Starts `source` over whatever shows now: from nothing it fades in; over an overlay that plays,
   * the new one takes over from the current weight and the switch is inertialized.
   */
  play(source: OverlaySource, options: OverlayPlayOptions = {}): void {
    if (source === null || typeof source !== 'object') throw new TypeError(`overlay.play: source must be { tag }, { clip } or an OverlayClip, got ${source === null ? 'null' : typeof source}`);
    if (options === null || typeof options !== 'object') throw new TypeError(`overlay.play: options must be an object, got ${options === null ? 'null' : typeof options}`);
    const o = this.options;
    const mode = options.mode ?? o.mode, weight = options.weight ?? o.weight;
    const fadeIn = options.fadeIn ?? o.fadeIn, fadeOut = options.fadeOut ?? o.fadeOut;
    const duration = options.duration ?? Number.NaN, start = options.start ?? 0;
    requireMode(mode); requireWeight(weight); requireSeconds('fadeIn', fadeIn); requireSeconds('fadeOut', fadeOut);
    if (!Number.isNaN(duration)) requireSeconds('duration', duration, true);
    requireSeconds('start', start);
    // Resolve the source before any state changes: a refused source leaves the layer as it was.
    let clip: OverlayClip | null = null, index: OverlayIndex | null = null;
    if ('tag' in source) {
      if (typeof source.tag !== 'string' || source.tag === '') throw new RangeError('overlay: tag must be a non-empty string');
      index = overlayIndex(this.db, source.tag, this.mask, o.entryWindow);
    } else if ('clip' in source && !('rotations' in source)) {
      clip = overlayClipFromDatabase(this.db, source.clip);
    } else {
      clip = source as OverlayClip;
      if (clip.joints !== this.rt.joints) throw new RangeError(`overlay: clip '${clip.name}' has ${clip.joints} joints, the database's skeleton ${this.rt.joints}`);
    }
    if (clip && start > (clip.frames - 1) / clip.fps) throw new RangeError(`overlay: start ${start} s is past the end of clip '${clip.name}' (${((clip.frames - 1) / clip.fps).toFixed(3)} s)`);
    const S = this.S;
    // A switch the fades do not smooth: over an overlay that shows, or a start without a fade-in.
    if (S[PLAYING] !== 0 || fadeIn === 0) this.snapshot();
    // From nothing, the blends start the short way (a switch's offsets take the old arcs into account first).
    if (S[PLAYING] === 0 && S[EVENT] === 0) this.arc.fill(0);
    const fadeNow = S[PLAYING] !== 0 ? S[FADE] : 0;
    this.clip = clip; this.index = index;
    S[PLAYING] = 1; S[FRESH] = 1; S[TIME] = start; S[ELAPSED] = 0;
    S[DURATION] = options.loop ? Infinity : duration;
    S[LOOP] = options.loop ? 1 : 0;
    S[FADE_IN] = fadeIn; S[FADE_OUT] = fadeOut;
    S[FADE_FROM] = fadeIn > 0 ? fadeNow : 1;
    S[FADE] = S[FADE_FROM];
    S[STOP_AT] = Infinity; S[STOP_FROM] = 0;
    S[USER_WEIGHT] = weight; S[WEIGHT] = weight * S[FADE];
    S[MODE] = MODES.indexOf(mode);
  }

  /** Fades the overlay out over `fadeOut` seconds (default: the play's); 0 stops at once (inertialized). */
  stop(fadeOut?: number): void {
    const S = this.S;
    if (S[PLAYING] === 0) return;
    const seconds = fadeOut ?? S[FADE_OUT];
    requireSeconds('fadeOut', seconds);
    if (seconds > 0) {
      if (S[STOP_AT] === Infinity || seconds < S[FADE_OUT]) { S[FADE_OUT] = seconds; S[STOP_AT] = S[ELAPSED]; S[STOP_FROM] = S[FADE]; }
      return;
    }
    this.snapshot();
    S[PLAYING] = 0;
  }

  /**
   * Remembers what shows now as the previous configuration of a switch (the first switch since the
   * last step wins: it is what the last step showed).
   */
  private snapshot(): void {
    const S = this.S;
    if (S[EVENT] !== 0) return;
    S[EVENT] = 1;
    S[PREV_SHOWN] = S[PLAYING] !== 0 && S[FRESH] === 0 && this.clip !== null ? 1 : 0;
    this.prevClip = this.clip;
    S[PREV_TIME] = S[TIME]; S[PREV_WEIGHT] = S[WEIGHT]; S[PREV_MODE] = S[MODE];
  }

  /**
   * One step: advances the overlay's clock and fades, starts offsets at a switch, and writes the
   * masked joints of `host.rotations` (the base pose) with the overlay over them.
   */
  apply(host: OverlayHost): void {
    const S = this.S;
    if (S[PLAYING] === 0 && S[OFFSETS] === 0 && S[EVENT] === 0) return;
    if (S[PLAYING] !== 0) this.advance(host);
    if (S[EVENT] !== 0) this.startOffsets(host);
    else if (S[OFFSETS] !== 0) this.ageOffsets(host.stepSeconds);
    if (S[PLAYING] === 0 && S[OFFSETS] === 0) return;
    this.blend(host.rotations);
  }

  /** Advances the clock, handles the clip's end (wrap, next gesture, hold), the stop and the fades. */
  private advance(host: OverlayHost): void {
    const S = this.S, dt = host.stepSeconds;
    if (S[FRESH] !== 0) {
      S[FRESH] = 0;
      if (this.index) this.enter(host);
    } else {
      S[TIME] += dt;
    }
    S[ELAPSED] += dt;
    const clip = this.clip as OverlayClip, end = (clip.frames - 1) / clip.fps, period = clip.frames / clip.fps;
    const continues = S[LOOP] !== 0 || S[ELAPSED] < S[DURATION] - S[FADE_OUT];
    if (clip.loop && continues) {
      // The last frame flows into the first: between them (time in [end, period)) the pose blends
      // the two, and the clock wraps at the period. (Wrapped as soon as it passed the last frame,
      // a step that did not land on a frame took the time below 0, and the pose read frame -1:
      // NaN in the waved arm at every wrap of the demo's wave at 60 Hz.)
      if (S[TIME] >= period) {
        S[TIME] -= period;
        if (S[TIME] >= period) S[TIME] = 0;
      }
    } else if (S[TIME] > end) {
      if (continues && (this.index || S[LOOP] !== 0)) {
        // The next gesture (a search), or the clip again: a switch from its last frame.
        S[TIME] -= dt;
        if (S[TIME] > end) S[TIME] = end;
        this.snapshot();
        if (this.index) this.continueWith(clip);
        else S[TIME] = 0;
      } else {
        S[TIME] = end;
      }
    }
    if (S[STOP_AT] === Infinity) {
      const cur = this.clip as OverlayClip;
      const clipLeft = continues && (cur.loop || this.index || S[LOOP] !== 0) ? Infinity : (cur.frames - 1) / cur.fps - S[TIME];
      const left = Math.min(clipLeft, S[DURATION] - S[ELAPSED]); // NaN duration: min(x, NaN) is NaN
      const remaining = Number.isNaN(left) ? clipLeft : left;
      if (remaining <= S[FADE_OUT] + 1e-9) {
        // The fade-out ends where the clip (or the duration) does; one that could not start in time
        // (a tag source's last gesture ended just before its duration) takes its full length from
        // here, on the clip's last frame.
        if (S[FADE_OUT] > 0) { S[STOP_AT] = S[ELAPSED] - Math.min(dt, Math.max(0, S[FADE_OUT] - remaining)); S[STOP_FROM] = S[FADE]; }
        else { S[TIME] -= dt; this.snapshot(); S[TIME] += dt; S[PLAYING] = 0; return; }
      }
    }
    const fadeIn = S[FADE_IN] > 0 ? smootherstep(S[ELAPSED] / S[FADE_IN]) : 1;
    let fade = Math.min(1, S[FADE_FROM] + (1 - S[FADE_FROM]) * fadeIn);
    if (S[STOP_AT] !== Infinity) {
      const out = 1 - smootherstep((S[ELAPSED] - S[STOP_AT]) / S[FADE_OUT]);
      fade = S[STOP_FROM] * out;
      if (out <= 0) { S[PLAYING] = 0; fade = 0; }
    }
    S[FADE] = fade;
    S[WEIGHT] = S[USER_WEIGHT] * fade;
  }

  /** A tag source's first step: the tagged frame nearest to the base's playing pose. */
  private enter(host: OverlayHost): void {
    const index = this.index as OverlayIndex;
    const q = queryBuffer(index.dims);
    overlayFeaturesAt(this.rt, index, host.frame, q);
    this.startAt(searchOverlayIndex(index, q, -1));
  }

  /** A tag source at its clip's end: the best next gesture from the overlay's own last pose (another clip when there is one). */
  private continueWith(clip: OverlayClip): void {
    const index = this.index as OverlayIndex;
    const q = queryBuffer(index.dims);
    const f = clip.databaseStart + Math.min(clip.frames - 1, Math.round(this.S[TIME] * clip.fps));
    overlayFeaturesAt(this.rt, index, f, q);
    this.startAt(searchOverlayIndex(index, q, clip.databaseClip));
  }

  private startAt(frame: number): void {
    const clip = overlayClipFromDatabase(this.db, this.rt.clipOf[frame]);
    this.clip = clip;
    this.S[TIME] = (frame - clip.databaseStart) / clip.fps;
  }

  /**
   * A switch: the offset of each masked joint becomes what the previous configuration shows (with
   * any offsets still decaying) relative to what the new one shows, its rate the difference of
   * their angular velocities; from here it decays (τ = 0 this step).
   */
  private startOffsets(host: OverlayHost): void {
    const S = this.S, dt = host.stepSeconds;
    S[EVENT] = 0;
    const halfLife = this.options.halfLife;
    const had = S[OFFSETS] !== 0;
    if (had) S[TAU] += dt;
    if (halfLife <= 0) { this.dropOffsets(); return; }
    const y = (2 * Math.LN2) / halfLife, t = S[TAU], e = had ? Math.exp(-y * t) : 0;
    const J = this.joints, M = J.length, x0 = this.x0, j0 = this.j0, R = host.rotations, W = this.rt.angularVelocities;
    const base = host.frame * this.rt.joints * 3;
    const prevShown = S[PREV_SHOWN] !== 0 && this.prevClip !== null, nowShown = S[PLAYING] !== 0 && this.clip !== null;
    let maxX = 0, maxJ = 0, maxV = 0;
    for (let k = 0; k < M; k++) {
      const j = J[k], m = this.maskWeights[k], k3 = 3 * k;
      const wb = base + 3 * j;
      // The previous configuration, one step on, and its angular velocity.
      configRotation(R, 4 * j, prevShown ? this.prevClip : null, S[PREV_TIME] + dt, m * S[PREV_WEIGHT], S[PREV_MODE], j, W[wb], W[wb + 1], W[wb + 2], this.arc, 4 * k);
      let ox = CONFIG_Q[0], oy = CONFIG_Q[1], oz = CONFIG_Q[2], ow = CONFIG_Q[3];
      let vx = CONFIG_V[0], vy = CONFIG_V[1], vz = CONFIG_V[2];
      if (had) {
        // What showed includes the offset still decaying: exp(offset) · previous, and its rate.
        const cx = e * (x0[k3] + j0[k3] * t), cy = e * (x0[k3 + 1] + j0[k3 + 1] * t), cz = e * (x0[k3 + 2] + j0[k3 + 2] * t);
        expInto(cx, cy, cz);
        const qx = EXP[0], qy = EXP[1], qz = EXP[2], qw = EXP[3];
        const nx = qw * ox + qx * ow + qy * oz - qz * oy, ny = qw * oy - qx * oz + qy * ow + qz * ox;
        const nz = qw * oz + qx * oy - qy * ox + qz * ow, nw = qw * ow - qx * ox - qy * oy - qz * oz;
        ox = nx; oy = ny; oz = nz; ow = nw;
        vx += e * (j0[k3] - y * x0[k3] - j0[k3] * y * t);
        vy += e * (j0[k3 + 1] - y * x0[k3 + 1] - j0[k3 + 1] * y * t);
        vz += e * (j0[k3 + 2] - y * x0[k3 + 2] - j0[k3 + 2] * y * t);
      }
      configRotation(R, 4 * j, nowShown ? this.clip : null, S[TIME], m * S[WEIGHT], S[MODE], j, W[wb], W[wb + 1], W[wb + 2], null, 0);
      const dx = -CONFIG_Q[0], dy = -CONFIG_Q[1], dz = -CONFIG_Q[2], dw = CONFIG_Q[3];
      // n = shown · new⁻¹ (quatMultiplyInv), the short way round, and its log (quatToScaledAngleAxis).
      let nx = ow * dx + ox * dw + oy * dz - oz * dy;
      let ny = ow * dy - ox * dz + oy * dw + oz * dx;
      let nz = ow * dz + ox * dy - oy * dx + oz * dw;
      const nw0 = ow * dw - ox * dx - oy * dy - oz * dz;
      let nw = nw0;
      if (nw < 0) { nx = -nx; ny = -ny; nz = -nz; nw = -nw; }
      const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
      const sc = len < 1e-8 ? 2 : (2 * Math.atan2(len, nw)) / len;
      const lx = nx * sc, ly = ny * sc, lz = nz * sc;
      vx -= CONFIG_V[0]; vy -= CONFIG_V[1]; vz -= CONFIG_V[2];
      x0[k3] = lx; x0[k3 + 1] = ly; x0[k3 + 2] = lz;
      j0[k3] = vx + y * lx; j0[k3 + 1] = vy + y * ly; j0[k3 + 2] = vz + y * lz;
      maxX = Math.max(maxX, Math.abs(lx), Math.abs(ly), Math.abs(lz));
      maxJ = Math.max(maxJ, Math.abs(j0[k3]), Math.abs(j0[k3 + 1]), Math.abs(j0[k3 + 2]));
      maxV = Math.max(maxV, Math.abs(vx), Math.abs(vy), Math.abs(vz));
    }
    S[MAX_X] = maxX; S[MAX_J] = maxJ; S[MAX_V] = maxV;
    this.arc.fill(0); // the new configuration's blend starts the short way, as configRotation took it
    S[TAU] = 0;
    S[OFFSETS] = maxX > 0 || maxJ > 0 ? 1 : 0;
    this.prevClip = null;
  }

  /** Ages the offsets by dt; drops them once provably below EPSILON (and their rate below EPSILON / dt). */
  private ageOffsets(dt: number): void {
    const S = this.S;
    const t = (S[TAU] += dt), y = (2 * Math.LN2) / this.options.halfLife, e = Math.exp(-y * t);
    // |x(τ)| <= e (max|x0| + max|j0| τ) and |v(τ)| <= e (max|v0| + max|j0| y τ).
    if (e * (S[MAX_X] + S[MAX_J] * t) < EPSILON && e * (S[MAX_V] + S[MAX_J] * y * t) * dt < EPSILON) this.dropOffsets();
  }

  private dropOffsets(): void {
    const S = this.S;
    S[OFFSETS] = 0; S[TAU] = 0; S[MAX_X] = 0; S[MAX_J] = 0; S[MAX_V] = 0;
    this.x0.fill(0); this.j0.fill(0);
  }

  /** Writes the masked joints: the base blended with the overlay (when playing), then the offsets (when any). */
  private blend(R: Float64Array): void {
    const S = this.S, J = this.joints, M = J.length, mw = this.maskWeights, x0 = this.x0, j0 = this.j0, arc = this.arc;
    const clip = S[PLAYING] !== 0 ? this.clip : null;
    const w = S[WEIGHT], additive = S[MODE] === 1;
    let Q: Float32Array | null = null, i0 = 0, i1 = 0, a = 0, jointsInClip = 0;
    if (clip !== null && w > 0) {
      Q = clip.rotations; jointsInClip = clip.joints;
      const u = S[TIME] * clip.fps, fl = Math.floor(u + 1e-9);
      i0 = fl >= clip.frames - 1 && !clip.loop ? clip.frames - 1 : fl % clip.frames;
      a = i0 === clip.frames - 1 && !clip.loop ? 0 : u - fl < 1e-9 ? 0 : u - fl;
      i1 = i0 + 1 < clip.frames ? i0 + 1 : clip.loop ? 0 : i0;
    } else {
      arc.fill(0);
    }
    const offsets = S[OFFSETS] !== 0;
    let e = 0, t = 0;
    if (offsets) { t = S[TAU]; e = Math.exp(-((2 * Math.LN2) / this.options.halfLife) * t); }
    const r0 = i0 * jointsInClip * 4, r1 = i1 * jointsInClip * 4;
    for (let k = 0; k < M; k++) {
      const j = J[k], j4 = 4 * j, k4 = 4 * k;
      let bx = R[j4], by = R[j4 + 1], bz = R[j4 + 2], bw = R[j4 + 3];
      if (Q !== null) {
        // O = the clip at frame i0 + a: quatNlerp(Q, r0 + 4j, Q, r1 + 4j, a), as sampleFramePose does.
        const p = r0 + j4, q = r1 + j4;
        let ox = Q[p], oy = Q[p + 1], oz = Q[p + 2], ow = Q[p + 3];
        if (a !== 0) {
          const s = ox * Q[q] + oy * Q[q + 1] + oz * Q[q + 2] + ow * Q[q + 3] < 0 ? -a : a, b = 1 - a;
          const x = b * ox + s * Q[q], y = b * oy + s * Q[q + 1], z = b * oz + s * Q[q + 2], ww = b * ow + s * Q[q + 3];
          const inv = 1 / Math.sqrt(x * x + y * y + z * z + ww * ww);
          ox = x * inv; oy = y * inv; oz = z * inv; ow = ww * inv;
        }
        const tw = mw[k] * w;
        if (!additive && tw >= 1) {
          bx = ox; by = oy; bz = oz; bw = ow;
          arc[k4] = 0; arc[k4 + 1] = 0; arc[k4 + 2] = 0; arc[k4 + 3] = 0;
        } else {
          // D: the overlay's rotation relative to what it is blended from: B⁻¹·O (override) or R⁻¹·O
          // (additive, R the clip's first frame); quatInvMultiply written out.
          const rx = additive ? -Q[j4] : -bx, ry = additive ? -Q[j4 + 1] : -by, rz = additive ? -Q[j4 + 2] : -bz, rw = additive ? Q[j4 + 3] : bw;
          let dx = rw * ox + rx * ow + ry * oz - rz * oy;
          let dy = rw * oy - rx * oz + ry * ow + rz * ox;
          let dz = rw * oz + rx * oy - ry * ox + rz * ow;
          let dw = rw * ow - rx * ox - ry * oy - rz * oz;
          // The same way round as last step (the short way when there is none): blending rotations
          // about 180 degrees apart the short way each step flips the arc mid-fade (measured: 26 m/s).
          const dot = dx * arc[k4] + dy * arc[k4 + 1] + dz * arc[k4 + 2] + dw * arc[k4 + 3];
          if (dot < 0 || (dot === 0 && dw < 0)) { dx = -dx; dy = -dy; dz = -dz; dw = -dw; }
          arc[k4] = dx; arc[k4 + 1] = dy; arc[k4 + 2] = dz; arc[k4 + 3] = dw;
          // B · D^tw (= slerp(B, O, tw) for override): overlayPower, written out.
          const u = tw >= 1 ? 1 : tw;
          if (dw < SLERP_BELOW && u < 1) {
            const len = Math.sqrt(dx * dx + dy * dy + dz * dz), h = Math.atan2(len, dw) * u, sc = Math.sin(h) / len;
            dx *= sc; dy *= sc; dz *= sc; dw = Math.cos(h);
          } else {
            // Close rotations: nlerp(1, D, u) (within 0.1 degree of the slerp); normalised at full
            // weight too: float32 clip rotations are unit only to ~1e-7.
            dx *= u; dy *= u; dz *= u; dw = dw * u + (1 - u);
            const inv = 1 / Math.sqrt(dx * dx + dy * dy + dz * dz + dw * dw);
            dx *= inv; dy *= inv; dz *= inv; dw *= inv;
          }
          const nx = bw * dx + bx * dw + by * dz - bz * dy, ny = bw * dy - bx * dz + by * dw + bz * dx;
          const nz = bw * dz + bx * dy - by * dx + bz * dw, nw = bw * dw - bx * dx - by * dy - bz * dz;
          bx = nx; by = ny; bz = nz; bw = nw;
        }
      }
      if (offsets) {
        // = quatMultiply(out, exp(e (x0 + j0 τ)), out)
        const k3 = 3 * k;
        expInto(e * (x0[k3] + j0[k3] * t), e * (x0[k3 + 1] + j0[k3 + 1] * t), e * (x0[k3 + 2] + j0[k3 + 2] * t));
        const qx = EXP[0], qy = EXP[1], qz = EXP[2], qw = EXP[3];
        const nx = qw * bx + qx * bw + qy * bz - qz * by, ny = qw * by - qx * bz + qy * bw + qz * bx;
        const nz = qw * bz + qx * by - qy * bx + qz * bw, nw = qw * bw - qx * bx - qy * by - qz * bz;
        bx = nx; by = ny; bz = nz; bw = nw;
      }
      R[j4] = bx; R[j4 + 1] = by; R[j4 + 2] = bz; R[j4 + 3] = bw;
    }
  }
}

const EXP = new Float64Array(4);

/** EXP = exp of the scaled angle-axis vector (x, y, z): quatFromScaledAngleAxis, with its series near 0. */
function expInto(x: number, y: number, z: number): void {
  const hh = 0.25 * (x * x + y * y + z * z);
  let s: number, w: number;
  if (hh < 2.5e-3) {
    s = 0.5 * (1 - hh / 6 + (hh * hh) / 120);
    w = 1 - hh / 2 + (hh * hh) / 24;
  } else {
    const h = Math.sqrt(hh);
    s = Math.sin(h) / (2 * h);
    w = Math.cos(h);
  }
  EXP[0] = x * s; EXP[1] = y * s; EXP[2] = z * s; EXP[3] = w;
}

function queryBuffer(n: number): Float64Array {
  if (QUERY.buf.length < n) QUERY.buf = new Float64Array(n);
  return QUERY.buf;
}
