/**
 * Vite configuration of the browser demo (web/ -> web-dist/).
 *
 * `motionmatch demo` builds with this file through vite's JS API and serves web-dist/ itself;
 * `npx vite --config vite.config.ts` runs the same page on vite's dev server (with hot reload).
 * Both send the cross-origin isolation headers: without them the page has no SharedArrayBuffer,
 * so the search pool falls back to one thread (the page says so).
 */
import { defineConfig } from 'vite';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = dirname(fileURLToPath(import.meta.url));

/** Headers that make the page cross-origin isolated (SharedArrayBuffer, shared WebAssembly.Memory). */
export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export default defineConfig({
  root: resolve(projectRoot, 'web'),
  // Relative asset URLs: the bundle works from any path it is served under.
  base: './',
  publicDir: false,
  clearScreen: false,
  build: {
    outDir: resolve(projectRoot, 'web-dist'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // Never inline the .wasm builds as data: URLs (they are fetched and compiled once).
    assetsInlineLimit: 0,
    // three.js alone is ~700 kB; one chunk for the page is fine for a demo.
    chunkSizeWarningLimit: 2000,
  },
  // The search pool starts its workers with `new Worker(url, { type: 'module' })`.
  worker: { format: 'es' },
  server: {
    headers: ISOLATION_HEADERS,
    // The page imports the engine from ../src and the kernels from ../build.
    fs: { allow: [projectRoot] },
  },
  preview: { headers: ISOLATION_HEADERS },
});
