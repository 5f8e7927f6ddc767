/**
 * The demo's coverage panel: a polar map of a coverage report (src/tools/coverage/) — loaded from
 * a file `motionmatch coverage` wrote (its JSON, or the HTML page with the JSON inside) or computed
 * here for the running database on a small grid — with the player's current request as a dot on
 * it: its speed picks the band, the direction of travel relative to the facing asked for and the
 * turn rate place it. The panel shows the cell under the dot (covered / thin / uncovered and why).
 *
 * It builds its own DOM and styles (index.html only holds the button that opens it) and extends
 * the automation handle with `window.motionmatch.coverage` for tests.
 */
import type { Database } from '../../src/database/database.js';
import type { ControllerInput, MotionMatchingController } from '../../src/runtime/controller/controller.js';
import { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { Matcher } from '../../src/search/matcher.js';
import { quatYaw } from '../../src/math/quat.js';
import { CoverageComputation, type CoverageCellResult, type CoverageReport } from '../../src/tools/coverage/coverage.js';
import { databaseTopSpeed, describeCell, evenSpeeds, wrapDegrees } from '../../src/tools/coverage/grid.js';
import { COVERAGE_MEASURES, coverageMeasure, type CoverageMeasure } from '../../src/tools/coverage/measures.js';
import { parseCoverageReport } from '../../src/tools/coverage/html.js';
import { formatMeasure, polarLayout, polarMapSvg, polarPoint } from '../../src/tools/coverage/svg.js';

/** What the panel reads from the running page. */
export interface CoverageHost {
  /** The running database and its name (null before the first one is installed). */
  database(): { db: Database; name: string } | null;
  /** The player's controller and this frame's input. */
  player(): { controller: MotionMatchingController; input: ControllerInput } | null;
}

/** The small grid computed in the page: a few seconds at most on the real databases. */
export const PAGE_COVERAGE_DEFAULTS = { speedBands: 3, directions: 8, turnRates: [0, 90], warmupSeconds: 1, measureSeconds: 1.5 } as const;

export interface PlayerRequest {
  /** m/s, degrees (relative to the facing asked for; +90 = left), degrees per second (> 0 turns left). */
  speed: number;
  direction: number;
  turnRate: number;
  /** The report's speed band the map shows for it, the cell nearest to the request in it, and the dot's place on the map (SVG units). */
  band: number;
  cell: number;
  verdict: CoverageCellResult['verdict'];
  x: number;
  y: number;
}

export interface CoverageHandle {
  /** The report on the panel (null before one was loaded or computed). */
  readonly report: { name: string; source: 'computed' | 'loaded'; cells: number; summary: CoverageReport['summary']; requests: string[]; speeds: number[] } | null;
  readonly visible: boolean;
  show(on: boolean): void;
  /** Computes a small report for the running database (PAGE_COVERAGE_DEFAULTS unless given). */
  compute(options?: { speedBands?: number; directions?: number; turnRates?: number[]; measureSeconds?: number }): Promise<{ ok: boolean; message: string }>;
  /** Loads a report from the text of a file `motionmatch coverage` wrote (JSON or HTML). */
  load(text: string, name?: string): Promise<{ ok: boolean; message: string }>;
  /** The player's request on the map (null without a report or a player). */
  readonly player: PlayerRequest | null;
  /** The band shown: a speed of the report, or 'follow' (the band nearest to the player's speed). */
  setBand(speed: number | 'follow'): void;
  setMeasure(key: CoverageMeasure['key']): void;
}

declare module './handle.js' {
  interface MotionmatchHandle {
    /** The coverage panel (web/src/coverage-panel.ts). */
    readonly coverage: CoverageHandle;
  }
}

const STYLE = `
.mm-coverage { position: fixed; top: 8px; right: 286px; width: 250px; max-height: calc(100% - 80px); overflow-y: auto; background: rgba(16, 19, 24, 0.86); border-radius: 6px; padding: 6px 8px; box-sizing: border-box; z-index: 4; }
.mm-coverage header { display: flex; justify-content: space-between; align-items: center; font-weight: 600; }
.mm-coverage header button { margin: 0; }
.mm-coverage select { background: #242a33; color: #e6e8eb; border: 1px solid #3a424d; border-radius: 3px; max-width: 100%; }
.mm-coverage .mm-cov-row { display: flex; gap: 4px; margin-top: 4px; align-items: center; flex-wrap: wrap; }
.mm-coverage .mm-cov-map { display: flex; justify-content: center; min-height: 40px; }
.mm-coverage .mm-cov-map svg { display: block; }
.mm-coverage .mm-cov-text { font-size: 11px; color: #9aa3ad; white-space: pre-wrap; }
.mm-coverage .mm-cov-cell { font-size: 11px; white-space: pre-wrap; }
.mm-coverage .uncovered { color: #ff6b6b; } .mm-coverage .thin { color: #ffb347; } .mm-coverage .covered { color: #7bd88f; }
.mm-coverage label.mm-cov-file { cursor: pointer; border: 1px solid #3a424d; border-radius: 3px; padding: 1px 6px; background: #242a33; margin-top: 4px; }
.mm-coverage label.mm-cov-file input { display: none; }
`;

const SVG_NS = 'http://www.w3.org/2000/svg';
const MAP_SIZE = 232;
const DEG = 180 / Math.PI;

function make<K extends keyof HTMLElementTagNameMap>(tag: K, className = '', text = ''): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text) e.textContent = text;
  return e;
}

