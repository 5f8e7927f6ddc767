/**
 * Database loading for the page: the built-in locomotion database, the database the demo server
 * was started with (`motionmatch demo --db FILE`) and dropped .mmdb / .bvh files, all prepared in
 * a Web Worker (db-worker.ts) with the same pipeline as the CLI. Nothing here touches the running
 * scene: the caller swaps databases only once a load succeeded.
 */
import type { Database } from '../../src/database/database.js';
import type { ServedDatabaseRef } from '../../src/web/served-database.js';
import type { DbReply, DbRequest } from './db-worker.js';
import { classifyFiles } from './db-files.js';

export interface LoadedDatabase {
  db: Database;
  /** What to call it on screen (file name or "built-in locomotion"). */
  name: string;
  /** Milliseconds the worker spent. */
  ms: number;
  /** What the build did that the user should know (captures turned upright, or an up axis in doubt). */
  notes?: string[];
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

  /**
   * The database the page's server named (`motionmatch demo --db FILE`): downloaded here (the
   * first half of the bar), decoded and validated in the worker like a dropped .mmdb.
   */
  async served(ref: ServedDatabaseRef, progress: ProgressFn = () => {}): Promise<LoadedDatabase> {
    const t0 = performance.now();
    const bytes = await download(ref.url, (f) => progress(0.5 * f, `downloading ${ref.name}`));
    // The worker takes a .mmdb by its extension; the CLI already checked the contents.
    const fileName = /\.mmdb$/i.test(ref.name) ? ref.name : `${ref.name}.mmdb`;
    const file = new File([bytes], fileName);
    const loaded = await this.request({ id: 0, kind: 'files', files: [file], mirror: false }, (f, label) => progress(0.5 + 0.5 * f, label));
    return { ...loaded, name: ref.name, ms: performance.now() - t0 };
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
      if (msg.type === 'done') p.resolve({ db: msg.db, name: msg.name, ms: msg.ms, notes: msg.notes });
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

/** The bytes at `url` (same origin), with progress when the server gives the length; the message says what went wrong. */
async function download(url: string, progress: (fraction: number) => void): Promise<Uint8Array<ArrayBuffer>> {
  let res: Response;
  try {
    res = await fetch(url, { cache: 'no-cache' });
  } catch (e) {
    throw new Error(`the demo server did not answer (${(e as Error).message}); is \`motionmatch demo\` still running?`);
  }
  if (!res.ok) {
    const why = (await res.text().catch(() => '')).trim().split('\n')[0];
    throw new Error(`the demo server answered ${res.status}${why ? `: ${why}` : ''}`);
  }
  const total = Number(res.headers.get('content-length'));
  if (!res.body || !(total > 0)) return new Uint8Array(await res.arrayBuffer());
  const out = new Uint8Array(total);
  const reader = res.body.getReader();
  let at = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (at + value.length > total) throw new Error(`the download is longer than the ${total} bytes announced (the file changed while it was read?)`);
    out.set(value, at);
    at += value.length;
    progress(at / total);
  }
  if (at !== total) throw new Error(`the download stopped after ${at} of ${total} bytes`);
  return out;
}

/** One line describing a database for the panel. */
export function describeDatabase(db: Database): string {
  const seconds = db.frameCount / db.fps;
  const mirrored = db.clips.filter((c) => c.mirrored).length;
  return `${db.clips.length} clips${mirrored ? ` (${mirrored} mirrored)` : ''} · ${db.frameCount} frames · ` +
    `${seconds.toFixed(0)} s at ${db.fps} fps · ${db.skeleton.names.length} joints · ${db.dims} features`;
}
