/**
 * Database loading for the page: the built-in locomotion database and dropped .mmdb / .bvh files,
 * all prepared in a Web Worker (db-worker.ts) with the same pipeline as the CLI. Nothing here
 * touches the running scene: the caller swaps databases only once a load succeeded.
 */
import type { Database } from '../../src/database/database.js';
import type { DbReply, DbRequest } from './db-worker.js';
import { classifyFiles } from './db-files.js';

export interface LoadedDatabase {
  db: Database;
  /** What to call it on screen (file name or "built-in locomotion"). */
  name: string;
  /** Milliseconds the worker spent. */
  ms: number;
}

export type ProgressFn = (fraction: number, label: string) => void;

interface Pending {
  resolve(v: LoadedDatabase): void;
  reject(e: Error): void;
  progress: ProgressFn;
}

export class DatabaseLoader {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /** The built-in procedural locomotion database (about a second in a worker). */
  builtin(progress: ProgressFn = () => {}): Promise<LoadedDatabase> {
    return this.request({ id: 0, kind: 'builtin' }, progress);
  }

  /**
   * A dropped set of files: one .mmdb, or any number of .bvh files sharing a skeleton (built like
   * `motionmatch build`). Rejects with a message meant for the user.
   */
  files(files: File[], mirror: boolean, progress: ProgressFn = () => {}): Promise<LoadedDatabase> {
    const kind = classifyFiles(files.map((f) => f.name));
    if ('error' in kind) return Promise.reject(new Error(kind.error));
    return this.request({ id: 0, kind: 'files', files, mirror }, progress);
  }

  dispose(): void {
    this.worker?.terminate();
    this.worker = null;
    this.failAll(new Error('database loader closed'));
  }

  private request(req: DbRequest, progress: ProgressFn): Promise<LoadedDatabase> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise<LoadedDatabase>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, progress });
      worker.postMessage({ ...req, id });
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./db-worker.ts', import.meta.url), { type: 'module', name: 'motionmatch-database' });
    worker.onmessage = (e: MessageEvent<DbReply>) => {
      const msg = e.data;
      const p = this.pending.get(msg.id);
      if (!p) return;
      if (msg.type === 'progress') {
        p.progress(msg.fraction, msg.label);
        return;
      }
      this.pending.delete(msg.id);
      if (msg.type === 'done') p.resolve({ db: msg.db, name: msg.name, ms: msg.ms });
      else p.reject(new Error(msg.message));
    };
    worker.onerror = (e) => {
      // A crash (e.g. out of memory on a huge file): fail what was waiting and start afresh next time.
      e.preventDefault();
      this.failAll(new Error(`the database worker failed: ${e.message || 'unknown error'}`));
      worker.terminate();
      this.worker = null;
    };
    this.worker = worker;
    return worker;
  }

  private failAll(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}

/** One line describing a database for the panel. */
export function describeDatabase(db: Database): string {
  const seconds = db.frameCount / db.fps;
  const mirrored = db.clips.filter((c) => c.mirrored).length;
  return `${db.clips.length} clips${mirrored ? ` (${mirrored} mirrored)` : ''} · ${db.frameCount} frames · ` +
    `${seconds.toFixed(0)} s at ${db.fps} fps · ${db.skeleton.names.length} joints · ${db.dims} features`;
}
