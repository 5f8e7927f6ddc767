/**
 * Writing the compact copies and the clustered index into kernel memory (the regions planDatabase
 * reserved): 8-bit rows in frame, KD-leaf and cluster order with their codec; half-precision rows;
 * the KD records (fine-unit boxes); 16-bit boxes of the box-pruning blocks; the clusters. Formats: codecs/u8.ts,
 * codecs/half.ts, codecs/box16.ts, indexes/kd-records.ts, indexes/cluster.ts and assembly/compact.ts.
 */
import type { Database } from '../../database/database.js';
import { planU8Codec, encodeRowU8, type U8Codec } from '../codecs/u8.js';
import { planBox16Codec, encodeBox16, type Box16Codec } from '../codecs/box16.js';
import { encodeHalf, decodeHalf } from '../codecs/half.js';
import type { ClusterIndex } from './cluster.js';
import type { KdTree } from './kdtree.js';
import { writeKdRecords } from './kd-records.js';
import {
  type Heap, type DatabaseRegions, type CompactShape,
  u8RowBytes, f16RowBytes, box16Bytes, coarseBlocks, fineBlocks,
  U8P_INV_U, U8P_U, U8P_EMAX, U8P_M, U8P_CHUNKS, U8P_W, U8P_LO, U8P_DIM, BOX16_STEP, BOX16_LO,
  CL_COUNT, CL_CENTRES, CL_RADIUS, CL_RADIUS_MAX, CL_INFO, CL_ORIG, CL_ROW_RADIUS, CL_U8, CL_F32, CL_BOX16,
  CL_SUB_COUNT, CL_SUB_CENTRES, CL_SUB_RADIUS, CL_SUB_INFO, CL_MAX_SUBS,
  CLUSTER_START, CLUSTER_COUNT, CLUSTER_TAG_OR, CLUSTER_TAG_AND, CLUSTER_INFO_SIZE,
} from '../wasm/memory-layout.js';

export interface CompactBuildStats {
  /** Milliseconds per part (0 when not built). */
  u8Ms: number;
  f16Ms: number;
  box16Ms: number;
  clusterMs: number;
  /** Largest row error bound of the half-precision copy (Euclidean, normalised units). */
  f16ErrorMax: number;
  /** Largest row error bound of the 8-bit copy, normalised units (fine units times u). */
  u8ErrorMax: number;
  /** The clustered index as built (clusters, sub-clusters, Lloyd iterations, sample), or null. */
  clusters: { count: number; subClusters: number; iterations: number; sample: number; radiusMax: number } | null;
}

/**
 * Builds everything `shape` asks for into `regions` (memory already grown), after the float32
 * regions and the KD-tree are in place. Returns the build statistics.
 */
export function buildCompact(
  heap: Heap, regions: DatabaseRegions, db: Database, tree: KdTree, shape: CompactShape, index: ClusterIndex | null,
): CompactBuildStats {
  const v = heap;
  const rows = db.frameCount;
  const stride = db.stride;
  const stats: CompactBuildStats = { u8Ms: 0, f16Ms: 0, box16Ms: 0, clusterMs: 0, f16ErrorMax: 0, u8ErrorMax: 0, clusters: null };
  let codec: U8Codec | null = null;
  let boxCodec: Box16Codec | null = null;
  if (regions.box16Params) {
    const t0 = now();
    boxCodec = writeBox16Codec(v, regions, db);
    if (shape.u8) writeBlockBoxes16(v, regions, db, boxCodec);
    stats.box16Ms = now() - t0;
  }
  if (shape.u8) {
    const t0 = now();
    codec = writeU8Rows(v, regions, db);
    for (let k = 0; k < tree.order.length; k++) {
      const src = regions.u8Rows + tree.order[k] * codec.rowBytes;
      v.u8.copyWithin(regions.kdU8 + k * codec.rowBytes, src, src + codec.rowBytes);
    }
    writeKdRecords(v, regions.kdRec, tree, codec, stride);
    stats.u8ErrorMax = codec.eMax * codec.u;
    stats.u8Ms = now() - t0;
  }
  if (shape.f16) {
    const t0 = now();
    stats.f16ErrorMax = writeHalfRows(v, regions.f16Rows, db.features, rows, stride);
    stats.f16Ms = now() - t0;
  }
  if (index && regions.clusters) {
    const t0 = now();
    writeClusters(v, regions, db, index, codec, boxCodec!);
    stats.clusters = {
      count: index.clusters.count, subClusters: index.subs.count, iterations: index.iterations, sample: index.sample,
      radiusMax: index.clusters.radiusMax,
    };
    stats.clusterMs = now() - t0;
  }
  return stats;
}

