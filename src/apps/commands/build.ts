import { statSync } from 'node:fs';
import { parseCommandArgs, numberOption, UsageError } from '../args.js';
import { checkOutputFile, sameFile } from '../output-file.js';
import { buildDatabase, type TagRule } from '../../database/build.js';
import { globMatcher, GlobError } from '../../util/glob.js';
import { loadBvhSources, builtinSources, scaleMismatchText, type ScaleMismatch } from '../../database/sources-node.js';
import type { CalibrationTrim } from '../../database/calibration-frames.js';
import type { FloorMove, PlaceJump } from '../../database/build.js';
import type { GlitchRepair } from '../../database/glitch-frames.js';
import { writeDatabaseFile, writeCompactDatabaseFile } from '../../database/mmdb/mmdb-node.js';
import type { PoseErrorReport } from '../../database/compact/pose-error.js';
import { parseSchemaJson } from '../../features/schema-validate.js';
import { parseBoneOverrides } from '../../features/roles.js';
import { mirrorPairingProblem } from '../../features/mirror.js';
import { createProgress } from '../../util/progress.js';
import { readRegularTextFile, FileAccessError } from '../../util/files-node.js';
import { MAX_FPS, MIN_FPS } from '../../anim/frame-rate.js';
import type { SkippedBvhEntry } from '../../import/bvh/bvh-node.js';
import type { ClipRange } from '../../database/database.js';
import { escapeControls } from '../../database/mmdb/format.js';
import { UP_AXES, upAxisNote, type UpAxis, type UpAxisFinding } from '../../database/up-axis.js';

/** Largest schema file read (a schema is a few hundred bytes of JSON). */
const MAX_SCHEMA_BYTES = 1024 * 1024;

/** Skipped folder entries listed one per line on stderr; the rest are counted. */
const MAX_SKIPPED_SHOWN = 10;

export const BUILD_USAGE = `usage: motionmatch build <files or folders...> --out FILE [--mirror] [--schema FILE]
                         [--bones hips=NAME,leftFoot=NAME,...] [--scale S] [--fps F]
                         [--tag TAG=GLOB ...] [--loop GLOB ...] [--up AXIS] [--as-captured]
                         [--compact [--error]] [--json]
       motionmatch build --builtin --out FILE [--mirror] [--schema FILE] [--compact [--error]] [--json]

  Imports BVH clips (folders are searched recursively), extracts features and writes a .mmdb database.
  Bone roles are found by name and by the skeleton's shape; files that list the same joints in
  another order are matched by name; clips at other rates are resampled to one rate.
  --out FILE       database file to write
  --builtin        use the built-in procedural locomotion clips instead of files
  --mirror         add a left/right mirrored copy of every clip
  --compact        write a compact database (docs/compact.md): poses compressed with every joint
                   within 0.01 cm (3 cm virtual points), mirrored copies and features rebuilt on load;
                   the largest and 99.9th-percentile error are printed and kept in the file
                   (\`motionmatch info --error\`)
  --error          with --compact: also list each clip's error
  --schema FILE    feature schema (JSON); default: foot positions/velocities, hip velocity, trajectory
  --bones SPEC     bone roles by joint name, e.g. hips=Hips,leftFoot=Foot_L,rightFoot=Foot_R
  --scale S        metres per file unit (default: detected from the skeleton's height)
  --as-captured    keep every frame as captured, every take whole: by default a pose held at a take's start
                   or end and left in one frame (a T-pose before the motion) is left out, and a take
                   whose hips jump further in one frame than they ever move is cut there in two
                   (spliced takes), a glitch of a few frames that jumps away and back is
                   interpolated over, and a take standing on another floor than the others (a
                   session calibrated apart) is moved onto theirs; all reported
  --up AXIS        the axis the captures stand along: auto (default: found from the rest pose and
                   the motion, which must agree), +y, -y, +z, -z, +x or -x; a set standing along
                   another axis than +y is turned upright (this project works Y-up)
  --fps F          resample every clip to F frames per second, ${MIN_FPS} to ${MAX_FPS}
                   (default: the clips' common rate, else the highest)
  --loop GLOB      clips whose name matches GLOB (* and ?; at most 256 characters) loop: the last frame flows into the
                   first, every frame stays a search candidate, and features that look ahead
                   continue into the next cycle; a loop whose last frame repeats its first pose
                   loses that repeat. Repeatable (at most 256 times); a GLOB that matches no
                   clip name is reported on stderr
  --tag TAG=GLOB[@FROM-TO]
                   tag clips whose name matches GLOB (* and ?), or only seconds FROM..TO of
                   them (e.g. --tag stand=walk_*@0-0.5), repeatable (at most 256 times)
  --json           print one JSON object with the result on stdout`;

