/**
 * The DOM overlay: read-outs, the agents slider, backend / method / threads choices, toggles,
 * database info with drag-and-drop, progress, and a banner for messages. It only shows state and
 * reports what the user asked for; the App decides.
 */
import type { Backend, SearchMethod } from '../../src/search/matcher.js';
import type { WorkerPolicy } from './search-backend.js';
import type { EngineMode } from './engines.js';
import type { TerrainChoice } from './terrain.js';

export interface UiHandlers {
  agents(n: number): void;
  mode(m: EngineMode): void;
  backend(b: Backend): void;
  method(m: SearchMethod): void;
  threads(n: number): void;
  policy(p: WorkerPolicy): void;
  footIK(on: boolean): void;
  inertialization(on: boolean): void;
  trajectories(on: boolean): void;
  feet(on: boolean): void;
  charts(on: boolean): void;
  drawCrowd(on: boolean): void;
  files(files: File[]): void;
  builtin(): void;
  terrain(choice: TerrainChoice): void;
  /** A character file chosen with the file input. */
  character(file: File): void;
  /** Back to the box figures. */
  clearCharacter(): void;
}

/** What the character section shows (web/src/character.ts). */
export interface CharacterInfo {
  name: string;
  legRatio: number;
  boneMap: ReadonlyArray<{ role: string; target: string; source: string; how: string }>;
  clones: number;
}

function el<T extends HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`index.html has no #${id}`);
  return e as T;
}

/** The page's figures (medians of the last 60 frames; FrameStats.readouts). */
export interface Readouts { fps: number; frameMs: number; updateMs: number; searchMs: number; queryUs: number; searches: number; workerShare: number; threads: number; mode: EngineMode; renderMs: number; agents: number; drawn: number; software: boolean }

export class Ui {
  private readonly ro = {
    fps: el('ro-fps'), frame: el('ro-frame'), update: el('ro-update'), search: el('ro-search'),
    query: el('ro-query'), searches: el('ro-searches'), render: el('ro-render'),
  };
  readonly status = el('status');
  private readonly isolation = el('isolation');
  private readonly banner = el('banner');
  private readonly agents = el<HTMLInputElement>('agents');
  private readonly agentsOut = el<HTMLOutputElement>('agents-out');
  private readonly mode = el<HTMLSelectElement>('mode');
  private readonly backend = el<HTMLSelectElement>('backend');
  private readonly method = el<HTMLSelectElement>('method');
  private readonly threads = el<HTMLSelectElement>('threads');
  private readonly policy = el<HTMLSelectElement>('policy');
  private readonly mirror = el<HTMLInputElement>('t-mirror');
  private readonly terrain = el<HTMLSelectElement>('terrain');
  private readonly dbName = el('db-name');
  private readonly dbInfo = el('db-info');
  private readonly progress = el('progress');
  private readonly progressBar = el('progress-bar');
  private readonly progressLabel = el('progress-label');
  private readonly panel = el('panel');
  private readonly debug = el('debug');
  private readonly timeline = el('timeline-wrap');
  private bannerTimer = 0;
  private readonly charName = el('char-name');
  private readonly charInfo = el('char-info');
  private readonly charError = el('char-error');
  private readonly charClear = el('char-clear');
  private readonly charMapWrap = el('char-map-wrap');
  private readonly charMap = el<HTMLTableElement>('char-map');
  private readonly charRatio = el('char-ratio');
  readonly clipInfo = el('clip-info');
  readonly costCanvas = el<HTMLCanvasElement>('cost-chart');
  readonly histCanvas = el<HTMLCanvasElement>('search-hist');
  readonly timelineCanvas = el<HTMLCanvasElement>('timeline');
  readonly timelineHover = el('timeline-hover');
  chartsVisible = true;

