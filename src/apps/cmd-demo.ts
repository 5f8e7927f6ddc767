/**
 * `motionmatch demo`: builds the browser demo (web/ -> web-dist/, vite's JS API with
 * vite.config.ts) when it is missing or older than its sources, then serves web-dist/ with a small
 * static server that sends the cross-origin isolation headers the search pool's shared memory
 * needs (COOP same-origin, COEP require-corp, CORP same-origin).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createReadStream, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { parseCommandArgs, integerOption, UsageError } from './args.js';
import { nodePackageRoot } from '../search/wasm.js';

export const DEMO_USAGE = `usage: motionmatch demo [--port N] [--host H] [--no-build] [--rebuild] [--build-only]
                        [--no-isolation] [--json]

  Serves the browser demo: a crowd of motion-matched characters (three.js), built with vite into
  web-dist/ first when that is missing or older than its sources.
  --port N         port to listen on (default: $PORT, else 5173; 0 = any free port)
  --host H         interface to listen on (default localhost; 0.0.0.0 = every interface)
  --no-build       serve web-dist/ as it is (never run vite)
  --rebuild        build even when web-dist/ looks up to date
  --build-only     build (when needed) and exit without serving
  --no-isolation   leave out the cross-origin isolation headers (shows the single-thread fallback)
  --json           print one JSON object {"url": ...} on stdout once serving`;

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
};

const STAMP = '.motionmatch-build';

// -------------------------------------------------------------------------------------------------
// Building the bundle

/** Newest modification time (ms) of the files under `path` (a file or a folder, recursively). */
function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(join(path, entry.name)));
  }
  return newest;
}

/** What the bundle is made of: the page, the engine sources, the kernels and the build config. */
function bundleInputs(root: string): string[] {
  return ['web', 'src', 'build', 'vite.config.ts', 'package.json'].map((p) => join(root, p));
}

/** Why web-dist/ must be (re)built, or null when it is up to date. */
export function webBundleStaleReason(root: string): string | null {
  const stamp = join(root, 'web-dist', STAMP);
  if (!existsSync(join(root, 'web-dist', 'index.html')) || !existsSync(stamp)) return 'web-dist/ has not been built yet';
  const builtAt = statSync(stamp).mtimeMs;
  for (const input of bundleInputs(root)) {
    if (newestMtime(input) > builtAt) return `${input.slice(root.length + 1)} changed since the last build`;
  }
  return null;
}

export interface BuildWebOptions {
  /** Build even when up to date. */
  force?: boolean;
  /** Messages go here (default stderr). */
  log?: (line: string) => void;
}

/** Builds web-dist/ with vite when needed; returns whether it built and how long it took. */
export async function buildWebBundle(options: BuildWebOptions = {}): Promise<{ built: boolean; ms: number; reason: string | null }> {
  const root = await nodePackageRoot();
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const reason = options.force ? 'rebuild requested' : webBundleStaleReason(root);
  if (!reason) return { built: false, ms: 0, reason: null };
  const prebuilt = existsSync(join(root, 'web-dist', 'index.html'));
  if (!existsSync(join(root, 'web', 'index.html'))) {
    // An installed package without the page's sources: serve what it ships.
    if (prebuilt && !options.force) return { built: false, ms: 0, reason: null };
    throw new Error(`cannot build the demo: ${join(root, 'web', 'index.html')} is missing (a package without the web/ sources needs a prebuilt web-dist/)`);
  }
  for (const f of ['search.simd.wasm', 'search.scalar.wasm', 'search.simd.unshared.wasm', 'search.scalar.unshared.wasm']) {
    if (!existsSync(join(root, 'build', f))) throw new Error(`build/${f} is missing: run \`npm run build:wasm\` first`);
  }
  let vite: typeof import('vite');
  try {
    vite = await import('vite');
  } catch (e) {
    const why = `vite is not installed (${(e as Error).message.split('\n')[0]})`;
    if (prebuilt && !options.force) {
      log(`motionmatch demo: ${reason}, but ${why}: serving the existing web-dist/`);
      return { built: false, ms: 0, reason: null };
    }
    throw new Error(
      `cannot build the demo: ${why}. ` +
      'It is a devDependency: run `npm install` in the project (with dev dependencies), or serve a prebuilt web-dist/ with --no-build.',
    );
  }
  log(`motionmatch demo: building the web bundle (${reason})…`);
  const t0 = performance.now();
  const logger = vite.createLogger('warn', { allowClearScreen: false });
  const warn = logger.warn.bind(logger);
  // The engine's Node-only branches (node:fs, worker_threads) are guarded at run time; vite's
  // "externalized for browser compatibility" notices about them are expected noise.
  logger.warn = (msg, opts) => {
    if (/externalized for browser compatibility/.test(msg)) return;
    warn(msg, opts);
  };
  await vite.build({
    configFile: join(root, 'vite.config.ts'),
    logLevel: 'warn',
    customLogger: logger,
  });
  writeFileSync(join(root, 'web-dist', STAMP), `${new Date().toISOString()}\n`);
  const ms = performance.now() - t0;
  log(`motionmatch demo: built web-dist/ in ${(ms / 1000).toFixed(1)} s`);
  return { built: true, ms, reason };
}

