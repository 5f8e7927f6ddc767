/**
 * Procedural gait for the built-in clips: a root path integrated from speed / travel-direction /
 * yaw-rate keys, gait parameters as functions of speed, a footstep planner (phase -> stance
 * intervals -> footprints) and foot trajectories (planted in stance, arcs in swing).
 *
 * Conventions: yaw is about +Y and a positive yaw turns +Z towards +X (a left turn); the
 * character's left is +X when it faces +Z. A travel angle of 0 is forward, +pi/2 is to the left,
 * pi is backward. Feet: index 0 = left, 1 = right.
 */
import { FOOT_GEOMETRY } from './procedural-skeleton.js';

export const GRAVITY = 9.81;

// ---- keyframed controls ------------------------------------------------------------------------

/** A control key: value `v` at time `t` (s). Values hold outside the keys; between two keys they ease (smoothstep). */
export interface Key {
  t: number;
  v: number;
}

function smoothstep01(x: number): number {
  const u = x <= 0 ? 0 : x >= 1 ? 1 : x;
  return u * u * (3 - 2 * u);
}

/** Quintic ease with zero velocity and acceleration at both ends. */
function smootherstep01(x: number): number {
  const u = x <= 0 ? 0 : x >= 1 ? 1 : x;
  return u * u * u * (u * (6 * u - 15) + 10);
}

export function smoothstep(a: number, b: number, x: number): number {
  return smoothstep01((x - a) / (b - a));
}

export function lerp(a: number, b: number, t: number): number {
  return a + (b - a) * t;
}

export function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

function sampleKeys(keys: readonly Key[], t: number): number {
  if (keys.length === 0) return 0;
  if (t <= keys[0].t) return keys[0].v;
  for (let i = 1; i < keys.length; i++) {
    const k1 = keys[i];
    if (t < k1.t) {
      const k0 = keys[i - 1];
      return lerp(k0.v, k1.v, smoothstep01((t - k0.t) / (k1.t - k0.t)));
    }
  }
  return keys[keys.length - 1].v;
}

/**
 * What a clip does. Controls are keyed over [0, duration] and hold their first/last values outside
 * it (the path is extended both ways so that the clip starts and ends mid-stride, as mocap does).
 */
export interface MotionSpec {
  duration: number;
  /** Speed along the travel direction, m/s (>= 0). */
  speed: readonly Key[];
  /** Travel direction relative to the facing, radians: 0 forward, +pi/2 left, pi backward. */
  travel: readonly Key[];
  /** Turning rate of the facing, rad/s, positive = left. */
  yawRate: readonly Key[];
  /** Time stepping starts (both feet planted before it). Default: stepping throughout. */
  stepStart?: number;
  /** After this time each foot's next landing is final: the character ends standing. */
  stepStop?: number;
  /** Foot that lifts first at stepStart: 0 left (default), 1 right. */
  leadFoot?: 0 | 1;
  /** Gait phase at t = 0 when stepping throughout (0 = left foot landing). Default 0.3. */
  phase0?: number;
}

// ---- gait parameters as functions of speed ------------------------------------------------------

/** 0 for walking, 1 for running; blends between 1.7 and 2.1 m/s. */
function runFactor(speed: number): number {
  return smoothstep(1.7, 2.1, speed);
}

/**
 * Direction of the stepping relative to the facing, from the travel angle: forward-ish travel
 * steps along the travel direction; backward-ish travel steps backward along the reversed
 * direction (so backward walking keeps the left foot on the left). In (-pi/2, pi/2].
 */
export function gaitAngle(travel: number): number {
  const a = Math.atan2(Math.sin(travel), Math.cos(travel));
  if (a > Math.PI / 2 + 1e-9) return a - Math.PI;
  if (a < -Math.PI / 2 - 1e-9) return a + Math.PI;
  return a;
}

