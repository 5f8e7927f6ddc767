/**
 * Overlays in the simulation: the seeded schedule, a crowd's overlays (the locomotion unchanged,
 * the pose hash deterministic), the figures, and `motionmatch simulate --overlay TAG` with its
 * mistakes. On the real captures (skipped without them): waves over the mixed scenarios within the
 * documented jump bound.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import type { Database } from '../../src/database/database.js';
import { OverlayLayer } from '../../src/runtime/overlay/overlay.js';
import { upperBodyMask } from '../../src/runtime/overlay/bone-mask.js';
import { OverlaySchedule, overlaySimulation, DEFAULT_OVERLAY_SIMULATION } from '../../src/sim/overlay/schedule.js';
import { OverlayStats } from '../../src/sim/overlay/metrics.js';
import { runAgentGroups, runSimulation, type SimulationOptions } from '../../src/sim/simulation.js';
import { HAS_MOCAP, MOCAP_DIR, runCli, runCliInProcess, tempDir } from '../helpers/cli.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

/** The documented bound on the joint velocity jump at overlay entry and exit in a simulation (m/s; docs/overlays.md). */
const ENTRY_EXIT_JUMP_BOUND = 6;

let db: Database;
beforeAll(() => { db = builtinDatabase(); });

function options(o: Partial<SimulationOptions> = {}): SimulationOptions {
  return { agents: 40, seconds: 8, hz: 30, seed: 3, scenario: 'mixed', method: 'kdtree', footIK: true, recordAgent: -1, workers: 1, backend: 'js', warmup: false, ...o };
}

describe('the schedule', () => {
  it('depends only on the seed and the agent, and starts within its pauses', () => {
    const settings = overlaySimulation('idle');
    const layer = new OverlayLayer(db, { mask: upperBodyMask(db) });
    const starts = (seed: number, agent: number) => {
      const s = new OverlaySchedule(settings, seed, agent), out: number[] = [];
      for (let k = 0; k < 30 * 30; k++) if (s.tick(layer, 1 / 30)) out.push(k);
      layer.reset();
      return out;
    };
    const a = starts(1, 5);
    expect(starts(1, 5)).toEqual(a);
    expect(starts(1, 6)).not.toEqual(a);
    expect(starts(2, 5)).not.toEqual(a);
    const [lo, hi] = DEFAULT_OVERLAY_SIMULATION.every;
    expect(a[0] / 30).toBeGreaterThanOrEqual(lo - 1 / 30);
    expect(a[0] / 30).toBeLessThanOrEqual(hi + 1 / 30);
    for (let i = 1; i < a.length; i++) {
      expect((a[i] - a[i - 1]) / 30).toBeGreaterThanOrEqual(lo - 1 / 30);
      expect((a[i] - a[i - 1]) / 30).toBeLessThanOrEqual(hi + 1 / 30);
    }
    expect(a.length).toBeGreaterThan(30 / hi - 1);
  });

  it('checks its settings', () => {
    expect(() => overlaySimulation('')).toThrow(/non-empty/);
    expect(() => overlaySimulation('wave', { every: [0, 1] })).toThrow(/every must be \[min, max\] seconds/);
    expect(() => overlaySimulation('wave', { duration: [3, 2] })).toThrow(/duration/);
    expect(() => overlaySimulation('wave', { mode: 'blend' as 'override' })).toThrow(/mode must be override or additive/);
  });
});

describe('a crowd with overlays', () => {
  it('moves exactly as without them (roots bit-identical), its poses hash the same every run, and reports figures', async () => {
    // Without them, but with their tag left out of the locomotion searches as overlays leave it (sim/search-tags.ts).
    const noIdle = { require: [], exclude: ['idle'] };
    const plain = await runAgentGroups(db, options({ recordAgent: 7, tags: noIdle }));
    const waved = await runAgentGroups(db, options({ recordAgent: 7, overlay: overlaySimulation('idle') }));
    const r0 = plain.groups[0].recording!, r1 = waved.groups[0].recording!;
    expect(Array.from(r1.root)).toEqual(Array.from(r0.root));
    // Legs are not in the recording's local pose alone; the upper body differs.
    expect(Array.from(r1.rotations)).not.toEqual(Array.from(r0.rotations));
    const again = await runSimulation(db, options({ overlay: overlaySimulation('idle') }));
    const once = await runSimulation(db, options({ overlay: overlaySimulation('idle') }));
    const none = await runSimulation(db, options({ tags: noIdle }));
    expect(again.hash).toBe(once.hash);
    expect(once.hash).not.toBe(none.hash);
    expect(once.footSkateCmPerSec).toBe(none.footSkateCmPerSec);
    expect(once.transitionsPerSec).toBe(none.transitionsPerSec);
    expect(none.overlayStats).toBeNull();
    expect(once.overlayStats!.report()).toEqual(again.overlayStats!.report());
    expect(waved.groups[0].overlay).not.toBeNull();
    const report = OverlayStats.from(waved.groups[0].overlay!).report();
    expect(once.overlayStats!.report()).toEqual(report);
    expect(report.entries).toBeGreaterThan(40);
    expect(report.exits).toBeGreaterThan(5);
    expect(report.activeShare).toBeGreaterThan(0.2);
    expect(report.activeShare).toBeLessThan(0.9);
    expect(report.entryJumpMax).toBeLessThan(ENTRY_EXIT_JUMP_BOUND);
    expect(report.exitJumpMax).toBeLessThan(ENTRY_EXIT_JUMP_BOUND);
    expect(report.withoutJumpP95).toBeGreaterThan(0);
  });
});

