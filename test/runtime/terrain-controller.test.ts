/**
 * The controller on uneven ground (the `ground` option): the root rides slopes without lag and
 * takes steps smoothly, planted feet stand on the ground tilted towards it (at most maxFootTilt),
 * the hips drop no further than the limit, a ground taken away brings the character back to the
 * plane exactly, and the quality figures (foot-ground error, skate, jumps) hold on procedural hills
 * and steps next to the same run on flat ground.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import type { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { MotionMatchingController, createInput, type ControllerOptions } from '../../src/runtime/controller/controller.js';
import { QualityMeter, QualityStats } from '../../src/runtime/quality/meter.js';
import { GROUND_BIN } from '../../src/runtime/quality/histogram.js';
import { HeightField } from '../../src/runtime/ground/height-field.js';
import { groundFromFunctions, type Ground } from '../../src/runtime/ground/ground.js';
import { ScriptedDriver, type ScenarioName } from '../../src/sim/scenarios.js';
import { hillsField, stepsField } from '../../src/sim/terrain/terrain.js';
import type { Database } from '../../src/database/database.js';
import { builtinSearch } from '../helpers/builtin-search.js';

let db: Database;
let port: MatcherSearchPort;
beforeAll(async () => {
  ({ db, port } = await builtinSearch());
});

const DT = 1 / 30;
const deg = (d: number) => (d * Math.PI) / 180;

/** A ramp rising along +z at `slope` (radians). */
function ramp(slope: number): Ground {
  const k = Math.tan(slope);
  return groundFromFunctions({ height: (_x, z) => k * z, normal: (_x, _z, n) => { n[0] = 0; n[1] = 1; n[2] = -k; } });
}

/** Walks a controller straight along +z at `speed` for `steps`, calling `each` after every step. */
function walk(options: Partial<ControllerOptions>, speed: number, steps: number, each: (c: MotionMatchingController, s: number) => void): MotionMatchingController {
  const c = new MotionMatchingController(db, options);
  const input = createInput();
  input.velocityZ = speed;
  for (let s = 0; s < steps; s++) {
    c.update(DT, input, port);
    each(c, s);
  }
  return c;
}

describe('the root on uneven ground', () => {
  it('rides a 20° slope exactly (no spring lag) and starts on the ground', () => {
    const ground = ramp(deg(20));
    let worst = 0, first = Number.NaN;
    const c = walk({ ground }, 1.4, 120, (c, s) => {
      const gap = Math.abs(c.rootPosition[1] - Math.tan(deg(20)) * c.rootPosition[2]);
      if (s === 0) first = gap;
      worst = Math.max(worst, gap);
    });
    expect(c.rootPosition[2]).toBeGreaterThan(3); // it went up the slope
    expect(first).toBeLessThan(1e-9);
    expect(worst).toBeLessThan(1e-9);
  });

  it('takes a 25 cm step smoothly: no jump, on the new level within half a second', () => {
    // A step up at z = 2 (one 5 cm cell of riser).
    const ground = HeightField.fromFunction((_x, z) => (z >= 2 ? 0.25 : 0), { columns: 41, rows: 201, spacing: 0.05, originX: -1, originZ: -2 });
    const ys: number[] = [], zs: number[] = [];
    walk({ ground }, 1.4, 150, (c) => { ys.push(c.rootPosition[1]); zs.push(c.rootPosition[2]); });
    const crossed = zs.findIndex((z) => z >= 2.05);
    expect(crossed).toBeGreaterThan(0);
    // Vertical speed changes gently: under 1 m/s from one step to the next (a snap onto the step
    // would be 7.5 m/s; the data's own feet change theirs by 2.7 m/s at the 95th percentile).
    let jump = 0;
    for (let s = 2; s < ys.length; s++) jump = Math.max(jump, Math.abs((ys[s] - 2 * ys[s - 1] + ys[s - 2]) / DT));
    expect(jump).toBeLessThan(1);
    expect(Math.max(...ys)).toBeLessThan(0.25 + 0.02); // barely overshoots
    expect(Math.abs(ys[crossed + 15] - 0.25)).toBeLessThan(0.02); // 0.5 s later
    expect(ys[ys.length - 1]).toBeCloseTo(0.25, 4);
  });

  it('lifts a swinging foot before a step\'s edge passes under it: no snap of the toe at each step up', () => {
    // A staircase along +z: 15 cm risers every 80 cm from z = 1 (5 cm cells), walked at 1 m/s at 60 Hz.
    const ground = HeightField.fromFunction((_x, z) => (z < 1 ? 0 : 0.15 * Math.min(8, Math.floor(z / 0.8))), { columns: 41, rows: 301, spacing: 0.05, originX: -1, originZ: -2 });
    const c = new MotionMatchingController(db, { ground });
    const input = createInput();
    input.velocityZ = 1;
    const feet = [db.roles.leftToe, db.roles.rightToe, db.roles.leftFoot, db.roles.rightFoot], dt = 1 / 60;
    const history: number[][] = [];
    let jump = 0;
    for (let s = 0; s < 6 * 60; s++) {
      c.update(dt, input, port);
      history.push(feet.flatMap((j) => [c.worldPositions[3 * j], c.worldPositions[3 * j + 1], c.worldPositions[3 * j + 2]]));
      if (history.length < 3 || !(c.rootPosition[2] > 0.5 && c.rootPosition[2] < 5)) continue;
      // The quality measure's pops: the change of a joint's velocity between consecutive steps.
      const [a, b, d] = history.slice(-3);
      for (let k = 0; k < feet.length; k++) jump = Math.max(jump, Math.hypot(...[0, 1, 2].map((i) => (d[3 * k + i] - 2 * b[3 * k + i] + a[3 * k + i]) / dt)));
    }
    console.log(`staircase at 1 m/s: largest velocity change of a foot joint ${jump.toFixed(2)} m/s, root at z ${c.rootPosition[2].toFixed(2)} m, y ${c.rootPosition[1].toFixed(2)} m`);
    expect(c.rootPosition[1]).toBeGreaterThan(0.6); // it climbed
    // Raised only as the edge arrived, the toe snapped up by the whole rise: 5.1 m/s here (14.8 at
    // most on the procedural steps); with the foot lifted ahead of the edge, 3.2.
    expect(jump).toBeLessThan(4);
  });

  it('comes back to the plane y = 0 exactly when the ground is taken away', () => {
    const c = walk({ ground: ramp(deg(10)) }, 1.2, 60, () => {});
    expect(c.rootPosition[1]).toBeGreaterThan(0.2);
    c.options.ground = null; // the options object belongs to this controller alone here
    const input = createInput();
    const ys: number[] = [];
    for (let s = 0; s < 90; s++) { c.update(DT, input, port); ys.push(c.rootPosition[1]); }
    expect(ys[ys.length - 1]).toBe(0);
    // Down by a spring (under 3 m/s), not in one step.
    let fastest = 0;
    for (let s = 1; s < ys.length; s++) fastest = Math.max(fastest, Math.abs(ys[s] - ys[s - 1]) / DT);
    expect(fastest).toBeLessThan(3);
  });

  it('refuses a ground that answers garbage with an error naming where', () => {
    const broken = groundFromFunctions({ height: (_x, z) => (z > 0.5 ? Number.NaN : 0) });
    expect(() => walk({ ground: broken }, 1.4, 60, () => {})).toThrow(/ground: the (height|normal) at \(0\.\d+, 0\.\d+\) (is not a finite number|must be a finite vector)/);
  });
});

