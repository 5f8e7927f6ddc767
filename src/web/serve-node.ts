/**
 * The demo's static server: serves web-dist/ (or another folder) with the cross-origin isolation
 * headers the search pool's shared memory needs (COOP same-origin, COEP require-corp, CORP
 * same-origin), and optionally one .mmdb database for the page to start with.
 *
 * A request either names a regular file inside the served folder or gets 404: no way out of the
 * folder (`..`, encoded or not, backslashes, NUL bytes, symbolic links that lead out), and no
 * file-system error (a 256-character name, a path too deep) turns into a 500.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createReadStream } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { nodePackageRoot } from '../search/wasm/load.js';
import { SERVED_DATABASE_PATH, withServedDatabaseMeta } from './served-database.js';
import { servedCharacterPath, withServedCharacterMeta } from './served-character.js';

/** Headers that make the page cross-origin isolated (SharedArrayBuffer, shared WebAssembly.Memory). */
export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export const MIME_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.bvh': 'text/plain; charset=utf-8',
  '.mmdb': 'application/octet-stream',
  '.glb': 'model/gltf-binary',
  '.vrm': 'model/gltf-binary',
  '.gltf': 'model/gltf+json',
};

/** Longest request target answered (longer ones get 414); the bundle's own URLs are far shorter. */
export const MAX_URL_LENGTH = 2048;
/** Longest file name a path segment may be (NAME_MAX on Linux, macOS and Windows file systems). */
const MAX_SEGMENT_LENGTH = 255;

export interface ServedDatabase {
  /** The .mmdb file (absolute path); read from disk at every request, so a rebuilt file shows on reload. */
  file: string;
  /** What the page calls it (the file's name). */
  name: string;
  /**
   * When `file` is a compact encoding of the user's file (demo --db): that file, with its size and
   * modification time when encoded. Once it differs, the server serves the user's file as it now
   * is (the page reads either kind, and reports a broken one) instead of the stale encoding.
   */
  encodedFrom?: { file: string; size: number; mtimeMs: number; onChanged?: () => void };
}

export interface DemoServerOptions {
  /** Folder to serve (default: web-dist/ in the package). */
  root?: string;
  port?: number;
  host?: string;
  /** Send the cross-origin isolation headers (default true). */
  isolation?: boolean;
  /** A database the page loads instead of building the built-in one. */
  database?: ServedDatabase;
  /** A character (.glb, .gltf or .vrm) the page draws instead of its box figures. */
  character?: ServedCharacter;
}

export interface ServedCharacter {
  /** The file (absolute path); read from disk at every request. */
  file: string;
  /** What the page calls it (the file's name). */
  name: string;
}

