/**
 * Character drawing: every bone a solid limb between two joints (or a joint and an end site).
 *
 * - The crowd: ONE InstancedMesh holding every bone of every agent (a box per bone, twisted with
 *   its joint so limbs do not spin), matrices written straight into the instance buffer.
 * - The player: a capsule mesh per bone, brighter, so it stands out in the crowd.
 *
 * Both read the controllers' world joint positions and rotations (after foot IK).
 */
import * as THREE from 'three';
import type { Database } from '../../src/database/database.js';
import type { MotionMatchingController } from '../../src/runtime/controller/controller.js';
import type { PoseChunk } from './crowd.js';

/** The limbs of a skeleton: segments from a joint to a child joint or to an end site. */
export interface BoneSegments {
  count: number;
  /** Joint at the start of each segment (its world rotation also twists the limb). */
  from: Int32Array;
  /** Joint at the end, or -1 for an end site at endOffset (in `from`'s frame). */
  to: Int32Array;
  endOffset: Float64Array;
  radius: Float32Array;
  /** Rest length (m). */
  length: Float32Array;
}

const ROLE_RADII: Array<[RegExp, number]> = [
  [/finger|thumb|index|middle|ring|pinky|little/, 0.012],
  [/head/, 0.095],
  [/neck/, 0.05],
  [/toe/, 0.033],
  [/foot|ankle/, 0.045],
  [/hand|wrist|palm/, 0.034],
  [/fore|lower_?arm|lowerarm|elbow/, 0.04],
  [/clav|collar|shoulder/, 0.05],
  [/arm/, 0.048],
  [/thigh|up_?leg|upper_?leg|upleg/, 0.075],
  [/calf|shin|knee|lower_?leg|leg/, 0.056],
  [/spine|chest|torso|abdomen|back|belly/, 0.11],
];

/** A radius for the limb from joint `from` to `toName` (or an end site), by name, else by length. */
function limbRadius(fromName: string, toName: string | null, length: number, fromIsHips: boolean): number {
  const n = fromName.toLowerCase();
  if (fromIsHips) {
    // Hips to a leg: the hip joint; hips to the spine: the lower back.
    return toName && /leg|thigh|hip/i.test(toName) ? 0.07 : 0.115;
  }
  for (const [re, r] of ROLE_RADII) if (re.test(n)) return Math.min(r, Math.max(0.012, 0.6 * length));
  return Math.min(0.06, Math.max(0.015, 0.15 * length));
}

export function boneSegments(db: Database): BoneSegments {
  const s = db.skeleton, parents = s.parents, J = s.names.length, hips = db.roles.hips;
  // Joints above the hips only place the clip in the world (rebased away): draw nothing for them.
  const above = new Uint8Array(J);
  for (let j = parents[hips]; j >= 0; j = parents[j]) above[j] = 1;
  const from: number[] = [], to: number[] = [], off: number[] = [], radius: number[] = [], length: number[] = [];
  for (let j = 1; j < J; j++) {
    const p = parents[j];
    if (p < 0 || above[p] || above[j]) continue;
    const len = Math.hypot(s.offsets[3 * j], s.offsets[3 * j + 1], s.offsets[3 * j + 2]);
    if (len < 0.01) continue;
    from.push(p); to.push(j); off.push(0, 0, 0);
    radius.push(limbRadius(s.names[p], s.names[j], len, p === hips)); length.push(len);
  }
  for (let e = 0; e < s.endSiteParents.length; e++) {
    const p = s.endSiteParents[e];
    if (above[p]) continue;
    const o = [s.endSiteOffsets[3 * e], s.endSiteOffsets[3 * e + 1], s.endSiteOffsets[3 * e + 2]];
    const len = Math.hypot(o[0], o[1], o[2]);
    if (len < 0.01) continue;
    from.push(p); to.push(-1); off.push(o[0], o[1], o[2]);
    radius.push(limbRadius(s.names[p], null, len, false)); length.push(len);
  }
  return {
    count: from.length,
    from: Int32Array.from(from), to: Int32Array.from(to), endOffset: Float64Array.from(off),
    radius: Float32Array.from(radius), length: Float32Array.from(length),
  };
}

type Floats = Float32Array | Float64Array;