describe('feet on uneven ground', () => {
  it('plants feet on a slope at their animated height over it, tilted with it', () => {
    const slope = deg(20), n = [0, Math.cos(slope), -Math.sin(slope)];
    const errors: number[] = [], tilts: number[] = [];
    walk({ ground: ramp(slope) }, 1.2, 240, (c, s) => {
      if (s < 30) return;
      for (let i = 0; i < 2; i++) {
        const leg = c.footIK.legs[i];
        if (!leg.locked) continue;
        const p = c.worldPositions.subarray(3 * leg.contact, 3 * leg.contact + 3);
        // Distance of the contact point from the plane y = tan(slope)·z, along its normal.
        const over = n[1] * (p[1] - Math.tan(slope) * p[2]);
        errors.push(Math.abs(over - c.footIK.animatedContactHeight(i)));
        tilts.push(c.footIK.groundTilt(i));
      }
    });
    errors.sort((a, b) => a - b); tilts.sort((a, b) => a - b);
    expect(errors.length).toBeGreaterThan(100);
    expect(errors[Math.floor(0.95 * errors.length)]).toBeLessThan(0.02);
    // Planted feet tilt with the ground (once the tilt's spring has settled).
    expect(tilts[Math.floor(0.5 * tilts.length)]).toBeCloseTo(slope, 2);
  });

  it('tilts a foot at most maxFootTilt on steeper ground', () => {
    let most = 0;
    walk({ ground: ramp(deg(40)) }, 1.0, 150, (c) => { for (let i = 0; i < 2; i++) most = Math.max(most, c.footIK.groundTilt(i)); });
    expect(most).toBeGreaterThan(deg(29));
    expect(most).toBeLessThanOrEqual(deg(30) + 1e-9);
    let less = 0;
    const options = MotionMatchingController.resolveOptions({ ground: ramp(deg(40)) });
    options.groundOptions = { ...options.groundOptions, maxFootTilt: deg(10) };
    walk(options, 1.0, 150, (c) => { for (let i = 0; i < 2; i++) less = Math.max(less, c.footIK.groundTilt(i)); });
    expect(less).toBeLessThanOrEqual(deg(10) + 1e-9);
  });

  it('lowers the hips at most maxHipsDropLegLengths on hills, and not at all on flat ground (by default)', () => {
    const legs = footLegLength();
    let hills = 0, flat = 0;
    walk({ ground: hillsField(3) }, 2.5, 300, (c) => { hills = Math.max(hills, c.footIK.hipsDrop); });
    walk({}, 2.5, 300, (c) => { flat = Math.max(flat, c.footIK.hipsDrop); });
    const options = MotionMatchingController.resolveOptions();
    expect(hills).toBeGreaterThan(0.12); // the flat limit would not do here...
    expect(hills).toBeLessThanOrEqual(options.groundOptions.maxHipsDropLegLengths * legs + 1e-12); // ...but the limit holds
    expect(options.footIKOptions.maxHipsDrop).toBe(0);
    expect(flat).toBe(0);
  });

  it('is deterministic: the same run on hills twice is bit-identical', () => {
    const trace = () => {
      const out: number[] = [];
      walk({ ground: hillsField(2) }, 1.6, 90, (c) => out.push(...c.worldPositions));
      return out;
    };
    expect(trace()).toEqual(trace());
  });
});

