/**
 * `motionmatch tune` on the real captures (src/apps/commands/tune.ts): the recommendation improves a
 * quality measure without a worse trajectory error on captures the sweep never saw. In a file of its
 * own (the rest of tune's tests are in tune.test.ts) so that it runs beside other files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HAS_MOCAP, MOCAP_DIR, MOCAP_SKIP_REASON, runCli, tempDir } from '../helpers/cli.js';

let dir: string;
beforeAll(() => { dir = tempDir('mm-tune-real-'); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface TuneJson {
  evaluations: Array<{ index: number; phase: string; values: Record<string, number>; objectives: Record<string, number>; seconds: number }>;
  recommended: number | null;
  holdout: null | { source: string; agents: number; seconds: number; seeds: number[]; improved: string[]; trajectoryNoWorse: boolean; spread: Record<string, number>; defaults: { objectives: Record<string, number> }; recommended: { objectives: Record<string, number> } };
  confirmations: Array<{ index: number; seed: number; held: boolean }>;
}

/**
 * The real captures split in two by position in the sorted file list (odd lines: tuning set, even
 * lines: held back), so that both halves hold every kind of motion; docs/tuning.md lists the
 * same split as shell commands.
 */
function splitCaptures(): { tuning: string[]; heldBack: string[] } {
  const files = ['bench', 'locomotion'].flatMap((f) => readdirSync(join(MOCAP_DIR, f)).filter((n) => n.endsWith('.bvh')).map((n) => join(MOCAP_DIR, f, n))).sort();
  return { tuning: files.filter((_, i) => i % 2 === 0), heldBack: files.filter((_, i) => i % 2 === 1) };
}

/**
 * Settings that favour responsiveness: the minimum relative gain, the minimum dwell and the
 * inertialization half-life at the low ends of their ranges (the engine before those rules had
 * neither rule, and blended transitions over less time). The engine's defaults were set on these
 * captures (docs/runtime.md): from them the sweep finds nothing that holds on a second seed, and the
 * defaults stand (docs/tuning.md) — a correct answer, but not a check of the sweep. From here it has
 * something to find: on the held-back captures (32 agents x 10 s) these settings pop at 4.4 m/s
 * (p99.9) against 3.5 with a 0.1 s half-life, at the same trajectory error.
 */
const RESPONSIVE = { comment: 'responsive: gain, dwell and inertialization half-life at the low ends of their ranges', controller: { minRelativeGain: 0.02, minDwell: 0.05, inertializationHalfLife: 0.05 } };

describe.skipIf(!HAS_MOCAP)('motionmatch tune on the real captures', () => {
  it('recommends settings that improve a quality measure without a worse trajectory error on held-back captures', () => {
    const { tuning, heldBack } = splitCaptures();
    expect(tuning.length).toBeGreaterThan(50);
    const tuneDb = join(dir, 'tuning.mmdb'), heldDb = join(dir, 'held-back.mmdb'), start = join(dir, 'responsive.json');
    for (const [out, files] of [[tuneDb, tuning], [heldDb, heldBack]] as const) {
      const b = runCli(['build', ...files, '--mirror', '--out', out]);
      expect(b.code, b.stderr).toBe(0);
    }
    writeFileSync(start, JSON.stringify(RESPONSIVE));
    // 16 evaluations (8 design points, then refinement): every phase runs (defaults on three seeds,
    // design, refinement, confirmation, holdout) and the result is deterministic (--evaluations with
    // a seed). On 2026-12-05 20 evaluations recommended #14 (refinement), 16 find the same, 12 find
    // nothing that holds on seed 2. The held-back check runs 50 agents x 10 s per scenario and seed
    // instead of quality's 100 x 20 (the test took 45 s alone, 21 s now): on 2026-12-06 it judged #14
    // better in transitions (2.23 against 2.65/s, spread 0.05) and pops p99.9 (4.72 against 5.44 m/s,
    // spread 0.56), trajectory error 2.73 cm against 2.94 (spread 0.11); with 100 x 20 the figures
    // were 2.19 against 2.59/s, 4.57 against 5.16 m/s, 2.76 against 3.02 cm.
    const r = runCli(['tune', tuneDb, '--options', start, '--evaluations', '16', '--design', '8', '--holdout', heldDb, '--holdout-agents', '50', '--holdout-seconds', '10', '--out', join(dir, 'real'), '--json'], { timeoutMs: 900_000 });
    expect(r.code, r.stderr).toBe(0);
    const t = JSON.parse(r.stdout) as TuneJson;
    const h = t.holdout!;
    const fmt = (o: Record<string, number>) => `trajectory error ${o.trajectoryErrorCm.toFixed(2)} cm, skate ${o.footSkateCmPerSec.toFixed(2)} cm/s, depth p99 ${o.belowGroundP99Cm.toFixed(2)} cm, pops p99.9 ${o.popP999.toFixed(2)} m/s, transitions ${o.transitionsPerSec.toFixed(2)}/s`;
    console.log(`tune on ${tuning.length} capture files from ${start} (recommended #${t.recommended}), checked on ${heldBack.length} held-back files, means over seeds ${h.seeds.join(', ')}:\n  baseline    ${fmt(h.defaults.objectives)}\n  recommended ${fmt(h.recommended.objectives)}\n  seed spread ${fmt(h.spread)}`);
    expect(t.evaluations[0].values.minDwell).toBe(0.05);
    expect(t.evaluations).toHaveLength(16);
    expect(t.holdout).toMatchObject({ agents: 50, seconds: 10 });
    expect(t.recommended).not.toBeNull();
    expect(t.confirmations.at(-1)).toMatchObject({ index: t.recommended, held: true });
    // Better by more than the spread of three seeds in at least one quality measure; trajectory error
    // no worse by more than that spread (differences below it are the inputs', not the settings').
    expect(h.improved.length).toBeGreaterThanOrEqual(1);
    for (const k of h.improved) expect(h.recommended.objectives[k]).toBeLessThan(h.defaults.objectives[k] - h.spread[k]);
    expect(h.trajectoryNoWorse).toBe(true);
    expect(h.recommended.objectives.trajectoryErrorCm).toBeLessThanOrEqual(h.defaults.objectives.trajectoryErrorCm + h.spread.trajectoryErrorCm);
  }, 900_000);
});

if (!HAS_MOCAP) console.log(`tune on the real captures: ${MOCAP_SKIP_REASON}`);
