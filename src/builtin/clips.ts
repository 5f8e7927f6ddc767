/**
 * The catalogue of built-in clips (what each one does) and the function that renders one.
 */
import type { Skeleton } from '../anim/skeleton.js';
import type { Clip } from '../anim/clip.js';
import { integrateRootPath, planGait, type Key, type MotionSpec } from './gait.js';
import { synthesizeMotion } from './body.js';

const DEG = Math.PI / 180;

/** One built-in clip: its motion plus the facts tests and docs rely on. */
export interface BuiltinClipSpec {
  name: string;
  tags: string[];
  motion: MotionSpec;
  /** Cruise speed the name promises (m/s), for straight clips. */
  speed?: number;
  /** Total change of facing over the clip (rad, + = left), when it turns. */
  expectedTurn?: number;
  /**
   * A pivot's turn of the body (rad, + = left) while its path keeps its direction. (Not an
   * expectedTurn: the pelvis also turns towards a sideways travel, by a share that changes with it.)
   */
  pivotTurn?: number;
  /** True when the clip has a left/right twin (…_left / …_right); the right one is dropped with mirrorSafe. */
  rightTwin?: boolean;
}

const hold = (v: number): Key[] => [{ t: 0, v }];

/** Keys: value v0 until t0, eased to v1 by t1, ... (pairs of [t, v]). */
function keys(...tv: Array<[number, number]>): Key[] {
  return tv.map(([t, v]) => ({ t, v }));
}

/** Area under eased keys (for the expected total turn). */
function keysIntegral(k: readonly Key[], duration: number): number {
  // smoothstep ramps integrate to the average of their ends.
  let area = 0;
  let prevT = 0, prevV = k[0].v;
  for (const key of k) {
    if (key.t <= 0) { prevV = key.v; continue; }
    const t = Math.min(key.t, duration);
    area += (t - prevT) * 0.5 * (prevV + key.v);
    prevT = t; prevV = key.v;
    if (key.t >= duration) break;
  }
  if (prevT < duration) area += (duration - prevT) * prevV;
  return area;
}

function straight(name: string, tags: string[], speed: number, duration: number, travelDeg = 0): BuiltinClipSpec {
  return {
    name, tags, speed,
    motion: { duration, speed: hold(speed), travel: hold(travelDeg * DEG), yawRate: hold(0) },
  };
}

function turn(gait: string, tags: string[], side: 'left' | 'right', rateDeg: number, speed: number, duration: number): BuiltinClipSpec {
  const sgn = side === 'left' ? 1 : -1;
  const w = sgn * rateDeg * DEG;
  const yawRate = keys([1, 0], [1.4, w], [duration - 1.4, w], [duration - 1, 0]);
  return {
    name: `${gait}_turn_${side}_${rateDeg}`, tags, rightTwin: true,
    motion: { duration, speed: hold(speed), travel: hold(0), yawRate },
    expectedTurn: keysIntegral(yawRate, duration),
  };
}

/** A U-turn (or sharp cut): slow down, turn `angleDeg` within `turnTime`, speed up again. */
function sharpTurn(name: string, tags: string[], side: 'left' | 'right', angleDeg: number, speed: number, slowSpeed: number, turnTime: number, duration: number, tTurn = 1.6): BuiltinClipSpec {
  const sgn = side === 'left' ? 1 : -1;
  // A smoothstep ramp up and down over turnTime integrates to peak * turnTime / 2.
  const peak = (2 * sgn * angleDeg * DEG) / turnTime;
  const yawRate = keys([tTurn, 0], [tTurn + 0.5 * turnTime, peak], [tTurn + turnTime, 0]);
  const speedKeys = keys([tTurn - 0.5, speed], [tTurn + 0.3 * turnTime, slowSpeed], [tTurn + turnTime + 0.6, speed]);
  return {
    name, tags, rightTwin: true,
    motion: { duration, speed: speedKeys, travel: hold(0), yawRate },
    expectedTurn: keysIntegral(yawRate, duration),
  };
}

/**
 * The direction of travel a pivot starts from, relative to the facing (degrees, + = towards the
 * side it turns to: mirrored twins share the name), as clip names say it.
 */
const PIVOT_FROM_NAMES: Record<number, string> = {
  0: 'forward', 45: 'forward_inside', 90: 'inside', 135: 'backward_inside',
  180: 'backward', [-135]: 'backward_outside', [-90]: 'outside', [-45]: 'forward_outside',
};

