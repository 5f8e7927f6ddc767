/**
 * The page: loads the built-in database, runs the crowd every animation frame (input -> engine
 * step (AI + motion matching) -> drawing -> debug views), and applies the user's changes (agents,
 * engine mode, backend, method, threads, toggles, dropped databases) between frames so that a step
 * never sees a half-changed world. Anything that can fail (a new database, a new backend) is
 * built aside and swapped in only when it worked.
 */
import * as THREE from 'three';
import type { Database } from '../../src/database/database.js';
import type { Backend, SearchMethod } from '../../src/search/matcher.js';
import { checkUnseenStepEvery, viewCosHalfAngle } from '../../src/runtime/lod/view.js';
import type { CrowdView } from './characters.js';
import { nextWorld, type World } from './world.js';
import { servedDatabaseRef, type ServedDatabaseRef } from '../../src/web/served-database.js';
import { databaseChecksums } from '../../src/web/database-checksums.js';
import { DatabaseLoader, describeDatabase, type LoadedDatabase } from './load-database.js';
import { SearchHistogram, describePlayback } from './debug-panels.js';
import { createEngine, type CrowdEngine, type EngineConfig, type EngineMode } from './engines.js';
import { installHandle, type MotionmatchHandle } from './handle.js';
import { playerReader, statsReader } from './handle-readers.js';
import { PlayerInput } from './input.js';
import { SceneView } from './scene.js';
import { backendLabel, canShareMemory, defaultSearchConfig, type WorkerPolicy } from './search-backend.js';
import { FrameStats } from './stats.js';
import { Ui } from './ui.js';
import { CoveragePanel } from './coverage-panel.js';
import { QualityPanel } from './quality-panel.js';
import type { CrowdOptions } from './crowd.js';
import { applySchemaWeights, settingsFromFragment, type EngineSettings } from '../../src/sim/settings/options-file.js';
import { searchTagsFragment, searchTagsFromFragment, searchTagsOn, type SearchTags } from '../../src/sim/search-tags.js';
import { TerrainView, terrainSpec, type TerrainChoice } from './terrain.js';
import { OverlayDemo } from './overlay-demo.js';
import type { CharacterView } from './character.js';
import { CharacterSlot } from './character-slot.js';
import { isCharacterFile } from '../../src/web/served-character.js';
import { budgetFromUrl, characterRef, unseenFromUrl } from './page-address.js';
import type { PoseChunk } from './crowd.js';

/** No agents to draw (the crowd hidden). */
const NO_CHUNKS: readonly PoseChunk[] = [];

const MAX_AGENTS = 20000;
/** Longest step (s): slower frames run the world slower rather than in big jumps. */
const MAX_DT = 0.2;

/** Software WebGL (no GPU) draws a few hundred characters at best: draw the nearest ones. */
const SOFTWARE_MAX_DRAWN = 400;


type Outcome = { ok: boolean; message: string };

