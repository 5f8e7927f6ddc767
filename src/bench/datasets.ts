/**
 * The benchmark's databases:
 *
 * - `builtin`: the built-in procedural locomotion clips (what `motionmatch build --builtin` makes);
 * - `real`:    the real mocap bench set (BVH), mirrored;
 * - `real4x`, `real16x`: that set enlarged by re-timed resampling. Every source clip is played
 *   back K times (K = 4 or 16) at slightly different speeds (its duration stretched by factors
 *   spread over 0.85 .. 1.15, i.e. speeds ~0.87x .. 1.17x) and sub-frame phase
 *   offsets, and sampled at the database rate, so the new frames are genuine poses between the
 *   captured ones (slerped rotations, lerped translations) with consistent velocities — not random
 *   rows. Variant 0 is the original clip, so real4x and real16x contain the real set. The variants
 *   go through buildDatabase with mirroring on, like the real set.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Clip } from '../anim/clip.js';
import { sampleClipPose } from '../anim/pose.js';
import { buildDatabase, type SourceMotion } from '../database/build.js';
import type { Database } from '../database/database.js';
import { readDatabaseFile } from '../database/mmdb/mmdb-node.js';
import { builtinSources, loadBvhSources } from '../database/sources-node.js';

export const BENCH_SETS = ['builtin', 'real', 'real4x', 'real16x'] as const;
export type BenchSetName = (typeof BENCH_SETS)[number];

/** How many re-timed copies of every real clip each enlarged set holds. */
export const ENLARGE_FACTOR: Record<BenchSetName, number> = { builtin: 1, real: 1, real4x: 4, real16x: 16 };

export interface BenchSet {
  name: string;
  description: string;
  db: Database;
  /** Milliseconds to import and build (or read) the database. */
  buildMs: number;
}

export interface RetimeVariant {
  /** Playback speed: the variant's frame n shows the source at time (phase + n * speed) / fps. */
  speed: number;
  /** Sub-frame offset of the first sample, in source frames, in [0, 1). */
  phase: number;
}

const GOLDEN = 0.6180339887498949;
const frac = (x: number): number => x - Math.floor(x);

/**
 * K deterministic (speed, phase) pairs. Variant 0 is the original clip (1, 0). The others stretch
 * the clip's duration by factors evenly spaced over 0.85..1.15 (symmetric around 1, so K variants
 * hold ~K times the frames; speed = 1 / stretch), each starting at a different sub-frame phase
 * (golden-ratio sequence in [0, 1) frame), so no two variants sample the same instants.
 */
export function retimeSchedule(k: number): RetimeVariant[] {
  if (!(Number.isInteger(k) && k >= 1)) throw new RangeError(`retime factor must be a positive integer, got ${k}`);
  const out: RetimeVariant[] = [{ speed: 1, phase: 0 }];
  for (let i = 1; i < k; i++) {
    // Interleave short and long stretches (i = 1, 2, 3, ... -> both ends first, then inwards).
    const j = i % 2 === 1 ? (i - 1) / 2 : k - 1 - i / 2;
    const stretch = 1 + 0.15 * (2 * (j + 0.5) / (k - 1) - 1);
    const speed = Math.round(1000 / stretch) / 1000;
    const phase = Math.round(frac(i * GOLDEN) * 1000) / 1000;
    out.push({ speed, phase });
  }
  return out;
}

/**
 * The clip played at `speed` from a sub-frame `phase`, sampled at the clip's own rate by pose
 * interpolation. Non-looping clips end at the last source frame; looping clips cover one cycle.
 */