/** Stride frequency (cycles per second: one left and one right step). */
function cadenceHz(speed: number, travel: number, yawRate: number): number {
  const r = runFactor(speed);
  const moving = clamp(speed / 0.3, 0, 1);
  const g = gaitAngle(travel);
  // Sideways and backward steps are shorter, so quicker.
  const dirFactor = 1 + moving * (0.3 * Math.abs(Math.sin(g)) + 0.15 * Math.max(0, -Math.cos(travel)));
  // Tight turns take quicker steps (more so on the spot).
  const turning = Math.min(Math.abs(yawRate), 3.5) * (0.12 + 0.13 * (1 - clamp(speed, 0, 1)));
  // Never slower than 0.85 Hz: the first and last steps of a start or stop are brisk, short steps.
  const walk = Math.max(0.85, (0.55 + 0.38 * speed) * dirFactor) + turning;
  const run = 1.2 + 0.09 * speed;
  return lerp(walk, run, r);
}

/**
 * Fraction of a stride cycle that a foot is planted (foot joint fixed): double support for walks
 * (> 0.5), flight for runs (< 0.5).
 */
export function dutyFactor(speed: number): number {
  const r = runFactor(speed);
  return clamp(lerp(0.6 - 0.045 * speed, 0.36 - 0.03 * speed, r), 0.2, 0.7);
}

/** Peak lift of the ankle above its planted height during a swing (m). */
function swingHeight(speed: number): number {
  return lerp(0.1 + 0.035 * speed, 0.14 + 0.065 * speed, runFactor(speed));
}

// ---- root path ---------------------------------------------------------------------------------

/** The root (ground-projected pelvis path, facing) on a regular time grid. */
export interface RootPath {
  /** Time of sample 0 (negative: the path starts before the clip). */
  t0: number;
  /** Grid step (s). */
  h: number;
  n: number;
  x: Float64Array;
  z: Float64Array;
  /** Facing yaw, unwrapped (rad). */
  yaw: Float64Array;
  speed: Float64Array;
  travel: Float64Array;
  yawRate: Float64Array;
  /** World velocity (m/s). */
  vx: Float64Array;
  vz: Float64Array;
  /** World acceleration, smoothed (m/s^2). */
  ax: Float64Array;
  az: Float64Array;
  /** Distance travelled along the path since its first sample (m). */
  dist: Float64Array;
}

/** Integrates the controls from t = 0 (origin, facing +Z) forwards and backwards. */
export function integrateRootPath(spec: MotionSpec, h: number, pre: number, post: number): RootPath {
  const i0 = Math.round(pre / h);
  const n = i0 + Math.round((spec.duration + post) / h) + 1;
  const t0 = -i0 * h;
  const x = new Float64Array(n), z = new Float64Array(n), yaw = new Float64Array(n);
  const speed = new Float64Array(n), travel = new Float64Array(n), yawRate = new Float64Array(n);
  const vx = new Float64Array(n), vz = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t = t0 + i * h;
    speed[i] = sampleKeys(spec.speed, t);
    travel[i] = sampleKeys(spec.travel, t);
    yawRate[i] = sampleKeys(spec.yawRate, t);
  }
  // Midpoint rule on the half-step controls.
  const step = (t: number, dir: number, i: number, j: number): void => {
    const tm = t + 0.5 * dir * h;
    const w = sampleKeys(spec.yawRate, tm);
    const ym = yaw[i] + 0.5 * dir * h * w;
    yaw[j] = yaw[i] + dir * h * w;
    const s = sampleKeys(spec.speed, tm), a = ym + sampleKeys(spec.travel, tm);
    x[j] = x[i] + dir * h * s * Math.sin(a);
    z[j] = z[i] + dir * h * s * Math.cos(a);
  };
  for (let i = i0; i < n - 1; i++) step(t0 + i * h, 1, i, i + 1);
  for (let i = i0; i > 0; i--) step(t0 + i * h, -1, i, i - 1);
  for (let i = 0; i < n; i++) {
    const a = yaw[i] + travel[i];
    vx[i] = speed[i] * Math.sin(a);
    vz[i] = speed[i] * Math.cos(a);
  }
  const ax = new Float64Array(n), az = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const a = Math.max(0, i - 1), b = Math.min(n - 1, i + 1);
    ax[i] = (vx[b] - vx[a]) / ((b - a) * h);
    az[i] = (vz[b] - vz[a]) / ((b - a) * h);
  }
  const radius = Math.max(1, Math.round(0.12 / h));
  boxSmooth(ax, radius); boxSmooth(ax, radius);
  boxSmooth(az, radius); boxSmooth(az, radius);
  const dist = new Float64Array(n);
  for (let i = 1; i < n; i++) dist[i] = dist[i - 1] + Math.hypot(x[i] - x[i - 1], z[i] - z[i - 1]);
  return { t0, h, n, x, z, yaw, speed, travel, yawRate, vx, vz, ax, az, dist };
}

