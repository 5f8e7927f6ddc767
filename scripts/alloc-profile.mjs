// Bytes the crowd step allocates per agent-step, by allocating function (V8's sampling heap
// profiler, counting objects young-generation collections already freed). The step's source
// allocates nothing; what shows here is V8 boxing numbers where a call was not inlined
// (docs/runtime.md, "How the hot path is written"). Inlining decisions vary from run to run, so
// run it a few times.
//
// Usage: node scripts/alloc-profile.mjs [--agents N] [--steps N] [--warmup N] [--lod]
//          [--search-budget N] [--scenario NAME] [--terrain hills|steps] [--top N] [--json]
// Needs the compiled package (npm run build).
import { parseArgs } from 'node:util';
import { Session } from 'node:inspector/promises';
import { existsSync } from 'node:fs';

const root = new URL('../dist/src/', import.meta.url);
if (!existsSync(new URL('sim/agents.js', root))) {
  process.stderr.write('alloc-profile: dist/ not found; run `npm run build` first\n');
  process.exit(1);
}
const USAGE = 'usage: node scripts/alloc-profile.mjs [--agents N] [--steps N] [--warmup N] [--lod] [--search-budget N] [--scenario NAME] [--terrain hills|steps] [--top N] [--json]';
let values;
try {
  ({ values } = parseArgs({
    options: {
      agents: { type: 'string', default: '1000' }, steps: { type: 'string', default: '300' }, warmup: { type: 'string', default: '150' },
      lod: { type: 'boolean', default: false }, 'search-budget': { type: 'string', default: '0' }, scenario: { type: 'string', default: 'wander' },
      top: { type: 'string', default: '12' }, json: { type: 'boolean', default: false }, terrain: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false },
    },
  }));
} catch (e) {
  process.stderr.write(`alloc-profile: ${e.message}\n${USAGE}\n`);
  process.exit(2);
}
if (values.help) { process.stdout.write(`${USAGE}\n`); process.exit(0); }
function count(name, min, max) {
  const v = Number(values[name]);
  if (!(Number.isInteger(v) && v >= min && v <= max)) {
    process.stderr.write(`alloc-profile: --${name} must be an integer in [${min}, ${max}], got ${values[name]}\n${USAGE}\n`);
    process.exit(2);
  }
  return v;
}
const agents = count('agents', 1, 100_000), steps = count('steps', 1, 100_000), warmup = count('warmup', 0, 100_000);
const budget = count('search-budget', 0, 1_000_000), top = count('top', 1, 1000);
if (budget > 0 && !values.lod) {
  process.stderr.write(`alloc-profile: --search-budget goes with --lod\n${USAGE}\n`);
  process.exit(2);
}

const { tuneJitForCrowds } = await import(new URL('util/jit-node.js', root));
tuneJitForCrowds(); // as simulate does
const { buildDatabase } = await import(new URL('database/build.js', root));
const { builtinSources } = await import(new URL('database/sources-node.js', root));
const { AgentGroup } = await import(new URL('sim/agents.js', root));
const { Matcher } = await import(new URL('search/matcher.js', root));
const { SCENARIOS } = await import(new URL('sim/scenarios.js', root));
if (!SCENARIOS.includes(values.scenario)) {
  process.stderr.write(`alloc-profile: --scenario must be one of ${SCENARIOS.join(', ')}\n`);
  process.exit(2);
}

if (values.terrain !== undefined && values.terrain !== 'hills' && values.terrain !== 'steps') {
  process.stderr.write(`alloc-profile: --terrain must be hills or steps\n${USAGE}\n`);
  process.exit(2);
}

const db = buildDatabase(builtinSources());
const cfg = {
  agents, seconds: (warmup + steps) / 30 + 1, hz: 30, seed: 1, scenario: values.scenario, method: 'kdtree', footIK: true, recordAgent: -1,
  ...(values.lod ? { lod: { budget } } : {}),
  ...(values.terrain ? { terrain: { kind: values.terrain, seed: 1 } } : {}),
};
const group = new AgentGroup(db, await Matcher.create(db, {}), [[0, agents]], cfg);
for (let s = 0; s < warmup; s++) group.step();

const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
await session.post('HeapProfiler.startSampling', { samplingInterval: 128, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
for (let s = 0; s < steps; s++) group.step();
const { profile } = await session.post('HeapProfiler.stopSampling');
session.disconnect();

// Self bytes by allocating function (file:line of the function), over the whole call tree.
const byFunction = new Map();
let total = 0;
const walk = (node) => {
  if (node.selfSize > 0) {
    const f = node.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/dist\/src\//, '')}:${f.lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
  }
  for (const c of node.children) walk(c);
};
walk(profile.head);
const agentSteps = agents * steps;
const rows = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top).map(([fn, bytes]) => ({ function: fn, bytesPerAgentStep: bytes / agentSteps }));
const report = { agents, steps, warmup, lod: values.lod, budget, scenario: values.scenario, bytesPerAgentStep: total / agentSteps, functions: rows };
if (values.json) {
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
} else {
  process.stdout.write(`${agents} agents x ${steps} steps (after ${warmup} warm-up steps)${values.lod ? `, --lod${budget ? ` --search-budget ${budget}` : ''}` : ''}: ${report.bytesPerAgentStep.toFixed(1)} bytes per agent-step\n`);
  for (const r of rows) process.stdout.write(`${r.bytesPerAgentStep.toFixed(2).padStart(9)}  ${r.function}\n`);
}
