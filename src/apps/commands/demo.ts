/**
 * `motionmatch demo`: builds the browser demo when stale (src/web/bundle-node.ts) and serves it
 * with the cross-origin isolation headers (src/web/serve-node.ts), optionally on the user's own
 * database (--db FILE) and with the user's own skinned character (--character FILE), both checked
 * before anything is built or served.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { parseCommandArgs, integerOption, UsageError } from '../args.js';
import { readDatabaseArgument } from '../database-file.js';
import { nodePackageRoot } from '../../search/wasm/load.js';
import { buildWebBundle } from '../../web/bundle-node.js';
import { startDemoServer, type ServedCharacter, type ServedDatabase } from '../../web/serve-node.js';
import { checkCharacterFile } from '../../web/character-file-node.js';
import { compactCacheDir, compactCopyOf, type CompactCopy } from '../../web/compact-cache-node.js';
import { createProgress } from '../../util/progress.js';
import { readSettingsFile } from '../../sim/settings/options-file-node.js';
import { settingsFragment, type EngineSettings } from '../../sim/settings/options-file.js';
import { TAG_OPTIONS, searchTagsOption, tagOptionsUsage } from '../tag-options.js';
import { checkSearchTags, searchTagsFragment, searchTagsText, type SearchTags } from '../../sim/search-tags.js';
import type { Database } from '../../database/database.js';
import { builtinDatabase } from '../builtin-database.js';

export const DEMO_USAGE = `usage: motionmatch demo [--db FILE [--serve-float32]] [--character FILE] [--options FILE] [--port N] [--host H]
                        [--require-tag TAG] [--exclude-tag TAG]
                        [--no-build] [--rebuild] [--build-only] [--no-isolation] [--json]

  Serves the browser demo: a crowd of motion-matched characters (three.js), built with vite into
  web-dist/ first when that is missing or older than its sources.
  --db FILE        start the page on this .mmdb database (from \`motionmatch build\`) instead of
                   the built-in one; checked before serving (a bad file exits with code 1).
                   Float32 or compact (\`build --compact\`): a float32 file is served as a
                   compact encoding of it (docs/compact.md; ~20x smaller, the page rebuilds
                   features on load), encoded once and cached by the file's CRC and size
  --serve-float32  with --db: serve a float32 file as it is (every raw float, no encoding)
  --character FILE draw the player and the crowd as this skinned character (.glb, .gltf with
                   embedded buffers, or .vrm) instead of box figures; its container is checked
                   before serving (a bad file exits with code 1), its rig by the page
  --options FILE   engine settings (controller options, feature-group weights; as \`motionmatch
                   tune\` writes them): checked first, then handed to the page in its address
                   (#options=...), which applies them to every database it runs
${tagOptionsUsage("every character's locomotion searches")}
                   (checked against the database; handed to the page in its address, #tags=...;
                   frames tagged 'wave' are left out of locomotion unless required)
  --port N         port to listen on (default: $PORT, else 5173; 0 = any free port)
  --host H         interface to listen on (default localhost; 0.0.0.0 = every interface)
  --no-build       serve web-dist/ as it is (never run vite)
  --rebuild        build even when web-dist/ looks up to date
  --build-only     build (when needed) and exit without serving
  --no-isolation   leave out the cross-origin isolation headers (shows the single-thread fallback)
  --json           print one JSON object {"url": ..., "database": ...} on stdout once serving

  From npm: npm start -- --db FILE (a relative FILE is taken from where npm was run).`;

/** The tag filters checked against the database the page starts on: a tag it lacks, or one both required and excluded, is a usage error. */
function checkTagsOn(db: Database, tags: SearchTags): void {
  try { checkSearchTags(db, tags); } catch (e) { throw new UsageError((e as Error).message, DEMO_USAGE); }
}

/**
 * A path the user typed, made absolute. Under `npm start` the command runs in the package folder,
 * not where the user typed it; npm says where that was in INIT_CWD.
 */
export function userPath(path: string, env: NodeJS.ProcessEnv = process.env): string {
  if (isAbsolute(path)) return path;
  const typedIn = env.npm_lifecycle_event === 'start' && env.INIT_CWD ? env.INIT_CWD : process.cwd();
  return resolve(typedIn, path);
}