/** Gives the browser a frame between chunks of work. */
function nextTask(): Promise<void> {
  return new Promise((r) => setTimeout(r, 0));
}

export class CoveragePanel {
  private readonly root = make('div', 'mm-coverage hidden');
  private readonly bandSelect = make('select');
  private readonly measureSelect = make('select');
  private readonly map = make('div', 'mm-cov-map');
  private readonly cellText = make('div', 'mm-cov-cell');
  private readonly status = make('div', 'mm-cov-text', 'No report yet: compute one for this database, or load one `motionmatch coverage` wrote.');
  private readonly computeButton = make('button', '', 'compute for this database');
  private report: CoverageReport | null = null;
  private reportSource: 'computed' | 'loaded' = 'computed';
  private reportName = '';
  private band: number | 'follow' = 'follow';
  private measure: CoverageMeasure['key'] = 'bestCost';
  private shownBand = Number.NaN;
  private shownMeasure = '';
  private dot: SVGCircleElement | null = null;
  private computing = false;

  constructor(private readonly host: CoverageHost, openButton: HTMLElement | null) {
    const style = document.createElement('style');
    style.textContent = STYLE;
    document.head.appendChild(style);
    const header = make('header');
    header.append(make('span', '', 'coverage'));
    const close = make('button', '', '×');
    close.title = 'close';
    close.addEventListener('click', () => this.show(false));
    header.append(close);
    for (const m of COVERAGE_MEASURES) this.measureSelect.append(new Option(m.label, m.key));
    this.bandSelect.addEventListener('change', () => { this.band = this.bandSelect.value === 'follow' ? 'follow' : Number(this.bandSelect.value); this.update(); });
    this.measureSelect.addEventListener('change', () => { this.measure = this.measureSelect.value as CoverageMeasure['key']; this.update(); });
    const controls = make('div', 'mm-cov-row');
    controls.append(this.bandSelect, this.measureSelect);
    const file = make('label', 'mm-cov-file', 'load report…');
    const input = make('input');
    input.type = 'file';
    input.accept = '.json,.html,.htm';
    input.addEventListener('change', () => {
      const f = input.files?.[0];
      input.value = '';
      if (f) void f.text().then((text) => this.load(text, f.name));
    });
    file.append(input);
    this.computeButton.addEventListener('click', () => void this.compute());
    const buttons = make('div', 'mm-cov-row');
    buttons.append(this.computeButton, file);
    this.root.append(header, controls, this.map, this.cellText, this.status, buttons);
    document.body.appendChild(this.root);
    openButton?.addEventListener('click', () => this.show(this.root.classList.contains('hidden')));
    this.fillBands();
  }

  get visible(): boolean {
    return !this.root.classList.contains('hidden');
  }

  show(on: boolean): void {
    this.root.classList.toggle('hidden', !on);
    if (on) this.update();
  }

