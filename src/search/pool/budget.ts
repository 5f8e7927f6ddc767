/**
 * How much memory a MatcherPool will need, estimated before anything is allocated, so that an
 * unreasonable request (thousands of threads, a database that cannot fit) is refused with the
 * figures instead of ending in an out-of-memory abort.
 *
 *   shared memory = database regions + the calling thread's slot + the pool's bias slot
 *                   + one slot per worker (wasm/memory-layout.ts planDatabase / planSlot)
 *   workers       = threads x WORKER_OVERHEAD_BYTES (each worker is a JavaScript engine instance)
 */
import type { Database } from '../../database/database.js';
import { kdNodeCount, defaultKdLeafSize } from '../indexes/kdtree.js';
import { kdRecordCount } from '../indexes/kd-records.js';
import { planDatabase, planSlot, slotShapeFor, formatBytes, PAGE_BYTES, REGION_ALIGN } from '../wasm/memory-layout.js';
import type { ResolvedPoolOptions } from '../options.js';
import { countCandidates, compactShapeFor } from '../upload.js';
import { DEFAULT_SHARED_MAXIMUM_PAGES, WASM_MAX_PAGES } from '../wasm/load.js';

/** Resident memory of one idle pool worker: about 12 MiB, measured with Node 20 worker_threads. */
export const WORKER_OVERHEAD_BYTES = 12 * 2 ** 20;

export interface PoolMemoryEstimate {
  threads: number;
  /** Database regions plus the calling thread's and the bias slot, with the module's low page. */
  databaseBytes: number;
  /** One worker's slot. */
  slotBytes: number;
  /** Everything the shared WebAssembly memory must hold. */
  sharedBytes: number;
  /** The shared memory's maximum (it cannot grow past it). */
  maximumSharedBytes: number;
  workerBytes: number;
  totalBytes: number;
}

/** The estimate for `db` under already validated options. */
export function estimatePoolMemory(db: Database, o: ResolvedPoolOptions): PoolMemoryEstimate {
  const rows = db.frameCount;
  const kdRows = countCandidates(db.candidates, rows);
  const kdLeafSize = o.kdLeafSize || defaultKdLeafSize(kdRows);
  const kdNodes = kdNodeCount(kdRows, kdLeafSize);
  const compact = compactShapeFor(db, kdRows, o);
  const kdRecords = compact.u8 ? kdRecordCount(kdRows, kdLeafSize) : 0;
  const dbEnd = planDatabase(0, { rows, stride: db.stride, kdRows, kdNodes, kdRecords, compact }).end;
  const slotBytes = planSlot(0, slotShapeFor(rows, db.stride, kdNodes, o.workerBatchCapacity, compact)).end + REGION_ALIGN;
  const ownSlot = planSlot(0, slotShapeFor(rows, db.stride, kdNodes, o.batchCapacity, compact)).end;
  const biasSlot = planSlot(0, slotShapeFor(rows, db.stride, kdNodes, 1, compact)).end;
  // The module's static data sits below the host's regions: one page is more than it uses.
  const databaseBytes = PAGE_BYTES + dbEnd + ownSlot + biasSlot + 3 * REGION_ALIGN;
  const sharedBytes = databaseBytes + o.threads * slotBytes;
  const maximumPages = Math.min(o.maximumPages ?? DEFAULT_SHARED_MAXIMUM_PAGES, WASM_MAX_PAGES);
  const workerBytes = o.threads * WORKER_OVERHEAD_BYTES;
  return {
    threads: o.threads, databaseBytes, slotBytes, sharedBytes, maximumSharedBytes: maximumPages * PAGE_BYTES,
    workerBytes, totalBytes: sharedBytes + workerBytes,
  };
}

/**
 * Throws RangeError, with the figures, when the shared memory would exceed its maximum or the
 * whole pool would exceed `budgetBytes` (the caller's share of the machine's memory; Infinity when
 * unknown, as in browsers).
 */
export function checkPoolMemory(e: PoolMemoryEstimate, budgetBytes: number, budgetLabel: string): void {
  const parts =
    `shared memory ${formatBytes(e.sharedBytes)} = database ${formatBytes(e.databaseBytes)} + ${e.threads} worker slots of ${formatBytes(e.slotBytes)}; ` +
    `workers ${e.threads} x ${formatBytes(WORKER_OVERHEAD_BYTES)}`;
  if (e.sharedBytes > e.maximumSharedBytes) {
    throw new RangeError(
      `MatcherPool: ${e.threads} threads need about ${formatBytes(e.totalBytes)} (${parts}), but the shared memory may hold at most ` +
      `${formatBytes(e.maximumSharedBytes)} (maximumPages ${e.maximumSharedBytes / PAGE_BYTES}); ` +
      `use fewer threads, a smaller workerBatchCapacity or a larger maximumPages (at most ${WASM_MAX_PAGES})`,
    );
  }
  if (e.totalBytes > budgetBytes) {
    throw new RangeError(
      `MatcherPool: ${e.threads} threads need about ${formatBytes(e.totalBytes)} (${parts}), more than ${budgetLabel} (${formatBytes(budgetBytes)}); use fewer threads`,
    );
  }
}
