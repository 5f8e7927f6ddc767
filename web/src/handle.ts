/**
 * `window.motionmatch`: the automation handle tests, benchmarks and the console use.
 *
 *   await window.motionmatch.whenReady();
 *   await window.motionmatch.setAgents(1000);
 *   window.motionmatch.stats.updateMsMedian   // engine CPU ms per frame, median of the last 60
 *   window.motionmatch.player.position        // [x, y, z] metres, live
 */
import type { DatabaseChecksums } from '../../src/web/database-checksums.js';
import type { Backend, SearchMethod } from '../../src/search/matcher.js';
import type { WorkerPolicy } from './search-backend.js';
import type { EngineMode } from './engines.js';

export interface MotionmatchStats {
  /**
   * Engine update per frame (ms, median of the last 60 frames): the wall time of stepping every
   * character — prepare, search, complete (playback, inertialization, root motion, foot IK); with
   * agents split over workers, until the slowest worker is done (its AI included). Drawing is not
   * included.
   */
  readonly updateMsMedian: number;
  readonly updateMsMean: number;
  readonly updateMsP95: number;
  /** Parts of the update, ms, medians of the last 60 frames. */
  readonly prepareMsMedian: number;
  readonly searchMsMedian: number;
  readonly completeMsMedian: number;
  /** Microseconds per query in frames that searched (median of the last 60 such frames). */
  readonly searchUsMedian: number;
  /** Searches per frame (mean of the last 60 frames). */
  readonly searchesPerFrame: number;
  /** Drawing (matrices + WebGL submit), ms, median of the last 60 frames. */
  readonly renderMsMedian: number;
  readonly fps: number;
  /** Frames stepped since the page started. */
  readonly frames: number;
  /** 'split': agents divided among worker threads; 'batched': main thread + batched (pooled) search. */
  readonly mode: EngineMode;
  readonly backend: Backend;
  readonly method: SearchMethod;
  /** Worker threads stepping the agents (split) or searching (batched); 1 = the main thread alone. */
  readonly threads: number;
  readonly crossOriginIsolated: boolean;
  /** 'auto': batches go to the workers only when that is faster; 'workers': always. */
  readonly workerPolicy: WorkerPolicy;
  /** Fraction of recent batches the workers answered. */
  readonly workerShare: number;
  readonly agents: number;
  /** Agents drawn in the last frame (those in view; in software WebGL only the nearest few hundred). */
  readonly drawnAgents: number;
  /** True when WebGL runs without a GPU (SwiftShader, llvmpipe). */
  readonly softwareWebGL: boolean;
  /** With levels of detail: agents at each level (0 = full detail) in the last frame; empty without. */
  readonly lodLevels: number[];
  /** Every measure over the last n frames (benchmarks). */
  window(n: number): StatsWindow;
}

/** Summary of one measure over a window of frames. */
export interface Summary {
  median: number;
  mean: number;
  p95: number;
  min: number;
  max: number;
}

/** All per-frame measures over the last n frames (n <= 240). */
export interface StatsWindow {
  frames: number;
  updateMs: Summary;
  prepareMs: Summary;
  searchMs: Summary;
  completeMs: Summary;
  renderMs: Summary;
  intervalMs: Summary;
  /** Split engine: the slower worker's own step (AI, step, pose copy), its lead over the faster one, and its pose copy; NaN in other modes. */
  workerMs: Summary;
  imbalanceMs: Summary;
  copyMs: Summary;
  /** With levels of detail: agents whose pose was held out of view (NaN without levels). */
  held: Summary;
  searchesPerFrame: number;
  searchUsPerQuery: number;
}

export interface MotionmatchPlayer {
  /** Root position [x, y, z] (metres, world). */
  readonly position: [number, number, number];
  /** Facing yaw (radians, atan2(x, z): 0 = +Z). */
  readonly facing: number;
  /** Unit facing direction [x, 0, z]. */
  readonly forward: [number, number, number];
  readonly clip: string;
  readonly frame: number;
}