/**
 * Writes the world-space segment of limb `s` into out (ax, ay, az, bx, by, bz), from world joint
 * positions P (3 per joint, from offset po) and rotations R (4 per joint, from offset ro).
 */
function segmentEnds(seg: BoneSegments, s: number, P: Floats, po: number, R: Floats, ro: number, out: Float64Array): void {
  const p = seg.from[s], t = seg.to[s];
  const ax = P[po + 3 * p], ay = P[po + 3 * p + 1], az = P[po + 3 * p + 2];
  out[0] = ax; out[1] = ay; out[2] = az;
  if (t >= 0) {
    out[3] = P[po + 3 * t]; out[4] = P[po + 3 * t + 1]; out[5] = P[po + 3 * t + 2];
    return;
  }
  const qx = R[ro + 4 * p], qy = R[ro + 4 * p + 1], qz = R[ro + 4 * p + 2], qw = R[ro + 4 * p + 3];
  const vx = seg.endOffset[3 * s], vy = seg.endOffset[3 * s + 1], vz = seg.endOffset[3 * s + 2];
  const tx = 2 * (qy * vz - qz * vy), ty = 2 * (qz * vx - qx * vz), tz = 2 * (qx * vy - qy * vx);
  out[3] = ax + vx + qw * tx + (qy * tz - qz * ty);
  out[4] = ay + vy + qw * ty + (qz * tx - qx * tz);
  out[5] = az + vz + qw * tz + (qx * ty - qy * tx);
}

/** What the crowd mesh may draw this frame. */
export interface CrowdView {
  /** Agents whose bounding sphere is outside are skipped. */
  frustum: THREE.Frustum;
  /** Where "near" is measured from (the camera's target), x and z. */
  x: number;
  z: number;
  /** Draw at most this many agents, the nearest first (software WebGL cannot draw thousands). */
  maxDrawn: number;
}

/** The crowd: one InstancedMesh for all bones of all agents. */
export class CrowdMesh {
  private mesh: THREE.InstancedMesh | null = null;
  private capacity = 0;
  private readonly geometry: THREE.BufferGeometry;
  private readonly material: THREE.MeshLambertMaterial;
  private readonly ends = new Float64Array(6);
  private readonly color = new THREE.Color();
  private readonly sphere = new THREE.Sphere(new THREE.Vector3(), 1.3);
  private drawList = new Int32Array(0);
  private distances = new Float64Array(0);
  private order: number[] = [];
  private agentColours = new Float32Array(0);
  visible = true;
  /** Agents drawn in the last update (after culling). */
  drawn = 0;

  constructor(private readonly scene: THREE.Scene, private seg: BoneSegments) {
    // A unit box from y = 0 to 1, x and z in [-1, 1]: scaled per instance to (radius, length, radius).
    this.geometry = new THREE.BoxGeometry(2, 1, 2).translate(0, 0.5, 0);
    this.material = new THREE.MeshLambertMaterial({ color: 0xffffff });
  }

  /** A new skeleton (another database): rebuild the instance layout. */
  setSegments(seg: BoneSegments): void {
    this.seg = seg;
    this.dispose();
  }

  /** Colour of agent a (golden-ratio hues: neighbours differ, the palette stays calm). */
  private colours(count: number): Float32Array {
    if (this.agentColours.length < 3 * count) {
      const old = this.agentColours.length / 3;
      const next = new Float32Array(3 * Math.max(count, 2 * old));
      next.set(this.agentColours);
      for (let a = old; a < next.length / 3; a++) {
        this.color.setHSL((a * 0.61803398875) % 1, 0.42, 0.56);
        next[3 * a] = this.color.r; next[3 * a + 1] = this.color.g; next[3 * a + 2] = this.color.b;
      }
      this.agentColours = next;
    }
    return this.agentColours;
  }