export async function demoCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    db: { type: 'string' },
    'serve-float32': { type: 'boolean' },
    character: { type: 'string' },
    options: { type: 'string' },
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    'no-build': { type: 'boolean' },
    rebuild: { type: 'boolean' },
    'build-only': { type: 'boolean' },
    'no-isolation': { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    ...TAG_OPTIONS,
  }, DEMO_USAGE);
  if (values.help) { process.stdout.write(DEMO_USAGE + '\n'); return 0; }
  if (positionals.length) throw new UsageError(`unexpected argument '${positionals[0]}' (a database goes with --db FILE)`, DEMO_USAGE);
  if (values['no-build'] && (values.rebuild || values['build-only'])) throw new UsageError('--no-build cannot be combined with --rebuild or --build-only', DEMO_USAGE);
  if (values.db !== undefined && values['build-only']) throw new UsageError('--db serves a database: it cannot be combined with --build-only', DEMO_USAGE);
  if (values.db === '') throw new UsageError('--db needs a file name', DEMO_USAGE);
  if (values['serve-float32'] && values.db === undefined) throw new UsageError('--serve-float32 says how to serve a --db FILE: give it with --db', DEMO_USAGE);
  if (values.character === '') throw new UsageError('--character needs a file name', DEMO_USAGE);
  if (values.character !== undefined && values['build-only']) throw new UsageError('--character goes to the served page: it cannot be combined with --build-only', DEMO_USAGE);
  if (values.options === '') throw new UsageError('--options needs a file name', DEMO_USAGE);
  if (values.options !== undefined && values['build-only']) throw new UsageError('--options goes to the served page: it cannot be combined with --build-only', DEMO_USAGE);
  const envPort = process.env.PORT !== undefined && process.env.PORT !== '' ? process.env.PORT : undefined;
  const port = values.port !== undefined
    ? integerOption(values.port, 'port', DEMO_USAGE, 0, 65535)!
    : envPort !== undefined ? integerOption(envPort, 'port (from $PORT)', DEMO_USAGE, 0, 65535)! : 5173;
  const json = !!values.json;
  const root = await nodePackageRoot();

  // A bad database or settings file is the user's to fix: say so before building or serving anything.
  const settings: EngineSettings | null = values.options !== undefined ? readSettingsFile(userPath(values.options)) : null;
  const tags = searchTagsOption(values, DEMO_USAGE);
  // The built-in database's tags, to check the filters against when no --db is given.
  if (tags && values.db === undefined) checkTagsOn(builtinDatabase(), tags);
  let database: (ServedDatabase & { frames: number; clips: number; source: string; compact: CompactCopy | null }) | undefined;
  if (values.db !== undefined) {
    const file = userPath(values.db);
    const db = readDatabaseArgument(file);
    if (tags) checkTagsOn(db, tags);
    let compact: CompactCopy | null = null;
    let encodedFrom: ServedDatabase['encodedFrom'];
    if (!values['serve-float32']) {
      const st = statSync(file);
      const bar = createProgress('compact encoding for the page', !json && !!process.stderr.isTTY);
      compact = compactCopyOf(file, db, compactCacheDir(root), (d, t, l) => bar.update(d, t, l));
      bar.done();
      let told = false;
      if (!compact.wasCompact) {
        encodedFrom = {
          file, size: st.size, mtimeMs: st.mtimeMs,
          onChanged: () => {
            if (told || json) return;
            told = true;
            process.stderr.write(`motionmatch demo: ${file} changed since it was encoded: serving it as it is now (restart the demo to serve it compact)\n`);
          },
        };
      }
    }
    database = { file: compact?.file ?? file, name: basename(file), frames: db.frameCount, clips: db.clips.length, source: file, compact, encodedFrom };
  }
  let character: ServedCharacter | undefined;
  if (values.character !== undefined) {
    const file = userPath(values.character);
    await checkCharacterFile(file);
    character = { file, name: basename(file) };
  }

  if (!values['no-build']) await buildWebBundle({ force: !!values.rebuild });
  if (values['build-only']) {
    if (json) process.stdout.write(JSON.stringify({ built: join(root, 'web-dist') }) + '\n');
    return 0;
  }
  if (!existsSync(join(root, 'web-dist', 'index.html'))) {
    throw new Error(`${join(root, 'web-dist', 'index.html')} is missing: run \`motionmatch demo\` without --no-build to build it`);
  }
  const demo = await startDemoServer({ port, host: values.host, isolation: !values['no-isolation'], database, character });
  // The page reads the settings and the tag filters from its own address: nothing for the server to serve.
  const fragments = [...(settings ? [settingsFragment(settings).slice(1)] : []), ...(tags ? [searchTagsFragment(tags)] : [])];
  const url = fragments.length > 0 ? `${demo.url}#${fragments.join('&')}` : demo.url;
  if (json) {
    const shown = database ? { file: database.source, served: database.file, kind: database.compact ? 'compact' : 'float32', name: database.name, frames: database.frames, clips: database.clips } : null;
    process.stdout.write(JSON.stringify({ url, database: shown, ...(character ? { character: character.file } : {}), ...(settings ? { options: userPath(values.options!) } : {}), ...(tags ? { tags } : {}) }) + '\n');
  } else {
    process.stdout.write(`motionmatch demo: serving ${url}\n`);
    if (settings) process.stdout.write(`motionmatch demo: settings from ${userPath(values.options!)} (open the address above: it carries them)\n`);
    if (tags) process.stdout.write(`motionmatch demo: locomotion searches ${searchTagsText(tags)} (open the address above: it carries them)\n`);
    if (database) {
      const c = database.compact;
      const reread = c && !c.wasCompact ? 'its compact encoding' : 'the file';
      process.stdout.write(`motionmatch demo: database ${database.source} (${database.clips} clips, ${database.frames.toLocaleString('en-US')} frames; ${reread} re-read at every page load)\n`);
      if (c && !c.wasCompact) {
        process.stdout.write(`motionmatch demo: served as a compact encoding, ${c.bytes.toLocaleString('en-US')} bytes (${c.encoded ? 'encoded now' : 'cached'}: ${c.file}; --serve-float32 serves the file as it is)\n`);
      }
    }
    if (character) process.stdout.write(`motionmatch demo: character ${character.file} (re-read at every page load)\n`);
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
