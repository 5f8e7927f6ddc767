// Byte offsets of the structs the host writes into linear memory. Mirrored in
// src/search/memory-layout.ts (test/search/search-memory.test.ts checks the two agree).

/** Search methods understood by `search` / `searchBatch`. */
export const METHOD_BRUTE: i32 = 0;
export const METHOD_EARLY: i32 = 1;
export const METHOD_AABB: i32 = 2;
export const METHOD_KDTREE: i32 = 3;

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
export const CTX_SIZE: i32 = 64;

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
export const REQ_SIZE: i32 = 64;

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

/** Result record: i32 frame (-1 = nothing beat bestCost), f32 cost. */
export const RESULT_SIZE: i32 = 8;
