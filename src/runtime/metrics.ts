import { springCharacterPredict } from '../math/spring.js';
import type { MotionMatchingController, ControllerInput } from './controller.js';
import { CONTACT_LEFT, CONTACT_RIGHT } from '../database/database.js';

/** Summary figures (GUIDE §6). */
export interface QualityReport {
  seconds: number;
  steps: number;
  /** Mean horizontal speed of feet in contact over a whole step (database contact labels of the playing frame), cm/s; and its 95th percentile. */
  footSkateCmPerSec: number;
  footSkateP95CmPerSec: number;
  /** Mean distance between where the input asked the root to be 0.5 s / 1 s ahead and where it went (cm). */
  trajectoryError05Cm: number;
  trajectoryError1Cm: number;
  /** Largest change of any joint's world velocity across a transition step (m/s). */
  maxTransitionJump: number;
  /** The same measure over steps without a transition, for scale (95th percentile, m/s). */
  typicalJumpP95: number;
  searchesPerSec: number;
  transitionsPerSec: number;
}

const HORIZONS = new Float64Array([0.5, 1]);
const RING = 256;

/**
 * Measures one controller as it runs: call observe() after every step. Allocation-free per step
 * (fixed ring buffers); percentiles use bounded histograms.
 */
export class QualityMeter {
  private readonly J: number;
  private readonly prevPos: Float64Array;
  private readonly prevVel: Float64Array;
  private readonly vel: Float64Array;
  private hasPrev = 0;
  private prevContacts = 0;
  private skateSum = 0;
  private skateCount = 0;
  private readonly skateHist = new Float64Array(2001); // 0.05 cm/s bins up to 100 cm/s
  private maxJump = 0;
  private readonly jumpHist = new Float64Array(1001); // 0.01 m/s bins up to 10 m/s
  // One ring per horizon so that evaluation order matches insertion order.
  private readonly predTime = [new Float64Array(RING), new Float64Array(RING)];
  private readonly predX = [new Float64Array(RING), new Float64Array(RING)];
  private readonly predZ = [new Float64Array(RING), new Float64Array(RING)];
  private readonly predVersion = [new Float64Array(RING), new Float64Array(RING)];
  private readonly predHead = new Int32Array(2);
  private readonly predTail = new Int32Array(2);
  private readonly errSum = new Float64Array(2);
  private readonly errCount = new Float64Array(2);
  private time = 0;
  private inputVersion = 0;
  private lastVX = NaN;
  private lastVZ = NaN;
  private lastFacing = NaN;
  private readonly predOut = new Float64Array(6);
  private readonly desired = new Float64Array(3);
  private steps = 0;
  private startSearches: number;
  private startTransitions: number;

  constructor(private readonly controller: MotionMatchingController) {
    this.J = controller.joints;
    this.prevPos = new Float64Array(this.J * 3);
    this.prevVel = new Float64Array(this.J * 3);
    this.vel = new Float64Array(this.J * 3);
    this.startSearches = controller.counters.searches;
    this.startTransitions = controller.counters.transitions;
  }

  /** Records the step the controller just took with `input`, over `dt` seconds. */
  observe(input: ControllerInput, dt: number): void {
    const c = this.controller, J = this.J, wp = c.worldPositions;
    this.time += dt;
    this.steps++;
    if (dt > 0 && this.hasPrev >= 1) {
      let jump = 0;
      for (let i = 0; i < J * 3; i++) this.vel[i] = (wp[i] - this.prevPos[i]) / dt;
      if (this.hasPrev >= 2) {
        for (let j = 0; j < J; j++) {
          const d = Math.hypot(this.vel[3 * j] - this.prevVel[3 * j], this.vel[3 * j + 1] - this.prevVel[3 * j + 1], this.vel[3 * j + 2] - this.prevVel[3 * j + 2]);
          if (d > jump) jump = d;
        }
        if (c.transitioned) { if (jump > this.maxJump) this.maxJump = jump; }
        else this.jumpHist[Math.min(1000, Math.floor(jump * 100))]++;
      }
      // A foot counts when it is in contact at both ends of the step: the landing step's speed
      // belongs to the swing that ends in it.
      const contacts = c.contacts;
      if (contacts & this.prevContacts & CONTACT_LEFT) this.recordSkate(c.db.roles.leftFoot);
      if (contacts & this.prevContacts & CONTACT_RIGHT) this.recordSkate(c.db.roles.rightFoot);
      this.prevVel.set(this.vel);
    }
    this.prevPos.set(wp);
    this.prevContacts = c.contacts;
    this.hasPrev = Math.min(2, this.hasPrev + 1);
    this.trackTrajectory(input);
  }