export interface DemoServer {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/**
 * The path of a request target (still percent-encoded), or null when the target is not a path:
 * origin form ("/a/b?q") or absolute form ("http://host/a/b"). Unlike `new URL(target, base)`,
 * "//host/x" stays a path instead of becoming another host.
 */
export function requestPathname(target: string): string | null {
  if (target.startsWith('/')) {
    const end = target.search(/[?#]/);
    return end >= 0 ? target.slice(0, end) : target;
  }
  if (!/^https?:\/\//i.test(target)) return null;
  try {
    return new URL(target).pathname;
  } catch {
    return null;
  }
}

/**
 * Maps a request path to a file under root, or null when no file under root can answer it: bad
 * percent-encoding, NUL bytes, backslashes, a ".." segment, a segment longer than a file name can
 * be (the file system would say ENAMETOOLONG), or a path that would leave root.
 */
export function resolveRequestPath(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const segments = decoded.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.some((s) => s === '..' || Buffer.byteLength(s) > MAX_SEGMENT_LENGTH)) return null;
  const full = resolve(root, ...segments);
  if (full !== root && !full.startsWith(root + sep)) return null;
  return full;
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string>): void {
  res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** A request path as shown in a message: short, and only printable ASCII. */
function shownPath(pathname: string): string {
  const clean = pathname.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 120 ? `${clean.slice(0, 117)}...` : clean;
}

/** Streams a regular file (or only its headers for HEAD). */
function sendFile(req: IncomingMessage, res: ServerResponse, file: string, size: number, type: string, headers: Record<string, string>): void {
  res.writeHead(200, { ...headers, 'Content-Type': type, 'Content-Length': size, 'Cache-Control': 'no-cache' });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const stream = createReadStream(file);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

/** The regular file a resolved path names inside root (a folder's index.html), or null. */
async function servableFile(root: string, file: string): Promise<{ file: string; size: number } | null> {
  try {
    let st = await stat(file);
    if (st.isDirectory()) {
      file = join(file, 'index.html');
      st = await stat(file);
    }
    if (!st.isFile()) return null;
    // Symbolic links must not lead out of the served folder either.
    const real = await realpath(file);
    if (real !== root && !real.startsWith(root + sep)) return null;
    return { file: real, size: st.size };
  } catch {
    // ENOENT, ENOTDIR, ENAMETOOLONG, ELOOP, EACCES...: nothing this server can serve.
    return null;
  }
}

export async function startDemoServer(options: DemoServerOptions = {}): Promise<DemoServer> {
  const root = await realpath(options.root ?? join(await nodePackageRoot(), 'web-dist'));
  const isolation = options.isolation ?? true;
  const database = options.database;
  const character = options.character;
  const characterPath = character ? servedCharacterPath(character.name) : null;
  const base: Record<string, string> = { 'X-Content-Type-Options': 'nosniff', ...(isolation ? ISOLATION_HEADERS : {}) };
  const rootIndex = join(root, 'index.html');

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'method not allowed\n', { ...base, Allow: 'GET, HEAD' });
      return;
    }
    const target = req.url ?? '/';
    if (target.length > MAX_URL_LENGTH) {
      send(res, 414, `URI too long (more than ${MAX_URL_LENGTH} characters)\n`, base);
      return;
    }
    const pathname = requestPathname(target);
    if (pathname === null) {
      send(res, 400, 'bad request target\n', base);
      return;
    }
    const notFound = (): void => send(res, 404, `not found: ${shownPath(pathname)}\n`, base);

    if (database && pathname === SERVED_DATABASE_PATH) {
      let file = database.file;
      const from = database.encodedFrom;
      if (from) {
        const now = await stat(from.file).catch(() => null);
        if (!now || now.size !== from.size || now.mtimeMs !== from.mtimeMs) {
          file = from.file;
          from.onChanged?.();
        }
      }
      const st = await stat(file).catch(() => null);
      if (!st?.isFile()) {
        send(res, 404, `the database file ${file} is no longer there\n`, base);
        return;
      }
      sendFile(req, res, file, st.size, MIME_TYPES['.mmdb'], base);
      return;
    }

    if (character && pathname === characterPath) {
      const st = await stat(character.file).catch(() => null);
      if (!st?.isFile()) {
        send(res, 404, `the character file ${character.file} is no longer there\n`, base);
        return;
      }
      sendFile(req, res, character.file, st.size, MIME_TYPES[extname(characterPath).toLowerCase()] ?? 'application/octet-stream', base);
      return;
    }

    const resolved = resolveRequestPath(root, pathname);
    const found = resolved === null ? null : await servableFile(root, resolved);
    if (!found) {
      notFound();
      return;
    }
    const type = MIME_TYPES[extname(found.file).toLowerCase()] ?? 'application/octet-stream';
    if ((database || character) && found.file === rootIndex) {
      // The page learns about the database and the character from its own HTML (no extra request, nothing to 404).
      const page = await readFile(found.file, 'utf8').catch(() => null);
      if (page === null) {
        notFound();
        return;
      }
      let html = database ? withServedDatabaseMeta(page, database.name) : page;
      if (character) html = withServedCharacterMeta(html, character.name);
      res.writeHead(200, { ...base, 'Content-Type': type, 'Content-Length': Buffer.byteLength(html), 'Cache-Control': 'no-cache' });
      res.end(req.method === 'HEAD' ? undefined : html);
      return;
    }
    sendFile(req, res, found.file, found.size, type, base);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      // Only a bug (or a file vanishing mid-request) gets here.
      if (!res.headersSent) send(res, 500, 'internal error\n', base);
      else res.destroy();
    });
  });
  const host = options.host ?? 'localhost';
  const port = options.port ?? 5173;
  await new Promise<void>((resolvePromise, reject) => {
    const onError = (e: NodeJS.ErrnoException): void => {
      reject(e.code === 'EADDRINUSE'
        ? new Error(`port ${port} is already in use: pass --port N (0 = any free port) or set PORT`)
        : e.code === 'EACCES' ? new Error(`not allowed to listen on port ${port}: pick a port above 1024`) : e);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolvePromise();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${actual}/`,
    port: actual,
    server,
    close: () => new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    }),
  };
}