  /**
   * Picks the agents to draw: inside the view, then the nearest maxDrawn. Agents are numbered
   * across the chunks (chunk 0 first). Returns how many.
   */
  private select(chunks: readonly PoseChunk[], total: number, view: CrowdView, skip: Uint8Array | null): number {
    if (this.drawList.length < total) {
      this.drawList = new Int32Array(Math.max(total, 2 * this.drawList.length));
      this.distances = new Float64Array(this.drawList.length);
    }
    const list = this.drawList, dist = this.distances, centre = this.sphere.center;
    let n = 0, a = 0;
    for (const chunk of chunks) {
      const r = chunk.roots, held = chunk.held;
      for (let i = 0; i < chunk.count; i++, a++) {
        // A pose held while the agent was out of view (levels of detail) is stale: drawn from the next step.
        if (held[i] !== 0) continue;
        // Drawn as the user's character instead (web/src/character.ts).
        if (skip !== null && skip[a] !== 0) continue;
        const x = r[3 * i], z = r[3 * i + 2];
        centre.set(x, 0.9, z);
        if (!view.frustum.intersectsSphere(this.sphere)) continue;
        list[n++] = a;
        dist[a] = (x - view.x) * (x - view.x) + (z - view.z) * (z - view.z);
      }
    }
    if (n <= view.maxDrawn) return n;
    const order = this.order;
    order.length = n;
    for (let i = 0; i < n; i++) order[i] = list[i];
    order.sort((p, q) => dist[p] - dist[q]);
    const k = Math.max(0, view.maxDrawn);
    for (let i = 0; i < k; i++) list[i] = order[i];
    // Back in agent order, so the chunk walk below moves forwards only.
    list.subarray(0, k).sort();
    return k;
  }

  /**
   * Draws the visible agents of `chunks` (world poses of a skeleton with `joints` joints), except
   * those marked in `skip` (agents drawn as a loaded character).
   */
  update(chunks: readonly PoseChunk[], joints: number, view: CrowdView, skip: Uint8Array | null = null): void {
    const seg = this.seg, S = seg.count, F = joints * 7;
    let total = 0;
    for (const c of chunks) total += c.count;
    const drawn = this.visible && total > 0 ? this.select(chunks, total, view, skip) : 0;
    this.drawn = drawn;
    const instances = drawn * S;
    if (instances > this.capacity) this.grow(instances);
    const mesh = this.mesh;
    if (!mesh) return;
    mesh.visible = drawn > 0;
    mesh.count = instances;
    if (!mesh.visible) return;
    const colours = this.colours(total);
    const cols = mesh.instanceColor!.array as Float32Array;
    const m = mesh.instanceMatrix.array as Float32Array;
    const e = this.ends, list = this.drawList;
    let o = 0, oc = 0;
    let ci = 0, chunkStart = 0;
    for (let i = 0; i < drawn; i++) {
      const a = list[i];
      while (a >= chunkStart + chunks[ci].count) chunkStart += chunks[ci++].count;
      const P = chunks[ci].poses, po = (a - chunkStart) * F, ro = po + 3 * joints;
      const cr = colours[3 * a], cg = colours[3 * a + 1], cb = colours[3 * a + 2];
      for (let s = 0; s < S; s++, o += 16, oc += 3) {
        cols[oc] = cr; cols[oc + 1] = cg; cols[oc + 2] = cb;
        segmentEnds(seg, s, P, po, P, ro, e);
        let yx = e[3] - e[0], yy = e[4] - e[1], yz = e[5] - e[2];
        const len = Math.sqrt(yx * yx + yy * yy + yz * yz);
        if (len < 1e-6) {
          for (let k = 0; k < 16; k++) m[o + k] = 0;
          continue;
        }
        yx /= len; yy /= len; yz /= len;
        // Twist: the start joint's X axis, made perpendicular to the limb (its Z axis if parallel).
        const p = ro + 4 * seg.from[s];
        const qx = P[p], qy = P[p + 1], qz = P[p + 2], qw = P[p + 3];
        let xx = 1 - 2 * (qy * qy + qz * qz), xy = 2 * (qx * qy + qw * qz), xz = 2 * (qx * qz - qw * qy);
        let d = xx * yx + xy * yy + xz * yz;
        xx -= d * yx; xy -= d * yy; xz -= d * yz;
        let xl = Math.sqrt(xx * xx + xy * xy + xz * xz);
        if (xl < 1e-3) {
          xx = 2 * (qx * qz + qw * qy); xy = 2 * (qy * qz - qw * qx); xz = 1 - 2 * (qx * qx + qy * qy);
          d = xx * yx + xy * yy + xz * yz;
          xx -= d * yx; xy -= d * yy; xz -= d * yz;
          xl = Math.sqrt(xx * xx + xy * xy + xz * xz) || 1;
        }
        const r = 0.8 * seg.radius[s];
        xx *= r / xl; xy *= r / xl; xz *= r / xl;
        // z = x × y (right-handed), already of length r.
        const zx = xy * yz - xz * yy, zy = xz * yx - xx * yz, zz = xx * yy - xy * yx;
        m[o] = xx; m[o + 1] = xy; m[o + 2] = xz; m[o + 3] = 0;
        m[o + 4] = yx * len; m[o + 5] = yy * len; m[o + 6] = yz * len; m[o + 7] = 0;
        m[o + 8] = zx; m[o + 9] = zy; m[o + 10] = zz; m[o + 11] = 0;
        m[o + 12] = e[0]; m[o + 13] = e[1]; m[o + 14] = e[2]; m[o + 15] = 1;
      }
    }
    const attr = mesh.instanceMatrix;
    attr.clearUpdateRanges();
    attr.addUpdateRange(0, instances * 16);
    attr.needsUpdate = true;
    const colour = mesh.instanceColor!;
    colour.clearUpdateRanges();
    colour.addUpdateRange(0, instances * 3);
    colour.needsUpdate = true;
  }