  private recordSkate(foot: number): void {
    const speed = Math.hypot(this.vel[3 * foot], this.vel[3 * foot + 2]) * 100;
    this.skateSum += speed;
    this.skateCount++;
    this.skateHist[Math.min(2000, Math.floor(speed * 20))]++;
  }

  private trackTrajectory(input: ControllerInput): void {
    const c = this.controller;
    if (input.velocityX !== this.lastVX || input.velocityZ !== this.lastVZ || !(input.facing === this.lastFacing || (Number.isNaN(input.facing) && Number.isNaN(this.lastFacing)))) {
      this.inputVersion++;
      this.lastVX = input.velocityX; this.lastVZ = input.velocityZ; this.lastFacing = input.facing;
    }
    this.desired[0] = input.velocityX; this.desired[1] = 0; this.desired[2] = input.velocityZ;
    springCharacterPredict(this.predOut, null, null, c.simPosition, 0, c.simVelocity, 0, c.simAcceleration, 0, this.desired, 0, c.options.trajectoryHalfLife, HORIZONS, 2, 3);
    for (let h = 0; h < 2; h++) {
      const time = this.predTime[h], ver = this.predVersion[h];
      // Evaluate predictions whose time has come (only those made under the input still in force).
      while (this.predTail[h] !== this.predHead[h] && time[this.predTail[h]] <= this.time + 1e-9) {
        const k = this.predTail[h];
        if (ver[k] === this.inputVersion) {
          this.errSum[h] += Math.hypot(c.rootPosition[0] - this.predX[h][k], c.rootPosition[2] - this.predZ[h][k]) * 100;
          this.errCount[h]++;
        }
        this.predTail[h] = (k + 1) % RING;
      }
      const next = (this.predHead[h] + 1) % RING;
      if (next === this.predTail[h]) continue; // full (only with very small dt): skip this sample
      const k = this.predHead[h];
      time[k] = this.time + HORIZONS[h];
      this.predX[h][k] = this.predOut[3 * h];
      this.predZ[h][k] = this.predOut[3 * h + 2];
      ver[k] = this.inputVersion;
      this.predHead[h] = next;
    }
  }

  report(): QualityReport {
    const c = this.controller;
    const seconds = Math.max(this.time, 1e-9);
    return {
      seconds: this.time,
      steps: this.steps,
      footSkateCmPerSec: this.skateCount ? this.skateSum / this.skateCount : 0,
      footSkateP95CmPerSec: percentile(this.skateHist, 0.95) / 20,
      trajectoryError05Cm: this.errCount[0] ? this.errSum[0] / this.errCount[0] : 0,
      trajectoryError1Cm: this.errCount[1] ? this.errSum[1] / this.errCount[1] : 0,
      maxTransitionJump: this.maxJump,
      typicalJumpP95: percentile(this.jumpHist, 0.95) / 100,
      searchesPerSec: (c.counters.searches - this.startSearches) / seconds,
      transitionsPerSec: (c.counters.transitions - this.startTransitions) / seconds,
    };
  }
}

/** The bin index below which `q` of the histogram's mass lies (upper edge of that bin). */
function percentile(hist: Float64Array, q: number): number {
  let total = 0;
  for (let i = 0; i < hist.length; i++) total += hist[i];
  if (total === 0) return 0;
  let acc = 0;
  for (let i = 0; i < hist.length; i++) {
    acc += hist[i];
    if (acc >= q * total) return i + 1;
  }
  return hist.length;
}