  constructor(private readonly h: UiHandlers) {
    const canvas = el<HTMLCanvasElement>('viewport');
    // Give the keyboard back to the scene after using a control.
    const refocus = (e: Event): void => {
      (e.target as HTMLElement).blur();
      canvas.focus();
    };
    this.agents.addEventListener('input', () => { this.agentsOut.value = this.agents.value; });
    this.agents.addEventListener('change', (e) => { h.agents(Number(this.agents.value)); refocus(e); });
    this.mode.addEventListener('change', (e) => { h.mode(this.mode.value as EngineMode); refocus(e); });
    this.backend.addEventListener('change', (e) => { h.backend(this.backend.value as Backend); refocus(e); });
    this.method.addEventListener('change', (e) => { h.method(this.method.value as SearchMethod); refocus(e); });
    this.threads.addEventListener('change', (e) => { h.threads(Number(this.threads.value)); refocus(e); });
    this.policy.addEventListener('change', (e) => { h.policy(this.policy.value as WorkerPolicy); refocus(e); });
    const toggle = (id: string, fn: (on: boolean) => void): void => {
      const box = el<HTMLInputElement>(id);
      box.addEventListener('change', (e) => { fn(box.checked); refocus(e); });
    };
    toggle('t-ik', h.footIK);
    toggle('t-inert', h.inertialization);
    toggle('t-traj', h.trajectories);
    toggle('t-feet', h.feet);
    toggle('t-charts', (on) => { this.chartsVisible = on; this.debug.classList.toggle('hidden', !on); this.timeline.classList.toggle('hidden', !on); h.charts(on); });
    toggle('t-render', h.drawCrowd);
    el('builtin-btn').addEventListener('click', (e) => { h.builtin(); refocus(e); });
    this.terrain.addEventListener('change', (e) => { h.terrain(this.terrain.value as TerrainChoice); refocus(e); });
    this.banner.addEventListener('click', () => this.banner.classList.add('hidden'));
    const charInput = el<HTMLInputElement>('char-input');
    el('char-btn').addEventListener('click', (e) => { charInput.click(); refocus(e); });
    charInput.addEventListener('change', () => {
      const file = charInput.files?.[0];
      charInput.value = '';
      canvas.focus();
      if (file) h.character(file);
    });
    this.charClear.addEventListener('click', (e) => { h.clearCharacter(); refocus(e); });
    this.attachDrop();
  }

  get mirrorDropped(): boolean {
    return this.mirror.checked;
  }

  togglePanel(): void {
    this.panel.classList.toggle('hidden');
  }

  showIsolation(text: string, ok: boolean): void {
    this.isolation.textContent = text;
    this.isolation.className = `isolation ${ok ? 'ok' : 'warn'}`;
  }

  /** Reflects the engine's actual settings in the controls. */
  setControls(s: { agents: number; mode: EngineMode; backend: Backend; method: SearchMethod; threads: number; maxThreads: number; policy: WorkerPolicy }): void {
    this.agents.value = String(s.agents);
    this.agentsOut.value = String(s.agents);
    this.mode.value = s.mode;
    this.mode.disabled = s.maxThreads < 2;
    this.backend.value = s.backend;
    this.method.value = s.method;
    for (const opt of Array.from(this.threads.options)) opt.disabled = Number(opt.value) > s.maxThreads;
    this.threads.value = String(Math.min(4, s.threads));
    this.policy.value = s.policy;
    this.policy.disabled = s.threads < 2 || s.mode === 'split';
  }

  /** Reflects the ground the crowd walks on. */
  showTerrain(choice: TerrainChoice): void {
    this.terrain.value = choice;
  }

  setDatabase(name: string, info: string): void {
    this.dbName.textContent = name;
    this.dbName.title = name;
    this.dbInfo.textContent = info;
  }

