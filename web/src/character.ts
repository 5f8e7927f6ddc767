/**
 * A skinned character of the user's (a dropped .glb / .gltf / .vrm, `demo --character FILE`,
 * `?character=URL`) drawn for the player and the crowd instead of the box figures.
 *
 * - The loaded scene is kept unposed (the adapter reads the bind pose from the node transforms);
 *   the player and every crowd character are SkeletonUtils clones of it, sharing its geometry and
 *   materials, each driven by its own ThreeRetargeter (src/three/, docs/three.md).
 * - The player's retargeter reads the player's controller directly. The agents may live in workers
 *   that send back only flat world poses (PoseChunk): an agent's pose is copied into a small adapter
 *   object shaped like a controller (RetargetSource) and applied from there.
 * - Only the nearest `maxClones` agents in view are drawn as the character (skinning costs far more
 *   than the engine's step, docs/three.md "Cost"); a clone follows its agent while it stays in that
 *   set and is handed to another one when it leaves. The other agents stay box figures.
 * - Everything per frame works on arrays made when the character is built or the crowd grows.
 */
import * as THREE from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { clone as cloneSkinned } from 'three/examples/jsm/utils/SkeletonUtils.js';
import type { Database } from '../../src/database/database.js';
import type { Ground } from '../../src/runtime/ground/ground.js';
import { ThreeRetargeter, ThreeRigError, parseGlb, type BoneMapEntry, type RetargetSource } from '../../src/three/index.js';
import { fileExtension } from '../../src/web/served-character.js';
import type { PoseChunk } from './crowd.js';
import type { CrowdView } from './characters.js';

/** Largest crowd drawn as the character (the rest are box figures): with a GPU, and in software WebGL. */
export const MAX_CHARACTER_CLONES = 150;
export const MAX_CHARACTER_CLONES_SOFTWARE = 40;

const GLB_MAGIC = 0x46546c67; // "glTF"

/** One line for any failure to read or use a character file (ThreeRigError messages as they are). */
export function characterErrorMessage(name: string, e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  const line = text.split('\n')[0];
  return e instanceof ThreeRigError ? `${name}: ${line}` : `${name}: could not load the character: ${line}`;
}

/**
 * Parses a character file's bytes with three's GLTFLoader: a GLB (.glb, .vrm) through the adapter's
 * parseGlb (container checked first: a truncated file or a header claiming 2 GB is one line), glTF
 * JSON (.gltf with embedded buffers) directly. VRM extensions are ignored: the scene is enough.
 */