// -------------------------------------------------------------------------------------------------
// Serving

export interface DemoServerOptions {
  /** Folder to serve (default: web-dist/ in the package). */
  root?: string;
  port?: number;
  host?: string;
  /** Send the cross-origin isolation headers (default true). */
  isolation?: boolean;
}

export interface DemoServer {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/** Maps a request path to a file under root, or null when it would leave root. */
export function resolveRequestPath(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const rel = normalize(decoded.startsWith('/') ? decoded.slice(1) : decoded);
  if (rel === '..' || rel.startsWith('..' + sep) || rel.split(sep).includes('..')) return null;
  const full = resolve(root, rel);
  if (full !== root && !full.startsWith(root + sep)) return null;
  return full;
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string>): void {
  res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

export async function startDemoServer(options: DemoServerOptions = {}): Promise<DemoServer> {
  const root = await realpath(options.root ?? join(await nodePackageRoot(), 'web-dist'));
  const isolation = options.isolation ?? true;
  const base: Record<string, string> = { 'X-Content-Type-Options': 'nosniff', ...(isolation ? ISOLATION_HEADERS : {}) };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'method not allowed\n', { ...base, Allow: 'GET, HEAD' });
      return;
    }
    let pathname: string;
    try {
      pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    } catch {
      send(res, 400, 'bad request\n', base);
      return;
    }
    let file = resolveRequestPath(root, pathname);
    if (file === null) {
      send(res, 403, 'forbidden\n', base);
      return;
    }
    try {
      let st = await stat(file);
      if (st.isDirectory()) {
        file = join(file, 'index.html');
        st = await stat(file);
      }
      // Symbolic links must not lead out of the served folder either.
      const real = await realpath(file);
      if (real !== root && !real.startsWith(root + sep)) {
        send(res, 403, 'forbidden\n', base);
        return;
      }
      if (!st.isFile()) throw Object.assign(new Error('not a file'), { code: 'ENOENT' });
      const type = MIME_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
      res.writeHead(200, { ...base, 'Content-Type': type, 'Content-Length': st.size, 'Cache-Control': 'no-cache' });
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      const stream = createReadStream(real);
      stream.on('error', () => res.destroy());
      stream.pipe(res);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') send(res, 404, `not found: ${pathname}\n`, base);
      else send(res, 500, 'internal error\n', base);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
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

// -------------------------------------------------------------------------------------------------
// Command

export async function demoCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, {
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    'no-build': { type: 'boolean' },
    rebuild: { type: 'boolean' },
    'build-only': { type: 'boolean' },
    'no-isolation': { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  }, DEMO_USAGE);
  if (values.help) { process.stdout.write(DEMO_USAGE + '\n'); return 0; }
  if (values['no-build'] && (values.rebuild || values['build-only'])) throw new UsageError('--no-build cannot be combined with --rebuild or --build-only', DEMO_USAGE);
  const envPort = process.env.PORT !== undefined && process.env.PORT !== '' ? process.env.PORT : undefined;
  const port = values.port !== undefined
    ? integerOption(values.port, 'port', DEMO_USAGE, 0, 65535)!
    : envPort !== undefined ? integerOption(envPort, 'port (from $PORT)', DEMO_USAGE, 0, 65535)! : 5173;
  const json = !!values.json;
  const root = await nodePackageRoot();

  if (!values['no-build']) await buildWebBundle({ force: !!values.rebuild });
  if (values['build-only']) {
    if (json) process.stdout.write(JSON.stringify({ built: join(root, 'web-dist') }) + '\n');
    return 0;
  }
  if (!existsSync(join(root, 'web-dist', 'index.html'))) {
    throw new Error(`${join(root, 'web-dist', 'index.html')} is missing: run \`motionmatch demo\` without --no-build to build it`);
  }
  const demo = await startDemoServer({ port, host: values.host, isolation: !values['no-isolation'] });
  if (json) process.stdout.write(JSON.stringify({ url: demo.url }) + '\n');
  else {
    process.stdout.write(`motionmatch demo: serving ${demo.url}\n`);
    if (values['no-isolation']) process.stdout.write('motionmatch demo: without cross-origin isolation headers (single-threaded search)\n');
    process.stdout.write('motionmatch demo: press Ctrl-C to stop\n');
  }

  // Run until Ctrl-C (or SIGTERM), then close connections and exit cleanly.
  return await new Promise<number>((done) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      if (!json) process.stderr.write(`\nmotionmatch demo: stopping (${signal})\n`);
      void demo.close().then(() => done(0));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
