// Byte offsets of the structs the host writes into linear memory. Mirrored in
// src/search/wasm/memory-layout.ts (test/search/search-memory.test.ts checks the two agree).

/** Search methods understood by `search` / `searchBatch`. */
export const METHOD_BRUTE: i32 = 0;
export const METHOD_EARLY: i32 = 1;
export const METHOD_AABB: i32 = 2;
export const METHOD_KDTREE: i32 = 3;
export const METHOD_BRUTE_U8: i32 = 4; // brute force over the 8-bit copy
export const METHOD_BRUTE_F16: i32 = 5; // brute force over the half-precision copy
export const METHOD_AABB_U8: i32 = 6; // box pruning, 16-bit boxes, 8-bit rows
export const METHOD_KDTREE_U8: i32 = 7; // KD-tree, 16-bit boxes, 8-bit leaf rows
export const METHOD_CLUSTER: i32 = 8; // clustered index, float32 rows
export const METHOD_CLUSTER_U8: i32 = 9; // clustered index, 8-bit rows

/** Database context: static per loaded database (all i32 / pointers). */
export const CTX_FEAT: i32 = 0; // f32[rows * stride], row-major, zero padding
export const CTX_ROWS: i32 = 4;
export const CTX_STRIDE: i32 = 8; // floats per row, multiple of 4
export const CTX_MASK: i32 = 12; // u8[rows], 1 = candidate
export const CTX_TAGS: i32 = 16; // u32[rows]
export const CTX_COARSE_BOUNDS: i32 = 20; // per coarse block: f32 min[stride], f32 max[stride]
export const CTX_FINE_BOUNDS: i32 = 24;
export const CTX_COARSE_INFO: i32 = 28; // per coarse block: BlockInfo
export const CTX_FINE_INFO: i32 = 32;
export const CTX_KD_FEAT: i32 = 36; // f32[kdRows * stride], candidate rows in leaf order
export const CTX_KD_ORIG: i32 = 40; // i32[kdRows], original frame of each leaf-order row
export const CTX_KD_NODES: i32 = 44; // KdNode[nodeCount], preorder (left child = node + 1)
export const CTX_KD_BOXES: i32 = 48; // per node: f32 min[stride], f32 max[stride]
export const CTX_KD_NODE_COUNT: i32 = 52;
export const CTX_KD_ROWS: i32 = 56;
// Compact copies and indexes (0 when not built): see compact.ts for the formats.
export const CTX_U8: i32 = 60; // 8-bit rows in frame order, CTX_U8_ROW_BYTES each
export const CTX_U8_PARAMS: i32 = 64; // U8P_* struct
export const CTX_U8_ROW_BYTES: i32 = 68;
export const CTX_F16: i32 = 72; // half-precision rows in frame order, CTX_F16_ROW_BYTES each
export const CTX_F16_ROW_BYTES: i32 = 76;
export const CTX_F16_EMAX: i32 = 80; // f32: the largest error bound of a half-precision row
export const CTX_KD_U8: i32 = 84; // 8-bit rows in KD leaf order
export const CTX_KD_REC: i32 = 88; // per KD node: KdRecord (its children's 16-bit boxes and summaries)
export const CTX_BOX16: i32 = 92; // BOX16_* struct: the 16-bit box codec
export const CTX_COARSE_BOX16: i32 = 96; // per coarse block: 16-bit box
export const CTX_FINE_BOX16: i32 = 100; // per fine block: 16-bit box
export const CTX_CLUSTERS: i32 = 104; // CL_* struct
export const CTX_KD_REC_BYTES: i32 = 108; // bytes per KdRecord
export const CTX_SIZE: i32 = 128;

/** Per-call request: one per thread slot, so concurrent searches never share it. */
export const REQ_RANGES: i32 = 0; // i32 pairs [start, end), sorted, disjoint, inside [0, rows)
export const REQ_RANGE_COUNT: i32 = 4;
export const REQ_RANGE_TABLE: i32 = 8; // batch only: i32 pairs [first range, range count] per query, or 0
export const REQ_REQUIRE: i32 = 12; // u32 tag mask every allowed row carries
export const REQ_EXCLUDE: i32 = 16; // u32 tag mask no allowed row carries
export const REQ_BIAS: i32 = 20; // f32[rows] added to the cost, or 0
export const REQ_BIAS_COARSE: i32 = 24; // f32 per coarse block: min bias (required by aabb when BIAS != 0)
export const REQ_BIAS_FINE: i32 = 28; // f32 per fine block: min bias
export const REQ_BIAS_NODE: i32 = 32; // f32 per kd node: min bias over the subtree
export const REQ_STACK: i32 = 36; // kd traversal stack: (i32 node, f32 bound) pairs
export const REQ_STACK_CAP: i32 = 40; // entries
export const REQ_PROBES: i32 = 44; // clustered methods: clusters to visit (0 = exact)
export const REQ_BIAS_MIN: i32 = 48; // f32: smallest bias of the call (0 without bias)
export const REQ_QCODE: i32 = 52; // i16 scratch for the query's 8-bit codes
export const REQ_SCRATCH: i32 = 56; // (f32 key, i32 cluster) scratch for the cluster visit order
export const REQ_SCRATCH_CAP: i32 = 60; // entries
export const REQ_STAT_BOUNDED: i32 = 64; // f64, added to: rows whose compact bound was computed
export const REQ_STAT_RESCORED: i32 = 72; // f64, added to: rows re-scored in float32
export const REQ_STAT_GROUPS: i32 = 80; // f64, added to: clusters (or leaves) scanned
export const REQ_SINK: i32 = 88; // u32: where the walks store the words of the lines they read ahead
export const REQ_KDS: i32 = 96; // 16 B: code distances of a leaf's rows being tested (kdtree-u8)
export const REQ_SIZE: i32 = 128;