  /** Computes a small report for the running database, a few cells per task so the page keeps drawing. */
  async compute(o: { speedBands?: number; directions?: number; turnRates?: number[]; measureSeconds?: number } = {}): Promise<{ ok: boolean; message: string }> {
    const current = this.host.database();
    if (!current) return this.fail('no database is running yet');
    if (this.computing) return this.fail('a report is being computed already');
    this.computing = true;
    this.computeButton.disabled = true;
    try {
      const { db, name } = current;
      const t0 = performance.now();
      // The JavaScript backend: no kernel build to fetch, and a small report needs few searches.
      const matcher = await Matcher.create(db, { backend: 'js' });
      const speeds = evenSpeeds(databaseTopSpeed(db), o.speedBands ?? PAGE_COVERAGE_DEFAULTS.speedBands);
      // The runs use the player's own controller options: the map shows what the page runs.
      const controller = this.host.player()?.controller.options;
      const c = new CoverageComputation(db, new MatcherSearchPort(matcher), {
        controller,
        speeds: speeds.length ? speeds : [1],
        directions: o.directions ?? PAGE_COVERAGE_DEFAULTS.directions,
        turnRates: o.turnRates ?? [...PAGE_COVERAGE_DEFAULTS.turnRates],
        run: { warmupSeconds: PAGE_COVERAGE_DEFAULTS.warmupSeconds, measureSeconds: o.measureSeconds ?? PAGE_COVERAGE_DEFAULTS.measureSeconds },
        name,
      });
      let sliceStart = performance.now();
      while (!c.done) {
        c.step();
        if (performance.now() - sliceStart > 40) {
          this.status.textContent = `computing: ${c.cells.length} of ${c.cellCount} requests…`;
          await nextTask();
          sliceStart = performance.now();
          if (this.host.database()?.db !== db) return this.fail('the database changed while the report was computed: compute again');
        }
      }
      this.setReport(c.report(), 'computed', name);
      return { ok: true, message: `computed ${c.cellCount} requests for ${name} in ${((performance.now() - t0) / 1000).toFixed(1)} s` };
    } catch (e) {
      return this.fail(`could not compute: ${(e as Error).message}`);
    } finally {
      this.computing = false;
      this.computeButton.disabled = false;
    }
  }

  async load(text: string, name = 'coverage report'): Promise<{ ok: boolean; message: string }> {
    try {
      const report = parseCoverageReport(text, name);
      this.setReport(report, 'loaded', name);
      const running = this.host.database()?.db;
      const note = running && running.frameCount !== report.database.frames ? ` (made for ${report.database.name}, ${report.database.frames} frames; the page runs another database)` : '';
      return { ok: true, message: `loaded ${name}: ${report.cells.length} requests${note}` };
    } catch (e) {
      return this.fail((e as Error).message);
    }
  }

  private fail(message: string): { ok: false; message: string } {
    this.status.textContent = message;
    return { ok: false, message };
  }

  private setReport(report: CoverageReport, source: 'computed' | 'loaded', name: string): void {
    this.report = report;
    this.reportSource = source;
    this.reportName = name;
    this.shownBand = Number.NaN;
    this.fillBands();
    const s = report.summary;
    const worst = report.requests[0];
    this.status.textContent = `${source === 'computed' ? 'computed for' : 'loaded:'} ${name} — ${s.covered} covered, ${s.thin} thin, ${s.uncovered} uncovered`
      + (worst ? `\nworst: ${worst.text.split(' — ')[0]}` : '');
    this.update();
  }

  private fillBands(): void {
    const speeds = this.report?.grid.speeds ?? [];
    this.bandSelect.replaceChildren(new Option('band: follow my speed', 'follow'), ...speeds.map((s) => new Option(s === 0 ? 'band: standing' : `band: ${s.toFixed(1)} m/s`, String(s))));
    this.bandSelect.value = this.band === 'follow' || !speeds.includes(this.band) ? 'follow' : String(this.band);
    if (this.bandSelect.value === 'follow') this.band = 'follow';
  }

