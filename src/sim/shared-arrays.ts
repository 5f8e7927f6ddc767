import type { Database } from '../database/database.js';
import { adoptDatabaseRuntime, databaseRuntime, type DatabaseRuntime } from '../runtime/database-runtime.js';
import { adoptCapturedData, capturedData, type CapturedData } from '../runtime/captured-data.js';

type Typed = Float32Array | Float64Array | Int32Array | Uint32Array | Uint8Array;

/** A copy of `a` backed by a SharedArrayBuffer, so that posting it to a worker shares instead of copying. */
function shareArray<T extends Typed>(a: T): T {
  const Ctor = a.constructor as { new (buffer: ArrayBufferLike): T };
  const out = new Ctor(new SharedArrayBuffer(a.byteLength));
  (out as unknown as { set(src: ArrayLike<number>): void }).set(a);
  return out;
}

function shareFields<O extends object>(o: O): O {
  const out = { ...o } as Record<string, unknown>;
  for (const [k, v] of Object.entries(o)) {
    if (ArrayBuffer.isView(v) && !(v instanceof DataView) && !(v.buffer instanceof SharedArrayBuffer)) out[k] = shareArray(v as Typed);
  }
  return out as O;
}

/** A database with what the runtime derives from its poses, as posted to worker threads. */
export interface SharedDatabase {
  db: Database;
  rt: DatabaseRuntime;
  captured: CapturedData;
}

/**
 * The database, its runtime view and its captured data (derived here if not yet) with every large
 * array moved into SharedArrayBuffers: worker threads then read the same memory (one copy of the
 * database per process, not per worker) and derive nothing again (adoptSharedDatabase). Returns
 * them unshared where SharedArrayBuffer is unavailable.
 */
export function shareDatabase(db: Database): SharedDatabase {
  const rt = databaseRuntime(db), captured = capturedData(db);
  if (typeof SharedArrayBuffer !== 'function') return { db, rt, captured };
  const sdb = shareFields(db);
  sdb.skeleton = shareFields(db.skeleton);
  return { db: sdb, rt: { ...shareFields(rt), db: sdb }, captured: shareFields(captured) };
}

/** A worker's side of shareDatabase: registers the posted tables for the posted database, so that what reads them finds them. Returns the database. */
export function adoptSharedDatabase(shared: SharedDatabase): Database {
  adoptDatabaseRuntime(shared.db, shared.rt);
  adoptCapturedData(shared.db, shared.captured);
  return shared.db;
}