/** In-place centred moving average (window shrinks at the ends). */
function boxSmooth(a: Float64Array, radius: number): void {
  const n = a.length;
  const src = Float64Array.from(a);
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i] + src[i];
  for (let i = 0; i < n; i++) {
    const lo = Math.max(0, i - radius), hi = Math.min(n - 1, i + radius);
    a[i] = (prefix[hi + 1] - prefix[lo]) / (hi - lo + 1);
  }
}

/** Linear interpolation of a path channel at time t (clamped to the grid). */
export function pathAt(path: RootPath, channel: Float64Array, t: number): number {
  const f = (t - path.t0) / path.h;
  if (!(f > 0)) return channel[0];
  if (f >= path.n - 1) return channel[path.n - 1];
  const i = Math.floor(f), a = f - i;
  return channel[i] + (channel[i + 1] - channel[i]) * a;
}

/** Time at which the path has travelled `d` metres (searching between times ta and tb). */
function timeAtDistance(path: RootPath, d: number, ta: number, tb: number): number {
  let lo = ta, hi = tb;
  for (let k = 0; k < 40; k++) {
    const mid = 0.5 * (lo + hi);
    if (pathAt(path, path.dist, mid) < d) lo = mid; else hi = mid;
  }
  return 0.5 * (lo + hi);
}

/** Index of the grid sample at time t (nearest). */
function pathIndex(path: RootPath, t: number): number {
  return clamp(Math.round((t - path.t0) / path.h), 0, path.n - 1);
}

// ---- footstep planning -------------------------------------------------------------------------

/** Half distance between the feet (ankles) when standing. */
const STANCE_HALF_WIDTH = 0.1;
/** Lateral distance of a walking footprint from the hips' line (under the hip joint). */
const HIP_HALF_WIDTH = 0.09;
/** Toe-out of each foot (rad). */
const TOE_OUT = 0.07;
/** How far the feet turn towards a sideways travel direction (fraction of the gait angle). */
const FOOT_TURN = 0.4;

/** One planted interval of a foot: the ankle stays at (x, ankleHeight, z) with yaw `yaw`. */
export interface Stance {
  tLand: number;
  tLift: number;
  x: number;
  z: number;
  yaw: number;
  /** Root speed at mid-stance (drives swing shapes). */
  speed: number;
}

export interface GaitPlan {
  path: RootPath;
  /** Gait phase per path sample (cycles; 0 = left foot lands). */
  phase: Float64Array;
  /** 0 when standing still, 1 when moving: scales sway, bob, arm swing. */
  activity: Float64Array;
  /** Run factor of the speed, eased over about half a second: the body's walk/run style. */
  runBlend: Float64Array;
  /** Per foot (0 left, 1 right): stance intervals in time order. */
  stances: [Stance[], Stance[]];
}

/** Longest distance the root may travel while one foot is planted (m): the legs' reach. */
function maxStanceTravel(speed: number): number {
  return lerp(0.76, 0.68, runFactor(speed));
}

/** Offset of each foot's phase: left lands at phase 0, right at 0.5. */
const FOOT_PHASE = [0, 0.5];

function sideSign(foot: number): number {
  return foot === 0 ? 1 : -1;
}

