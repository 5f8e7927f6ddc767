/**
 * Debug views in the 3D scene, for the player:
 * - cyan: the trajectory the input predicts (spring simulation) at the schema's future offsets,
 *   with facing ticks;
 * - orange: the future trajectory stored with the playing frame of the matched clip (what the
 *   animation will actually do), with facing ticks — the closer the two, the better the match;
 * - feet: a ring under each foot, green while the playing frame labels it in contact;
 *   a red marker where foot IK holds a locked foot, yellow where IK is pulling it (target);
 * - a white ring under the player, to find it in the crowd.
 * On a terrain every mark sits on the ground under it (the controller's `ground`), not at y = 0.
 */
import * as THREE from 'three';
import type { Database } from '../../src/database/database.js';
import { CONTACT_LEFT, CONTACT_RIGHT } from '../../src/features/contacts.js';
import type { MotionMatchingController } from '../../src/runtime/controller/controller.js';
import type { FootIK } from '../../src/runtime/foot-ik/foot-ik.js';
import { groupColumns } from '../../src/features/schema.js';

const PREDICTED = new THREE.Color(0x4fd8ff);
const MATCHED = new THREE.Color(0xff9a3c);
const CONTACT = new THREE.Color(0x58e07a);
const FREE = new THREE.Color(0x6f7882);
const LOCK = new THREE.Color(0xff4f5e);
const TARGET = new THREE.Color(0xffe14d);
const WHITE = new THREE.Color(0xffffff);

const MAX_SEGMENTS = 128;
const MAX_MARKERS = 32;

/**
 * The controller's foot IK state. It is a private field of MotionMatchingController today; read it
 * defensively so the view degrades to "contacts only" if that changes.
 */
export function footIkOf(c: MotionMatchingController): FootIK | null {
  return c.footIK;
}

export class DebugScene {
  readonly group = new THREE.Group();
  showTrajectories = true;
  showFeet = true;
  private readonly lines: THREE.LineSegments;
  private readonly linePos: Float32Array;
  private readonly lineCol: Float32Array;
  private nLines = 0;
  private readonly markers: THREE.InstancedMesh;
  private nMarkers = 0;
  private readonly m4 = new THREE.Matrix4();
  private readonly q = new THREE.Quaternion();
  private readonly v = new THREE.Vector3();
  private readonly s = new THREE.Vector3();
  private trajPos: Array<{ col: number; offsets: number[] }> = [];
  private trajDir: Array<{ col: number; offsets: number[] }> = [];

  constructor(scene: THREE.Scene, db: Database) {
    const g = new THREE.BufferGeometry();
    this.linePos = new Float32Array(MAX_SEGMENTS * 6);
    this.lineCol = new Float32Array(MAX_SEGMENTS * 6);
    g.setAttribute('position', new THREE.BufferAttribute(this.linePos, 3).setUsage(THREE.DynamicDrawUsage));
    g.setAttribute('color', new THREE.BufferAttribute(this.lineCol, 3).setUsage(THREE.DynamicDrawUsage));
    this.lines = new THREE.LineSegments(g, new THREE.LineBasicMaterial({ vertexColors: true }));
    this.lines.frustumCulled = false;
    this.lines.renderOrder = 10;
    // Flat discs on the ground (unit radius, scaled per marker).
    const disc = new THREE.CylinderGeometry(1, 1, 0.01, 20);
    this.markers = new THREE.InstancedMesh(disc, new THREE.MeshBasicMaterial({ color: 0xffffff, polygonOffset: true, polygonOffsetFactor: -2, polygonOffsetUnits: -2 }), MAX_MARKERS);
    this.markers.frustumCulled = false;
    this.markers.renderOrder = 11;
    this.markers.setColorAt(0, WHITE);
    this.group.add(this.lines, this.markers);
    scene.add(this.group);
    this.setDatabase(db);
  }

