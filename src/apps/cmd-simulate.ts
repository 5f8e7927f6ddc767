import { writeFileSync } from 'node:fs';
import { tuneJitForCrowds } from '../util/jit-node.js';
import { parseCommandArgs, integerOption, numberOption, UsageError } from './args.js';
import { readDatabaseFile } from '../database/mmdb-node.js';
import { buildDatabase } from '../database/build.js';
import { builtinSources } from '../database/sources-node.js';
import { runSimulation } from '../sim/simulation.js';
import { SCENARIOS, type ScenarioName } from '../sim/scenarios.js';
import { recordingToClip } from '../sim/export.js';
import { writeBvh } from '../import/bvh-write.js';
import { createProgress } from '../util/progress.js';
import type { SearchMethod, Backend } from '../search/matcher.js';
import { readSettingsFile } from '../sim/options-file-node.js';
import { applySchemaWeights } from '../sim/options-file.js';

export const SIMULATE_USAGE = `usage: motionmatch simulate [--db FILE] [--agents N] [--seconds S] [--hz H] [--seed K]
                            [--workers W] [--scenario wander|path|stop-go|strafe|mixed]
                            [--method kdtree|aabb|brute] [--backend auto|wasm-simd|wasm-scalar|js]
                            [--no-ik] [--no-warmup] [--export-bvh FILE --agent I] [--options FILE] [--json]

  Runs N headless agents, each with its own motion matching controller, driven by seeded scripted
  inputs, stepped at H Hz with every step's searches answered in one batch. Deterministic: the same
  seed gives the same hash with any number of workers. Default database: the built-in one.
  --workers W        threads doing agent work (W > 1 share the database in shared WASM memory)
  --no-warmup        time the first steps too: by default every thread first steps 128 throwaway
                     agents for one simulated second, so that the timed steps run optimised code
                     (its time is reported as warmupSeconds, inside setupSeconds)
  --export-bvh FILE  write agent I's motion as BVH (with --agent I, default 0)
  --options FILE     engine settings: controller options and feature-group weights (JSON, as
                     \`motionmatch tune\` writes them; docs/tuning.md)`;

const METHODS: readonly SearchMethod[] = ['kdtree', 'aabb', 'brute', 'early'];
const BACKENDS: ReadonlyArray<Backend | 'auto'> = ['auto', 'wasm-simd', 'wasm-scalar', 'js'];