export function retimeClip(clip: Clip, joints: number, variant: RetimeVariant): Clip {
  const { speed, phase } = variant;
  if (!(speed > 0 && Number.isFinite(speed))) throw new RangeError(`retime speed must be positive, got ${speed}`);
  if (!(phase >= 0 && phase < 1)) throw new RangeError(`retime phase must be in [0, 1), got ${phase}`);
  if (speed === 1 && phase === 0) return clip;
  const F = clip.frameCount;
  const span = clip.loop ? F : F - 1;
  const frames = F <= 1 ? 1 : Math.max(1, clip.loop ? Math.ceil((span - phase) / speed - 1e-9) : Math.floor((span - phase) / speed + 1e-9) + 1);
  const rot = new Float64Array(frames * joints * 4);
  const pos = new Float64Array(frames * joints * 3);
  const r = new Float64Array(joints * 4);
  const p = new Float64Array(joints * 3);
  const mode = clip.loop ? 'loop' : 'clamp';
  for (let n = 0; n < frames; n++) {
    sampleClipPose(clip, (phase + n * speed) / clip.fps, mode, r, p);
    rot.set(r, n * joints * 4);
    pos.set(p, n * joints * 3);
  }
  const tag = `@${speed.toFixed(3)}x+${phase.toFixed(3)}`;
  return { ...clip, name: clip.name + tag, frameCount: frames, rotations: rot, translations: pos };
}

/** Every source clip re-timed with each variant of retimeSchedule(k) (variant-major order). */
export function enlargeSources(sources: readonly SourceMotion[], k: number): SourceMotion[] {
  const out: SourceMotion[] = [];
  for (const v of retimeSchedule(k)) {
    for (const s of sources) out.push({ skeleton: s.skeleton, clip: retimeClip(s.clip, s.skeleton.names.length, v) });
  }
  return out;
}

/** `<package root>/../shared/data/mocap/bench`: where the project's real mocap lives on dev machines. */
export function defaultMocapDir(packageRoot: string): string {
  return resolve(packageRoot, '..', 'shared', 'data', 'mocap', 'bench');
}

/**
 * The folder of BVH files to use for the real sets: `dir/bench` when it exists (the mocap root),
 * else `dir` itself. Null when it holds no .bvh file at all.
 */
export function resolveMocapDir(dir: string): string | null {
  const candidates = [join(dir, 'bench'), dir];
  for (const c of candidates) {
    try {
      if (statSync(c).isDirectory() && readdirSync(c).some((f) => f.toLowerCase().endsWith('.bvh'))) return c;
    } catch { /* missing: try the next */ }
  }
  return null;
}

type BuildProgress = (done: number, total: number, label: string) => void;

/**
 * Loads the benchmark's sets one at a time (each can be hundreds of MB): the real BVH sources are
 * parsed once and re-timed per enlarged set.
 */
export class BenchSetLoader {
  private realSources: SourceMotion[] | null = null;

  /** mocapDir: a folder of BVH files (already resolved), or null when the real data is absent. */
  constructor(readonly mocapDir: string | null) {}

  /** Why `name` cannot be loaded, or null when it can. */
  unavailable(name: BenchSetName): string | null {
    if (name === 'builtin' || this.mocapDir !== null) return null;
    return `set '${name}' skipped: real mocap folder not found (give --mocap DIR; default <package>/../shared/data/mocap/bench)`;
  }

  load(name: BenchSetName, onProgress?: BuildProgress): BenchSet {
    const t0 = performance.now();
    if (name === 'builtin') {
      const db = buildDatabase(builtinSources(), { onProgress });
      return { name, description: `built-in procedural clips (${db.clips.length} clips)`, db, buildMs: performance.now() - t0 };
    }
    if (this.mocapDir === null) throw new Error(this.unavailable(name) ?? 'no mocap');
    this.realSources ??= loadBvhSources([this.mocapDir]);
    const k = ENLARGE_FACTOR[name];
    const sources = k === 1 ? this.realSources : enlargeSources(this.realSources, k);
    const db = buildDatabase(sources, { mirror: true, onProgress });
    const what = k === 1
      ? `real mocap, ${this.realSources.length} BVH clips, mirrored`
      : `real mocap re-timed ${k}x (durations x0.85..1.15, sub-frame phases), mirrored`;
    return { name, description: what, db, buildMs: performance.now() - t0 };
  }
}

/** A database file given with --db. */
export function loadDatabaseSet(file: string): BenchSet {
  const t0 = performance.now();
  const db = readDatabaseFile(file);
  return { name: basename(file).replace(/\.mmdb$/i, ''), description: `database file ${file}`, db, buildMs: performance.now() - t0 };
}