export class App {
  private readonly view: SceneView;
  private readonly ui: Ui;
  private readonly input: PlayerInput;
  private readonly loader = new DatabaseLoader();
  private readonly stats = new FrameStats();
  private readonly histogram: SearchHistogram;
  private world: World | null = null;
  private config: EngineConfig;
  private agents = 100;
  private footIK = true;
  private inertialization = true;
  /** Levels of detail for the agents (docs/lod.md), off by default; `?lod` in the URL or the handle's setLod turn them on. */
  private lod = new URLSearchParams(location.search).has('lod');
  /** With levels: the agents' search budget (searches per agent-second; `?budget=R` in the URL or the handle's setSearchBudget), null: none. */
  private searchBudget = budgetFromUrl(new URLSearchParams(location.search).get('budget'));
  /** With levels: agents out of view step every this many frames (`?unseen=N` or the handle's setUnseenStepEvery; runtime/lod/view.ts restsUnseen). */
  private unseenStepEvery = unseenFromUrl(new URLSearchParams(location.search).get('unseen'));
  /** The camera orbits at this rate (rad/s; the handle's setCameraTurn, for benchmarks: a turning view reveals held poses). */
  private cameraTurn = 0;
  private drawCrowd = true;
  /** False: skip WebGL drawing altogether (benchmarks of the engine alone). */
  private drawScene = true;
  private charts = true;
  private ready = false;
  private error: string | null = null;
  private readonly readyWaiters: Array<() => void> = [];
  // Changes wait for the running step; the loop skips frames while changes are queued.
  private chain: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private lastTime = Number.NaN;
  /** When set, every frame steps the world by this many seconds (benchmarks: a steady 60 Hz load). */
  private fixedStep: number | null = null;
  private frameNo = 0;
  private readonly crowdView: CrowdView;
  private readonly projScreen = new THREE.Matrix4();
  private readonly coverage: CoveragePanel;
  /** The player's quality figures beside the data's own (web/src/quality-panel.ts). */
  private readonly quality: QualityPanel;
  /** Engine settings from the page address (`motionmatch demo --options FILE`), or null. */
  private readonly settings: EngineSettings | null = null;
  /** Tags the locomotion searches keep to (`motionmatch demo --require-tag/--exclude-tag`, #tags=...; handle.setSearchTags), or null. */
  private searchTags: SearchTags | null = null;
  /** The ground the crowd walks on, and its mesh. */
  private terrain: TerrainChoice = 'off';
  private readonly terrainView: TerrainView;
  /** The wave key and the crowd's waves (web/src/overlay-demo.ts). */
  private readonly overlay: OverlayDemo;
  /** The user's character (web/src/character-slot.ts): box figures until one is loaded. */
  private readonly characterSlot: CharacterSlot;
  /** The character drawn for the running database, or null: box figures. */
  private get character(): CharacterView | null { return this.characterSlot.view; }

  private constructor() {
    const canvas = document.getElementById('viewport') as HTMLCanvasElement;
    this.view = new SceneView(canvas);
    this.view.attachOrbitControls();
    this.terrainView = new TerrainView(this.view.scene);
    this.crowdView = { frustum: new THREE.Frustum(), x: 0, z: 0, maxDrawn: this.view.software ? SOFTWARE_MAX_DRAWN : Infinity };
    // With worker threads and a GPU, the workers split the agents. Software WebGL (no GPU) keeps
    // the cores busy rasterising at a higher priority than the page's workers, which then wait
    // for CPU every frame: there the main thread steps the crowd and only searches go to the pool
    // (when that is faster). Without isolation, one thread does it all.
    const search = defaultSearchConfig();
    this.config = { ...search, mode: search.threads >= 2 && !this.view.software ? 'split' : 'batched' };
    this.input = new PlayerInput(window);
    this.input.onKey = (code) => {
      if (code === 'KeyH') this.ui.togglePanel();
      if (code === 'KeyR') void this.resetPlayer();
      if (code === 'KeyG') void this.overlay.toggleWave();
    };
    this.ui = new Ui({
      agents: (n) => void this.setAgents(n),
      mode: (m) => void this.reconfigure({ mode: m }).catch(() => {}),
      backend: (b) => void this.reconfigure({ backend: b }).catch(() => {}),
      method: (m) => void this.setMethod(m),
      threads: (n) => void this.reconfigure({ threads: n }).catch(() => {}),
      policy: (p) => void this.reconfigure({ policy: p }).catch(() => {}),
      footIK: (on) => void this.setCrowdOptions({ footIK: on }),
      inertialization: (on) => void this.setCrowdOptions({ inertialization: on }),
      trajectories: (on) => { if (this.world) this.world.debug.showTrajectories = on; },
      feet: (on) => { if (this.world) this.world.debug.showFeet = on; },
      charts: (on) => { this.charts = on; },
      drawCrowd: (on) => this.setRendering(on),
      files: (files) => void this.loadFiles(files),
      builtin: () => void this.loadBuiltin(),
      terrain: (choice) => void this.setTerrain(choice).catch((e: Error) => this.ui.message(e.message, 'error')),
      character: (file) => void this.characterSlot.loadFile(file),
      clearCharacter: () => void this.characterSlot.clear(),
    });
    this.histogram = new SearchHistogram(this.ui.histCanvas);
    this.characterSlot = new CharacterSlot({
      ui: this.ui,
      view: this.view,
      database: () => this.world?.db ?? null,
      exclusive: (fn) => this.exclusive(fn),
      failed: (message) => { this.error = message; },
    });
    window.addEventListener('resize', () => this.view.resize());
    try {
      this.settings = settingsFromFragment(location.hash);
    } catch (e) {
      this.ui.message(`${(e as Error).message}\nRunning with the default settings.`, 'error');
    }
    try {
      this.searchTags = searchTagsFromFragment(location.hash);
    } catch (e) {
      this.ui.message(`${(e as Error).message}\nSearching without tag filters.`, 'error');
    }
    this.coverage = new CoveragePanel({
      database: () => (this.world ? { db: this.world.db, name: this.world.name } : null),
      player: () => (this.world ? { controller: this.world.engine.player, input: this.world.engine.playerInput } : null),
    }, document.getElementById('coverage-btn'));
    this.quality = new QualityPanel({
      database: () => this.world?.db ?? null,
      player: () => (this.world ? { controller: this.world.engine.player, input: this.world.engine.playerInput } : null),
    }, document.getElementById('quality-btn'));
    this.overlay = new OverlayDemo({
      database: () => this.world?.db ?? null,
      player: () => this.world?.engine.player ?? null,
      between: (fn) => this.exclusive(fn),
      applyCrowd: () => this.setCrowdOptions({}),
      agentsInWorkers: () => this.world?.engine.mode === 'split',
      message: (text, kind) => this.ui.message(text, kind),
    });
    installHandle(this.handle());
    const isolated = canShareMemory();
    this.ui.showIsolation(
      isolated
        ? 'cross-origin isolated: worker threads available (shared WebAssembly.Memory)'
        : 'not cross-origin isolated: running on ONE thread (serve with COOP/COEP headers, as `motionmatch demo` does)',
      isolated,
    );
  }

