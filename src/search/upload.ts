/**
 * Putting a database into kernel memory: reserve its regions (reusing a previous reservation when
 * the new database fits), copy rows, candidate flags and tag bits, build the box-pruning bounds and
 * the KD-tree, the compact copies and the clustered index when asked for, and write the context
 * struct the kernels start from.
 */
import type { Database } from '../database/database.js';
import { buildBlockBounds } from './indexes/aabb.js';
import { buildKdTree, kdNodeCount, defaultKdLeafSize } from './indexes/kdtree.js';
import { kdRecordCount, kdRecordStackNeed } from './indexes/kd-records.js';
import { buildCompact, type CompactBuildStats } from './indexes/compact.js';
import { buildClusters, defaultClusterCount, SUB_SIZE, type ClusterIndex } from './indexes/cluster.js';
import { MAX_U8_STRIDE } from './codecs/u8.js';
import {
  type Heap, type DatabaseRegions, type SlotRegions, type CompactShape,
  planDatabase, planSlot, reserve, extendReservation, slotShapeFor, coarseBlocks, fineBlocks, u8RowBytes, f16RowBytes,
  CTX_FEAT, CTX_ROWS, CTX_STRIDE, CTX_MASK, CTX_TAGS, CTX_COARSE_BOUNDS, CTX_FINE_BOUNDS, CTX_COARSE_INFO,
  CTX_FINE_INFO, CTX_KD_FEAT, CTX_KD_ORIG, CTX_KD_NODES, CTX_KD_BOXES, CTX_KD_NODE_COUNT, CTX_KD_ROWS, CTX_SIZE,
  CTX_U8, CTX_U8_PARAMS, CTX_U8_ROW_BYTES, CTX_F16, CTX_F16_ROW_BYTES, CTX_F16_EMAX, CTX_KD_U8, CTX_KD_REC, CTX_KD_REC_BYTES, kdRecordBytes,
  CTX_BOX16, CTX_COARSE_BOX16, CTX_FINE_BOX16, CTX_CLUSTERS,
  COARSE_SHIFT, FINE_SHIFT, BLOCK_INFO_SIZE,
} from './wasm/memory-layout.js';

/** What to build besides the float32 regions (from the resolved Matcher options). */
export interface UploadOptions {
  /** 0: defaultKdLeafSize of the candidate count. */
  kdLeafSize: number;
  batchCapacity: number;
  compact: { u8: boolean; f16: boolean };
  /** 0 none, -1 the default count, else the count. */
  clusters: number;
  clusterSeed: number;
}

/** The clusters asked for by `o` for kdRows candidate rows (0: none). */
export function clustersWanted(kdRows: number, o: Pick<UploadOptions, 'clusters'>): number {
  if (o.clusters === 0) return 0;
  return Math.max(1, Math.min(o.clusters < 0 ? defaultClusterCount(kdRows) : o.clusters, kdRows));
}

/**
 * The compact shape for `db` under `o`. With the clustered index already built its sizes are exact;
 * without it (a memory estimate before anything is built) they are upper bounds.
 */
export function compactShapeFor(db: Database, kdRows: number, o: Pick<UploadOptions, 'compact' | 'clusters'>, index: ClusterIndex | null = null): CompactShape {
  if (o.compact.u8 && db.stride > MAX_U8_STRIDE) {
    throw new RangeError(`compact 'u8' supports rows of at most ${MAX_U8_STRIDE} floats, the database has ${db.stride}`);
  }
  const wanted = clustersWanted(kdRows, o);
  // An index of 0 clusters (no candidate rows) still gets its (empty) regions: its searches find nothing.
  const clusters = wanted === 0 ? 0 : Math.max(1, index ? index.clusters.count : wanted);
  const maxSubs = wanted === 0 ? 0 : Math.max(1, index ? index.maxSubs : Math.ceil(kdRows / SUB_SIZE));
  const subClusters = wanted === 0 ? 0 : Math.max(1, index ? index.subs.count : Math.ceil(kdRows / SUB_SIZE) + clusters);
  return {
    u8: o.compact.u8, f16: o.compact.f16, clusters, subClusters, maxSubs,
    clusterF32: clusters > 0, clusterU8: clusters > 0 && o.compact.u8,
  };
}