export async function simulateCommand(argv: string[]): Promise<number> {
  tuneJitForCrowds(); // before any step is optimised (see src/util/jit-node.ts)
  const { values } = parseCommandArgs(argv, {
    db: { type: 'string' },
    agents: { type: 'string' },
    seconds: { type: 'string' },
    hz: { type: 'string' },
    seed: { type: 'string' },
    workers: { type: 'string' },
    scenario: { type: 'string' },
    method: { type: 'string' },
    backend: { type: 'string' },
    'no-ik': { type: 'boolean' },
    'no-warmup': { type: 'boolean' },
    'export-bvh': { type: 'string' },
    agent: { type: 'string' },
    options: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  }, SIMULATE_USAGE);
  if (values.help) { process.stdout.write(SIMULATE_USAGE + '\n'); return 0; }
  const agents = integerOption(values.agents, 'agents', SIMULATE_USAGE, 1, 1_000_000) ?? 100;
  const seconds = numberOption(values.seconds, 'seconds', SIMULATE_USAGE, 1e-3, 86_400) ?? 10;
  const hz = numberOption(values.hz, 'hz', SIMULATE_USAGE, 1, 1000) ?? 30;
  const seed = integerOption(values.seed, 'seed', SIMULATE_USAGE, 0, 2 ** 32 - 1) ?? 1;
  const workers = integerOption(values.workers, 'workers', SIMULATE_USAGE, 1, 64) ?? 1;
  const scenario = (values.scenario ?? 'mixed') as ScenarioName;
  if (!SCENARIOS.includes(scenario)) throw new UsageError(`--scenario must be one of ${SCENARIOS.join(', ')}`, SIMULATE_USAGE);
  const method = (values.method ?? 'kdtree') as SearchMethod;
  if (!METHODS.includes(method)) throw new UsageError(`--method must be one of ${METHODS.join(', ')}`, SIMULATE_USAGE);
  const backend = (values.backend ?? 'auto') as Backend | 'auto';
  if (!BACKENDS.includes(backend)) throw new UsageError(`--backend must be one of ${BACKENDS.join(', ')}`, SIMULATE_USAGE);
  const exportPath = values['export-bvh'];
  const recordAgent = exportPath ? (integerOption(values.agent, 'agent', SIMULATE_USAGE, 0, agents - 1) ?? 0) : -1;
  if (!exportPath && values.agent !== undefined) throw new UsageError('--agent goes with --export-bvh', SIMULATE_USAGE);
  const json = !!values.json;
  if (values.options === '') throw new UsageError('--options needs a file name', SIMULATE_USAGE);
  const settings = values.options !== undefined ? readSettingsFile(values.options) : null;

  const built = values.db ? readDatabaseFile(values.db) : buildDatabase(builtinSources());
  const db = settings ? applySchemaWeights(built, settings, values.options) : built;
  const bar = createProgress('simulate', !json && !!process.stderr.isTTY);
  const result = await runSimulation(db, {
    agents, seconds, hz, seed, workers, scenario, method, backend, recordAgent, warmup: !values['no-warmup'],
    footIK: !values['no-ik'] && (settings?.controller.footIK ?? true), controller: settings?.controller,
    onProgress: (d, t) => bar.update(d, t, `${agents} agents`),
  });
  bar.done();
  let exported: { file: string; frames: number } | null = null;
  if (exportPath && result.recording) {
    const clip = recordingToClip(db, result.recording, hz);
    writeFileSync(exportPath, writeBvh(db.skeleton, clip));
    exported = { file: exportPath, frames: clip.frameCount };
  }
  const { recording: _omit, ...report } = result;
  const out = { ...report, db: { source: values.db ?? 'builtin', frames: db.frameCount, clips: db.clips.length }, options: values.options ?? null, exported };
  if (json) {
    process.stdout.write(JSON.stringify(out) + '\n');
    return 0;
  }
  const f = (x: number, d = 1) => x.toFixed(d);
  process.stdout.write([
    `simulated ${agents} agents for ${seconds} s at ${hz} Hz (${report.steps} steps, scenario ${scenario}, seed ${seed}) on ${workers} thread(s), ${report.backend} ${method}`,
    `  speed        ${Math.round(report.agentStepsPerSec).toLocaleString('en-US')} agent-steps/s (${f(report.wallSeconds, 2)} s stepping; ${f(report.setupSeconds, 2)} s setup, of which ${f(report.warmupSeconds, 2)} s JIT warm-up)`,
    `  searches     ${report.searches.toLocaleString('en-US')} (${Math.round(report.searchesPerSec).toLocaleString('en-US')}/s), ${f(report.searchUsMedian, 2)} us median, ${f(report.searchUsP99, 2)} us p99 per query; ${f(100 * report.searchShare)}% of thread time`,
    `  quality      foot skate ${f(report.footSkateCmPerSec, 2)} cm/s, trajectory error ${f(report.quality.trajectoryError05Cm)} cm at 0.5 s / ${f(report.trajectoryErrorCm)} cm at 1 s`,
    `               ${f(report.transitionsPerSec, 2)} transitions/s per agent, max transition jump ${f(report.maxTransitionJump, 2)} m/s (typical p95 ${f(report.quality.typicalJumpP95, 2)})`,
    ...(values.options !== undefined ? [`  settings     ${values.options}`] : []),
    `  hash         ${report.hash}`,
    ...(exported ? [`  exported     agent ${recordAgent} to ${exported.file} (${exported.frames} frames)`] : []),
  ].join('\n') + '\n');
  return 0;
}
