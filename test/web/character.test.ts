/**
 * A user's skinned character in the browser demo, in headless Chromium: `motionmatch demo
 * --character FILE` on the Mixamo test rig (test/three/rigs.ts: T-pose, bones in centimetres under a
 * 0.01 armature, legs 1.15x the capture's) with a visible body (test/three/body-glb.ts).
 *
 * Checks: the page loads it (bone map, leg ratio, crowd clones); 5 s under the keyboard the
 * character walks more than 1 m, its lowest foot joint comes back to its standing height (the rig's
 * own toe height over the floor) and stays within 2 cm of it whenever the engine has a foot down,
 * following the engine's lowest foot joint (scaled) within 1 cm, and no bone matrix is NaN; files that cannot be
 * used — a truncated GLB (file input), a GLB without a skin (dropped), a header claiming 2 GB, two
 * skeletons, a missing leg bone — each show one line on the page while the demo keeps running; no
 * console errors. Screenshot: test-artifacts/character.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { REPO_ROOT } from '../helpers/cli.js';
import { HAVE_CHROMIUM, TEST_VIEWPORT, chromiumSkipReason, drawnScreenshot, launchChromium, openDemoPage, setDrawing, startDemo, stopDemo, type DemoProcess } from '../helpers/demo-browser.js';
import { buildGlb, databaseRig, type RigBone } from '../three/fixtures.js';
import { mixamoRig } from '../three/rigs.js';
import { buildBodyGlb } from '../three/body-glb.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

if (!HAVE_CHROMIUM) console.log(chromiumSkipReason('character browser tests'));

const ARTIFACTS = join(REPO_ROOT, 'test-artifacts');
/** The walk's fixed step rate (Hz). */
const WALK_HZ = 30;

interface Sample { position: [number, number, number]; feet: Record<string, [number, number, number]>; lowest: number; engineLowest: number }
interface CharacterHandle {
  loaded: boolean;
  name: string | null;
  boneMap: Array<{ role: string; target: string; source: string; how: string }>;
  legRatio: number | null;
  error: string | null;
  clones: number;
  sample(): Sample | null;
  boneMatrices(): Array<{ name: string; matrix: number[] }>;
  loadFile(file: File): Promise<{ ok: boolean; message: string }>;
}
type W = { motionmatch: { character: CharacterHandle & { load(url: string): Promise<{ ok: boolean; message: string }> }; error: string | null; ready: boolean; stats: { frames: number; mode: string; drawnAgents: number }; setMode(m: 'split' | 'batched'): Promise<void>; setFixedStep(s: number | null): void; setRendering(on: boolean | 'none'): void } };