/** A matcher's block of memory: the database regions followed by its own thread slot. */
export interface Reservation {
  /** First byte, or -1 before the first load. */
  base: number;
  bytes: number;
}

export interface UploadedDatabase {
  regions: DatabaseRegions;
  /** The loading matcher's own slot (slot 0), right after the database. */
  slot: SlotRegions;
  kdNodes: number;
  kdDepth: number;
  /** The leaf size the tree was built with. */
  kdLeafSize: number;
  /** Milliseconds building the box bounds (both levels) and the KD-tree (with the leaf-order copy). */
  aabbMs: number;
  kdtreeMs: number;
  compact: CompactShape;
  compactStats: CompactBuildStats;
}

/** Candidate rows (the rows the KD-tree holds). */
export function countCandidates(candidates: Uint8Array, rows: number): number {
  let n = 0;
  for (let i = 0; i < rows; i++) if (candidates[i] !== 0) n++;
  return n;
}

/**
 * Uploads `db` (already checked by requireSearchableDatabase) into `heap`'s memory, growing it first,
 * and returns where everything went. `reservation` is updated in place.
 */
export function uploadDatabase(heap: Heap, heapBase: number, db: Database, o: UploadOptions, reservation: Reservation): UploadedDatabase {
  const { batchCapacity } = o;
  const rows = db.frameCount;
  const stride = db.stride;
  const kdRows = countCandidates(db.candidates, rows);
  const kdLeafSize = o.kdLeafSize || defaultKdLeafSize(kdRows);
  const kdNodes = kdNodeCount(kdRows, kdLeafSize);
  compactShapeFor(db, kdRows, o); // refuses what cannot be built before the slow part
  const tC = now();
  const wanted = clustersWanted(kdRows, o);
  const index = wanted > 0 ? buildClusters(db.features, rows, stride, db.dims, db.candidates, db.tagBits, { count: wanted, seed: o.clusterSeed }) : null;
  const clusterMs = now() - tC;
  const compact = compactShapeFor(db, kdRows, o, index);
  const shape = { rows, stride, kdRows, kdNodes, kdRecords: compact.u8 ? kdRecordCount(kdRows, kdLeafSize) : 0, compact };

  // Plan relative to 0 to learn the size, then place it.
  const slotShape = slotShapeFor(rows, stride, kdNodes, batchCapacity, compact);
  const total = planDatabase(0, shape).end + planSlot(0, slotShape).end;
  place(heap.memory, reservation, total, heapBase);
  const regions = planDatabase(reservation.base, shape);
  const slot = planSlot(regions.end, slotShape);
  heap.ensure(slot.end);

  heap.f32.set(db.features.subarray(0, rows * stride), regions.features >> 2);
  heap.u8.set(db.candidates.subarray(0, rows), regions.mask);
  heap.u32.set(db.tagBits.subarray(0, rows), regions.tags >> 2);

  const tA = now();
  const cb = coarseBlocks(rows);
  const fb = fineBlocks(rows);
  buildBlockBounds(db.features, rows, stride, db.candidates, db.tagBits, COARSE_SHIFT,
    heap.f32.subarray(regions.coarseBounds >> 2, (regions.coarseBounds >> 2) + cb * 2 * stride),
    heap.i32.subarray(regions.coarseInfo >> 2, (regions.coarseInfo >> 2) + cb * (BLOCK_INFO_SIZE >> 2)));
  buildBlockBounds(db.features, rows, stride, db.candidates, db.tagBits, FINE_SHIFT,
    heap.f32.subarray(regions.fineBounds >> 2, (regions.fineBounds >> 2) + fb * 2 * stride),
    heap.i32.subarray(regions.fineInfo >> 2, (regions.fineInfo >> 2) + fb * (BLOCK_INFO_SIZE >> 2)));
  const tK = now();
  const tree = buildKdTree(db.features, rows, stride, db.dims, db.candidates, db.tagBits, kdLeafSize);
  if (tree.nodeCount !== kdNodes) throw new Error(`internal: kd node count ${tree.nodeCount} != planned ${kdNodes}`);
  if (Math.max(tree.depth + 2, kdRecordStackNeed(tree.depth)) > slotShape.stackCapacity) throw new Error(`internal: kd depth ${tree.depth} exceeds the traversal stack`);
  heap.i32.set(tree.order, regions.kdOrig >> 2);
  heap.i32.set(tree.nodes, regions.kdNodes >> 2);
  heap.f32.set(tree.boxes, regions.kdBoxes >> 2);
  const kdFeat = regions.kdFeatures >> 2;
  for (let k = 0; k < tree.order.length; k++) {
    const src = tree.order[k] * stride;
    const dst = kdFeat + k * stride;
    for (let j = 0; j < stride; j++) heap.f32[dst + j] = db.features[src + j];
  }
  const tEnd = now();
  const compactStats = buildCompact(heap, regions, db, tree, compact, index);
  compactStats.clusterMs += clusterMs;

  writeContext(heap, regions, rows, stride, kdNodes, kdRows, compactStats);
  return { regions, slot, kdNodes, kdDepth: tree.depth, kdLeafSize, aabbMs: tK - tA, kdtreeMs: tEnd - tK, compact, compactStats };
}