  /** The player's request in the report's terms, or null. */
  playerRequest(): PlayerRequest | null {
    const r = this.report, p = this.host.player();
    if (!r || !p) return null;
    const { controller: c, input } = p;
    const speed = Math.hypot(input.velocityX, input.velocityZ);
    const travel = Math.atan2(input.velocityX, input.velocityZ);
    // The facing asked for: explicit, else the direction of travel (else where the character faces).
    const facing = !Number.isNaN(input.facing) ? input.facing : speed > 0.1 ? travel : quatYaw(c.rootRotation, 0);
    const direction = speed > 0.1 ? wrapDegrees((travel - facing) * DEG) : 0;
    // Turning: the simulated facing's rate of turn (rad/s about +Y; > 0 turns left).
    const turnRate = c.simAngularVelocity[1] * DEG;
    const speeds = r.grid.speeds;
    const band = this.band === 'follow' ? speeds.reduce((a, b) => (Math.abs(b - speed) < Math.abs(a - speed) ? b : a), speeds[0]) : this.band;
    const layout = polarLayout(r, MAP_SIZE);
    const { x, y } = polarPoint(layout, direction, turnRate);
    let best: CoverageCellResult | null = null, bestD = Infinity;
    for (const cell of r.cells) {
      if (cell.speed !== band) continue;
      const dd = band === 0 ? 0 : Math.abs(wrapDegrees(cell.direction - direction)) / 180;
      const dt = Math.abs(cell.turnRate - turnRate) / 180;
      if (dd + dt < bestD) { best = cell; bestD = dd + dt; }
    }
    return { speed, direction, turnRate, band, cell: best?.index ?? -1, verdict: best?.verdict ?? 'uncovered', x, y };
  }

  /** Redraws the map when the band or measure changed, and moves the player's dot (every few frames). */
  update(): void {
    if (!this.visible) return;
    const r = this.report;
    if (!r) { this.map.replaceChildren(); this.cellText.textContent = ''; return; }
    const req = this.playerRequest();
    const band = req?.band ?? (this.band === 'follow' ? r.grid.speeds[0] : this.band);
    const m = coverageMeasure(this.measure);
    if (band !== this.shownBand || this.measure !== this.shownMeasure || !this.dot) {
      this.map.innerHTML = polarMapSvg(r, band, m, { size: MAP_SIZE, title: `${m.label} at ${band === 0 ? 'standing' : `${band.toFixed(1)} m/s`}` });
      this.shownBand = band;
      this.shownMeasure = this.measure;
      const svg = this.map.querySelector('svg');
      this.dot = document.createElementNS(SVG_NS, 'circle');
      this.dot.setAttribute('r', '5');
      this.dot.setAttribute('fill', '#ffffff');
      this.dot.setAttribute('stroke', '#101318');
      this.dot.setAttribute('stroke-width', '2');
      this.dot.setAttribute('class', 'mm-cov-player');
      svg?.appendChild(this.dot);
    }
    if (!req) { this.dot.setAttribute('visibility', 'hidden'); this.cellText.textContent = ''; return; }
    this.dot.setAttribute('visibility', 'visible');
    this.dot.setAttribute('cx', req.x.toFixed(1));
    this.dot.setAttribute('cy', req.y.toFixed(1));
    const cell = r.cells[req.cell];
    const you = describeCell({ speed: Math.round(req.speed * 10) / 10, direction: Math.round(req.direction), turnRate: Math.round(req.turnRate) });
    this.cellText.replaceChildren(make('span', '', `you: ${you}\nnearest cell: ${cell ? describeCell(cell) : '–'} `), make('span', cell?.verdict ?? '', cell ? cell.verdict : ''),
      make('span', '', cell ? `\n${formatMeasure(m, cell)}` : ''));
  }

  handle(): CoverageHandle {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const panel = this;
    return {
      get report() {
        const r = panel.report;
        return r ? { name: panel.reportName, source: panel.reportSource, cells: r.cells.length, summary: { ...r.summary }, requests: r.requests.map((q) => q.text), speeds: [...r.grid.speeds] } : null;
      },
      get visible() { return panel.visible; },
      show: (on: boolean) => panel.show(on),
      compute: (options) => panel.compute(options),
      load: (text: string, name?: string) => panel.load(text, name),
      get player() { return panel.playerRequest(); },
      setBand: (speed) => {
        if (speed !== 'follow' && !(panel.report?.grid.speeds.includes(speed))) throw new RangeError(`no band at ${String(speed)} m/s in the report`);
        panel.band = speed;
        panel.fillBands();
        panel.update();
      },
      setMeasure: (key) => {
        coverageMeasure(key);
        panel.measure = key;
        panel.measureSelect.value = key;
        panel.update();
      },
    };
  }
}