/** Where a foot stands when the character stands still at path time t. */
function standingPrint(path: RootPath, foot: number, t: number, tLand: number, tLift: number): Stance {
  const yaw = pathAt(path, path.yaw, t);
  const s = sideSign(foot);
  const lx = Math.cos(yaw), lz = -Math.sin(yaw); // facing-left in world (+X rotated by yaw)
  return {
    tLand, tLift,
    x: pathAt(path, path.x, t) + s * STANCE_HALF_WIDTH * lx,
    z: pathAt(path, path.z, t) + s * STANCE_HALF_WIDTH * lz,
    yaw: yaw + s * TOE_OUT,
    speed: 0,
  };
}

/**
 * The footprint of a stance from tLand to tLift: under the hip when the root is half-way (by
 * distance, so that speeding up or slowing down keeps the foot centred under the body).
 */
function walkingPrint(path: RootPath, foot: number, tLand: number, tLift: number): Stance {
  const tEnd = Math.min(tLift, path.t0 + (path.n - 1) * path.h); // a stance still open at the path's end
  const d0 = pathAt(path, path.dist, tLand), d1 = pathAt(path, path.dist, tEnd);
  const tMid = d1 - d0 > 0.02 ? timeAtDistance(path, 0.5 * (d0 + d1), tLand, tEnd) : 0.5 * (tLand + tEnd);
  const s = sideSign(foot);
  const yaw = pathAt(path, path.yaw, tMid);
  const speed = pathAt(path, path.speed, tMid);
  const moving = clamp(speed / 0.3, 0, 1);
  const g = moving * gaitAngle(pathAt(path, path.travel, tMid));
  // Under the hip joint (facing frame) ...
  let x = pathAt(path, path.x, tMid) + s * HIP_HALF_WIDTH * Math.cos(yaw);
  let z = pathAt(path, path.z, tMid) - s * HIP_HALF_WIDTH * Math.sin(yaw);
  // ... plus a separation across the stepping direction: small when walking forward, a front and
  // a back line when stepping sideways (so that crossing legs pass each other).
  const w = 0.015 + 0.13 * Math.abs(Math.sin(g));
  const gy = yaw + g;
  x += s * w * Math.cos(gy);
  z -= s * w * Math.sin(gy);
  // Lean: the feet land away from the acceleration (outside a turn, a little behind when speeding
  // up, ahead when braking), which puts the body's weight inside the turn or ahead of the feet.
  // The fore-aft part is damped: it costs leg reach at the ends of long stances.
  const ax = pathAt(path, path.ax, tMid), az = pathAt(path, path.az, tMid);
  const aFwd = ax * Math.sin(yaw) + az * Math.cos(yaw), aLeft = ax * Math.cos(yaw) - az * Math.sin(yaw);
  const k = -0.85 / GRAVITY;
  const shiftFwd = 0.3 * k * aFwd, shiftLeft = k * aLeft;
  let sx = shiftFwd * Math.sin(yaw) + shiftLeft * Math.cos(yaw), sz = shiftFwd * Math.cos(yaw) - shiftLeft * Math.sin(yaw);
  const sl = Math.hypot(sx, sz), maxShift = 0.1;
  if (sl > maxShift) { sx *= maxShift / sl; sz *= maxShift / sl; }
  x += sx; z += sz;
  return { tLand, tLift, x, z, yaw: yaw + FOOT_TURN * g + s * TOE_OUT, speed };
}

/**
 * Phase, activity and stance intervals for a motion. The phase advances at the cadence while
 * stepping; each foot lands when its phase crosses an integer and lifts once the phase since
 * landing reaches the duty factor. Footprints are placed so that the hip passes over the foot mid-stance.
 */