  setDatabase(db: Database): void {
    const cols = groupColumns(db.schema);
    this.trajPos = [];
    this.trajDir = [];
    db.schema.groups.forEach((g, i) => {
      const offsets = (g.offsets ?? []).filter((o) => o > 0);
      if (g.kind === 'trajectoryPosition' && offsets.length === (g.offsets ?? []).length) this.trajPos.push({ col: cols[i][0], offsets });
      if (g.kind === 'trajectoryDirection' && offsets.length === (g.offsets ?? []).length) this.trajDir.push({ col: cols[i][0], offsets });
    });
  }

  update(c: MotionMatchingController): void {
    this.nLines = 0;
    this.nMarkers = 0;
    const root = c.rootPosition;
    // The player's ring, at the root's height: on a terrain the root stands on the ground, not at y = 0.
    this.marker(root[0], root[2], 0.55, WHITE, 0.004, root[1]);
    this.marker(root[0], root[2], 0.5, FREE, 0.005, root[1]);
    if (this.showTrajectories) this.trajectories(c);
    if (this.showFeet) this.feet(c);
    const g = this.lines.geometry;
    g.setDrawRange(0, this.nLines * 2);
    (g.getAttribute('position') as THREE.BufferAttribute).needsUpdate = true;
    (g.getAttribute('color') as THREE.BufferAttribute).needsUpdate = true;
    this.markers.count = this.nMarkers;
    this.markers.instanceMatrix.needsUpdate = true;
    if (this.markers.instanceColor) this.markers.instanceColor.needsUpdate = true;
  }

  private trajectories(c: MotionMatchingController): void {
    // The controller predicts only when it searches; the view wants the prediction every frame.
    c.predictTrajectory();
    const root = c.rootPosition, rq = c.rootRotation;
    const lift = 0.02;
    // Predicted (simulation): world positions and rotations at c.trajectoryTimes, drawn on the ground
    // under each point (on a terrain the path rises and falls with it).
    let px = root[0], pz = root[2], py = root[1] + lift;
    for (let k = 0; k < c.trajectoryTimes.length; k++) {
      const x = c.trajectoryPositions[3 * k], z = c.trajectoryPositions[3 * k + 2], y = groundHeight(c, x, z) + lift;
      this.line(px, py, pz, x, y, z, PREDICTED);
      px = x; pz = z; py = y;
      this.marker(x, z, 0.075, PREDICTED, 0.006, y - lift);
      const fx = rotZx(c.trajectoryRotations, 4 * k), fz = rotZz(c.trajectoryRotations, 4 * k);
      this.line(x, y, z, x + 0.35 * fx, y, z + 0.35 * fz, PREDICTED);
    }
    // Matched clip's own future, from the playing frame's raw features (root-local x, z).
    const db = c.db, S = db.stride, f = c.frame, raw = db.rawFeatures;
    const qx = rq[0], qy = rq[1], qz = rq[2], qw = rq[3];
    const toWorld = (lx: number, lz: number, out: Float64Array): void => {
      // rotate (lx, 0, lz) by the root rotation
      const tx = 2 * (qy * lz), ty = 2 * (qz * lx - qx * lz), tz = 2 * (-qy * lx);
      out[0] = lx + qw * tx + (qy * tz - qz * ty);
      out[1] = qw * ty + (qz * tx - qx * tz);
      out[2] = lz + qw * tz + (qx * ty - qy * tx);
    };
    const w = scratch3, d = scratch3b;
    for (const g of this.trajPos) {
      let mx = root[0], mz = root[2], my = root[1] + lift + 0.01;
      for (let k = 0; k < g.offsets.length; k++) {
        toWorld(raw[f * S + g.col + 2 * k], raw[f * S + g.col + 2 * k + 1], w);
        const x = root[0] + w[0], z = root[2] + w[2], y = groundHeight(c, x, z) + lift + 0.01;
        this.line(mx, my, mz, x, y, z, MATCHED);
        mx = x; mz = z; my = y;
        this.marker(x, z, 0.055, MATCHED, 0.006, y - lift - 0.01);
        const dir = this.trajDir.find((t) => t.offsets.length === g.offsets.length);
        if (dir) {
          toWorld(raw[f * S + dir.col + 2 * k], raw[f * S + dir.col + 2 * k + 1], d);
          this.line(x, y, z, x + 0.35 * d[0], y, z + 0.35 * d[2], MATCHED);
        }
      }
    }
  }