/** 8-bit codec (compact.ts): fine unit, clamp limit, per-byte multipliers, per-dim offsets. */
export const U8P_INV_U: i32 = 0; // f64: 1 / u
export const U8P_U: i32 = 8; // f64: u, the fine unit
export const U8P_EMAX: i32 = 16; // f64: largest row error bound, fine units
export const U8P_M: i32 = 24; // i32: |Q - w c| <= M
export const U8P_CHUNKS: i32 = 28; // i32: 16-byte chunks per row
export const U8P_W: i32 = 32; // u8[chunks * 16]: multiplier of each code byte (0 past the codes)
export const U8P_LO: i32 = 36; // f64[stride]: offset of each code byte's dimension
export const U8P_DIM: i32 = 40; // i32[stride]: the dimension of each code byte (widest first)
export const U8P_SIZE: i32 = 64;

/** 16-bit box codec: code c of dimension j decodes to f32(c) * step[j] + lo[j]. */
export const BOX16_STEP: i32 = 0; // f32[stride]
export const BOX16_LO: i32 = 4; // f32[stride]
export const BOX16_SIZE: i32 = 16;

/**
 * Clustered index (cluster.ts): clusters, each split into sub-clusters; rows are candidate rows,
 * sub-cluster by sub-cluster, each sub-cluster's by distance to its centre.
 */
export const CL_COUNT: i32 = 0; // clusters
export const CL_CENTRES: i32 = 4; // f32[count * stride]
export const CL_RADIUS: i32 = 8; // f32[count]: >= every row's exact distance to its cluster's centre
export const CL_INFO: i32 = 12; // ClusterInfo[count]: first sub-cluster, sub-cluster count, tags
export const CL_ORIG: i32 = 16; // i32[rows]: frame of each row
export const CL_ROW_RADIUS: i32 = 20; // f32[rows]: the row's distance to its sub-cluster's centre (nearest float32)
export const CL_U8: i32 = 24; // 8-bit rows, or 0
export const CL_F32: i32 = 28; // float32 rows, or 0
export const CL_RADIUS_MAX: i32 = 32; // f32: the largest cluster radius
export const CL_BOX16: i32 = 36; // per cluster: 16-bit box of its rows
export const CL_SUB_COUNT: i32 = 40; // sub-clusters
export const CL_SUB_CENTRES: i32 = 44; // per sub-cluster: its centre as a half-precision row (CTX_F16_ROW_BYTES)
export const CL_SUB_RADIUS: i32 = 48; // f32[subCount]
export const CL_SUB_INFO: i32 = 52; // ClusterInfo[subCount]: first row, row count, tags
export const CL_MAX_SUBS: i32 = 56; // the most sub-clusters of one cluster
export const CL_SIZE: i32 = 64;

/** ClusterInfo (16 bytes): first entry below, entry count, OR and AND of the rows' tag bits. */
export const CLUSTER_START: i32 = 0;
export const CLUSTER_COUNT: i32 = 4;
export const CLUSTER_TAG_OR: i32 = 8;
export const CLUSTER_TAG_AND: i32 = 12;
export const CLUSTER_INFO_SIZE: i32 = 16;

/** Box-pruning blocks: consecutive frames. */
export const COARSE_SHIFT: i32 = 6; // 64 frames
export const FINE_SHIFT: i32 = 4; // 16 frames

/** BlockInfo (16 bytes): candidates in the block, OR and AND of their tag bits. */
export const BLOCK_COUNT: i32 = 0;
export const BLOCK_TAG_OR: i32 = 4;
export const BLOCK_TAG_AND: i32 = 8;
export const BLOCK_INFO_SIZE: i32 = 16;

/** KdNode (32 bytes). Leaves have dim = -1. Every node covers leaf-order rows [start, start + count). */
export const NODE_DIM: i32 = 0;
export const NODE_SPLIT: i32 = 4; // f32
export const NODE_RIGHT: i32 = 8;
export const NODE_START: i32 = 12;
export const NODE_COUNT: i32 = 16;
export const NODE_TAG_OR: i32 = 20;
export const NODE_TAG_AND: i32 = 24;
export const NODE_MIN_ORIG: i32 = 28; // lowest original frame in the subtree (for exact tie-breaking)
export const NODE_SIZE: i32 = 32;

/**
 * KdRecord (kdtree-u8), CTX_KD_REC_BYTES apart (512 for 28 floats: eight cache lines): the 16-bit
 * boxes of up to four subtrees of a node (each child, or both children of an inner child), then a
 * 16-byte slot per subtree, so one record answers two levels of the walk (see src/search/indexes/kd-records.ts).
 */
export const KD_RECORD_LEVELS: i32 = 2;
export const KD_SLOTS: i32 = 1 << KD_RECORD_LEVELS;
export const SLOT_NODE: i32 = 0; // the subtree's node (tags, per-node bias)
export const SLOT_MIN_ORIG: i32 = 4;
export const SLOT_START: i32 = 8; // a leaf's first leaf-order row, or an inner node's record
export const SLOT_COUNT: i32 = 12; // a leaf's rows; SLOT_INNER or SLOT_EMPTY
export const SLOT_SIZE: i32 = 16;
export const SLOT_INNER: i32 = -1;
export const SLOT_EMPTY: i32 = -2;

/** Result record: i32 frame (-1 = nothing beat bestCost), f32 cost. */
export const RESULT_SIZE: i32 = 8;
