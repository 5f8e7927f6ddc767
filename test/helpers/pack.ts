/**
 * Packing the repository and installing the tarball into a fresh project outside it, offline, as a
 * user would receive the package (test/package/pack-install.test.ts, browser-bundle.test.ts).
 *
 * Packing runs the real lifecycle scripts with MOTIONMATCH_PACK_PREBUILT=1: prepack then checks
 * (rather than rebuilds) dist/, build/*.wasm and web-dist/, which `npm test`'s pretest has just
 * built; packing outputs older than their sources fails with the prepack's message.
 *
 * Offline: `npm ci` in the repository fetches tarballs by the lockfile's integrity and caches no
 * registry metadata, so `npm install --offline <tarball>` stops at ENOTCACHED (it must resolve the
 * dependencies' versions). The project therefore gets a lockfile: the tarball (its integrity from
 * `npm pack --json`) plus the package's `dependencies` at the versions and integrities of the
 * repository's package-lock.json, and `npm ci --offline` installs it from the npm cache alone.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './cli.js';

export interface PackedFile { path: string; size: number }
export interface PackReport { filename: string; integrity: string; version: string; files: PackedFile[] }
interface LockEntry { version: string; integrity: string; dependencies?: Record<string, string>; dev?: boolean; [k: string]: unknown }

export const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
export const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/** Why npm cannot run here (null when it can). */
export function npmMissingReason(): string | null {
  const v = spawnSync(NPM, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return v.status === 0 ? null : `npm is not available (${v.error?.message ?? `npm --version exited with ${v.status}`})`;
}

export const repoPackage = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; bin: Record<string, string>; license: string };

/**
 * The environment without what `npm test` exports to its children (npm_package_*, npm_lifecycle_*,
 * npm_config_local_prefix, ...), which would otherwise point the inner npm at the repository.
 * The cache, user config and registry settings stay: the offline install reads that cache.
 */
export function cleanNpmEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_userconfig', 'npm_config_registry']);
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) || keep.has(k.toLowerCase())) env[k] = v;
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...extra };
}

export function run(cmd: string, args: string[], cwd: string, env = cleanNpmEnv()): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 180_000, maxBuffer: 64 * 1024 * 1024 });
}

export function describeFailure(what: string, r: SpawnSyncReturns<string>): string {
  return `${what} exited with ${r.status ?? r.signal ?? r.error?.message}\n${r.stderr}\n${r.stdout}`;
}

/** A lockfile installing the tarball and, from the repository's lockfile, its dependencies. */
export function projectLockfile(name: string, tarballSpec: string, pack: PackReport): object {
  const repoLock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const packages: Record<string, object> = {
    '': { name, version: '0.0.0', dependencies: { motionmatch: tarballSpec } },
    'node_modules/motionmatch': {
      version: pack.version, resolved: tarballSpec, integrity: pack.integrity, license: repoPackage.license,
      dependencies: repoPackage.dependencies, bin: repoPackage.bin,
    },
  };
  const pending = Object.keys(repoPackage.dependencies);
  while (pending.length > 0) {
    const dep = pending.pop()!;
    if (packages[`node_modules/${dep}`]) continue;
    const entry = repoLock.packages[`node_modules/${dep}`];
    if (!entry) throw new Error(`package-lock.json has no node_modules/${dep}: run npm install`);
    if (entry.dev) throw new Error(`package-lock.json marks ${dep} as dev although the package depends on it: run npm install`);
    packages[`node_modules/${dep}`] = entry;
    pending.push(...Object.keys(entry.dependencies ?? {}));
  }
  return { name, version: '0.0.0', lockfileVersion: 3, requires: true, packages };
}

function npmPack(destination: string): PackReport {
  const packed = run(NPM, ['pack', '--json', '--pack-destination', destination], REPO_ROOT, cleanNpmEnv({ MOTIONMATCH_PACK_PREBUILT: '1' }));
  if (packed.status !== 0) throw new Error(describeFailure('npm pack', packed));
  return (JSON.parse(packed.stdout) as PackReport[])[0];
}

/**
 * `npm pack --json` of the repository, the tarball in `work` (prebuilt outputs, checked by prepack).
 * Within one `vitest run` (MM_TEST_RUN_DIR, set by test/helpers/global-setup.ts) the repository is
 * packed once, by the first file that asks, and the other files get a copy of that tarball: the
 * same bytes, one pack less, and no two packs at once (prepack rewrites package.json for the
 * pack and postpack puts it back, so a pack running beside another one found "web-dist/ is older
 * than package.json"). The files take turns through a lock folder.
 */
export function packRepository(work: string): PackReport {
  const runDir = process.env.MM_TEST_RUN_DIR;
  if (!runDir || !existsSync(runDir)) return npmPack(work);
  const shared = join(runDir, 'shared-pack'), lock = `${shared}.lock`, report = join(shared, 'pack.json');
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (const start = Date.now(); ;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (Date.now() - start > 300_000) throw new Error(`the run's shared npm pack (${lock}) was not released in 300 s`);
      Atomics.wait(sleeper, 0, 0, 100);
    }
  }
  try {
    if (!existsSync(report)) {
      mkdirSync(shared, { recursive: true });
      writeFileSync(report, JSON.stringify(npmPack(shared)));
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  const pack = JSON.parse(readFileSync(report, 'utf8')) as PackReport;
  copyFileSync(join(shared, pack.filename), join(work, pack.filename));
  return pack;
}

/**
 * A project `work/<dir>` depending on the tarball `pack` (in `work`) and nothing else, installed
 * offline from the npm cache; returns the project folder.
 */
export function installTarball(work: string, pack: PackReport, dir: string, name: string): string {
  const project = join(work, dir);
  mkdirSync(project);
  const spec = `file:../${pack.filename}`;
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name, version: '0.0.0', private: true, dependencies: { motionmatch: spec } }, null, 2));
  writeFileSync(join(project, 'package-lock.json'), JSON.stringify(projectLockfile(name, spec, pack), null, 2));
  let install = run(NPM, ['ci', '--offline', '--no-audit', '--no-fund'], project);
  if (install.status !== 0 && /ENOTCACHED/.test(install.stderr)) {
    // A cache that lacks a dependency's tarball (npm ci was run with another cache): let npm
    // fetch only what is missing.
    console.log(`${name}: offline install failed (ENOTCACHED); retrying with --prefer-offline`);
    install = run(NPM, ['ci', '--prefer-offline', '--no-audit', '--no-fund'], project);
  }
  if (install.status !== 0) throw new Error(describeFailure('npm ci (the packed tarball)', install));
  return project;
}