/**
 * A pivot: walking on in one direction of the world while the body turns `angleDeg` to `side`, so
 * that the travel relative to the facing goes from `fromDeg` (towards the turning side) round by
 * the turn (a forward walk turning into a sidestep or a backward walk, and back). What a strafing
 * character plays when its facing changes while it keeps moving; without it the nearest motion was
 * a turn on the spot, and the character was pulled along at the requested speed while its feet
 * turned in place (a third of the built-in strafe's skate).
 */
function pivot(side: 'left' | 'right', angleDeg: number, fromDeg: number, speed: number): BuiltinClipSpec {
  const sgn = side === 'left' ? 1 : -1, turnTime = angleDeg === 90 ? 1.0 : 1.6, t0 = 0.8, duration = t0 + turnTime + 0.8;
  const yawRate = keys([t0, 0], [t0 + 0.5 * turnTime, (2 * sgn * angleDeg * DEG) / turnTime], [t0 + turnTime, 0]);
  // The travel turns back by the body's turn (eased over the same time), so that the path keeps its direction.
  const from = sgn * fromDeg, to = from - sgn * angleDeg;
  return {
    name: `walk_pivot_${side}_${angleDeg}_${PIVOT_FROM_NAMES[fromDeg]}`, tags: ['walk', 'turn'], speed, rightTwin: true,
    motion: { duration, speed: hold(speed), travel: keys([t0, from * DEG], [t0 + turnTime, to * DEG]), yawRate },
    pivotTurn: keysIntegral(yawRate, duration),
  };
}

