/**
 * Database worker: builds databases off the main thread with the same pipeline as
 * `motionmatch build` (BVH import -> features -> normalisation), so the scene keeps running.
 *
 * Requests:  { id, kind: 'builtin' }
 *            { id, kind: 'files', files: File[], mirror: boolean }
 * Replies:   { id, type: 'progress', fraction, label }
 *            { id, type: 'done', db, name, ms, notes }   (the Database is structured-cloned; notes:
 *              lines about what the build did, e.g. captures turned upright)
 *            { id, type: 'error', message }
 */
import { generateBuiltinClips } from '../../src/builtin/generate.js';
import { buildDatabase, type SourceMotion } from '../../src/database/build.js';
import type { Database } from '../../src/database/database.js';
import { decodeDatabase } from '../../src/database/mmdb/mmdb.js';
import { parseBvh } from '../../src/import/bvh/bvh.js';
import { upAxisNote } from '../../src/database/up-axis.js';
import { classifyFiles } from './db-files.js';

export type DbRequest =
  | { id: number; kind: 'builtin' }
  | { id: number; kind: 'files'; files: File[]; mirror: boolean };

export type DbReply =
  | { id: number; type: 'progress'; fraction: number; label: string }
  | { id: number; type: 'done'; db: Database; name: string; ms: number; notes?: string[] }
  | { id: number; type: 'error'; message: string };

const scope = globalThis as unknown as {
  postMessage(message: DbReply): void;
  onmessage: ((e: MessageEvent<DbRequest>) => void) | null;
};

async function handle(req: DbRequest): Promise<void> {
  const t0 = performance.now();
  const progress = (fraction: number, label: string): void => scope.postMessage({ id: req.id, type: 'progress', fraction, label });
  if (req.kind === 'builtin') {
    progress(0, 'generating the built-in clips');
    const { skeleton, clips } = generateBuiltinClips();
    progress(0.5, 'extracting features');
    const db = buildDatabase(clips.map((clip) => ({ skeleton, clip })), {
      onProgress: (done, total) => progress(0.5 + 0.5 * (done / total), 'extracting features'),
    });
    scope.postMessage({ id: req.id, type: 'done', db, name: 'built-in locomotion', ms: performance.now() - t0 });
    return;
  }
  const files = req.files;
  const kind = classifyFiles(files.map((f) => f.name));
  if ('error' in kind) throw new Error(kind.error);
  if (kind.kind === 'mmdb') {
    const f = files[0];
    progress(0.2, `reading ${f.name}`);
    const bytes = new Uint8Array(await f.arrayBuffer());
    progress(0.6, `decoding ${f.name}`);
    // A compact file (docs/compact.md) is decoded and rebuilt here, off the page's thread: its steps move the bar.
    const db = decodeDatabase(bytes, f.name, { onProgress: (done, total, label) => progress(0.6 + 0.4 * (done / total), `decoding ${f.name}${label ? `: ${label}` : ''}`) });
    scope.postMessage({ id: req.id, type: 'done', db, name: f.name, ms: performance.now() - t0 });
    return;
  }
  // BVH: parse every file (half the bar), then build (the other half).
  const sorted = [...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const sources: SourceMotion[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const f = sorted[i];
    progress((0.5 * i) / sorted.length, `parsing ${f.name}`);
    const text = await f.text();
    const { skeleton, clip } = parseBvh(text, { file: f.name, scale: 'auto' });
    sources.push({ skeleton, clip });
  }
  const notes: string[] = [];
  const db = buildDatabase(sources, {
    mirror: req.mirror,
    onProgress: (done, total, label) => progress(0.5 + 0.5 * (done / total), `building: ${label}`),
    onUpAxis: (f) => {
      const note = upAxisNote(f, (axis) => `if they do, build the files with \`motionmatch build --up ${axis}\` and drop the .mmdb`);
      if (note !== null) notes.push(note);
    },
  });
  const name = sorted.length === 1 ? sorted[0].name : `${sorted.length} BVH files`;
  scope.postMessage({ id: req.id, type: 'done', db, name, ms: performance.now() - t0, notes });
}

// One request at a time, in order.
let queue: Promise<void> = Promise.resolve();
scope.onmessage = (e) => {
  const req = e.data;
  queue = queue.then(() =>
    handle(req).catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      scope.postMessage({ id: req.id, type: 'error', message });
    }),
  );
};
