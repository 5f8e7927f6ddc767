/**
 * The browser demo's bundle: web/ built with vite (vite.config.ts, vite's JS API) into web-dist/,
 * only when web-dist/ is missing or older than what it is made of. `motionmatch demo` and the
 * browser benchmark both call it before serving.
 */
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodePackageRoot } from '../search/wasm/load.js';

const STAMP = '.motionmatch-build';

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