/** The full catalogue, in a fixed order. */
export function builtinClipSpecs(): BuiltinClipSpec[] {
  const specs: BuiltinClipSpec[] = [];
  specs.push({
    name: 'idle', tags: ['idle'],
    motion: { duration: 8, speed: hold(0), travel: hold(0), yawRate: hold(0), stepStart: Infinity },
  });
  for (const v of [0.8, 1.2, 1.6]) specs.push(straight(`walk_${v.toFixed(1)}`, ['walk'], v, 6));
  for (const v of [2.2, 2.8]) specs.push(straight(`jog_${v.toFixed(1)}`, ['jog', 'run'], v, 5));
  for (const v of [3.5, 4.5]) specs.push(straight(`run_${v.toFixed(1)}`, ['run'], v, 5));
  specs.push(straight('walk_backward_1.0', ['walk', 'backward'], 1.0, 6, 180));
  for (const side of ['left', 'right'] as const) {
    const s = side === 'left' ? 1 : -1;
    specs.push({ ...straight(`strafe_${side}_1.0`, ['walk', 'strafe'], 1.0, 6, 90 * s), rightTwin: true });
    specs.push({ ...straight(`strafe_forward_${side}_1.2`, ['walk', 'strafe'], 1.2, 6, 45 * s), rightTwin: true });
    specs.push({ ...straight(`strafe_backward_${side}_1.0`, ['walk', 'strafe', 'backward'], 1.0, 6, 135 * s), rightTwin: true });
  }
  for (const side of ['left', 'right'] as const) {
    for (const rate of [45, 90, 180]) specs.push(turn('walk', ['walk', 'turn'], side, rate, rate === 180 ? 1.0 : 1.2, 6));
    for (const rate of [45, 90, 180]) specs.push(turn('run', ['run', 'turn'], side, rate, rate === 180 ? 2.8 : 3.5, 5));
  }
  for (const side of ['left', 'right'] as const) {
    specs.push(sharpTurn(`walk_uturn_${side}`, ['walk', 'turn', 'uturn'], side, 180, 1.2, 0.7, 1.4, 5));
    specs.push(sharpTurn(`run_uturn_${side}`, ['run', 'turn', 'uturn'], side, 180, 3.5, 1.8, 1.3, 5));
    specs.push(sharpTurn(`walk_cut_${side}_90`, ['walk', 'turn', 'cut'], side, 90, 1.4, 1.0, 0.5, 4.5));
    specs.push(sharpTurn(`run_cut_${side}_90`, ['run', 'turn', 'cut'], side, 90, 3.5, 2.2, 0.55, 4.5));
  }
  specs.push({
    name: 'start_walk', tags: ['start', 'walk'], speed: 1.2,
    motion: { duration: 5, speed: keys([1, 0], [2.2, 1.2]), travel: hold(0), yawRate: hold(0), stepStart: 1.05 },
  });
  specs.push({
    name: 'start_run', tags: ['start', 'run'], speed: 3.5,
    motion: { duration: 5, speed: keys([1, 0], [2.8, 3.5]), travel: hold(0), yawRate: hold(0), stepStart: 1.05 },
  });
  specs.push({
    name: 'stop_walk', tags: ['stop', 'walk'], speed: 1.2,
    motion: { duration: 5, speed: keys([1.5, 1.2], [2.8, 0]), travel: hold(0), yawRate: hold(0), stepStop: 2.4 },
  });
  specs.push({
    name: 'stop_run', tags: ['stop', 'run'], speed: 3.5,
    motion: { duration: 5, speed: keys([1.2, 3.5], [3.0, 0]), travel: hold(0), yawRate: hold(0), stepStop: 2.5 },
  });
  // Starts and stops in the other directions of travel, so that a standing character can begin
  // (and end) a strafe or a backward walk without sliding into it.
  for (const [dir, travelDeg, twin] of [['strafe_left', 90, true], ['strafe_right', -90, true], ['backward', 180, false]] as const) {
    const tags = dir === 'backward' ? ['walk', 'backward'] : ['walk', 'strafe'];
    specs.push({
      name: `start_${dir}`, tags: ['start', ...tags], speed: 1.0, rightTwin: twin && dir === 'strafe_right',
      motion: { duration: 5, speed: keys([1, 0], [2.2, 1.0]), travel: hold(travelDeg * DEG), yawRate: hold(0), stepStart: 1.05 },
    });
    specs.push({
      name: `stop_${dir}`, tags: ['stop', ...tags], speed: 1.0, rightTwin: twin && dir === 'strafe_right',
      motion: { duration: 5, speed: keys([1.5, 1.0], [2.8, 0]), travel: hold(travelDeg * DEG), yawRate: hold(0), stepStop: 2.4 },
    });
  }
  for (const side of ['left', 'right'] as const) {
    const s = side === 'left' ? 1 : -1;
    for (const angle of [90, 180]) {
      const turnTime = angle === 90 ? 1.0 : 1.6;
      const yawRate = keys([0.8, 0], [0.8 + 0.5 * turnTime, (2 * s * angle * DEG) / turnTime], [0.8 + turnTime, 0]);
      specs.push({
        name: `turn_in_place_${side}_${angle}`, tags: ['idle', 'turn'], rightTwin: true,
        motion: { duration: 1.8 + turnTime, speed: hold(0), travel: hold(0), yawRate, stepStart: 0.7, stepStop: 0.8 + turnTime - 0.25 },
        expectedTurn: keysIntegral(yawRate, 1.8 + turnTime),
      });
    }
  }
  for (const side of ['left', 'right'] as const) {
    for (const angle of [90, 180]) for (const from of [0, 45, 90, 135, 180, -135, -90, -45]) specs.push(pivot(side, angle, from, 1.0));
  }
  specs.push({
    name: 'walk_to_run', tags: ['walk', 'run', 'transition'],
    motion: { duration: 6, speed: keys([2, 1.2], [3.5, 3.5]), travel: hold(0), yawRate: hold(0) },
  });
  specs.push({
    name: 'run_to_walk', tags: ['walk', 'run', 'transition'],
    motion: { duration: 6, speed: keys([2, 3.5], [3.6, 1.2]), travel: hold(0), yawRate: hold(0) },
  });
  specs.push({
    name: 'speed_changes', tags: ['walk', 'run', 'transition'],
    motion: {
      duration: 12,
      speed: keys([1.5, 1.2], [2.5, 1.6], [4, 1.6], [5, 0.8], [6.5, 0.8], [7.8, 2.8], [9.5, 2.8], [10.8, 1.2]),
      travel: hold(0), yawRate: hold(0),
    },
  });
  return specs;
}

/** Renders one spec into a Clip and its true contact labels. */
export function renderBuiltinClip(skeleton: Skeleton, spec: BuiltinClipSpec, fps: number): { clip: Clip; contacts: Uint8Array; maxPlantedResidual: number } {
  const sub = 2;
  const h = 1 / (fps * sub);
  const pad = 2;
  const path = integrateRootPath(spec.motion, h, pad, pad);
  const plan = planGait(spec.motion, path);
  const frames = Math.round(spec.motion.duration * fps) + 1;
  const m = synthesizeMotion(skeleton, plan, frames, fps, spec.name);
  const clip: Clip = {
    name: spec.name,
    source: 'builtin',
    fps,
    frameCount: frames,
    rotations: m.rotations,
    translations: m.translations,
    loop: false,
    tags: [...spec.tags],
  };
  return { clip, contacts: m.contacts, maxPlantedResidual: m.maxPlantedResidual };
}