export async function parseCharacter(bytes: ArrayBuffer, name: string): Promise<GLTF> {
  const loader = new GLTFLoader();
  const glb = bytes.byteLength >= 4 && new DataView(bytes).getUint32(0, true) === GLB_MAGIC;
  if (!glb && fileExtension(name) === '.gltf') {
    try {
      return await loader.parseAsync(bytes, '');
    } catch (e) {
      throw new ThreeRigError('glb', `three's GLTFLoader refused it: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);
    }
  }
  return parseGlb(bytes, loader);
}

/**
 * Moves the `k` entries of order[0..n) with the smallest dist[cand[order[i]]] to the front (in no
 * particular order): quickselect, in place.
 */
function nearestFirst(order: Int32Array, n: number, k: number, cand: Int32Array, dist: Float64Array): void {
  let lo = 0, hi = n - 1;
  while (lo < hi) {
    const pivot = dist[cand[order[(lo + hi) >> 1]]];
    let i = lo, j = hi;
    while (i <= j) {
      while (dist[cand[order[i]]] < pivot) i++;
      while (dist[cand[order[j]]] > pivot) j--;
      if (i <= j) { const t = order[i]; order[i] = order[j]; order[j] = t; i++; j--; }
    }
    // [lo..j] <= pivot <= [i..hi]: keep to the side holding position k - 1.
    if (k - 1 <= j) hi = j;
    else if (k - 1 >= i) lo = i;
    else return;
  }
}

/** A controller-shaped view of one agent's pose from a PoseChunk (what ThreeRetargeter.apply reads). */
class AgentPose implements RetargetSource {
  readonly rootPosition = new Float64Array(3);
  /**
   * Identity: the chunks carry no root rotation. The retargeter expresses the pose in the root's
   * frame and turns it back by the same rotation, so any turn about +Y gives the same world pose
   * (the character's root object then keeps its file's facing; the hips carry the turn).
   */
  readonly rootRotation = Float64Array.of(0, 0, 0, 1);
  readonly worldPositions: Float64Array;
  readonly worldRotations: Float64Array;
  readonly options: { ground: Ground | null } = { ground: null };

  constructor(readonly db: Database) {
    const J = db.skeleton.names.length;
    this.worldPositions = new Float64Array(3 * J);
    this.worldRotations = new Float64Array(4 * J);
  }

  /** Copies agent `i` of `chunk` (no views made: nothing allocated). */
  read(chunk: PoseChunk, i: number, ground: Ground | null): void {
    const J = this.worldPositions.length / 3, F = 7 * J, P = chunk.poses, po = i * F, ro = po + 3 * J;
    const wp = this.worldPositions, wr = this.worldRotations, r = chunk.roots;
    for (let k = 0; k < 3 * J; k++) wp[k] = P[po + k];
    for (let k = 0; k < 4 * J; k++) wr[k] = P[ro + k];
    this.rootPosition[0] = r[3 * i]; this.rootPosition[1] = r[3 * i + 1]; this.rootPosition[2] = r[3 * i + 2];
    this.options.ground = ground;
  }
}

interface Clone {
  root: THREE.Object3D;
  rig: ThreeRetargeter;
  /** The agent it draws (-1: free, hidden). */
  agent: number;
}

/** What the page's automation handle reads about the player's character. */
export interface CharacterSample {
  /** Where the character stands (world, m). */
  position: [number, number, number];
  /** World positions of the foot joints the character has (ankles, toes). */
  feet: Record<string, [number, number, number]>;
  /** The lowest of them (m). */
  lowest: number;
  /** The engine's lowest foot joint (ankles, toes) in the same frame, for comparison (m; NaN without a controller). */
  engineLowest: number;
}

export class CharacterView {
  readonly boneMap: readonly BoneMapEntry[];
  readonly legRatio: number;
  private readonly player: ThreeRetargeter;
  private readonly playerRoot: THREE.Object3D;
  private readonly clones: Clone[] = [];
  private readonly pose: AgentPose;
  private readonly sphere = new THREE.Sphere(new THREE.Vector3(), 1.3);
  private candidates = new Int32Array(0);
  private candidateChunk = new Int32Array(0);
  private candidateLocal = new Int32Array(0);
  private distances = new Float64Array(0);
  private order = new Int32Array(0);
  /** Per agent: the clone drawing it (-1: none); 1 in `skip` when it is drawn as the character. */
  private agentClone = new Int32Array(0);
  /** Per agent: 1 when drawn as the character this frame (the box figures skip it). */
  skip = new Uint8Array(0);
  private lastTotal = -1;
  private readonly footBones: Array<[string, THREE.Object3D]>;
  private readonly v = new THREE.Vector3();
  /** Agents drawn as the character in the last frame. */
  drawnClones = 0;

  /**
   * Builds the player's character from the unposed `source` (a loaded glTF scene): throws a
   * ThreeRigError (one line) when it cannot be driven. Nothing is added to the scene until it worked.
   */
  constructor(private readonly scene: THREE.Scene, private readonly source: THREE.Object3D, readonly db: Database, readonly name: string, readonly maxClones: number) {
    this.playerRoot = CharacterView.copy(source);
    this.player = ThreeRetargeter.fromGltf(this.playerRoot, db);
    this.boneMap = this.player.boneMap;
    this.legRatio = this.player.legRatio;
    this.pose = new AgentPose(db);
    const roles = this.player.rig.bones.roles;
    this.footBones = (['leftFoot', 'rightFoot', 'leftToes', 'rightToes'] as const)
      .filter((r) => roles[r] >= 0)
      .map((r) => [r, this.player.rig.objects[roles[r]]]);
    scene.add(this.playerRoot);
  }

  /** A clone of the unposed source sharing geometry and materials; culled by the page per agent, not by three. */
  private static copy(source: THREE.Object3D): THREE.Object3D {
    const root = cloneSkinned(source);
    root.traverse((o) => { if ((o as THREE.SkinnedMesh).isSkinnedMesh) o.frustumCulled = false; });
    return root;
  }

  /** Where the player's character stands (world). */
  get position(): Float64Array {
    return this.player.position;
  }

  /** Poses the player's character from its controller (after the engine's step). */
  updatePlayer(c: RetargetSource, visible: boolean): void {
    this.playerRoot.visible = visible;
    this.player.apply(c);
  }

  /**
   * Draws the nearest agents in view as the character (at most maxClones; `enabled` false: none),
   * marking them in `skip` so the box figures leave them out. Agents are numbered across the chunks.
   */
  updateCrowd(chunks: readonly PoseChunk[], view: CrowdView, ground: Ground | null, enabled: boolean): void {
    let total = 0;
    for (const c of chunks) total += c.count;
    if (this.agentClone.length < total) this.grow(total);
    // Another crowd (agents added, removed or re-split over workers): start the assignment afresh.
    if (total !== this.lastTotal) {
      for (const c of this.clones) this.free(c);
      this.agentClone.fill(-1);
      this.lastTotal = total;
    }
    const skip = this.skip;
    skip.fill(0, 0, total);
    const n = enabled ? this.select(chunks, view) : 0;
    // Release the clones whose agent is no longer wanted; keep the others where they are.
    for (let k = 0; k < n; k++) skip[this.candidates[k]] = 1;
    for (const c of this.clones) {
      if (c.agent >= 0 && (c.agent >= total || skip[c.agent] === 0)) { this.agentClone[c.agent] = -1; this.free(c); }
    }
    let drawn = 0;
    for (let k = 0; k < n; k++) {
      const a = this.candidates[k];
      let ci = this.agentClone[a];
      if (ci < 0) {
        ci = this.takeClone();
        if (ci < 0) { skip[a] = 0; continue; }
        const c = this.clones[ci];
        c.agent = a;
        c.rig.resetPlacement();
        c.root.visible = true;
        this.agentClone[a] = ci;
      }
      this.pose.read(chunks[this.candidateChunk[k]], this.candidateLocal[k], ground);
      this.clones[ci].rig.apply(this.pose);
      drawn++;
    }
    this.drawnClones = drawn;
  }

  /** Agents in view and not held (levels of detail), the nearest maxClones first; returns how many. */
  private select(chunks: readonly PoseChunk[], view: CrowdView): number {
    const cand = this.candidates, dist = this.distances, centre = this.sphere.center;
    let n = 0, a = 0;
    for (let ci = 0; ci < chunks.length; ci++) {
      const chunk = chunks[ci], r = chunk.roots, held = chunk.held;
      for (let i = 0; i < chunk.count; i++, a++) {
        if (held[i] !== 0) continue;
        const x = r[3 * i], z = r[3 * i + 2];
        centre.set(x, r[3 * i + 1] + 0.9, z);
        if (!view.frustum.intersectsSphere(this.sphere)) continue;
        cand[n] = a; this.candidateChunk[n] = ci; this.candidateLocal[n] = i; n++;
        dist[a] = (x - view.x) * (x - view.x) + (z - view.z) * (z - view.z);
      }
    }
    const max = Math.min(this.maxClones, view.maxDrawn);
    if (n <= max) return n;
    // The nearest `max` (in no particular order), by quickselect on positions in the candidate list
    // (in place, nothing allocated; Array.prototype.sort copies into a work array).
    const order = this.order;
    for (let k = 0; k < n; k++) order[k] = k;
    nearestFirst(order, n, max, cand, dist);
    const keep = this.candidateChunk, local = this.candidateLocal, scratch = this.scratch;
    for (let k = 0; k < max; k++) {
      const from = order[k];
      scratch[3 * k] = cand[from]; scratch[3 * k + 1] = keep[from]; scratch[3 * k + 2] = local[from];
    }
    for (let k = 0; k < max; k++) { cand[k] = scratch[3 * k]; keep[k] = scratch[3 * k + 1]; local[k] = scratch[3 * k + 2]; }
    return max;
  }

  private scratch = new Int32Array(0);

  private grow(total: number): void {
    const n = Math.max(total, 2 * this.agentClone.length, 64);
    this.candidates = new Int32Array(n);
    this.candidateChunk = new Int32Array(n);
    this.candidateLocal = new Int32Array(n);
    this.scratch = new Int32Array(3 * n);
    this.order = new Int32Array(n);
    this.distances = new Float64Array(n);
    this.agentClone = new Int32Array(n).fill(-1);
    this.skip = new Uint8Array(n);
    this.lastTotal = -1;
  }

  /** A free clone (made when there are fewer than maxClones), or -1. */
  private takeClone(): number {
    for (let i = 0; i < this.clones.length; i++) if (this.clones[i].agent < 0) return i;
    if (this.clones.length >= this.maxClones) return -1;
    const root = CharacterView.copy(this.source);
    // The crowd's path: skinning matrices written straight from the pose, bones out of the scene
    // graph (nothing reads a clone's bones), geometry shared by every clone (docs/three.md).
    const rig = new ThreeRetargeter(this.db, root, { output: 'matrices' });
    root.visible = false;
    this.scene.add(root);
    this.clones.push({ root, rig, agent: -1 });
    return this.clones.length - 1;
  }

  private free(c: Clone): void {
    c.agent = -1;
    c.root.visible = false;
  }

  /** The player's foot joints now (world), for the handle; `c`: the player's controller (the engine's feet beside them). */
  sample(c: RetargetSource | null = null): CharacterSample {
    this.playerRoot.updateMatrixWorld(true);
    const feet: Record<string, [number, number, number]> = {};
    let lowest = Infinity;
    for (const [role, bone] of this.footBones) {
      bone.getWorldPosition(this.v);
      feet[role] = [this.v.x, this.v.y, this.v.z];
      lowest = Math.min(lowest, this.v.y);
    }
    let engineLowest = Number.NaN;
    if (c) {
      const r = c.db.roles;
      for (const j of [r.leftFoot, r.rightFoot, r.leftToe, r.rightToe]) if (j >= 0) engineLowest = Math.min(Number.isNaN(engineLowest) ? Infinity : engineLowest, c.worldPositions[3 * j + 1]);
    }
    const p = this.player.position;
    return { position: [p[0], p[1], p[2]], feet, lowest, engineLowest };
  }

  /** Every bone of the player's skinned meshes: its name and world matrix (16 numbers, column-major). */
  boneMatrices(): Array<{ name: string; matrix: number[] }> {
    this.playerRoot.updateMatrixWorld(true);
    const out: Array<{ name: string; matrix: number[] }> = [];
    const seen = new Set<THREE.Object3D>();
    this.playerRoot.traverse((o) => {
      const m = o as THREE.SkinnedMesh;
      if (!m.isSkinnedMesh) return;
      for (const b of m.skeleton.bones) {
        if (seen.has(b)) continue;
        seen.add(b);
        out.push({ name: b.name, matrix: b.matrixWorld.toArray() });
      }
    });
    return out;
  }

  /** Removes the player and the clones from the scene (the shared geometry stays with the source). */
  dispose(): void {
    const drop = (root: THREE.Object3D): void => {
      this.scene.remove(root);
      root.traverse((o) => { const m = o as THREE.SkinnedMesh; if (m.isSkinnedMesh) m.skeleton.dispose(); });
    };
    drop(this.playerRoot);
    for (const c of this.clones) drop(c.root);
    this.clones.length = 0;
  }
}

/** Frees what a loaded character's clones shared (geometry, materials, textures). */
export function disposeCharacterSource(source: THREE.Object3D): void {
  source.traverse((o) => {
    const m = o as THREE.Mesh;
    if (!m.isMesh) return;
    m.geometry.dispose();
    const materials = Array.isArray(m.material) ? m.material : [m.material];
    for (const mat of materials) {
      for (const v of Object.values(mat)) if (v instanceof THREE.Texture) v.dispose();
      mat.dispose();
    }
  });
}