  static async start(): Promise<App> {
    const app = new App();
    const served = servedDatabaseRef(document);
    app.ui.status.textContent = served ? `loading ${served.name}…` : 'building the built-in database…';
    try {
      const loaded = served ? await app.loadServedOrBuiltin(served) : await app.loader.builtin((f, label) => app.ui.setProgress(f, label));
      await app.exclusive(() => app.install(loaded));
    } catch (e) {
      app.fail(`could not start: ${(e as Error).message}`);
      throw e;
    } finally {
      app.ui.setProgress(null);
    }
    // The character asked for (?character=URL or `demo --character FILE`): a failure is shown, never thrown.
    const character = characterRef();
    if (character) await app.characterSlot.loadUrl(character.url, character.name);
    requestAnimationFrame((t) => app.loop(t));
    return app;
  }

  /**
   * The database the server was started with (`motionmatch demo --db FILE`). The CLI checked it
   * before serving, so a failure here means it changed since: say so and run the built-in one.
   */
  private async loadServedOrBuiltin(served: ServedDatabaseRef): Promise<LoadedDatabase> {
    const progress = (f: number, label: string): void => this.ui.setProgress(f, label);
    try {
      return await this.loader.served(served, progress);
    } catch (e) {
      this.error = `could not load ${served.name}: ${(e as Error).message}`;
      this.ui.message(`${this.error}\nRunning the built-in database instead.`, 'error');
      this.ui.status.textContent = 'building the built-in database…';
      return await this.loader.builtin(progress);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Frame loop

  private loop(now: number): void {
    requestAnimationFrame((t) => this.loop(t));
    if (this.queued > 0) return; // a step or a change is still running: skip this frame
    const measured = Number.isNaN(this.lastTime) ? 1 / 60 : Math.min(MAX_DT, Math.max(0, (now - this.lastTime) / 1000));
    this.lastTime = now;
    const dt = this.fixedStep ?? measured;
    void this.exclusive(() => this.tick(dt, now)).catch((e: Error) => this.fail(`the engine stopped: ${e.message}`));
  }

  private async tick(dt: number, now: number): Promise<void> {
    const w = this.world;
    if (!w || this.error?.startsWith('the engine stopped')) return;
    this.stats.tick(now);
    const rig = this.view.rig;
    this.input.read(rig.yaw, w.engine.playerInput);
    if (this.input.lookX || this.input.lookY) rig.orbit(-this.input.lookX * 2.5 * dt, this.input.lookY * 1.5 * dt);
    if (this.cameraTurn !== 0) rig.orbit(this.cameraTurn * dt, 0);
    // Levels of detail measure from the camera's place on the ground; far agents outside its view
    // (with a margin for the turn until the frame is drawn) hold their pose.
    const view = w.engine.camera;
    view.x = rig.camera.position.x;
    view.z = rig.camera.position.z;
    view.forwardX = rig.forwardX;
    view.forwardZ = rig.forwardZ;
    view.cosHalfAngle = viewCosHalfAngle(THREE.MathUtils.degToRad(rig.camera.fov), rig.camera.aspect);
    const timing = await w.engine.step(dt, this.config.method);
    this.quality.observe(dt);
    this.stats.record(timing);
    this.draw(w, dt);
    this.frameNo++;
    if (!this.ready) {
      this.ready = true;
      for (const fn of this.readyWaiters.splice(0)) fn();
    }
  }

  private draw(w: World, dt: number): void {
    const t0 = performance.now();
    const player = w.engine.player;
    const p = player.rootPosition;
    const rig = this.view.rig;
    // With a character, the camera and the views follow it: it strides legRatio times the
    // controller's distance (docs/three.md), so it stands apart from the controller's root.
    const ch = this.character;
    if (ch) ch.updatePlayer(player, this.drawScene);
    const at = ch ? ch.position : p;
    rig.follow(at[0], at[1], at[2], dt);
    this.crowdView.frustum.setFromProjectionMatrix(this.projScreen.multiplyMatrices(rig.camera.projectionMatrix, rig.camera.matrixWorldInverse));
    this.crowdView.x = at[0];
    this.crowdView.z = at[2];
    w.crowdMesh.visible = this.drawCrowd && this.drawScene;
    const chunks = w.crowdMesh.visible ? w.engine.poses() : NO_CHUNKS;
    if (ch) ch.updateCrowd(chunks, this.crowdView, player.options.ground, w.crowdMesh.visible);
    w.crowdMesh.update(chunks, w.db.skeleton.names.length, this.crowdView, ch ? ch.skip : null);
    w.playerMesh.group.visible = ch === null;
    if (!ch) w.playerMesh.update(player);
    w.debug.update(player);
    // The debug views are the controller's: drawn where its character stands.
    w.debug.group.position.set(at[0] - p[0], at[1] - p[1], at[2] - p[2]);
    this.view.centreGround(at[0], at[2]);
    this.terrainView.follow(at[0], at[2]);
    if (this.frameNo % 6 === 0) { this.coverage.update(); this.overlay.update(); }
    if (this.frameNo % 30 === 0) this.quality.update();
    if (this.drawScene) this.view.render();
    this.stats.render.push(performance.now() - t0);
    // Not with setRendering('none'): every chart is a 2D canvas redrawn each frame, and with software
    // rendering compositing them kept Chromium's GPU process on 0.8 of a core while the page drew no
    // WebGL at all (the whole page 1.1 cores against 0.23 without them, 2026-12-07).
    if (this.charts && this.drawScene) {
      w.costBars.draw(player);
      w.timeline.draw(player);
      if (this.frameNo % 4 === 0) {
        this.histogram.draw(this.stats.search, this.stats.searches);
        this.ui.clipInfo.textContent = describePlayback(player);
      }
    }
    if (this.frameNo % 10 === 0) this.ui.readouts(this.stats.readouts(w.engine, w.crowdMesh.drawn + (ch ? ch.drawnClones : 0), this.view.software));
  }

  // ---------------------------------------------------------------------------------------------
  // Changes (each runs between steps)

  private exclusive<T>(fn: () => T | Promise<T>): Promise<T> {
    this.queued++;
    const run = this.chain.then(fn);
    const done = run.finally(() => { this.queued--; });
    this.chain = done.catch(() => {});
    return done;
  }

  /** Builds a complete world for a database (engine, views) and swaps it in. */
  private async install(loaded: LoadedDatabase): Promise<void> {
    const { name } = loaded;
    const db = this.settings ? applySchemaWeights(loaded.db, this.settings, 'the page address (#options=...)') : loaded.db;
    const engine = await createEngine(db, this.config, this.crowdOptions(db), this.agents);
    this.checkSettingsApplied(engine);
    const world = nextWorld(this.world, db, name, engine, this.view.scene, this.ui);
    this.world = world;
    this.characterSlot.rebuild(db);
    this.engineChanged(engine);
    this.ui.setDatabase(name, describeDatabase(db));
    this.noteMissingTags(db);
    this.view.rig.yaw = 0;
  }

  /** Says which tag filters this database cannot apply (it has no frames with those tags). */
  private noteMissingTags(db: Database): void {
    const missing = searchTagsOn(db, this.searchTags).missing;
    if (missing.length > 0) this.ui.message(`this database has no frames tagged ${missing.map((t) => `'${t}'`).join(', ')}: the searches ignore ${missing.length > 1 ? 'those filters' : 'that filter'}`, 'info');
  }

  /** Foot IK and inertialization as toggled, and the settings' controller options (when given). */
  private crowdOptions(db = this.world?.db): CrowdOptions {
    return { footIK: this.footIK, inertialization: this.inertialization, controller: this.settings?.controller, terrain: terrainSpec(this.terrain), overlay: this.overlay.crowdSettings(db), lod: this.lod, searchBudget: this.searchBudget, unseenStepEvery: this.unseenStepEvery, tags: this.searchTags };
  }

  /** Every character onto another ground (between frames); the terrain's mesh replaces the flat floor. */
  private async setTerrain(choice: TerrainChoice): Promise<void> {
    const spec = terrainSpec(choice); // refuses an unknown choice before anything changes
    await this.exclusive(async () => {
      this.terrain = choice;
      this.terrainView.show(spec);
      this.view.setFlatGroundVisible(spec === null);
      this.ui.showTerrain(choice);
      await this.world?.engine.setOptions(this.crowdOptions());
    });
  }

  /** Says so when the crowd did not take the settings' controller options (only the weights then apply). */
  private checkSettingsApplied(engine: CrowdEngine): void {
    const wanted = this.settings?.controller;
    if (!wanted) return;
    const actual = engine.player.options as unknown as Record<string, unknown>;
    const missing = Object.entries(wanted).filter(([k, v]) => JSON.stringify(actual[k]) !== JSON.stringify(v)).map(([k]) => k);
    if (missing.length) this.ui.message(`the settings' feature weights apply, but this page's crowd does not take their controller options (${missing.join(', ')})`, 'error');
  }

  /** The engine in use changed (or failed to): the settings follow what actually runs. */
  private engineChanged(engine: CrowdEngine): void {
    this.config = { ...this.config, mode: engine.mode, backend: engine.backend, threads: engine.threads, policy: engine.config.policy };
    this.ui.setControls({
      agents: this.agents, mode: engine.mode, backend: engine.backend, method: this.config.method, threads: engine.threads,
      maxThreads: canShareMemory() ? 4 : 1, policy: this.config.policy,
    });
    if (engine.fallbackReason) this.ui.message(engine.fallbackReason, 'info');
    const where = engine.threads === 1
      ? 'main thread'
      : engine.mode === 'split'
        ? `agents split over ${engine.threads} workers`
        : `search on ${engine.threads} workers${this.config.policy === 'auto' ? ' (auto)' : ''}`;
    this.ui.status.textContent = `${backendLabel(engine.backend)} · ${where} · ${this.config.method}`;
    this.stats.reset();
  }

  private async setAgents(n: number): Promise<void> {
    const count = Math.max(0, Math.min(MAX_AGENTS, Math.round(Number(n) || 0)));
    await this.exclusive(async () => {
      this.agents = count;
      if (this.world) await this.world.engine.setAgentCount(count);
      this.ui.setControls({
        agents: count, mode: this.config.mode, backend: this.config.backend, method: this.config.method, threads: this.config.threads,
        maxThreads: canShareMemory() ? 4 : 1, policy: this.config.policy,
      });
      this.stats.reset();
    });
  }

  private async setMethod(m: SearchMethod): Promise<void> {
    if (!['kdtree', 'aabb', 'brute', 'early'].includes(m)) throw new RangeError(`unknown search method '${m}'`);
    await this.exclusive(() => {
      this.config = { ...this.config, method: m };
      if (this.world) this.engineChanged(this.world.engine);
    });
  }

  /**
   * Another mode or thread count builds a new engine (the agents start afresh); another backend
   * or worker policy recreates the matchers in the running one.
   */
  private async reconfigure(change: Partial<EngineConfig>): Promise<void> {
    await this.exclusive(async () => {
      const w = this.world;
      const config: EngineConfig = { ...this.config, ...change };
      if (!w) { this.config = config; return; }
      try {
        if (config.mode !== w.engine.mode || config.threads !== w.engine.threads) {
          const engine = await createEngine(w.db, config, this.crowdOptions(), this.agents);
          const old = w.engine;
          w.engine = engine;
          void old.close();
          this.config = config;
          this.engineChanged(engine);
        } else {
          await w.engine.setSearch(config);
          this.config = config;
          this.engineChanged(w.engine);
        }
      } catch (e) {
        this.ui.message(`could not switch: ${(e as Error).message}`, 'error');
        this.engineChanged(w.engine);
        throw e;
      }
    });
  }

  private async setCrowdOptions(o: { footIK?: boolean; inertialization?: boolean; lod?: boolean; searchBudget?: number | null; unseenStepEvery?: number; tags?: SearchTags | null }): Promise<void> {
    // (the handle's tags are checked as the page address's are)
    const tags = o.tags === undefined ? undefined : o.tags === null ? null : searchTagsFromFragment(searchTagsFragment(o.tags));
    if (tags && this.world) {
      const both = tags.require.find((t) => tags.exclude.includes(t));
      if (both !== undefined) throw new RangeError(`tag '${both}' is both required and excluded: no frame could be chosen`);
    }
    if (o.searchBudget !== undefined && o.searchBudget !== null && !(Number.isFinite(o.searchBudget) && o.searchBudget > 0)) {
      throw new RangeError(`search budget: a number of searches per agent-second > 0, or null for none; got ${o.searchBudget}`);
    }
    const u = o.unseenStepEvery;
    checkUnseenStepEvery(u);
    await this.exclusive(async () => {
      if (o.footIK !== undefined) this.footIK = o.footIK;
      if (o.inertialization !== undefined) this.inertialization = o.inertialization;
      if (o.lod !== undefined) this.lod = o.lod;
      if (o.searchBudget !== undefined) this.searchBudget = o.searchBudget;
      if (u !== undefined) this.unseenStepEvery = u;
      if (tags !== undefined) { this.searchTags = tags; if (this.world) this.noteMissingTags(this.world.db); }
      await this.world?.engine.setOptions({ footIK: this.footIK, inertialization: this.inertialization, overlay: this.overlay.crowdSettings(this.world?.db), lod: this.lod, searchBudget: this.searchBudget, unseenStepEvery: this.unseenStepEvery, tags: this.searchTags });
    });
  }

  /** true: draw everything; false: the player only; 'none': no WebGL drawing at all. */
  private setRendering(on: boolean | 'none'): void {
    this.drawCrowd = on === true;
    this.drawScene = on !== 'none';
  }

  private async resetPlayer(): Promise<void> {
    await this.exclusive(() => {
      const w = this.world;
      if (!w) return;
      let f = 0;
      while (f < w.db.frameCount && !w.db.candidates[f]) f++;
      w.engine.player.reset(Math.min(f, w.db.frameCount - 1), 0, 0, 0);
      this.view.rig.yaw = 0;
      this.quality.reset();
    });
  }

  /** Loads dropped files; the running scene stays as it is unless everything worked. */
  private loadFiles(files: File[]): Promise<Outcome> {
    if (files.some((f) => isCharacterFile(f.name))) {
      if (files.length === 1) return this.characterSlot.loadFile(files[0]);
      return Promise.resolve(this.characterSlot.fail('drop one character file (.glb, .gltf or .vrm) at a time, without database files'));
    }
    return this.loadWith(() => this.loader.files(files, this.ui.mirrorDropped, (f, label) => this.ui.setProgress(f, label)));
  }

  private loadBuiltin(): Promise<Outcome> {
    return this.loadWith(() => this.loader.builtin((f, label) => this.ui.setProgress(f, label)));
  }

  private async loadWith(load: () => Promise<LoadedDatabase>): Promise<Outcome> {
    this.ui.setProgress(0, 'reading…');
    try {
      const loaded = await load();
      this.ui.setProgress(1, 'starting the crowd…');
      await this.exclusive(() => this.install(loaded));
      const message = `loaded ${loaded.name}: ${describeDatabase(loaded.db)} (${loaded.ms.toFixed(0)} ms)` + (loaded.notes ?? []).map((n) => `\n${n}`).join('');
      this.ui.message(message, 'info');
      return { ok: true, message };
    } catch (e) {
      const message = `could not load: ${(e as Error).message}`;
      this.error = message;
      this.ui.message(`${message}\nThe scene keeps running with ${this.world?.name ?? 'the previous database'}.`, 'error');
      return { ok: false, message };
    } finally {
      this.ui.setProgress(null);
    }
  }

  private fail(message: string): void {
    this.error = message;
    this.ui.message(message, 'error');
    this.ui.status.textContent = 'stopped';
  }

  // ---------------------------------------------------------------------------------------------
  // Automation handle

  private handle(): MotionmatchHandle {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const app = this;
    const s = this.stats;
    const player = playerReader(() => app.world?.engine.player ?? null);
    const stats = statsReader(s, {
      engine: () => app.world?.engine ?? null,
      config: () => app.config,
      drawnAgents: () => app.world?.crowdMesh.drawn ?? 0,
      softwareWebGL: () => app.view.software,
    });
    return {
      get ready() { return app.ready; },
      get error() { return app.error; },
      get agents() { return app.world?.engine.agentCount ?? 0; },
      databaseChecksums: () => (app.world ? databaseChecksums(app.world.db) : null),
      get database() {
        const w = app.world;
        return { name: w?.name ?? '', frames: w?.db.frameCount ?? 0, clips: w?.db.clips.length ?? 0 };
      },
      player,
      stats,
      coverage: this.coverage.handle(),
      quality: this.quality.handle(),
      overlay: this.overlay.handle(),
      whenReady: () => (app.ready ? Promise.resolve() : new Promise<void>((r) => app.readyWaiters.push(r))),
      setAgents: (n: number) => app.setAgents(n),
      setMode: (m: EngineMode) => app.reconfigure({ mode: m }),
      setBackend: (b: Backend) => app.reconfigure({ backend: b }),
      setMethod: (m: SearchMethod) => app.setMethod(m),
      setThreads: (n: number) => app.reconfigure({ threads: n }),
      setWorkerPolicy: (p: WorkerPolicy) => app.reconfigure({ policy: p }),
      setFootIK: (on: boolean) => app.setCrowdOptions({ footIK: on }),
      setInertialization: (on: boolean) => app.setCrowdOptions({ inertialization: on }),
      get lod() { return app.lod; },
      setLod: (on: boolean) => app.setCrowdOptions({ lod: on }),
      get searchBudget() { return app.searchBudget; },
      setSearchBudget: (rate: number | null) => app.setCrowdOptions({ searchBudget: rate }),
      get searchTags() {
        const input = app.world?.engine.playerInput;
        return { require: input?.requireTags ? [...input.requireTags] : [], exclude: input?.excludeTags ? [...input.excludeTags] : [] };
      },
      setSearchTags: (tags: { require?: string[]; exclude?: string[] } | null) => app.setCrowdOptions({ tags: tags === null ? null : { require: tags.require ?? [], exclude: tags.exclude ?? [] } }),
      get unseenStepEvery() { return app.unseenStepEvery; },
      setUnseenStepEvery: (n: number) => app.setCrowdOptions({ unseenStepEvery: n }),
      setCameraTurn: (radiansPerSecond: number) => {
        if (!Number.isFinite(radiansPerSecond)) throw new RangeError(`camera turn: a finite rate in rad/s, got ${radiansPerSecond}`);
        app.cameraTurn = radiansPerSecond;
      },
      character: this.characterSlot.handle(() => app.world?.engine.player ?? null),
      get terrain() { return app.terrain; },
      setTerrain: (choice: TerrainChoice) => app.setTerrain(choice),
      setRendering: (on: boolean | 'none') => app.setRendering(on),
      setRenderScale: (scale: number) => app.view.setRenderScale(scale),
      loadFiles: (files: File[]) => app.loadFiles(files),
      loadBuiltin: () => app.loadBuiltin(),
      resetPlayer: () => app.resetPlayer(),
      resetStats: () => s.reset(),
      setFixedStep: (seconds: number | null) => {
        if (seconds !== null && !(Number.isFinite(seconds) && seconds > 0 && seconds <= MAX_DT)) throw new RangeError(`fixed step must be in (0, ${MAX_DT}] seconds or null`);
        app.fixedStep = seconds;
      },
    };
  }
}