export function planGait(spec: MotionSpec, path: RootPath): GaitPlan {
  const { n, h, t0 } = path;
  const phase = new Float64Array(n);
  const stepStart = spec.stepStart ?? -Infinity;
  const stepStop = spec.stepStop ?? Infinity;
  const lead = spec.leadFoot ?? 0;
  const cadence = new Float64Array(n);
  for (let i = 0; i < n; i++) cadence[i] = cadenceHz(path.speed[i], path.travel[i], path.yawRate[i]);
  const standingStart = stepStart > -Infinity;
  const iStart = standingStart ? clamp(Math.ceil((stepStart - t0) / h - 1e-9), 0, n - 1) : 0;
  const tStart = standingStart ? t0 + iStart * h : t0;
  const dStart = dutyFactor(path.speed[iStart]);
  for (let i = 0; i < n; i++) {
    if (i <= iStart) { phase[i] = 0; continue; }
    phase[i] = phase[i - 1] + 0.5 * h * (cadence[i - 1] + cadence[i]);
  }
  let shift: number;
  if (standingStart) {
    // The lead foot lifts at the step start: its phase there is its duty factor.
    shift = dStart - FOOT_PHASE[lead];
  } else {
    shift = (spec.phase0 ?? 0.3) - phase[pathIndex(path, 0)];
  }
  for (let i = 0; i < n; i++) phase[i] += shift;

  const stances: [Stance[], Stance[]] = [[], []];
  for (let foot = 0; foot < 2; foot++) {
    const list = stances[foot];
    const psi = (i: number): number => phase[i] + FOOT_PHASE[foot];
    let inStance: boolean;
    let kLand: number, tLand: number;
    let first = 0;
    if (standingStart) {
      // Standing until the step start; the lead lifts right then, the other at its usual time.
      const p = psi(iStart);
      kLand = Math.floor(p + 1e-9);
      tLand = -Infinity;
      inStance = true;
      if (foot === lead) {
        list.push(standingPrint(path, foot, tStart, -Infinity, tStart));
        inStance = false;
        kLand = Math.round(p - dStart);
      }
      first = iStart;
    } else {
      const p = psi(0), f0 = cadence[0];
      kLand = Math.floor(p);
      const duty = dutyFactor(path.speed[0]);
      const frac = p - kLand;
      tLand = t0 - frac / f0;
      if (frac < duty) {
        inStance = true;
      } else {
        inStance = false;
        list.push(walkingPrint(path, foot, tLand, t0 - (frac - duty) / f0));
      }
    }
    let done = false;
    for (let i = first + 1; i < n && !done; i++) {
      const pa = psi(i - 1), pb = psi(i);
      const ta = t0 + (i - 1) * h;
      for (;;) {
        if (inStance) {
          // Lift off once the phase since landing reaches the current duty factor (so a stance
          // shortens while speeding up instead of keeping the duty of its landing speed).
          // Also lift off before the body has travelled further than the legs can reach.
          const ga = pa - kLand - dutyFactor(path.speed[i - 1]);
          const gb = pb - kLand - dutyFactor(path.speed[i]);
          const dLand = Number.isFinite(tLand) ? pathAt(path, path.dist, tLand) : path.dist[first];
          const da = path.dist[i - 1] - dLand - maxStanceTravel(path.speed[i - 1]), db = path.dist[i] - dLand - maxStanceTravel(path.speed[i]);
          if (gb < 0 && db < 0) break;
          const fg = gb >= 0 ? (gb > ga && ga < 0 ? -ga / (gb - ga) : 0) : 1;
          const fd = db >= 0 ? (db > da && da < 0 ? -da / (db - da) : 0) : 1;
          const tLift = ta + Math.min(fg, fd) * h;
          list.push(Number.isFinite(tLand) ? walkingPrint(path, foot, tLand, tLift) : standingPrint(path, foot, tStart, -Infinity, tLift));
          inStance = false;
        } else {
          const thr = kLand + 1;
          if (pb < thr) break;
          const t = ta + (pb > pa ? (thr - pa) / (pb - pa) : 0) * h;
          kLand = thr;
          tLand = t;
          inStance = true;
          if (t >= stepStop) {
            list.push(standingPrint(path, foot, t0 + (n - 1) * h, t, Infinity));
            done = true;
            break;
          }
        }
      }
    }
    if (!done) {
      // Still planted at the end of the path: close the interval there.
      if (inStance) list.push(Number.isFinite(tLand) ? walkingPrint(path, foot, tLand, Infinity) : standingPrint(path, foot, tStart, -Infinity, Infinity));
    }
  }

  const activity = new Float64Array(n);
  for (let i = 0; i < n; i++) activity[i] = clamp(path.speed[i] / 0.6 + Math.abs(path.yawRate[i]) / 1.5, 0, 1);
  boxSmooth(activity, Math.max(1, Math.round(0.15 / h)));
  const runBlend = new Float64Array(n);
  for (let i = 0; i < n; i++) runBlend[i] = runFactor(path.speed[i]);
  const rr = Math.max(1, Math.round(0.15 / h));
  boxSmooth(runBlend, rr); boxSmooth(runBlend, rr);
  return { path, phase, activity, runBlend, stances };
}

