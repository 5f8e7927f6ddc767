/**
 * The crowd step of two builds of motionmatch, side by side in one process (docs/simulation.md,
 * "What the step costs"): each build's AgentGroup steps the same crowd on its own copy of the
 * built-in database, the two alternating step by step (the order flipping every step) or every
 * `--block N` steps, so that the machine's noise hits both alike. What a change costs is measured
 * this way, against the commit before it: on a shared machine two separate runs differ by more
 * than most changes do. Step by step, each crowd finds the caches full of the other's data (a
 * change to what a step fetches shows larger than in a crowd stepped alone); with a block of 30
 * steps each crowd runs from its own caches, as `simulate` does.
 *
 *   git worktree add /tmp/base <commit> && (cd /tmp/base && npm ci && npm run build)
 *   node dist/bench/step-ab.js --base /tmp/base [--current DIR] [--agents 1000] [--steps 300] [--hz 30] [--rounds 2] [--block 1] [--json] [--help]
 *
 * Prints µs per agent-step for each build (total, search) and their ratio per round, and the
 * median of the ratios of the pairs of steps (or blocks). Builds older
 * than the AgentGroup ranges constructor (new AgentGroup(db, matcher, first, count, cfg)) work too.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { nodePackageRoot } from '../src/search/wasm/load.js';
import { tuneJitForCrowds } from '../src/util/jit-node.js';
import { parseToolArgs } from '../src/apps/args.js';

interface Side { name: string; group: { step(): void; result(): { searchMs: number; controllerMs: number; searches: number; hashes: string[] } }; ms: number }

/** A build's crowd: its own database, matcher and AgentGroup (the same configuration for both). */
async function makeSide(name: string, root: string, agents: number, steps: number, hz: number): Promise<Side> {
  const url = (p: string): string => pathToFileURL(resolve(root, p)).href;
  const index = url('dist/src/index.js');
  if (!existsSync(new URL(index))) throw new Error(`${root}: no dist/src/index.js (build it first: npm run build)`);
  const m = await import(index);
  const A = await import(url('dist/src/sim/agents.js'));
  const db = m.buildDatabase(m.builtinSources());
  const matcher = await m.Matcher.create(db, { backend: 'wasm-simd' });
  const cfg = { agents, seconds: steps / hz, hz, seed: 42, scenario: 'mixed', method: 'kdtree', footIK: true, recordAgent: -1 };
  if (typeof A.warmUpSteps === 'function') A.warmUpSteps(db, matcher, cfg);
  let group;
  try { group = new A.AgentGroup(db, matcher, [[0, agents]], cfg); } catch { group = new A.AgentGroup(db, matcher, 0, agents, cfg); }
  return { name, group, ms: 0 };
}

const USAGE = 'usage: node dist/bench/step-ab.js --base DIR [--current DIR] [--agents 1000] [--steps 300] [--hz 30] [--rounds 2] [--block 1] [--json]\n' +
  '  --base DIR: a built checkout of the commit to compare with (git worktree add DIR <commit>, then npm ci && npm run build in it)\n' +
  '  --current DIR: the build compared with it (default: the checkout this script belongs to)\n' +
  '  --block N: the builds take turns every N steps (1: every step, each crowd then finding the caches full of the\n' +
  '    other\'s data; 30: each steps from its own caches, as a crowd alone does)\n';
const OPTIONS = {
  base: { type: 'string' },
  current: { type: 'string' },
  agents: { type: 'string', default: '1000' },
  steps: { type: 'string', default: '300' },
  hz: { type: 'string', default: '30' },
  rounds: { type: 'string', default: '2' },
  block: { type: 'string', default: '1' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;
const { values } = parseToolArgs('step-ab', process.argv.slice(2), OPTIONS, USAGE);
if (values.help) { process.stdout.write(USAGE); process.exit(0); }
// As `simulate` runs (src/util/jit-node.ts): V8 flags are process-wide, so both builds step under them.
tuneJitForCrowds();
if (!values.base) { process.stderr.write(`step-ab: --base DIR (a built checkout of the commit to compare with) is required\n${USAGE}`); process.exit(2); }
const base = values.base;
const agents = Number(values.agents), steps = Number(values.steps), hz = Number(values.hz), rounds = Number(values.rounds), block = Number(values.block);
for (const [k, v, lo, hi] of [['agents', agents, 1, 100_000], ['steps', steps, 10, 100_000], ['hz', hz, 10, 240], ['rounds', rounds, 1, 20], ['block', block, 1, 1000]] as const) {
  if (!(Number.isInteger(v) && v >= lo && v <= hi)) { process.stderr.write(`step-ab: --${k} must be an integer in [${lo}, ${hi}], got ${v}\n`); process.exit(2); }
}
const here = values.current ?? await nodePackageRoot();
const results: Array<{ round: number; base: number; current: number; ratio: number; stepRatioMedian: number; baseSearch: number; currentSearch: number }> = [];
const stepRatios: number[] = [];
const median = (xs: number[]): number => { const a = [...xs].sort((x, y) => x - y); return a.length % 2 ? a[(a.length - 1) / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2; };
for (let r = 0; r < rounds; r++) {
  const sides = [await makeSide('base', base, agents, steps, hz), await makeSide('current', here, agents, steps, hz)];
  const roundRatios: number[] = [];
  const blockMs = [0, 0];
  for (let s = 0; s < steps; s += block) {
    const n = Math.min(block, steps - s);
    for (let q = 0; q < 2; q++) {
      const k = (s / block + q) % 2, side = sides[k];
      const t = performance.now();
      for (let i = 0; i < n; i++) side.group.step();
      blockMs[k] = performance.now() - t;
      side.ms += blockMs[k];
    }
    // Each pair of blocks: a spell of load on the machine hits both of them (the mean over a round is
    // moved by the spells that hit one side more; the median of the pairs is not).
    roundRatios.push(blockMs[1] / blockMs[0]);
  }
  stepRatios.push(...roundRatios);
  const per = (side: Side): number => (side.ms * 1000) / (agents * steps);
  const search = (side: Side): number => (side.group.result().searchMs * 1000) / (agents * steps);
  results.push({ round: r + 1, base: per(sides[0]), current: per(sides[1]), ratio: per(sides[1]) / per(sides[0]), stepRatioMedian: median(roundRatios), baseSearch: search(sides[0]), currentSearch: search(sides[1]) });
}
if (values.json) {
  process.stdout.write(JSON.stringify({ agents, steps, hz, block, base: resolve(base), rounds: results, stepRatioMedian: median(stepRatios) }) + '\n');
} else {
  process.stdout.write(`crowd step, ${agents} agents x ${steps} steps at ${hz} Hz, the two builds alternating${block === 1 ? '' : ` every ${block} steps`} (µs per agent-step: total, of which search)\n`);
  for (const x of results) {
    process.stdout.write(`  round ${x.round}: base ${x.base.toFixed(2)} (${x.baseSearch.toFixed(2)})  current ${x.current.toFixed(2)} (${x.currentSearch.toFixed(2)})  current / base ${x.ratio.toFixed(2)} (median of the ${block === 1 ? 'steps' : 'blocks'}' ratios ${x.stepRatioMedian.toFixed(3)})\n`);
  }
  process.stdout.write(`  every round's ${block === 1 ? 'steps' : 'blocks'}: median ratio ${median(stepRatios).toFixed(3)}\n`);
}