/** The user's character (a dropped .glb/.gltf/.vrm, `demo --character FILE`, `?character=URL`; web/src/character.ts). */
export interface MotionmatchCharacter {
  /** True while a character is drawn instead of the box figures. */
  readonly loaded: boolean;
  /** Its file's name (null: box figures). */
  readonly name: string | null;
  /** What was matched: role, the character's bone, the database joint driving it, and how the bone was found. */
  readonly boneMap: Array<{ role: string; target: string; source: string; how: 'given' | 'name' | 'shape' }>;
  /** The character's leg length over the database's (null: none loaded). */
  readonly legRatio: number | null;
  /** The last character file that could not be used, one line (null: none since the last success). */
  readonly error: string | null;
  /** Agents drawn as the character in the last frame, and at most. */
  readonly clones: number;
  readonly maxClones: number;
  /** The player's character now: where it stands, its foot joints (leftFoot, rightFoot, leftToes, rightToes when it has them; world m), the lowest, and the engine's lowest foot joint in the same frame. */
  sample(): { position: [number, number, number]; feet: Record<string, [number, number, number]>; lowest: number; engineLowest: number } | null;
  /** Every bone of the player's character with its world matrix (16 numbers, column-major). */
  boneMatrices(): Array<{ name: string; matrix: number[] }>;
  /** Loads a character from a URL / a File (as `?character=` / a drop); resolves {ok, message}, never rejects. */
  load(url: string): Promise<{ ok: boolean; message: string }>;
  loadFile(file: File): Promise<{ ok: boolean; message: string }>;
  /** Back to the box figures. */
  clear(): Promise<void>;
}

export interface MotionmatchHandle {
  /** The user's character, when one is loaded. */
  readonly character: MotionmatchCharacter;
  /** True once the database is loaded and the first frame was drawn. */
  readonly ready: boolean;
  /** The last error shown to the user (null when none). */
  readonly error: string | null;
  readonly agents: number;
  readonly database: { name: string; frames: number; clips: number };
  /** CRC-32s of the loaded database's arrays (src/web/database-checksums.ts); null before one is loaded. */
  databaseChecksums(): DatabaseChecksums | null;
  readonly player: MotionmatchPlayer;
  readonly stats: MotionmatchStats;
  whenReady(): Promise<void>;
  setAgents(n: number): Promise<void>;
  setMode(m: EngineMode): Promise<void>;
  setBackend(b: Backend): Promise<void>;
  setMethod(m: SearchMethod): Promise<void>;
  /** 1 = everything on the main thread; n >= 2 = n worker threads (when cross-origin isolated). */
  setThreads(n: number): Promise<void>;
  setWorkerPolicy(p: WorkerPolicy): Promise<void>;
  setFootIK(on: boolean): Promise<void>;
  setInertialization(on: boolean): Promise<void>;
  /** Whether the agents run with levels of detail (docs/lod.md). */
  readonly lod: boolean;
  /** Levels of detail on or off for the agents (distance from the camera; the player stays at full detail). */
  setLod(on: boolean): Promise<void>;
  /** With levels: the agents' search budget in searches per agent-second (null: none; `?budget=R` in the URL). */
  readonly searchBudget: number | null;
  /** Sets or (null) removes the search budget; rejects a value that is not a finite number > 0. */
  setSearchBudget(rate: number | null): Promise<void>;
  /**
   * The tag filters every character's locomotion searches keep to now: the page address's
   * (`motionmatch demo --require-tag/--exclude-tag`) or setSearchTags's, on this database (names it
   * lacks left out), with the wave tag excluded unless required.
   */
  readonly searchTags: { require: string[]; exclude: string[] };
  /** Replaces the tag filters (null: none); rejects a tag both required and excluded. */
  setSearchTags(tags: { require?: string[]; exclude?: string[] } | null): Promise<void>;
  /** With levels: an agent out of view steps every this many frames (1: every frame; default 4; `?unseen=N` in the URL). */
  readonly unseenStepEvery: number;
  /** Sets it; rejects anything but an integer from 1 to 60. */
  setUnseenStepEvery(n: number): Promise<void>;
  /** Orbits the camera at a steady rate (rad/s, 0 = still; a gamepad's full turn is 2.5): benchmarks of a turning view. */
  setCameraTurn(radiansPerSecond: number): void;
  /** true: draw everything; false: the player only; 'none': no WebGL drawing (measure the engine alone). */
  setRendering(on: boolean | 'none'): void;
  /** Render resolution relative to the window (software WebGL is fill-rate bound). */
  setRenderScale(scale: number): void;
  /** Loads files as if dropped on the page; resolves with the outcome (never rejects). */
  loadFiles(files: File[]): Promise<{ ok: boolean; message: string }>;
  /** Back to the built-in database. */
  loadBuiltin(): Promise<{ ok: boolean; message: string }>;
  resetPlayer(): Promise<void>;
  /** Forgets the statistics gathered so far (e.g. after changing the crowd). */
  resetStats(): void;
  /**
   * Steps the world by a fixed `seconds` every frame (null = the real frame time, clamped to
   * 0.2 s). Benchmarks use 1/60 so that the load per frame is that of 60 Hz however fast the
   * page runs.
   */
  setFixedStep(seconds: number | null): void;
}

declare global {
  interface Window {
    motionmatch: MotionmatchHandle;
  }
}

export function installHandle(h: MotionmatchHandle): void {
  Object.defineProperty(window, 'motionmatch', { value: h, configurable: true, enumerable: true });
}