/** Refuses an --out that is one of the BVH files imported (the build would replace the user's capture). */
function refuseSourceAsOutput(out: string, inputs: readonly string[]): void {
  for (const input of inputs) {
    if (sameFile(out, input)) throw new FileAccessError(out, `cannot write database file '${out}': it is the input file '${input}'; choose another --out`, 'EEXIST');
  }
}

/** Most --loop and most --tag options: each is matched against every clip name. */
export const MAX_GLOB_OPTIONS = 256;

/** The option's globs checked (length) before any work: a usage error naming the option. */
function checkGlob(glob: string, option: string): void {
  try {
    globMatcher(glob);
  } catch (e) {
    if (e instanceof GlobError) throw new UsageError(`${option}: ${e.message}`, BUILD_USAGE);
    throw e;
  }
}

/** Lines for stderr about the folder entries the import left out. */
function skippedLines(skipped: readonly SkippedBvhEntry[]): string {
  const shown = skipped.slice(0, MAX_SKIPPED_SHOWN).map((s) => `motionmatch build: skipped ${s.path}: ${s.reason}\n`);
  const more = skipped.length - shown.length;
  return shown.join('') + (more > 0 ? `motionmatch build: ... and ${more.toLocaleString('en-US')} more skipped entries\n` : '');
}

/** Source clips (mirrored copies not counted) resampled to the database rate, per original rate. */
function resampledSummary(clips: readonly ClipRange[], fps: number): Array<{ from: number; to: number; clips: number }> {
  const counts = new Map<number, number>();
  for (const c of clips) if (c.sourceFps !== undefined && !c.mirrored) counts.set(c.sourceFps, (counts.get(c.sourceFps) ?? 0) + 1);
  return [...counts].sort((a, b) => b[0] - a[0]).map(([from, n]) => ({ from, to: fps, clips: n }));
}

function parseTagRules(specs: string[]): TagRule[] {
  if (specs.length > MAX_GLOB_OPTIONS) throw new UsageError(`--tag is given ${specs.length} times; at most ${MAX_GLOB_OPTIONS} (each is matched against every clip name)`, BUILD_USAGE);
  return specs.map((spec) => {
    const m = /^([^=]+)=([^@]+)(?:@([0-9.]+)-([0-9.]+))?$/.exec(spec);
    if (!m) throw new UsageError(`--tag expects TAG=GLOB or TAG=GLOB@FROM-TO (seconds), got "${spec}"`, BUILD_USAGE);
    checkGlob(m[2], `--tag ${m[1]}=GLOB`);
    const rule: TagRule = { tag: m[1], pattern: m[2] };
    if (m[3] !== undefined) {
      rule.from = Number(m[3]); rule.to = Number(m[4]);
      if (!(Number.isFinite(rule.from) && Number.isFinite(rule.to) && rule.to > rule.from)) throw new UsageError(`--tag ${spec}: FROM and TO must be seconds with FROM < TO`, BUILD_USAGE);
    }
    return rule;
  });
}

/** Metres as centimetres for a report line. */
function cm(m: number): string {
  return (m * 100).toFixed(5);
}

/** The error report for --json: centimetres, per clip and overall. */
function errorSummary(e: PoseErrorReport, clips: readonly ClipRange[]): { unit: 'cm'; max: number; p999: number; clips: Array<{ name: string; max: number; p999: number }> } {
  const r = (m: number): number => +(m * 100).toPrecision(4);
  return { unit: 'cm', max: r(e.overall.max), p999: r(e.overall.p999), clips: e.clips.map((c, i) => ({ name: clips[i].name, max: r(c.max), p999: r(c.p999) })) };
}

/** One line per clip: its largest and 99.9th-percentile error. */
function errorLines(e: PoseErrorReport, clips: readonly ClipRange[]): string {
  return e.clips.map((c, i) => `  ${escapeControls(clips[i].name).padEnd(40)} max ${cm(c.max)} cm  p99.9 ${cm(c.p999)} cm\n`).join('');
}

