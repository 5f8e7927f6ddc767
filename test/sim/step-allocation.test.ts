/**
 * A crowd's step allocates little (the brief: no per-frame allocation in hot paths). An AgentGroup
 * of the built-in database, foot IK and the quality meter on, the mixed scenarios, is stepped until
 * V8 has optimised it, then measured by the heap's growth over further steps
 * (test/helpers/heap-growth.ts: the smallest over rounds, each from a collected heap). A number
 * passed to or returned from a call V8 does not inline is a 16-byte heap box: one such call per
 * agent-step shows here as 16 bytes per agent-step.
 *
 * Measured on 2026-12-05: 290-365 bytes per agent-step before the simulation's springs, the quality
 * meter and foot IK stopped passing numbers to calls (that code fails this test), 70-190 after
 * (the spread is V8's: what it inlines varies from run to run). What is left: the search's staging
 * per batch, the scripted drivers' random draws, and boxes that some runs' inlining leaves. The
 * bound, 16 boxes per agent-step, keeps what was removed from coming back; zero is the goal.
 *
 * The compiled modules (dist/, as `npm test` builds them first) are measured, not vitest's
 * transform of the sources: what V8 inlines, and so what it boxes, depends on the exact code it
 * runs, and users run tsc's output.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../helpers/cli.js';
import { smallestHeapGrowth } from '../helpers/heap-growth.js';
import type * as AgentsModule from '../../src/sim/agents.js';
import type * as IndexModule from '../../src/index.js';
import type { Database } from '../../src/database/database.js';
import type { Matcher } from '../../src/search/matcher.js';

const compiled = <T>(path: string): Promise<T> => import(/* @vite-ignore */ pathToFileURL(join(REPO_ROOT, 'dist/src', path)).href) as Promise<T>;

let agents: typeof AgentsModule;
let db: Database;
let matcher: Matcher;
beforeAll(async () => {
  const index = await compiled<typeof IndexModule>('index.js');
  agents = await compiled<typeof AgentsModule>('sim/agents.js');
  db = index.buildDatabase(index.builtinSources());
  matcher = await index.Matcher.create(db);
});

const AGENTS = 64;
const STEPS = 16;

/** Heap bytes per agent-step of a group of AGENTS stepped STEPS steps at a time. */
function growthPerAgentStep(extra: Partial<AgentsModule.SimulationConfig>): number {
  const cfg: AgentsModule.SimulationConfig = { agents: AGENTS, seconds: 60, hz: 30, seed: 3, scenario: 'mixed', method: 'kdtree', footIK: true, recordAgent: -1, ...extra };
  const group = new agents.AgentGroup(db, matcher, [[0, AGENTS]], cfg);
  // Optimised by V8 first: interpreted code boxes every number.
  for (let s = 0; s < 400; s++) group.step();
  return smallestHeapGrowth(() => { for (let s = 0; s < STEPS; s++) group.step(); }, 7) / (AGENTS * STEPS);
}

describe('the crowd step', () => {
  it('allocates less than 16 heap boxes (256 bytes) per agent-step, foot IK and the quality meter on', () => {
    const flat = growthPerAgentStep({});
    console.log(`heap growth per agent-step (flat ground, ${AGENTS} agents x ${STEPS} steps, smallest of 7 rounds): ${flat.toFixed(1)} bytes`);
    expect(flat).toBeLessThan(256);
  }, 60_000);
});