  dispose(): void {
    if (this.mesh) {
      this.scene.remove(this.mesh);
      this.mesh.dispose();
    }
    this.mesh = null;
    this.capacity = 0;
  }

  private grow(instances: number): void {
    const previous = this.capacity;
    this.dispose();
    const cap = Math.max(instances, Math.ceil(previous * 1.5), 64 * Math.max(1, this.seg.count));
    const mesh = new THREE.InstancedMesh(this.geometry, this.material, cap);
    mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    mesh.instanceColor = new THREE.InstancedBufferAttribute(new Float32Array(3 * cap), 3).setUsage(THREE.DynamicDrawUsage);
    // Instances move every frame across the whole crowd: cull per agent (above), never the mesh.
    mesh.frustumCulled = false;
    this.scene.add(mesh);
    this.mesh = mesh;
    this.capacity = cap;
  }
}

/** The player: a capsule per bone. */
export class PlayerMesh {
  readonly group = new THREE.Group();
  private readonly meshes: THREE.Mesh[] = [];
  private readonly ends = new Float64Array(6);
  private readonly dir = new THREE.Vector3();
  private static readonly UP = new THREE.Vector3(0, 1, 0);
  private readonly material = new THREE.MeshLambertMaterial({ color: 0xffa64d });
  private readonly headMaterial = new THREE.MeshLambertMaterial({ color: 0xffd27f });

  constructor(private readonly scene: THREE.Scene, private seg: BoneSegments) {
    this.build();
    scene.add(this.group);
  }

  setSegments(seg: BoneSegments): void {
    this.seg = seg;
    this.build();
  }

  update(c: MotionMatchingController): void {
    const seg = this.seg, e = this.ends;
    for (let s = 0; s < seg.count; s++) {
      segmentEnds(seg, s, c.worldPositions, 0, c.worldRotations, 0, e);
      const mesh = this.meshes[s];
      this.dir.set(e[3] - e[0], e[4] - e[1], e[5] - e[2]);
      const len = this.dir.length();
      if (len < 1e-6) { mesh.visible = false; continue; }
      mesh.visible = true;
      this.dir.multiplyScalar(1 / len);
      mesh.position.set(0.5 * (e[0] + e[3]), 0.5 * (e[1] + e[4]), 0.5 * (e[2] + e[5]));
      mesh.quaternion.setFromUnitVectors(PlayerMesh.UP, this.dir);
      mesh.scale.set(1, len / seg.length[s], 1);
    }
  }

  dispose(): void {
    this.clear();
    this.scene.remove(this.group);
  }

  private clear(): void {
    for (const m of this.meshes) {
      this.group.remove(m);
      m.geometry.dispose();
    }
    this.meshes.length = 0;
  }

  private build(): void {
    this.clear();
    const seg = this.seg;
    for (let s = 0; s < seg.count; s++) {
      const r = seg.radius[s], len = seg.length[s];
      const geometry = new THREE.CapsuleGeometry(r, Math.max(0.001, len - r), 3, 10);
      const isHead = seg.to[s] < 0 && r >= 0.08;
      const mesh = new THREE.Mesh(geometry, isHead ? this.headMaterial : this.material);
      this.meshes.push(mesh);
      this.group.add(mesh);
    }
  }
}
