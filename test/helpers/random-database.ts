/**
 * Seeded random, complete and internally consistent Database objects for tests (file format,
 * search, runtime). Everything is deterministic in `seed`.
 */
import type { ClipRange, Database } from '../../src/database/database.js';
import type { Skeleton } from '../../src/anim/skeleton.js';
import { DEFAULT_SCHEMA, endMarginFrames, groupWidth, paddedStride, schemaDims, type BoneRole, type FeatureSchema } from '../../src/features/schema.js';

export interface RandomDatabaseOptions {
  /** Total frames N (>= clips unless clips is 0). */
  frames: number;
  /** Joints J (>= 1); joint 0 is the root. */
  joints: number;
  /** Number of clips; they tile [0, N) contiguously in order. */
  clips: number;
  /** Number of distinct tag names (0..32); each clip carries a random subset. */
  tags: number;
  /** Mark every odd-indexed clip as the mirrored copy of the clip before it. */
  mirrored?: boolean;
  /** Feature schema (default DEFAULT_SCHEMA); bones must be roles or joint names. */
  schema?: FeatureSchema;
  /** Samples per second (default 30). */
  fps?: number;
}

/** mulberry32 (the project's seeded generator), floats in [0, 1). */
import { createRandom as seededRandom } from '../../src/util/prng.js';
export { seededRandom };

const JOINT_WORDS = ['Spine', 'Chest', 'Neck', 'Head', 'Arm', 'Leg', 'Knee', 'Foot', 'Toe', 'Hand', 'Ütility', 'Tail'];

/**
 * A valid random database: a small random skeleton (parents-first tree), random unit quaternions,
 * yaw-only root rotations, contacts 0..3, candidate flags off near clip ends, tag bits from the
 * clips' tags, the given schema (default DEFAULT_SCHEMA), random raw features with mean/scale/
 * features computed the way the builder does ((raw - mean) / (groupStd / weight), padding 0/1/0).
 * Names include non-ASCII characters to exercise UTF-8 handling.
 */