  private feet(c: MotionMatchingController): void {
    const db = c.db, wp = c.worldPositions;
    const contacts = db.contacts[c.frame];
    const feet: Array<[number, number]> = [[db.roles.leftFoot, CONTACT_LEFT], [db.roles.rightFoot, CONTACT_RIGHT]];
    for (const [foot, bit] of feet) {
      if (foot < 0) continue;
      const on = (contacts & bit) !== 0;
      this.marker(wp[3 * foot], wp[3 * foot + 2], on ? 0.11 : 0.08, on ? CONTACT : FREE, 0.003, groundHeight(c, wp[3 * foot], wp[3 * foot + 2]));
    }
    const ik = footIkOf(c);
    if (!ik || !c.options.footIK) return;
    for (const leg of ik.legs) {
      const f = 3 * leg.foot;
      if (leg.locked) {
        this.marker(leg.lock[0], leg.lock[2], 0.045, LOCK, 0.008, groundHeight(c, leg.lock[0], leg.lock[2]));
      }
      const t = leg.target;
      const dx = t[0] - wp[f], dy = t[1] - wp[f + 1], dz = t[2] - wp[f + 2];
      if (dx * dx + dy * dy + dz * dz > 1e-6) this.line(wp[f], wp[f + 1], wp[f + 2], t[0], t[1], t[2], TARGET);
      this.marker(t[0], t[2], 0.025, TARGET, 0.01, t[1]);
    }
  }

  private line(ax: number, ay: number, az: number, bx: number, by: number, bz: number, col: THREE.Color): void {
    if (this.nLines >= MAX_SEGMENTS) return;
    const o = this.nLines++ * 6, p = this.linePos, c = this.lineCol;
    p[o] = ax; p[o + 1] = ay; p[o + 2] = az; p[o + 3] = bx; p[o + 4] = by; p[o + 5] = bz;
    c[o] = c[o + 3] = col.r; c[o + 1] = c[o + 4] = col.g; c[o + 2] = c[o + 5] = col.b;
  }

  private marker(x: number, z: number, radius: number, col: THREE.Color, lift = 0.006, y = 0): void {
    if (this.nMarkers >= MAX_MARKERS) return;
    const i = this.nMarkers++;
    this.v.set(x, y + lift, z);
    this.s.set(radius, 1, radius);
    this.m4.compose(this.v, this.q, this.s);
    this.markers.setMatrixAt(i, this.m4);
    this.markers.setColorAt(i, col);
  }
}

const scratch3 = new Float64Array(3);
const scratch3b = new Float64Array(3);
const groundAt = new Float64Array(3);
const groundOut = new Float64Array(4);

/** The height of the controller's ground under (x, z): 0 on flat ground (no `ground` option). */
function groundHeight(c: MotionMatchingController, x: number, z: number): number {
  const ground = c.options.ground;
  if (ground === null) return 0;
  groundAt[0] = x; groundAt[1] = c.rootPosition[1]; groundAt[2] = z;
  ground.sample(groundAt, groundOut);
  return Number.isFinite(groundOut[0]) ? groundOut[0] : c.rootPosition[1];
}

/** x and z of the rotation's forward (+Z) axis. */
function rotZx(q: Float64Array, o: number): number {
  return 2 * (q[o] * q[o + 2] + q[o + 3] * q[o + 1]);
}
function rotZz(q: Float64Array, o: number): number {
  return 1 - 2 * (q[o] * q[o] + q[o + 1] * q[o + 1]);
}