/** The 8-bit codec and rows in frame order; returns the codec with its largest error bound. */
function writeU8Rows(v: Heap, r: DatabaseRegions, db: Database): U8Codec {
  const stride = db.stride;
  const codec = planU8Codec(db.features, db.frameCount, stride, db.dims);
  let eMax = 0;
  for (let i = 0; i < db.frameCount; i++) {
    const e = encodeRowU8(codec, db.features, i, v.u8, v.f32, r.u8Rows + i * codec.rowBytes);
    if (e > eMax) eMax = e;
  }
  codec.eMax = eMax;
  const p = r.u8Params;
  v.f64[(p + U8P_INV_U) >> 3] = codec.invU;
  v.f64[(p + U8P_U) >> 3] = codec.u;
  v.f64[(p + U8P_EMAX) >> 3] = eMax;
  v.i32[(p + U8P_M) >> 2] = codec.m;
  v.i32[(p + U8P_CHUNKS) >> 2] = codec.rowBytes >> 4;
  v.i32[(p + U8P_W) >> 2] = r.u8W;
  v.i32[(p + U8P_LO) >> 2] = r.u8Lo;
  v.i32[(p + U8P_DIM) >> 2] = r.u8Dim;
  v.i32.set(codec.dim, r.u8Dim >> 2);
  v.u8.set(codec.w, r.u8W);
  v.f64.set(codec.lo, r.u8Lo >> 3);
  if (codec.rowBytes !== u8RowBytes(stride)) throw new Error('internal: 8-bit row size disagrees with the layout');
  return codec;
}

/** The 16-bit box codec (BOX16_* struct, steps, offsets). */
function writeBox16Codec(v: Heap, r: DatabaseRegions, db: Database): Box16Codec {
  const codec = planBox16Codec(db.features, db.frameCount, db.stride, db.dims);
  v.i32[(r.box16Params + BOX16_STEP) >> 2] = r.box16Step;
  v.i32[(r.box16Params + BOX16_LO) >> 2] = r.box16Lo;
  v.f32.set(codec.step, r.box16Step >> 2);
  v.f32.set(codec.lo, r.box16Lo >> 2);
  return codec;
}

/** 16-bit boxes of the coarse and fine box-pruning blocks. */
function writeBlockBoxes16(v: Heap, r: DatabaseRegions, db: Database, codec: Box16Codec): void {
  const stride = db.stride;
  const half = box16Bytes(stride) >> 1;
  const blocks: Array<[number, number, number]> = [
    [r.coarseBounds, r.coarseBox16, coarseBlocks(db.frameCount)],
    [r.fineBounds, r.fineBox16, fineBlocks(db.frameCount)],
  ];
  for (const [bounds, out, count] of blocks) {
    const src = v.f32.subarray(bounds >> 2, (bounds >> 2) + count * 2 * stride);
    for (let b = 0; b < count; b++) encodeBox16(codec, src, b * 2 * stride, v.u16, (out >> 1) + b * half);
  }
}

/** Half-precision rows (halves, error bound, padding); returns the largest error bound. */
function writeHalfRows(v: Heap, at: number, features: Float32Array, rows: number, stride: number): number {
  const rb = f16RowBytes(stride);
  let eMax = 0;
  for (let i = 0; i < rows; i++) {
    const base = at + i * rb;
    let e2 = 0;
    for (let j = 0; j < stride; j++) {
      const x = features[i * stride + j];
      const h = encodeHalf(x);
      const e = x - decodeHalf(h);
      e2 += e * e;
      v.u16[(base >> 1) + j] = h;
    }
    v.u8.fill(0, base + 2 * stride + 4, base + rb);
    // Exact float64 inputs; the margins cover sqrt's rounding.
    const bound = roundUp(Math.sqrt(e2) * (1 + 2 ** -40));
    v.f32[(base + 2 * stride) >> 2] = bound;
    if (bound > eMax) eMax = bound;
  }
  return eMax;
}