// ---- foot trajectories -------------------------------------------------------------------------

/** Target of one foot at one time. */
export interface FootTarget {
  /** Ankle (foot joint) world position. */
  x: number;
  y: number;
  z: number;
  /** Foot yaw and pitch (heel up positive, rad); the foot's world rotation is yaw * pitch about its X axis. */
  yaw: number;
  pitch: number;
  /** Toe joint bend relative to the foot (toes up positive, rad). */
  toeBend: number;
  /** True while planted: the ankle is exactly at its footprint. */
  contact: boolean;
}

export function createFootTarget(): FootTarget {
  return { x: 0, y: 0, z: 0, yaw: 0, pitch: 0, toeBend: 0, contact: true };
}

/** Lowest point of the foot (toe, toe tip, heel) below the ankle for a given pitch and toe bend. */
function footLowestBelowAnkle(pitch: number, toeBend: number): number {
  const g = FOOT_GEOMETRY;
  const c = Math.cos(pitch), s = Math.sin(pitch);
  // Rx(p) maps (y, z) to y' = y cos p - z sin p.
  const toeY = g.toe[1] * c - g.toe[2] * s;
  const tipRelY = g.toeTip[1] - g.toe[1], tipRelZ = g.toeTip[2] - g.toe[2];
  const pb = pitch - toeBend;
  const tipY = toeY + tipRelY * Math.cos(pb) - tipRelZ * Math.sin(pb);
  const heelY = g.heel[1] * c - g.heel[2] * s;
  return Math.min(toeY, tipY, heelY);
}

/** Rises from 0 at a to 1 at b and falls back to 0 at c (smoothstep flanks). */
function bump(u: number, a: number, b: number, c: number): number {
  if (u <= a || u >= c) return 0;
  return u < b ? smoothstep01((u - a) / (b - a)) : 1 - smoothstep01((u - b) / (c - b));
}

/**
 * Horizontal swing path from footprint a to footprint b, written to out.x / out.z. The foot holds
 * still for `hold` after lift-off and before landing; in between, its offset from the root is a
 * cubic Hermite curve whose end tangents cancel the root's velocity. So the foot's world velocity
 * is zero at both ends (no slide next to a contact) while, relative to the body, it swings through
 * without overshooting far ahead and then being caught up (which a world-space ease does at speed).
 */
function swingHorizontal(plan: GaitPlan, a: Stance, b: Stance, t: number, hold: number, out: FootTarget): void {
  const p = plan.path;
  const t0 = a.tLift + hold, t1 = b.tLand - hold;
  if (t <= t0) { out.x = a.x; out.z = a.z; return; }
  if (t >= t1) { out.x = b.x; out.z = b.z; return; }
  const T = t1 - t0, u = (t - t0) / T;
  const u2 = u * u, u3 = u2 * u;
  const h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
  const r0x = a.x - pathAt(p, p.x, t0), r0z = a.z - pathAt(p, p.z, t0);
  const r1x = b.x - pathAt(p, p.x, t1), r1z = b.z - pathAt(p, p.z, t1);
  const m0x = -pathAt(p, p.vx, t0) * T, m0z = -pathAt(p, p.vz, t0) * T;
  const m1x = -pathAt(p, p.vx, t1) * T, m1z = -pathAt(p, p.vz, t1) * T;
  out.x = pathAt(p, p.x, t) + h00 * r0x + h10 * m0x + h01 * r1x + h11 * m1x;
  out.z = pathAt(p, p.z, t) + h00 * r0z + h10 * m0z + h01 * r1z + h11 * m1z;
}