describe.skipIf(!HAVE_CHROMIUM)('a skinned character in the browser demo', () => {
  let demo: DemoProcess | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let errors: string[] = [];
  let dir = '';
  let mixamo: RigBone[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'motionmatch-character-'));
    const db = builtinDatabase();
    mixamo = mixamoRig(databaseRig(db));
    const file = join(dir, 'mixamo.glb');
    writeFileSync(file, buildBodyGlb({ bones: mixamo, armatureScale: 0.01 }));
    demo = await startDemo(['--character', file]);
    browser = await launchChromium();
    ({ page, errors } = await openDemoPage(browser, demo.url, TEST_VIEWPORT));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stopDemo(demo);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('loads the --character file: the bone map, the leg ratio, the crowd', async () => {
    await page.waitForFunction(() => (window as unknown as W).motionmatch.character.clones > 0, null, { timeout: 10_000 });
    const c = await page.evaluate(() => {
      const h = (window as unknown as W).motionmatch.character;
      return { loaded: h.loaded, name: h.name, boneMap: h.boneMap, legRatio: h.legRatio, error: h.error, clones: h.clones, rows: document.querySelectorAll('#char-map tbody tr').length, shown: document.getElementById('char-name')!.textContent };
    });
    expect(c.loaded).toBe(true);
    expect(c.name).toBe('mixamo.glb');
    expect(c.shown).toBe('mixamo.glb');
    expect(c.error).toBeNull();
    expect(c.legRatio).toBeCloseTo(1.15, 2);
    const byRole = new Map(c.boneMap.map((b) => [b.role, b]));
    expect(byRole.get('hips')).toMatchObject({ target: 'mixamorigHips', how: 'name' });
    expect(byRole.get('leftFoot')).toMatchObject({ target: 'mixamorigLeftFoot', source: 'foot_l', how: 'name' });
    expect(byRole.get('rightLowerLeg')?.target).toBe('mixamorigRightLeg');
    expect(c.rows).toBe(c.boneMap.length);
    expect(c.boneMap.length).toBeGreaterThanOrEqual(20);
    // The crowd (100 agents by default): clones of the character, the rest box figures.
    expect(c.clones).toBeGreaterThan(0);
  });

  it('walks 5 s under the keyboard: moves > 1 m, feet within 2 cm of the floor, no NaN', async () => {
    await page.click('#viewport');
    // Standing: the lowest foot joint's height (the rig's toe/ankle height over the floor), and the engine's.
    const standing = await page.evaluate(async () => {
      const h = (window as unknown as W).motionmatch.character;
      const lows: number[] = [], engine: number[] = [];
      for (let i = 0; i < 20; i++) { await new Promise((r) => requestAnimationFrame(r)); const s = h.sample()!; lows.push(s.lowest); engine.push(s.engineLowest); }
      const median = (v: number[]): number => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
      return { low: median(lows), min: Math.min(...lows), max: Math.max(...lows), engine: median(engine) };
    });
    // The walk is counted in engine steps of a fixed 1/30 s (a frame of a 30 Hz display), with the
    // keys pressed at given steps (W for 5 s, A held from 2.5 s to 4 s), so a loaded machine that
    // draws few frames a second walks the same path; the crowd is simulated but not drawn, to keep
    // those frames cheap.
    const r = await page.evaluate(async ({ steps, hz }) => {
      const m = (window as unknown as W).motionmatch;
      const h = m.character;
      m.setFixedStep(1 / hz);
      m.setRendering(false);
      const key = (type: 'keydown' | 'keyup', code: string): void => { window.dispatchEvent(new KeyboardEvent(type, { code, key: code.slice(3).toLowerCase(), bubbles: true })); };
      const lows: number[] = [], engine: number[] = [];
      let nan = 0, matrices = 0;
      let last = m.stats.frames;
      const first = last;
      const start = h.sample()!;
      key('keydown', 'KeyW');
      let pressedA = false, releasedA = false;
      while (last - first < steps) {
        await new Promise((res) => requestAnimationFrame(res));
        const now = m.stats.frames;
        if (now === last) continue;
        last = now;
        const s = h.sample()!;
        lows.push(s.lowest);
        engine.push(s.engineLowest);
        if (lows.length % 5 === 0) {
          for (const b of h.boneMatrices()) { matrices++; if (b.matrix.some((v) => !Number.isFinite(v))) nan++; }
        }
        const step = now - first;
        if (!pressedA && step >= steps / 2) { key('keydown', 'KeyA'); pressedA = true; }
        if (!releasedA && step >= (4 / 5) * steps) { key('keyup', 'KeyA'); releasedA = true; }
      }
      const end = h.sample()!;
      key('keyup', 'KeyW');
      m.setFixedStep(null);
      m.setRendering(true);
      return { start: start.position, end: end.position, lows, engine, nan, matrices, steps: last - first };
    }, { steps: 5 * WALK_HZ, hz: WALK_HZ });
    mkdirSync(ARTIFACTS, { recursive: true });
    // The character and its crowd drawn for the screenshot; the refusals below read the page, not the scene.
    await drawnScreenshot(page, join(ARTIFACTS, 'character.png'));

    const ratio = await page.evaluate(() => (window as unknown as W).motionmatch.character.legRatio!);
    const moved = Math.hypot(r.end[0] - r.start[0], r.end[2] - r.start[2]);
    // Per frame: the lowest foot joint over its standing height, and how far that is from the
    // engine's own (its lowest foot joint over its standing height, scaled by the leg ratio).
    const dev = r.lows.map((l) => l - standing.low);
    const follow = r.lows.map((l, i) => Math.abs(l - standing.low - ratio * (r.engine[i] - standing.engine)));
    const sorted = [...dev].sort((a, b) => a - b);
    const p95 = sorted[Math.floor(0.95 * (sorted.length - 1))];
    const cm = (v: number): string => `${(100 * v).toFixed(2)} cm`;
    console.log(`character walk: ${r.steps} engine steps of 1/${WALK_HZ} s, ${r.lows.length} sampled, moved ${moved.toFixed(2)} m; standing: lowest foot joint ${cm(standing.low)} (${cm(standing.min)}-${cm(standing.max)}), the engine's ${cm(standing.engine)}; ` +
      `lowest foot joint minus standing over the run: min ${cm(sorted[0])}, median ${cm(sorted[Math.floor(sorted.length / 2)])}, p95 ${cm(p95)}, max ${cm(sorted[sorted.length - 1])} ` +
      `(frames above 2 cm: ${dev.filter((d) => d > 0.02).length}, where the engine's feet rose ${dev.map((d, i) => (d > 0.02 ? cm(r.engine[i] - standing.engine) : '')).filter(Boolean).join(', ') || '-'}); ` +
      `off the engine's (scaled) by at most ${cm(Math.max(...follow))}; frames where the engine had a foot down: ${dev.filter((d, i) => r.engine[i] - standing.engine < 0.015).length}; ${r.matrices} bone matrices read, ${r.nan} with NaN`);
    expect(moved).toBeGreaterThan(1);
    expect(r.lows.length).toBeGreaterThan(10);
    expect(r.nan).toBe(0);
    expect(r.matrices).toBeGreaterThan(0);
    // Standing on the floor: the lowest foot joint is the rig's own (toe) height, a few cm.
    expect(standing.low).toBeGreaterThan(0);
    expect(standing.low).toBeLessThan(0.12);
    // Over the run its lowest foot joint comes back to that height (within 2 cm) and never sinks 2 cm below.
    expect(sorted[0]).toBeGreaterThan(-0.02);
    expect(sorted[0]).toBeLessThan(0.02);
    // Every frame the engine has a foot on the floor (its lowest foot joint within 1.5 cm of its
    // standing height), so does the character, within 2 cm; the engine lifts both feet for a frame or
    // two when it starts walking, and there the character follows it: within 1 cm of the engine's
    // lowest foot joint (scaled by the leg ratio) on every frame.
    const grounded = dev.filter((d, i) => r.engine[i] - standing.engine < 0.015);
    expect(grounded.length).toBeGreaterThan(0.8 * dev.length);
    expect(Math.max(...grounded.map(Math.abs))).toBeLessThan(0.02);
    expect(Math.max(...follow)).toBeLessThan(0.01);
  }, 120_000);

  it('refuses unusable files with one line on the page and keeps running', async () => {
    const good = buildGlb({ bones: mixamo, armatureScale: 0.01 });
    // A truncated GLB, through the file input.
    await page.setInputFiles('#char-input', { name: 'truncated.glb', mimeType: 'model/gltf-binary', buffer: Buffer.from(good.subarray(0, Math.floor(good.byteLength / 2))) });
    await page.waitForFunction(() => (window as unknown as W).motionmatch.character.error !== null, null, { timeout: 10_000 });
    const truncated = await page.evaluate(() => ({ error: (window as unknown as W).motionmatch.character.error, shown: document.getElementById('char-error')!.textContent, banner: document.getElementById('banner')!.textContent, loaded: (window as unknown as W).motionmatch.character.loaded }));
    expect(truncated.error).toMatch(/^truncated\.glb: motionmatch\/three: not a usable GLB: .*truncated/);
    expect(truncated.shown).toBe(truncated.error);
    expect(truncated.banner).toBe(truncated.error);
    // The character loaded before stays.
    expect(truncated.loaded).toBe(true);

    // A GLB without a skin, dropped on the page.
    const noSkin = buildGlb({ bones: mixamo, noSkin: true });
    const dropped = await page.evaluate(async (bytes) => {
      const h = (window as unknown as W).motionmatch.character;
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(bytes)], 'noskin.glb'));
      window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      const t0 = performance.now();
      while (!h.error?.startsWith('noskin.glb') && performance.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 50));
      return { error: h.error, shown: document.getElementById('char-error')!.textContent };
    }, Array.from(noSkin));
    expect(dropped.error).toMatch(/^noskin\.glb: motionmatch\/three: no skinned mesh/);
    expect(dropped.shown).toBe(dropped.error);

    // Through the handle: a header claiming 2 GB, two skeletons, a missing leg bone.
    const huge = good.slice();
    new DataView(huge.buffer).setUint32(8, 2 ** 31, true);
    const two = buildGlb({ bones: mixamo, armatureScale: 0.01, copies: 2 });
    const noShin = buildGlb({ bones: mixamo.filter((b) => !/LeftLeg$/.test(b.name)).map((b) => (b.parent?.endsWith('LeftLeg') ? { ...b, parent: 'mixamorig:LeftUpLeg' } : b)), armatureScale: 0.01 });
    const framesBefore = await page.evaluate(() => (window as unknown as W).motionmatch.stats.frames);
    const results = await page.evaluate(async (files) => {
      const h = (window as unknown as W).motionmatch.character;
      const out: Array<{ ok: boolean; message: string; error: string | null }> = [];
      for (const [name, bytes] of files) {
        const r = await h.loadFile(new File([new Uint8Array(bytes)], name));
        out.push({ ...r, error: h.error });
      }
      return out;
    }, [['huge.glb', Array.from(huge)], ['two.glb', Array.from(two)], ['noshin.glb', Array.from(noShin)]] as Array<[string, number[]]>);
    console.log(['character errors:', truncated.error, dropped.error, ...results.map((r) => r.message)].join('\n  '));
    expect(results[0].message).toMatch(/^huge\.glb: .*claims 2,147,483,648 bytes, more than the/);
    expect(results[1].message).toMatch(/^two\.glb: .*2 skeletons/);
    expect(results[2].message).toMatch(/^noshin\.glb: .*no (left|right)\w+ bone found/);
    for (const r of results) {
      expect(r.ok).toBe(false);
      expect(r.error).toBe(r.message);
    }
    for (const m of [truncated.error!, dropped.error!, ...results.map((r) => r.message)]) expect(m).not.toContain('\n');
    // Still running, still with the character.
    await page.waitForFunction((n) => (window as unknown as W).motionmatch.stats.frames > n + 5, framesBefore, { timeout: 10_000 });
    expect(await page.evaluate(() => (window as unknown as W).motionmatch.character.loaded)).toBe(true);
    expect(errors).toEqual([]);
  }, 30_000);

  it('draws the crowd from the agent workers\' poses in the split engine', async () => {
    await setDrawing(page, true);
    await page.evaluate(() => (window as unknown as W).motionmatch.setMode('split'));
    const before = await page.evaluate(() => (window as unknown as W).motionmatch.stats.frames);
    await page.waitForFunction((n) => (window as unknown as W).motionmatch.stats.frames > n + 20, before, { timeout: 15_000 });
    const r = await page.evaluate(() => ({ mode: (window as unknown as W).motionmatch.stats.mode, clones: (window as unknown as W).motionmatch.character.clones }));
    expect(r.mode).toBe('split');
    expect(r.clones).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  }, 20_000);

  it('?character=URL: a URL that fails is one line and the box figures run; the handle loads a URL', async () => {
    const url = new URL(demo!.url);
    url.searchParams.set('character', '/no-such-character.glb');
    await page.goto(url.href);
    await page.waitForFunction(() => (window as unknown as W).motionmatch?.ready === true, null, { timeout: 60_000 });
    const failed = await page.evaluate(() => {
      const h = (window as unknown as W).motionmatch;
      return { loaded: h.character.loaded, error: h.character.error, shown: document.getElementById('char-error')!.textContent, name: document.getElementById('char-name')!.textContent };
    });
    expect(failed.loaded).toBe(false);
    expect(failed.error).toMatch(/^no-such-character\.glb: could not load the character: HTTP 404/);
    expect(failed.error).not.toContain('\n');
    expect(failed.shown).toBe(failed.error);
    expect(failed.name).toBe('box figures');
    await page.waitForFunction(() => (window as unknown as W).motionmatch.stats.drawnAgents > 0, null, { timeout: 10_000 });
    const loaded = await page.evaluate(() => (window as unknown as W).motionmatch.character.load('/__motionmatch/character.glb'));
    expect(loaded.ok, loaded.message).toBe(true);
    expect(await page.evaluate(() => (window as unknown as W).motionmatch.character.loaded)).toBe(true);
    // (the 404 is the browser's own console line for the failed fetch)
    expect(errors.filter((e) => !/404/.test(e))).toEqual([]);
  }, 60_000);
});