export function makeRandomDatabase(seed: number, options: RandomDatabaseOptions): Database {
  const { frames: N, joints: J, clips: C, tags: T } = options;
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const fps = options.fps ?? 30;
  if (!Number.isInteger(N) || N < 0) throw new RangeError(`frames must be a non-negative integer, got ${N}`);
  if (!Number.isInteger(J) || J < 1) throw new RangeError(`joints must be >= 1, got ${J}`);
  if (!Number.isInteger(C) || C < 0 || C > N) throw new RangeError(`clips must be in [0, frames], got ${C}`);
  if (!Number.isInteger(T) || T < 0 || T > 32) throw new RangeError(`tags must be in [0, 32], got ${T}`);
  const rnd = seededRandom(seed);
  const range = (lo: number, hi: number): number => lo + (hi - lo) * rnd();
  const int = (n: number): number => Math.floor(rnd() * n);

  // Skeleton: joint 0 is the root; each joint hangs off one of the previous three.
  const names: string[] = ['Hips'];
  for (let j = 1; j < J; j++) names.push(`${JOINT_WORDS[j % JOINT_WORDS.length]}_${j}`);
  const parents = new Int32Array(J);
  parents[0] = -1;
  for (let j = 1; j < J; j++) parents[j] = Math.max(0, j - 1 - int(3));
  const offsets = new Float64Array(3 * J);
  for (let i = 3; i < offsets.length; i++) offsets[i] = range(-0.5, 0.5);
  const E = Math.min(J, 2);
  const endSiteParents = new Int32Array(E);
  const endSiteOffsets = new Float64Array(3 * E);
  for (let e = 0; e < E; e++) endSiteParents[e] = J - 1 - e;
  for (let i = 0; i < endSiteOffsets.length; i++) endSiteOffsets[i] = range(-0.2, 0.2);
  const skeleton: Skeleton = { names, parents, offsets, endSiteParents, endSiteOffsets };
  const pick = (): number => (J > 1 ? 1 + int(J - 1) : 0);
  const roles: Record<BoneRole, number> = { hips: 0, leftFoot: pick(), rightFoot: pick(), leftToe: rnd() < 0.5 ? -1 : pick(), rightToe: rnd() < 0.5 ? -1 : pick() };

  // Tags and clips (contiguous tiling of [0, N)).
  const tagNames = Array.from({ length: T }, (_, i) => (i % 3 === 2 ? `tâg-${i}` : `tag${i}`));
  const cuts = new Set<number>();
  while (cuts.size < Math.max(0, C - 1)) cuts.add(1 + int(N - 1));
  const bounds = [0, ...[...cuts].sort((a, b) => a - b), N];
  const clips: ClipRange[] = [];
  const tagBits = new Uint32Array(N);
  for (let c = 0; c < C; c++) {
    const start = bounds[c], count = bounds[c + 1] - bounds[c];
    const mirrored = !!options.mirrored && c % 2 === 1;
    const tags = tagNames.filter(() => rnd() < 0.4);
    const base = mirrored ? clips[c - 1].name : `clip ${c} «走る»`;
    clips.push({
      name: mirrored ? `${base} (mirrored)` : base,
      source: mirrored ? clips[c - 1].source : `data/clip_${c}.bvh`,
      start,
      count,
      loop: rnd() < 0.3,
      mirrored,
      tags,
    });
    let bits = 0;
    for (const t of tags) bits |= 1 << tagNames.indexOf(t);
    tagBits.fill(bits >>> 0, start, start + count);
  }

  // Poses: random unit quaternions (Shoemake), random translations.
  const rotations = new Float32Array(N * J * 4);
  for (let i = 0; i < rotations.length; i += 4) {
    const u1 = rnd(), u2 = 2 * Math.PI * rnd(), u3 = 2 * Math.PI * rnd();
    const a = Math.sqrt(1 - u1), b = Math.sqrt(u1);
    rotations[i] = a * Math.sin(u2);
    rotations[i + 1] = a * Math.cos(u2);
    rotations[i + 2] = b * Math.sin(u3);
    rotations[i + 3] = b * Math.cos(u3);
  }
  const translations = new Float32Array(N * J * 3);
  for (let i = 0; i < translations.length; i++) translations[i] = range(-1, 1);

  // Root track: a random walk on the ground with yaw-only facing.
  const rootPositions = new Float32Array(N * 3);
  const rootRotations = new Float32Array(N * 4);
  let x = 0, z = 0, yaw = 0;
  for (let f = 0; f < N; f++) {
    x += range(-0.05, 0.05);
    z += range(-0.05, 0.05);
    yaw += range(-0.1, 0.1);
    rootPositions[f * 3] = x;
    rootPositions[f * 3 + 2] = z;
    rootRotations[f * 4 + 1] = Math.sin(yaw / 2);
    rootRotations[f * 4 + 3] = Math.cos(yaw / 2);
  }

  const contacts = new Uint8Array(N);
  for (let f = 0; f < N; f++) contacts[f] = int(4);
  const candidates = new Uint8Array(N);
  for (const c of clips) { const margin = endMarginFrames(schema, fps, c.count, c.loop); for (let f = 0; f < c.count; f++) candidates[c.start + f] = f < c.count - margin ? 1 : 0; }

  // Features.
  const dims = schemaDims(schema);
  const stride = paddedStride(dims);
  const rawFeatures = new Float32Array(N * stride);
  for (let f = 0; f < N; f++) for (let d = 0; d < dims; d++) rawFeatures[f * stride + d] = range(-2, 2) * (1 + (d % 5));
  const mean = new Float32Array(stride);
  const scale = new Float32Array(stride).fill(1);
  const m64 = new Float64Array(dims);
  for (let f = 0; f < N; f++) for (let d = 0; d < dims; d++) m64[d] += rawFeatures[f * stride + d];
  for (let d = 0; d < dims; d++) m64[d] /= Math.max(N, 1);
  let col = 0;
  for (const g of schema.groups) {
    const w = groupWidth(g);
    let std = 0;
    for (let d = col; d < col + w; d++) {
      let sq = 0;
      for (let f = 0; f < N; f++) { const v = rawFeatures[f * stride + d] - m64[d]; sq += v * v; }
      std += Math.sqrt(sq / Math.max(N, 1));
    }
    std = w > 0 ? std / w : 0;
    const groupStd = std > 1e-8 ? std : 1;
    for (let d = col; d < col + w; d++) { mean[d] = m64[d]; scale[d] = groupStd / g.weight; }
    col += w;
  }
  const features = new Float32Array(N * stride);
  for (let f = 0; f < N; f++) for (let d = 0; d < dims; d++) features[f * stride + d] = (rawFeatures[f * stride + d] - mean[d]) / scale[d];

  return {
    skeleton, roles, fps, frameCount: N, clips,
    rotations, translations, rootPositions, rootRotations,
    contacts, candidates, tagNames, tagBits,
    schema, dims, stride, rawFeatures, features, mean, scale,
  };
}

/** A deep copy (fresh typed arrays), for tests that tamper with a database. */
export function cloneDatabase(db: Database): Database {
  return {
    ...db,
    skeleton: {
      names: [...db.skeleton.names],
      parents: db.skeleton.parents.slice(),
      offsets: db.skeleton.offsets.slice(),
      endSiteParents: db.skeleton.endSiteParents.slice(),
      endSiteOffsets: db.skeleton.endSiteOffsets.slice(),
    },
    roles: { ...db.roles },
    clips: db.clips.map((c) => ({ ...c, tags: [...c.tags] })),
    rotations: db.rotations.slice(),
    translations: db.translations.slice(),
    rootPositions: db.rootPositions.slice(),
    rootRotations: db.rootRotations.slice(),
    contacts: db.contacts.slice(),
    candidates: db.candidates.slice(),
    tagNames: [...db.tagNames],
    tagBits: db.tagBits.slice(),
    schema: structuredClone(db.schema),
    rawFeatures: db.rawFeatures.slice(),
    features: db.features.slice(),
    mean: db.mean.slice(),
    scale: db.scale.slice(),
  };
}