/** Index of the last stance that landed at or before t (-1 if none). */
function stanceIndexAt(list: readonly Stance[], t: number): number {
  let lo = 0, hi = list.length - 1, best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid].tLand <= t) { best = mid; lo = mid + 1; } else hi = mid - 1;
  }
  return best;
}

/**
 * The foot's target at time t. In stance the ankle sits on its footprint. In swing it travels from
 * one footprint to the next: horizontally along a root-relative Hermite curve that holds still for
 * `holdTime` at both ends (so a planted foot's neighbours in time do not move it), vertically on
 * an arc that peaks early, pitched heel-up after toe-off and toes-up before heel strike, and always
 * high enough that heel, toe and toe tip stay above the ground.
 */
export function footTargetAt(plan: GaitPlan, foot: number, t: number, holdTime: number, out: FootTarget): FootTarget {
  const list = plan.stances[foot];
  const ground = FOOT_GEOMETRY.ankleHeight;
  let k = stanceIndexAt(list, t);
  if (k < 0) k = 0;
  const a = list[k];
  if (t <= a.tLift || k + 1 >= list.length) {
    out.x = a.x; out.y = ground; out.z = a.z; out.yaw = a.yaw; out.pitch = 0; out.toeBend = 0; out.contact = t <= a.tLift || k + 1 >= list.length;
    return out;
  }
  const b = list[k + 1];
  const T = b.tLand - a.tLift;
  const u = clamp((t - a.tLift) / T, 0, 1);
  const hold = Math.min(holdTime, 0.2 * T);
  const uh = clamp((t - a.tLift - hold) / (T - 2 * hold), 0, 1);
  const e = smootherstep01(uh);
  const dx = b.x - a.x, dz = b.z - a.z;
  const dist = Math.hypot(dx, dz);
  const speed = 0.5 * (a.speed + b.speed);
  const r = runFactor(speed);
  // Small steps (turning on the spot, first and last steps) lift and roll less.
  const size = clamp(dist / 0.6, 0.25, 1);
  swingHorizontal(plan, a, b, t, hold, out);
  if (dist > 1e-6) {
    // Swing slightly outwards around the standing leg (zero during the holds, like the rest of
    // the horizontal motion).
    const lx = dz / dist, lz = -dx / dist; // left of the travel direction of the foot
    const side = sideSign(foot) * (lx * Math.cos(a.yaw) - lz * Math.sin(a.yaw)); // > 0: the foot's outside is on that left
    const bulge = 0.015 * (1 - r) * size * side * Math.sin(Math.PI * uh);
    out.x += bulge * lx; out.z += bulge * lz;
  }
  // Footprint yaws come from the unwrapped root yaw: no wrapping (a foot may turn > 180 degrees
  // between two prints in a tight turn, and must turn the way the body does).
  out.yaw = a.yaw + (b.yaw - a.yaw) * e;
  // Pitch: heel rises after lift-off (toe-off), toes rise before landing (heel strike).
  const offPitch = lerp(0.6, 0.95, r) * size;
  const strikePitch = lerp(0.3, 0.1, r) * size;
  out.pitch = offPitch * bump(u, 0, lerp(0.22, 0.25, r), lerp(0.6, 0.55, r)) - strikePitch * bump(u, 0.5, 0.86, 1);
  out.toeBend = 0.7 * offPitch * bump(u, 0, 0.18, 0.5);
  // Vertical arc peaking early (w(u) = u + 0.6 u (1 - u) reaches 0.5 at u = 0.36).
  const H = swingHeight(speed) * size;
  const w = u + 0.6 * u * (1 - u);
  const lift = ground + H * Math.sin(Math.PI * w);
  // Keep heel, toe and tip above the ground, with a clearance (4 mm at lift-off and landing).
  const clearance = 0.004 + 0.025 * Math.sin(Math.PI * u);
  const need = -footLowestBelowAnkle(out.pitch, out.toeBend) + clearance;
  // Smooth max (>= both), sharp at the ends so lift-off and landing stay continuous.
  const kk = 0.02 * Math.sin(Math.PI * u);
  out.y = 0.5 * (lift + need + Math.sqrt((lift - need) * (lift - need) + kk * kk));
  out.contact = false;
  return out;
}