  /** The character section: what is drawn (null: the box figures) and the bone map. */
  setCharacter(info: CharacterInfo | null): void {
    this.charName.textContent = info ? info.name : 'box figures';
    this.charName.title = info ? info.name : '';
    this.charClear.classList.toggle('hidden', !info);
    this.charMapWrap.classList.toggle('hidden', !info);
    this.charInfo.textContent = info
      ? `the player and the nearest ${info.clones} agents in view; leg ratio ${info.legRatio.toFixed(3)} (strides that much longer than the capture)`
      : 'Drop a skinned .glb, .gltf or .vrm character anywhere on the page to walk it.';
    const body = this.charMap.tBodies[0];
    body.replaceChildren();
    if (!info) return;
    this.charRatio.textContent = `(${info.boneMap.length} bones, leg ratio ${info.legRatio.toFixed(3)})`;
    for (const b of info.boneMap) {
      const tr = document.createElement('tr');
      for (const [text, cls] of [[b.role, ''], [b.target, ''], [b.source, ''], [b.how, `how-${b.how}`]]) {
        const td = document.createElement('td');
        td.textContent = text;
        td.title = text;
        if (cls) td.className = cls;
        tr.append(td);
      }
      body.append(tr);
    }
  }

  /** The character's last error, one line (null: none). */
  setCharacterError(message: string | null): void {
    this.charError.textContent = message ?? '';
    this.charError.classList.toggle('hidden', message === null);
  }

  setProgress(fraction: number | null, label = ''): void {
    this.progress.classList.toggle('hidden', fraction === null);
    if (fraction === null) return;
    this.progressBar.style.width = `${Math.round(100 * Math.min(1, Math.max(0, fraction)))}%`;
    this.progressLabel.textContent = label;
  }

  /** A message at the top of the page; errors stay until clicked, info fades after a few seconds. */
  message(text: string, kind: 'error' | 'info' = 'info'): void {
    this.banner.textContent = text;
    this.banner.className = `banner ${kind}`;
    window.clearTimeout(this.bannerTimer);
    if (kind === 'info') this.bannerTimer = window.setTimeout(() => this.banner.classList.add('hidden'), 4000);
  }

  readouts(r: Readouts): void {
    const ms = (v: number): string => (Number.isFinite(v) ? `${v.toFixed(2)} ms` : '–');
    this.ro.fps.textContent = Number.isFinite(r.fps) ? r.fps.toFixed(0) : '–';
    this.ro.frame.textContent = ms(r.frameMs);
    this.ro.update.textContent = `${ms(r.updateMs)} · ${r.agents + 1} chars`;
    this.ro.search.textContent = ms(r.searchMs);
    this.ro.query.textContent = Number.isFinite(r.queryUs) ? `${r.queryUs.toFixed(1)} µs` : '–';
    this.ro.searches.textContent = Number.isFinite(r.searches)
      ? `${r.searches.toFixed(0)}${r.threads > 1 && r.mode === 'batched' ? ` · ${(100 * r.workerShare).toFixed(0)}% on workers` : ''}`
      : '–';
    this.ro.render.textContent = `${ms(r.renderMs)} · ${r.drawn === r.agents ? 'all' : r.drawn} drawn`;
    this.ro.render.title = r.software
      ? 'software WebGL (no GPU): only the nearest characters in view are drawn'
      : 'characters outside the view are not drawn';
  }

  private attachDrop(): void {
    const drop = el('drop');
    let depth = 0;
    const hasFiles = (e: DragEvent): boolean => Array.from(e.dataTransfer?.types ?? []).includes('Files');
    window.addEventListener('dragenter', (e) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth++;
      drop.classList.remove('hidden');
    });
    window.addEventListener('dragover', (e) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    });
    window.addEventListener('dragleave', () => {
      depth = Math.max(0, depth - 1);
      if (depth === 0) drop.classList.add('hidden');
    });
    window.addEventListener('drop', (e) => {
      e.preventDefault();
      depth = 0;
      drop.classList.add('hidden');
      const files = Array.from(e.dataTransfer?.files ?? []);
      if (files.length) this.h.files(files);
    });
  }
}