describe('motionmatch simulate --overlay', () => {
  it('adds the overlay figures to the report, deterministically', async () => {
    const args = ['simulate', '--agents', '30', '--seconds', '6', '--overlay', 'idle', '--overlay-mask', 'arms:1', '--json'];
    const a = await runCliInProcess(args), b = await runCliInProcess(args), plain = await runCliInProcess(['simulate', '--agents', '30', '--seconds', '6', '--json']);
    for (const r of [a, b, plain]) expect(r.code, r.stderr).toBe(0);
    const [one, two, none] = [a, b, plain].map((r) => JSON.parse(r.stdout));
    expect(one.hash).toBe(two.hash);
    expect(one.hash).not.toBe(none.hash);
    expect(none.overlay).toBeUndefined();
    const o = one.overlay;
    expect(o.tag).toBe('idle');
    expect(o.mode).toBe('override');
    expect(o.mask.spec).toBe('arms:1');
    expect(o.mask.joints).toEqual(['clavicle_l', 'upperarm_l', 'lowerarm_l', 'hand_l', 'clavicle_r', 'upperarm_r', 'lowerarm_r', 'hand_r']);
    for (const k of ['entries', 'exits', 'activeShare', 'entryJumpMax', 'entryJumpP95', 'exitJumpMax', 'exitJumpP95', 'playingJumpP95', 'withoutJumpP95', 'costUsPlaying', 'costUsFading', 'costUsSwitching', 'costUsEntrySearch']) {
      expect(typeof o[k], k).toBe('number');
    }
    expect(o.entries).toBeGreaterThan(0);
    expect(o.costUsPlaying).toBeGreaterThan(0);
    const text = runCli(['simulate', '--agents', '10', '--seconds', '3', '--overlay', 'idle', '--overlay-mode', 'additive']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/overlay {6}'idle' \(additive\) on upper body \(spine_01\) falloff 2: \d+ entries/);
    expect(text.stdout).toMatch(/cost per agent-step [\d.]+ us playing/);
  });

  it('mistakes: usage errors exit 2, a tag or joint the database lacks exits 1, one line each', async () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['--overlay', ''], 2, /--overlay needs a tag/],
      [['--overlay-mask', 'upper'], 2, /--overlay-mask and --overlay-mode go with --overlay TAG/],
      [['--overlay', 'idle', '--overlay-mode', 'mix'], 2, /--overlay-mode must be override or additive, got 'mix'/],
      [['--overlay', 'wave', '--workers', '2'], 1, /no frames tagged 'wave' \(its tags: backward, cut, idle/],
      [['--overlay', 'idle', '--overlay-mask', ' '], 2, /--overlay-mask needs a specification/],
      [['--overlay', 'wave'], 1, /no frames tagged 'wave' \(its tags: backward, cut, idle/],
      [['--overlay', 'idle', '--overlay-mask', 'Spine,Head'], 1, /no joint named 'Spine', 'Head' in this skeleton/],
    ];
    for (const [extra, code, message] of cases) {
      const r = await runCliInProcess(['simulate', '--agents', '2', '--seconds', '0.5', ...extra]);
      expect(r.code, `${extra.join(' ')}: ${r.stderr}`).toBe(code);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    }
  });
});

describe.skipIf(!HAS_MOCAP)('simulate --overlay wave on the real captures', () => {
  it('waves over walks and runs of the mixed scenarios within the documented bound', async () => {
    const dir = tempDir();
    const file = join(dir, 'gestures.mmdb');
    const gestures = ['dataset-2_wave-both-hands_normal_002', 'dataset-2_wave-right-hand_normal_001', 'dataset-1_bye_normal_001'].map((g) => join(MOCAP_DIR, 'locomotion', `${g}.bvh`));
    const built = await runCliInProcess(['build', join(MOCAP_DIR, 'bench'), ...gestures, '--mirror', '--tag', 'wave=*wave*', '--tag', 'gesture=*bye*', '--out', file], { timeoutMs: 300_000 });
    expect(built.code, built.stderr).toBe(0);
    const r = await runCliInProcess(['simulate', '--db', file, '--agents', '100', '--seconds', '15', '--overlay', 'wave', '--json'], { timeoutMs: 300_000 });
    expect(r.code, r.stderr).toBe(0);
    const o = JSON.parse(r.stdout).overlay;
    console.log(`real wave overlays: ${o.entries} entries, ${o.exits} exits, jump at entry ${o.entryJumpMax} m/s (p95 ${o.entryJumpP95}), exit ${o.exitJumpMax} (p95 ${o.exitJumpP95}), playing p95 ${o.playingJumpP95}, without p95 ${o.withoutJumpP95} (max ${o.withoutJumpMax}); cost ${o.costUsPlaying} us playing, ${o.costUsFading} fading, ${o.costUsSwitching} after a switch`);
    expect(o.entries).toBeGreaterThan(100);
    expect(o.entryJumpMax).toBeLessThan(ENTRY_EXIT_JUMP_BOUND);
    expect(o.exitJumpMax).toBeLessThan(ENTRY_EXIT_JUMP_BOUND);
    expect(o.mask.joints).toContain('Hand_R');
    expect(o.mask.joints).not.toContain('Hips');
  }, 600_000);
});