/** Reuses the reservation when `total` fits, extends it when it is the topmost one, else moves it. */
function place(memory: WebAssembly.Memory, r: Reservation, total: number, floor: number): void {
  if (r.base >= 0 && total <= r.bytes) return;
  if (r.base >= 0 && extendReservation(memory, r.base, r.bytes, total)) {
    r.bytes = total;
    return;
  }
  r.base = reserve(memory, total, floor);
  r.bytes = total;
}

/** The context struct (CTX_*): where the kernels find every database region (0: not built). */
function writeContext(heap: Heap, regions: DatabaseRegions, rows: number, stride: number, kdNodes: number, kdRows: number, cs: CompactBuildStats): void {
  const i32 = heap.i32;
  const c = regions.ctx >> 2;
  i32.fill(0, c, c + (CTX_SIZE >> 2));
  i32[c + (CTX_FEAT >> 2)] = regions.features;
  i32[c + (CTX_ROWS >> 2)] = rows;
  i32[c + (CTX_STRIDE >> 2)] = stride;
  i32[c + (CTX_MASK >> 2)] = regions.mask;
  i32[c + (CTX_TAGS >> 2)] = regions.tags;
  i32[c + (CTX_COARSE_BOUNDS >> 2)] = regions.coarseBounds;
  i32[c + (CTX_FINE_BOUNDS >> 2)] = regions.fineBounds;
  i32[c + (CTX_COARSE_INFO >> 2)] = regions.coarseInfo;
  i32[c + (CTX_FINE_INFO >> 2)] = regions.fineInfo;
  i32[c + (CTX_KD_FEAT >> 2)] = regions.kdFeatures;
  i32[c + (CTX_KD_ORIG >> 2)] = regions.kdOrig;
  i32[c + (CTX_KD_NODES >> 2)] = regions.kdNodes;
  i32[c + (CTX_KD_BOXES >> 2)] = regions.kdBoxes;
  i32[c + (CTX_KD_NODE_COUNT >> 2)] = kdNodes;
  i32[c + (CTX_KD_ROWS >> 2)] = kdRows;
  i32[c + (CTX_U8 >> 2)] = regions.u8Rows;
  i32[c + (CTX_U8_PARAMS >> 2)] = regions.u8Params;
  i32[c + (CTX_U8_ROW_BYTES >> 2)] = u8RowBytes(stride);
  i32[c + (CTX_F16 >> 2)] = regions.f16Rows;
  i32[c + (CTX_F16_ROW_BYTES >> 2)] = f16RowBytes(stride);
  heap.f32[c + (CTX_F16_EMAX >> 2)] = cs.f16ErrorMax;
  i32[c + (CTX_KD_U8 >> 2)] = regions.kdU8;
  i32[c + (CTX_KD_REC >> 2)] = regions.kdRec;
  i32[c + (CTX_KD_REC_BYTES >> 2)] = kdRecordBytes(stride);
  i32[c + (CTX_BOX16 >> 2)] = regions.box16Params;
  i32[c + (CTX_COARSE_BOX16 >> 2)] = regions.coarseBox16;
  i32[c + (CTX_FINE_BOX16 >> 2)] = regions.fineBox16;
  i32[c + (CTX_CLUSTERS >> 2)] = regions.clusters;
}

export function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
