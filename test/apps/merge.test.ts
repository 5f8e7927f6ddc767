/**
 * `motionmatch simulate --shard I/N` and `motionmatch merge` through the compiled CLI: four shards
 * run as four processes at once (as xargs -P or a job runner would), their merged hash is the
 * unsharded run's, and every way a merge can go wrong ends with exit code 1 or 2 and a reason.
 * With --lod (with and without a search budget) three shards as three processes merge into the
 * unsharded hash and level-of-detail counts.
 * Also checks the Kubernetes Indexed Job example (examples/kubernetes/) against the CLI.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, runCli, runCliInProcess, tempDir, type CliResult } from '../helpers/cli.js';
import { DEFAULT_LOD_LEVELS } from '../../src/runtime/lod/levels.js';

/** The compiled CLI in a child process, without waiting for it (several run at once). */
function runCliAsync(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/motionmatch.js'), ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env } });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 110_000);
    child.on('error', reject);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code: code ?? -1, stdout, stderr }); });
  });
}

const RUN = ['--agents', '40', '--seconds', '2', '--seed', '3'];

describe('simulate --shard and merge', () => {
  const dir = tempDir('mm-merge-');
  const part = (i: number) => join(dir, `part-${i}.json`);
  let whole: Record<string, unknown>;

  beforeAll(async () => {
    // Shards 0-2 name their index; shard 3 takes it from the variable a Kubernetes Indexed Job sets.
    const runs = await Promise.all([
      runCliAsync(['simulate', ...RUN, '--json']),
      ...[0, 1, 2].map((i) => runCliAsync(['simulate', ...RUN, '--shard', `${i}/4`, '--out', part(i)])),
      runCliAsync(['simulate', ...RUN, '--shard', 'auto/4', '--json'], { JOB_COMPLETION_INDEX: '3' }),
    ]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    whole = JSON.parse(runs[0].stdout);
    writeFileSync(part(3), runs[4].stdout);
    expect(runs[1].stdout).toMatch(/simulated shard 0\/4: agents 0\.\.9 of 40/);
  });

  it('merges four shards run as separate processes into the unsharded hash', () => {
    const r = runCli(['merge', part(2), part(0), part(3), part(1), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const merged = JSON.parse(r.stdout);
    expect(merged.hash).toBe(whole.hash);
    for (const k of ['agents', 'seconds', 'hz', 'steps', 'seed', 'scenario', 'method', 'searches', 'maxTransitionJump']) expect(merged[k], k).toEqual(whole[k]);
    expect(merged.quality.steps).toBe((whole.quality as { steps: number }).steps);
    expect(merged.footSkateCmPerSec).toBeCloseTo(whole.footSkateCmPerSec as number, 9);
    expect(merged.shards.map((s: { index: number; firstAgent: number; agents: number }) => [s.index, s.firstAgent, s.agents])).toEqual([[0, 0, 10], [1, 10, 10], [2, 20, 10], [3, 30, 10]]);
    expect(merged.workers).toBe(4);
    expect(merged.db).toMatchObject({ source: 'builtin', frames: (whole.db as { frames: number }).frames });
  });

  it('prints a text summary and writes --out', async () => {
    const out = join(dir, 'merged.json');
    const r = await runCliInProcess(['merge', part(0), part(1), part(2), part(3), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^merged 4 shards of 40 agents/);
    expect(r.stdout).toContain(`hash         ${whole.hash}`);
    expect(JSON.parse(readFileSync(out, 'utf8')).hash).toBe(whole.hash);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses missing, duplicate, foreign and damaged partial reports (exit 1)', async () => {
    const other = join(dir, 'other-seed.json');
    const o = await runCliInProcess(['simulate', '--agents', '40', '--seconds', '2', '--seed', '4', '--shard', '1/4', '--out', other]);
    expect(o.code, o.stderr).toBe(0);
    const cut = join(dir, 'cut.json');
    writeFileSync(cut, readFileSync(part(1), 'utf8').slice(0, 500));
    const cases: Array<[string[], RegExp]> = [
      [[part(0), part(1), part(3)], /shard 2 of 4 missing/],
      [[part(0), part(1), part(2), part(3), join(dir, 'nope.json')], /no such file/],
      [[part(0), other, part(2), part(3)], /are shards of different runs \(seeds: 4 vs 3\)/],
      [[part(0), cut, part(2), part(3)], /cut\.json: not a partial report: invalid JSON/],
      [[dir], /is a directory/],
    ];
    for (const [files, message] of cases) {
      const r = await runCliInProcess(['merge', ...files]);
      expect(r.code, files.join(' ')).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    const copy = join(dir, 'copy-of-1.json');
    writeFileSync(copy, readFileSync(part(1)));
    const dup = await runCliInProcess(['merge', part(0), part(1), copy, part(2), part(3), '--json']);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/part-1\.json and .*copy-of-1\.json are both shard 1\/4/);
    expect(JSON.parse(dup.stdout).error.message).toMatch(/both shard 1\/4/);
  });

  it('answers usage mistakes with exit code 2', async () => {
    const cases: Array<[string[], RegExp, Record<string, string>?]> = [
      [['merge'], /name the partial reports/],
      [['merge', part(0), part(0)], /named twice/],
      [['simulate', ...RUN, '--shard', '4/4', '--json'], /below the shard count/],
      [['simulate', '--agents', '3', '--shard', '0/4', '--json'], /4 shards for 3 agents/],
      [['simulate', ...RUN, '--shard', 'auto/4', '--json'], /JOB_COMPLETION_INDEX is not set/, { JOB_COMPLETION_INDEX: '' }],
      [['simulate', ...RUN, '--shard', 'auto/4', '--json'], /JOB_COMPLETION_INDEX=4 is not below 4/, { JOB_COMPLETION_INDEX: '4' }],
      [['simulate', ...RUN, '--shard', '1/4'], /add --json .* or --out FILE/],
      [['simulate', '--agents', '300', '--lod', '--search-budget', '40', '--shard', '0/4', '--json'], /4 shards for 300 agents in 3 blocks of 128 \(a search budget is shared out per block\); use at most 3 shards/],
    ];
    for (const [args, message, env] of cases) {
      // In this process (runCliInProcess, faster; JOB_COMPLETION_INDEX set for the call only).
      const r = await runCliInProcess(args, env ? { env } : {});
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });

  it('checks --out before running, and exports the agent only from the shard that holds it', async () => {
    const r = await runCliInProcess(['simulate', ...RUN, '--shard', '1/4', '--out', join(dir, 'no-such-folder', 'p.json')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/folder .*no-such-folder' does not exist/);
    const bvh = join(dir, 'agent.bvh');
    const skipped = await runCliInProcess(['simulate', ...RUN, '--shard', '0/4', '--json', '--export-bvh', bvh, '--agent', '25']);
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(skipped.stderr).toMatch(/agent 25 is not in shard 0\/4 \(agents 0\.\.9\); --export-bvh skipped/);
    expect(existsSync(bvh)).toBe(false);
    const holder = await runCliInProcess(['simulate', ...RUN, '--shard', '2/4', '--out', join(dir, 'p2.json'), '--export-bvh', bvh, '--agent', '25']);
    expect(holder.code, holder.stderr).toBe(0);
    expect(readFileSync(bvh, 'utf8')).toMatch(/^HIERARCHY/);
  });
});

describe('simulate --lod --shard and merge', () => {
  const dir = tempDir('mm-merge-lod-');
  // 300 agents are three budget blocks (128, 128, 44); without a budget the shards are 100 agents each.
  const PLAIN = ['--agents', '300', '--seconds', '2', '--seed', '3', '--no-warmup', '--lod'];
  const BUDGET = [...PLAIN, '--search-budget', '40'];
  type Lod = { camera: unknown; budget: number; fullSearches: number; localSearches: number; localFallbacks: number; deferred: number; levelChanges: number; maxSearchAgeSeconds: number; levels: Array<{ agentSteps: number; footSkateCmPerSec: number }> };
  type Report = { hash: string; searches: number; lod: Lod; shards?: Array<{ firstAgent: number; agents: number }> };
  const counts = (l: Lod) => ({ ...l, levels: l.levels.map((x) => x.agentSteps) });
  const runs: Record<'budget' | 'plain', { whole: Report; merged: Report; text: string }> = {} as never;

  beforeAll(async () => {
    for (const [name, args] of [['budget', BUDGET], ['plain', PLAIN]] as const) {
      const part = (i: number) => join(dir, `${name}-${i}.json`);
      // In this process, one after another (runCliInProcess: the compiled CLI's command without a
      // process start each); the describe above runs the shards as separate processes.
      const [whole, ...shards] = await Promise.all([
        runCliInProcess(['simulate', ...args, '--json']),
        ...[0, 1, 2].map((i) => runCliInProcess(['simulate', ...args, '--shard', `${i}/3`, '--out', part(i)])),
      ]);
      for (const r of [whole, ...shards]) expect(r.code, r.stderr).toBe(0);
      const merged = await runCliInProcess(['merge', part(2), part(0), part(1), '--json']);
      expect(merged.code, merged.stderr).toBe(0);
      const text = await runCliInProcess(['merge', part(0), part(1), part(2)]);
      expect(text.code, text.stderr).toBe(0);
      runs[name] = { whole: JSON.parse(whole.stdout) as Report, merged: JSON.parse(merged.stdout) as Report, text: text.stdout };
    }
  }, 120_000);

  it('merges budgeted shards, cut at the budget\'s blocks, into the unsharded hash and lod counts', () => {
    const { whole, merged } = runs.budget;
    expect(merged.shards!.map((s) => [s.firstAgent, s.agents])).toEqual([[0, 128], [128, 128], [256, 44]]);
    expect(merged.hash).toBe(whole.hash);
    expect(merged.searches).toBe(whole.searches);
    expect(whole.lod.deferred).toBeGreaterThan(0);
    expect(counts(merged.lod)).toEqual(counts(whole.lod));
    merged.lod.levels.forEach((l, i) => expect(l.footSkateCmPerSec).toBeCloseTo(whole.lod.levels[i].footSkateCmPerSec, 9));
  });

  it('merges shards without a budget, cut per agent, likewise', () => {
    const { whole, merged } = runs.plain;
    expect(merged.shards!.map((s) => [s.firstAgent, s.agents])).toEqual([[0, 100], [100, 100], [200, 100]]);
    expect(merged.hash).toBe(whole.hash);
    expect(merged.hash).not.toBe(runs.budget.whole.hash);
    expect(counts(merged.lod)).toEqual(counts(whole.lod));
  });

  it('prints the level lines in the text summary, as simulate does', () => {
    const { text, whole } = runs.budget;
    expect(text).toContain(`hash         ${whole.hash}`);
    for (let l = 0; l < 4; l++) expect(text).toMatch(new RegExp(`^  level ${l} .*% of agent-steps`, 'm'));
    expect(text).toMatch(new RegExp(`^  lod .*budget 40/step: ${whole.lod.deferred.toLocaleString('en-US')} deferred`, 'm'));
  });

  it('refuses to merge shards with other level-of-detail settings', async () => {
    const r = await runCliInProcess(['merge', join(dir, 'budget-0.json'), join(dir, 'plain-1.json'), join(dir, 'budget-2.json')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/plain-1\.json and .*budget-0\.json are shards of different runs \(level-of-detail settings, budget: 0 vs 40\)/);
    // Another level table (--lod-levels): the same refusal, naming what differs.
    const table = join(dir, 'levels.json');
    writeFileSync(table, JSON.stringify({ levels: [...DEFAULT_LOD_LEVELS.slice(0, 3), { ...DEFAULT_LOD_LEVELS[3], maxDistance: null, poseEvery: 3 }] }));
    const other = await runCliInProcess(['simulate', ...PLAIN, '--lod-levels', table, '--shard', '1/3', '--out', join(dir, 'table-1.json')]);
    expect(other.code, other.stderr).toBe(0);
    const t = await runCliInProcess(['merge', join(dir, 'plain-0.json'), join(dir, 'table-1.json'), join(dir, 'plain-2.json')]);
    expect(t.code).toBe(1);
    expect(t.stderr).toMatch(/table-1\.json and .*plain-0\.json are shards of different runs \(level-of-detail settings, levels.*poseEvery: 3 vs 4\)/);
  });
});

describe('Kubernetes Indexed Job example', () => {
  const file = join(REPO_ROOT, 'examples', 'kubernetes', 'simulate-indexed-job.yaml');
  const text = readFileSync(file, 'utf8');

  it('runs N indexed completions of simulate --shard auto/N with options the CLI accepts', async () => {
    expect(text).not.toMatch(/\t/);
    const completions = Number(/^\s+completions:\s*(\d+)/m.exec(text)?.[1]);
    expect(/^\s+completionMode:\s*Indexed\s*$/m.test(text)).toBe(true);
    const shard = /--shard",\s*"auto\/(\d+)"/.exec(text);
    expect(shard, 'the simulate command line').not.toBeNull();
    expect(Number(shard![1])).toBe(completions);
    // The pod's simulate arguments, minus the output path, must parse: run them for a tiny crowd.
    const args = /args:\s*\[([^\]]*)\]/.exec(text)![1].split(',').map((s) => JSON.parse(s.trim()) as string);
    expect(args[0]).toBe('simulate');
    const i = args.indexOf('--agents');
    const tiny = [...args.slice(0, i + 1), String(completions), ...args.slice(i + 2)].map((a) => (a.startsWith('/results/') ? join(tempDir('mm-k8s-'), 'p.json') : a));
    const seconds = tiny.indexOf('--seconds');
    if (seconds >= 0) tiny[seconds + 1] = '0.2';
    const r = await runCliInProcess(tiny, { env: { JOB_COMPLETION_INDEX: '0' } });
    expect(r.code, r.stderr).toBe(0);
  });

  it('is well-formed YAML (checked with PyYAML when python3 has it)', (ctx) => {
    const probe = spawnSync('python3', ['-c', 'import yaml'], { encoding: 'utf8' });
    if (probe.status !== 0) {
      console.log('python3 with PyYAML not found; the YAML syntax check is skipped (the structure checks above still ran)');
      ctx.skip();
      return;
    }
    const r = spawnSync('python3', ['-c', 'import sys, yaml, json; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))', file], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const docs = JSON.parse(r.stdout) as Array<Record<string, any>>;
    const job = docs.find((d) => d.kind === 'Job')!;
    expect(job.apiVersion).toBe('batch/v1');
    expect(job.spec.completionMode).toBe('Indexed');
    expect(job.spec.parallelism).toBeLessThanOrEqual(job.spec.completions);
    const container = job.spec.template.spec.containers[0];
    expect(container.args).toContain(`auto/${job.spec.completions}`);
    expect(job.spec.template.spec.restartPolicy).toMatch(/^(Never|OnFailure)$/);
  });
});