/** The clustered index: struct, both levels (centres, radii, info), cluster boxes, rows. */
function writeClusters(v: Heap, r: DatabaseRegions, db: Database, index: ClusterIndex, codec: U8Codec | null, boxCodec: Box16Codec): void {
  const stride = db.stride;
  const { clusters, subs } = index;
  const p = r.clusters;
  v.i32.fill(0, p >> 2, (p >> 2) + 16);
  v.i32[(p + CL_COUNT) >> 2] = clusters.count;
  v.i32[(p + CL_CENTRES) >> 2] = r.clusterCentres;
  v.i32[(p + CL_RADIUS) >> 2] = r.clusterRadius;
  v.i32[(p + CL_INFO) >> 2] = r.clusterInfo;
  v.i32[(p + CL_ORIG) >> 2] = r.clusterOrig;
  v.i32[(p + CL_ROW_RADIUS) >> 2] = r.clusterRowRadius;
  v.i32[(p + CL_U8) >> 2] = r.clusterU8;
  v.i32[(p + CL_F32) >> 2] = r.clusterF32;
  v.f32[(p + CL_RADIUS_MAX) >> 2] = clusters.radiusMax;
  v.i32[(p + CL_BOX16) >> 2] = r.clusterBox16;
  v.i32[(p + CL_SUB_COUNT) >> 2] = subs.count;
  v.i32[(p + CL_SUB_CENTRES) >> 2] = r.subCentres;
  v.i32[(p + CL_SUB_RADIUS) >> 2] = r.subRadius;
  v.i32[(p + CL_SUB_INFO) >> 2] = r.subInfo;
  v.i32[(p + CL_MAX_SUBS) >> 2] = index.maxSubs;
  v.f32.set(clusters.centres, r.clusterCentres >> 2);
  // Sub-cluster centres as half-precision rows (the row's error bound slot stays 0: unused).
  const rb16 = f16RowBytes(stride);
  v.u8.fill(0, r.subCentres, r.subCentres + subs.count * rb16);
  for (let c = 0; c < subs.count; c++) v.u16.set(index.subHalves.subarray(c * stride, (c + 1) * stride), (r.subCentres + c * rb16) >> 1);
  const levels: Array<[typeof clusters, number, number]> = [
    [clusters, r.clusterRadius, r.clusterInfo],
    [subs, r.subRadius, r.subInfo],
  ];
  for (const [level, radius, info] of levels) {
    v.f32.set(level.radius, radius >> 2);
    for (let c = 0; c < level.count; c++) {
      const at = (info + c * CLUSTER_INFO_SIZE) >> 2;
      v.i32[at + (CLUSTER_START >> 2)] = level.start[c];
      v.i32[at + (CLUSTER_COUNT >> 2)] = level.start[c + 1] - level.start[c];
      v.u32[at + (CLUSTER_TAG_OR >> 2)] = level.tagOr[c];
      v.u32[at + (CLUSTER_TAG_AND >> 2)] = level.tagAnd[c];
    }
  }
  const half = box16Bytes(stride) >> 1;
  for (let c = 0; c < clusters.count; c++) encodeBox16(boxCodec, index.boxes, c * 2 * stride, v.u16, (r.clusterBox16 >> 1) + c * half);
  v.i32.set(index.order, r.clusterOrig >> 2);
  v.f32.set(index.rowRadius, r.clusterRowRadius >> 2);
  if (r.clusterU8) {
    if (!codec) throw new Error('internal: 8-bit cluster rows need the 8-bit copy');
    const rb = codec.rowBytes;
    for (let k = 0; k < index.order.length; k++) {
      const src = r.u8Rows + index.order[k] * rb;
      v.u8.copyWithin(r.clusterU8 + k * rb, src, src + rb);
    }
  }
  if (r.clusterF32) {
    for (let k = 0; k < index.order.length; k++) {
      const src = index.order[k] * stride;
      v.f32.set(db.features.subarray(src, src + stride), (r.clusterF32 >> 2) + k * stride);
    }
  }
}

/** The smallest float32 >= x (x >= 0, finite). */
function roundUp(x: number): number {
  const f = Math.fround(x);
  if (f >= x) return f;
  const b = new Float32Array([f]);
  new Int32Array(b.buffer)[0]++;
  return b[0];
}

function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