/** One line for a clip whose ends held a calibration pose (calibration-frames.ts). */
function calibrationTrimText(t: CalibrationTrim): string {
  const frames = (n: number, which: string): string => (n === 0 ? '' : n === 1 ? `the ${which} frame` : `the ${which} ${n} frames`);
  const where = [frames(t.start, 'first'), frames(t.end, 'last')].filter((x) => x !== '').join(' and ');
  return `left out ${where} of ${t.source}: a pose ${t.step.toFixed(2)} m from the next frame, ${Number.isFinite(t.ratio) ? `${t.ratio.toFixed(1)} times` : 'far more than'} any other step of the clip (a calibration pose; --as-captured keeps it)`;
}

/** --up: auto (undefined) or one of the six axis names ('z' is taken as '+z'). */
function parseUpAxis(v: string | undefined): UpAxis | 'auto' {
  if (v === undefined) return 'auto';
  const a = v.trim().toLowerCase();
  if (a === 'auto') return 'auto';
  const named = (/^[xyz]$/.test(a) ? `+${a}` : a) as UpAxis;
  if (!UP_AXES.includes(named)) throw new UsageError(`--up must be auto or one of ${UP_AXES.join(', ')}, got '${escapeControls(v.slice(0, 40))}'`, BUILD_USAGE);
  return named;
}

/** What the build found or was told about the up axis, for the report. */
function upSummary(f: UpAxisFinding | undefined): { axis: UpAxis; how: 'detected' | 'given'; rest: { axis: UpAxis; degrees: number } | null; motion: { axis: UpAxis; degrees: number } | null; unconfirmed: UpAxis | null } {
  const deg = (n: { axis: UpAxis; angle: number } | null) => (n ? { axis: n.axis, degrees: +(n.angle * 180 / Math.PI).toFixed(1) } : null);
  return f ? { axis: f.axis, how: f.how, rest: deg(f.rest), motion: deg(f.motion), unconfirmed: f.unconfirmed } : { axis: '+y', how: 'detected', rest: null, motion: null, unconfirmed: null };
}

