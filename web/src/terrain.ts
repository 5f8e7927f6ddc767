/**
 * Uneven ground in the demo: which terrain the crowd walks on (flat, hills, steps: the same seeded
 * terrains as `motionmatch simulate --terrain`, src/sim/terrain/terrain.ts) and its three.js mesh, a window
 * of the height field around the player that follows them (the terrains tile, so the window is
 * rebuilt where the player goes). Drawn cheaply on purpose: one Lambert mesh with vertex colours by
 * height, a vertex budget that keeps software WebGL going.
 */
import * as THREE from 'three';
import type { HeightField } from '../../src/runtime/ground/height-field.js';
import { terrainGround, type TerrainSpec } from '../../src/sim/terrain/terrain.js';

/** What the terrain control offers. */
export type TerrainChoice = 'off' | 'hills' | 'steps';
export const TERRAIN_CHOICES: readonly TerrainChoice[] = ['off', 'hills', 'steps'];

/** The terrains' seed in the demo (the simulation's default seed, so the demo shows what `simulate --terrain` runs on). */
const DEMO_SEED = 1;

declare module './handle.js' {
  interface MotionmatchHandle {
    /** The ground the crowd walks on: 'off' (flat), 'hills' or 'steps'. */
    readonly terrain: TerrainChoice;
    /** Switches the ground of every character (applied between frames); the mesh follows. */
    setTerrain(choice: TerrainChoice): Promise<void>;
  }
}

/** The terrain a choice stands for (null: flat ground). */
export function terrainSpec(choice: TerrainChoice): TerrainSpec | null {
  if (!TERRAIN_CHOICES.includes(choice)) throw new RangeError(`terrain must be one of ${TERRAIN_CHOICES.join(', ')}, got ${String(choice)}`);
  return choice === 'off' ? null : { kind: choice, seed: DEMO_SEED };
}

/** Vertices per side of the drawn window at most, and the window's largest side (m). */
const MAX_SIDE_VERTICES = 321;
const MAX_WINDOW = 64;
/** The window is rebuilt around the player once they are this share of its side from its centre. */
const RECENTRE = 0.2;

const LOW = new THREE.Color(0x2f3a33), HIGH = new THREE.Color(0x8a9a7a), EDGE = new THREE.Color(0x55606b);

export class TerrainView {
  private readonly mesh: THREE.Mesh<THREE.BufferGeometry, THREE.MeshLambertMaterial>;
  private field: HeightField | null = null;
  private centreX = Number.NaN;
  private centreZ = Number.NaN;
  private step = 1;
  private side = 0;
  private range: [number, number] = [0, 1];
  private readonly normal = new Float64Array(3);

  constructor(scene: THREE.Scene) {
    this.mesh = new THREE.Mesh(new THREE.BufferGeometry(), new THREE.MeshLambertMaterial({ vertexColors: true }));
    this.mesh.visible = false;
    this.mesh.frustumCulled = false;
    scene.add(this.mesh);
  }

  get visible(): boolean {
    return this.mesh.visible;
  }

  /** Shows the terrain (or hides the mesh: flat ground). */
  show(spec: TerrainSpec | null): void {
    this.field = spec ? terrainGround(spec) : null;
    this.mesh.visible = this.field !== null;
    this.centreX = Number.NaN;
    if (!this.field) return;
    // The grid's own spacing where the budget allows (a step's riser drawn as sharp as it is walked).
    const side = Math.min(MAX_WINDOW, (MAX_SIDE_VERTICES - 1) * this.field.spacing);
    this.step = Math.max(this.field.spacing, side / (MAX_SIDE_VERTICES - 1));
    this.side = Math.round(side / this.step) + 1;
    this.range = this.field.heightRange();
    this.allocate();
  }

  /** Keeps the window under the player at (x, z). */
  follow(x: number, z: number): void {
    const f = this.field;
    if (!f) return;
    const half = 0.5 * (this.side - 1) * this.step;
    if (Math.abs(x - this.centreX) < RECENTRE * 2 * half && Math.abs(z - this.centreZ) < RECENTRE * 2 * half) return;
    // On the grid's own lattice, so that drawn vertices are the samples the feet stand on.
    this.centreX = f.originX + Math.round((x - f.originX) / this.step) * this.step;
    this.centreZ = f.originZ + Math.round((z - f.originZ) / this.step) * this.step;
    this.fill(this.centreX - half, this.centreZ - half);
  }

  private allocate(): void {
    const n = this.side, g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * n * n), 3));
    g.setAttribute('normal', new THREE.BufferAttribute(new Float32Array(3 * n * n), 3));
    g.setAttribute('color', new THREE.BufferAttribute(new Float32Array(3 * n * n), 3));
    const index = new Uint32Array(6 * (n - 1) * (n - 1));
    let k = 0;
    for (let j = 0; j + 1 < n; j++) {
      for (let i = 0; i + 1 < n; i++) {
        const a = j * n + i, b = a + 1, c = a + n, d = c + 1;
        index[k++] = a; index[k++] = c; index[k++] = b;
        index[k++] = b; index[k++] = c; index[k++] = d;
      }
    }
    g.setIndex(new THREE.BufferAttribute(index, 1));
    this.mesh.geometry.dispose();
    this.mesh.geometry = g;
  }

  /** Heights, normals and colours of the window whose corner is (x0, z0). */
  private fill(x0: number, z0: number): void {
    const f = this.field!, n = this.side, g = this.mesh.geometry;
    const pos = g.getAttribute('position') as THREE.BufferAttribute, nor = g.getAttribute('normal') as THREE.BufferAttribute, col = g.getAttribute('color') as THREE.BufferAttribute;
    const p = pos.array as Float32Array, q = nor.array as Float32Array, c = col.array as Float32Array;
    const [lo, hi] = this.range, span = Math.max(1e-6, hi - lo), tmp = new THREE.Color();
    for (let j = 0; j < n; j++) {
      for (let i = 0; i < n; i++) {
        const k = 3 * (j * n + i), x = x0 + i * this.step, z = z0 + j * this.step, h = f.height(x, z);
        p[k] = x; p[k + 1] = h; p[k + 2] = z;
        f.normal(x, z, this.normal, 0);
        q[k] = this.normal[0]; q[k + 1] = this.normal[1]; q[k + 2] = this.normal[2];
        // Height as colour; risers and steep ground darker, so steps read at a glance.
        tmp.copy(LOW).lerp(HIGH, (h - lo) / span);
        if (this.normal[1] < 0.8) tmp.lerp(EDGE, 0.6);
        c[k] = tmp.r; c[k + 1] = tmp.g; c[k + 2] = tmp.b;
      }
    }
    pos.needsUpdate = true; nor.needsUpdate = true; col.needsUpdate = true;
    g.computeBoundingSphere();
  }
}