/** Mean leg length of the built-in rig (hip to knee plus knee to ankle). */
function footLegLength(): number {
  const c = new MotionMatchingController(db);
  return 0.5 * (c.footIK.legs[0].length + c.footIK.legs[1].length);
}

/** A crowd of scripted agents on `ground` (null: flat), measured by one QualityMeter each. */
function crowdQuality(ground: Ground | null, scenario: ScenarioName, agents: number, seconds: number): QualityStats {
  const stats = new QualityStats();
  const options = MotionMatchingController.resolveOptions({ ground });
  for (let a = 0; a < agents; a++) {
    const c = new MotionMatchingController(db, options);
    c.reset(c.frame, 3 * a, 0, 0);
    const d = new ScriptedDriver(scenario, 11, a, DT), input = createInput(), meter = new QualityMeter(c, stats, DT);
    for (let s = 0; s < seconds * 30; s++) {
      d.drive(c.rootPosition, input);
      c.update(DT, input, port);
      meter.observe(input, DT);
    }
  }
  return stats;
}

describe('quality on procedural terrain next to flat ground (built-in database)', () => {
  it('keeps feet on the ground, skate near flat, and transitions smooth on hills and steps', () => {
    const flat = crowdQuality(null, 'wander', 12, 12).report();
    for (const [name, ground] of [['hills', hillsField(1)], ['steps', stepsField(1)]] as const) {
      const r = crowdQuality(ground, 'wander', 12, 12).report();
      console.log(`${name}: contact error p95 ${r.footGroundErrorP95Cm.toFixed(2)} cm, penetration p95 ${r.footPenetrationP95Cm.toFixed(2)} cm, skate ${r.skateCmPerSec.toFixed(2)} (flat ${flat.skateCmPerSec.toFixed(2)}) cm/s, below the ground ${r.belowGroundMaxCm.toFixed(2)} cm at most, largest velocity change ${r.popMax.toFixed(2)} m/s, swing in the ground max ${r.swingPenetrationMaxCm.toFixed(1)} cm`);
      expect(r.footGroundErrorP95Cm, name).toBeLessThan(2);
      expect(r.footPenetrationP95Cm, name).toBeLessThan(1);
      // Measured from the output joints (docs/quality.md): no more skate than on flat ground, and no
      // foot into the ground by more than a centimetre or so (swinging feet keep their animated
      // clearance over it).
      expect(r.skateCmPerSec - flat.skateCmPerSec, name).toBeLessThanOrEqual(0.5);
      expect(r.belowGroundMaxCm, name).toBeLessThan(2);
      expect(r.maxTransitionJump, name).toBeLessThan(6);
      expect(r.swingPenetrationP99Cm, name).toBeLessThan(2);
    }
  });

  it('measures no foot-ground error at all for the animation itself on flat ground (IK off)', () => {
    const stats = new QualityStats();
    const c = new MotionMatchingController(db, { footIK: false });
    const d = new ScriptedDriver('wander', 3, 0, DT), input = createInput(), meter = new QualityMeter(c, stats, DT);
    for (let s = 0; s < 300; s++) { d.drive(c.rootPosition, input); c.update(DT, input, port); meter.observe(input, DT); }
    const r = stats.report();
    expect(stats.groundCount).toBeGreaterThan(100);
    expect(r.footGroundErrorCm).toBe(0);
    expect(r.footPenetrationCm).toBe(0);
    // (A percentile is the upper edge of its histogram bin: all zeros read as the first bin's.)
    expect(r.footGroundErrorP95Cm).toBe(GROUND_BIN);
  });

  it('merges ground figures across threads by adding counts', () => {
    const a = crowdQuality(stepsField(4), 'path', 2, 4), b = crowdQuality(stepsField(4), 'stop-go', 2, 4);
    const both = QualityStats.from(a);
    both.merge(b);
    expect(both.groundCount).toBe(a.groundCount + b.groundCount);
    expect(both.groundErrorSum).toBeCloseTo(a.groundErrorSum + b.groundErrorSum, 9);
    expect(both.swingPenetrationMax).toBe(Math.max(a.swingPenetrationMax, b.swingPenetrationMax));
    expect(both.report().footGroundErrorCm).toBeCloseTo((a.groundErrorSum + b.groundErrorSum) / (a.groundCount + b.groundCount), 9);
  });
});