export async function buildCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    out: { type: 'string', short: 'o' },
    builtin: { type: 'boolean' },
    mirror: { type: 'boolean' },
    schema: { type: 'string' },
    bones: { type: 'string' },
    scale: { type: 'string' },
    fps: { type: 'string' },
    up: { type: 'string' },
    'as-captured': { type: 'boolean' },
    tag: { type: 'string', multiple: true },
    loop: { type: 'string', multiple: true },
    json: { type: 'boolean' },
    compact: { type: 'boolean' },
    error: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  }, BUILD_USAGE);
  if (values.help) { process.stdout.write(BUILD_USAGE + '\n'); return 0; }
  if (values.out === undefined) throw new UsageError('--out FILE is required', BUILD_USAGE);
  if (values.error && !values.compact) throw new UsageError('--error reports the compression error: give it with --compact', BUILD_USAGE);
  if (values.schema !== undefined && values.schema.trim() === '') throw new UsageError('--schema needs a file name', BUILD_USAGE);
  if (values.builtin && positionals.length > 0) throw new UsageError('give either --builtin or files, not both', BUILD_USAGE);
  if (!values.builtin && positionals.length === 0) throw new UsageError('no input: give BVH files or folders, or --builtin', BUILD_USAGE);
  const scale = numberOption(values.scale, 'scale', BUILD_USAGE, 1e-9, 1e9);
  const fps = numberOption(values.fps, 'fps', BUILD_USAGE, MIN_FPS, MAX_FPS);
  const up = parseUpAxis(values.up);
  const tagRules = parseTagRules(values.tag ?? []);
  const loops = values.loop ?? [];
  if (loops.length > MAX_GLOB_OPTIONS) throw new UsageError(`--loop is given ${loops.length} times; at most ${MAX_GLOB_OPTIONS} (each is matched against every clip name)`, BUILD_USAGE);
  for (const glob of loops) {
    if (glob.trim() === '') throw new UsageError('--loop expects a GLOB over clip names, e.g. --loop "*_loop"', BUILD_USAGE);
    checkGlob(glob, '--loop');
  }
  // Before reading anything: the output is neither the schema nor a BVH file named on the command line.
  checkOutputFile(values.out, '--out', 'database file', BUILD_USAGE, [
    { path: values.schema, label: 'the --schema file' },
    ...positionals.map((p) => ({ path: p, label: 'the input file' })),
  ]);
  const schema = values.schema ? parseSchemaJson(readRegularTextFile(values.schema, { what: 'schema file', maxBytes: MAX_SCHEMA_BYTES }), values.schema) : undefined;
  const bones = values.bones ? parseBoneOverrides(values.bones) : undefined;
  const json = !!values.json;
  const t0 = performance.now();

  const importBar = createProgress('import  ', !json && !!process.stderr.isTTY);
  const skipped: SkippedBvhEntry[] = [];
  const scaleMismatch: ScaleMismatch[] = [];
  const sources = values.builtin
    ? builtinSources()
    : loadBvhSources(positionals, { scale, onProgress: (d, t, l) => importBar.update(d, t, l), onSkip: (s) => skipped.push(s), onScaleMismatch: (m) => scaleMismatch.push(m) });
  importBar.done();
  if (skipped.length > 0) process.stderr.write(skippedLines(skipped));
  for (const m of scaleMismatch.slice(0, MAX_SKIPPED_SHOWN)) process.stderr.write(`motionmatch build: warning: ${scaleMismatchText(m)}\n`);
  if (scaleMismatch.length > MAX_SKIPPED_SHOWN) process.stderr.write(`motionmatch build: warning: ... and ${scaleMismatch.length - MAX_SKIPPED_SHOWN} more files of another size\n`);
  refuseSourceAsOutput(values.out, sources.map((s) => s.clip.source));
  // A glob that matches nothing is most likely a typo: say so (the build goes on). Tags are matched
  // against the mirrored copies' names too ("NAME_mirror"), loops against the sources'.
  const names = sources.map((s) => s.clip.name);
  const allNames = values.mirror ? [...names, ...names.map((n) => `${n}_mirror`)] : names;
  for (const glob of loops) {
    const re = globMatcher(glob);
    if (!names.some((n) => re.test(n))) process.stderr.write(`motionmatch build: --loop ${glob} matches no clip name\n`);
  }
  for (const rule of tagRules) {
    const re = globMatcher(rule.pattern);
    if (!allNames.some((n) => re.test(n))) process.stderr.write(`motionmatch build: --tag ${rule.tag}=${rule.pattern} matches no clip name\n`);
  }
  const tImport = performance.now();

  const buildBar = createProgress('features', !json && !!process.stderr.isTTY);
  let upFound: UpAxisFinding | undefined;
  let trims: CalibrationTrim[] = [];
  let jumps: PlaceJump[] = [];
  let glitches: GlitchRepair[] = [];
  let floorMoves: FloorMove[] = [];
  const db = buildDatabase(sources, {
    schema, bones, fps, mirror: !!values.mirror, tagRules, loops, up, onUpAxis: (f) => { upFound = f; }, onProgress: (d, t, l) => buildBar.update(d, t, l),
    captureFaults: values['as-captured'] ? 'keep' : 'fix', onCalibrationTrim: (t) => { trims = t; }, onPlaceJumps: (c) => { jumps = c; }, onGlitches: (g) => { glitches = g; }, onFloorMoves: (m) => { floorMoves = m; },
  });
  buildBar.done();
  for (const t of trims.slice(0, MAX_SKIPPED_SHOWN)) process.stderr.write(`motionmatch build: ${calibrationTrimText(t)}\n`);
  if (trims.length > MAX_SKIPPED_SHOWN) process.stderr.write(`motionmatch build: ... and ${trims.length - MAX_SKIPPED_SHOWN} more clips with a calibration pose left out (--as-captured keeps them)\n`);
  for (const j of jumps.slice(0, MAX_SKIPPED_SHOWN)) process.stderr.write(`motionmatch build: cut ${j.source} in two at frame ${j.frame}: its hips moved ${j.step.toFixed(2)} m in one frame, further than in any other (spliced takes or a reset capture volume); the second part is clip '${j.clip}@${j.frame}' (--as-captured keeps it whole)\n`);
  for (const g of glitches.slice(0, MAX_SKIPPED_SHOWN)) process.stderr.write(`motionmatch build: interpolated over ${g.runs.length === 1 ? 'a glitch' : `${g.runs.length} glitches`} in ${g.source} (frames ${g.runs.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ')}): a pose that jumps away and comes back (--as-captured keeps it)\n`);
  if (glitches.length > MAX_SKIPPED_SHOWN) process.stderr.write(`motionmatch build: ... and ${glitches.length - MAX_SKIPPED_SHOWN} more clips with glitches interpolated over (--as-captured keeps them)\n`);
  for (const m of floorMoves.slice(0, MAX_SKIPPED_SHOWN)) process.stderr.write(`motionmatch build: moved ${m.source} ${m.shift > 0 ? 'up' : 'down'} ${(100 * Math.abs(m.shift)).toFixed(1)} cm onto the other takes' floor (--as-captured keeps it where it is)\n`);
  if (floorMoves.length > MAX_SKIPPED_SHOWN) process.stderr.write(`motionmatch build: ... and ${floorMoves.length - MAX_SKIPPED_SHOWN} more takes moved onto the others' floor (--as-captured keeps them)\n`);
  if (jumps.length > MAX_SKIPPED_SHOWN) process.stderr.write(`motionmatch build: ... and ${jumps.length - MAX_SKIPPED_SHOWN} more cuts where the hips jumped (--as-captured keeps the takes whole)\n`);
  const upNote = upFound ? upAxisNote(upFound, (axis) => `if they do stand that way, build again with --up ${axis}`) : null;
  if (upNote !== null && upFound?.axis === '+y') process.stderr.write(`motionmatch build: warning: ${upNote}\n`);
  const mirrorProblem = values.mirror ? mirrorPairingProblem(db.skeleton, db.roles) : null;
  if (mirrorProblem !== null) process.stderr.write(`motionmatch build: warning: --mirror: ${escapeControls(mirrorProblem)}\n`);
  let error: PoseErrorReport | undefined;
  let bytes: number;
  if (values.compact) {
    const bar = createProgress('compress', !json && !!process.stderr.isTTY);
    ({ bytes, error } = writeCompactDatabaseFile(values.out, db, { onProgress: (d, t, l) => bar.update(d, t, l) }));
    bar.done();
  } else {
    bytes = writeDatabaseFile(values.out, db);
  }
  const t1 = performance.now();

  const result = {
    out: values.out,
    frames: db.frameCount,
    clips: db.clips.length,
    dims: db.dims,
    stride: db.stride,
    fps: db.fps,
    joints: db.skeleton.names.length,
    mirrored: !!values.mirror,
    /** Why the mirrored copies may be wrong (the joints without a partner), or null. */
    mirrorWarning: mirrorProblem,
    candidates: db.candidates.reduce((n, c) => n + c, 0),
    tags: db.tagNames,
    // Counted as \`info\` counts them: every looping clip, mirrored copies included.
    loops: db.clips.filter((c) => c.loop).length,
    resampled: resampledSummary(db.clips, db.fps),
    up: upSummary(upFound),
    skipped,
    scaleMismatch,
    /** Frames left out at clips' ends as calibration poses (none with --as-captured). */
    calibrationTrimmed: trims,
    /** Takes cut where their hips jumped (the second part is clip NAME@FRAME; none with --as-captured). */
    placeJumps: jumps,
    /** Glitches interpolated over: per clip, runs of source frames [first, last] (none with --as-captured). */
    glitchesRepaired: glitches,
    /** Takes moved onto the other takes' floor (m, up positive; none with --as-captured). */
    floorMoves,
    bytes,
    compact: !!values.compact,
    ...(error ? { error: errorSummary(error, db.clips) } : {}),
    seconds: { import: +((tImport - t0) / 1000).toFixed(3), total: +((t1 - t0) / 1000).toFixed(3) },
  };
  if (json) {
    process.stdout.write(JSON.stringify(result) + '\n');
  } else {
    process.stdout.write(
      `wrote ${result.out}: ${result.frames} frames in ${result.clips} clips at ${result.fps} fps, ` +
      `${result.dims} feature dims (stride ${result.stride}), ${result.joints} joints, ${statSync(values.out).size} bytes ` +
      `in ${result.seconds.total.toFixed(2)} s\n` +
      (result.loops > 0 ? `${result.loops} looping clip${result.loops === 1 ? '' : 's'}\n` : '') +
      result.resampled.map((r) => `resampled ${r.clips} clip${r.clips === 1 ? '' : 's'} from ${r.from} fps to ${r.to} fps\n`).join('') +
      (upNote !== null && result.up.axis !== '+y' ? `${upNote}\n` : '') +
      (error ? `compact poses: largest error ${cm(error.overall.max)} cm, 99.9th percentile ${cm(error.overall.p999)} cm (virtual points 3 cm from each joint)\n` : '') +
      (error && values.error ? errorLines(error, db.clips) : ''),
    );
  }
  return 0;
}
