/**
 * The demo's quality panel: what `motionmatch quality` measures (src/tools/quality/columns.ts),
 * measured live on the player from the joint positions the page draws — foot skate, feet below the
 * ground, hips height, hover while standing, pops, stops, facing — beside the same figures for the
 * database played plainly (the data's own level, measured here a few clips per task) and the
 * target, met in green and missed in red. The player's figures run from the last reset (the button,
 * R, or a new database); the data's level is at 60 steps per second, and the page's own rate is
 * shown, since pops grow with the step.
 *
 * It builds its own DOM and styles (index.html only holds the button that opens it) and extends
 * the automation handle with `window.motionmatch.quality` for tests.
 */
import type { Database } from '../../src/database/database.js';
import type { ControllerInput, MotionMatchingController } from '../../src/runtime/controller/controller.js';
import { QualityMeter, QualityStats, type QualityReport } from '../../src/runtime/quality/meter.js';
import { playbackStats } from '../../src/runtime/quality/playback-quality.js';
import { QUALITY_COLUMNS, columnDataValue, columnValue, columnVerdict, formatColumnValue, type QualityColumn } from '../../src/tools/quality/columns.js';
import { dataLevelOf } from '../../src/tools/quality/data-level.js';
import { targetText, type DataLevel } from '../../src/tools/quality/targets.js';

/** What the panel reads from the running page. */
export interface QualityHost {
  database(): Database | null;
  /** The player's controller and the input of the step just taken. */
  player(): { controller: MotionMatchingController; input: ControllerInput } | null;
}

/** The rate of the data's own level (the quality command's default). */
export const PANEL_DATA_HZ = 60;

/** The measures shown: the output measures and the controller's bookkeeping (the label diagnostics stay in the command). */
const PANEL_COLUMNS: readonly QualityColumn[] = QUALITY_COLUMNS.filter((c) => !c.diagnostic && c.key !== 'searchesPerSec');

export interface QualityPanelHandle {
  readonly visible: boolean;
  show(on: boolean): void;
  /** Starts the player's figures over. */
  reset(): void;
  /** Resolves when the data's own level of the running database is measured. */
  dataReady(): Promise<void>;
  /** The player's figures since the last reset, the data's own (null until measured) and the verdicts, by QualityReport field. */
  readonly figures: {
    seconds: number;
    stepsPerSecond: number;
    player: Record<string, number>;
    data: Record<string, number> | null;
    meets: Record<string, boolean>;
  };
}

declare module './handle.js' {
  interface MotionmatchHandle {
    /** The quality panel (web/src/quality-panel.ts). */
    readonly quality: QualityPanelHandle;
  }
}

const STYLE = `
.mm-quality { position: fixed; bottom: 8px; right: 286px; width: 380px; max-height: calc(100% - 80px); overflow-y: auto; background: rgba(16, 19, 24, 0.88); border-radius: 6px; padding: 6px 8px; box-sizing: border-box; z-index: 4; font-size: 11px; }
.mm-quality header { display: flex; justify-content: space-between; align-items: center; font-weight: 600; font-size: 12px; }
.mm-quality header button, .mm-quality .mm-q-row button { margin: 0; }
.mm-quality table { border-collapse: collapse; width: 100%; margin-top: 4px; }
.mm-quality td, .mm-quality th { padding: 1px 3px; text-align: right; white-space: nowrap; }
.mm-quality td:first-child, .mm-quality th:first-child { text-align: left; white-space: normal; }
.mm-quality th { color: #9aa3ad; font-weight: 500; }
.mm-quality .met { color: #7bd88f; } .mm-quality .missed { color: #ff6b6b; }
.mm-quality .mm-q-text { color: #9aa3ad; white-space: pre-wrap; margin-top: 4px; }
.mm-quality .mm-q-row { display: flex; gap: 6px; margin-top: 4px; align-items: center; }
`;

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

function figuresOf(report: QualityReport): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of PANEL_COLUMNS) out[c.key] = columnValue(c, report);
  return out;
}

export class QualityPanel {
  private readonly root = make('div', 'mm-quality hidden');
  private readonly body = make('tbody');
  private readonly status = make('div', 'mm-q-text');
  private stats = new QualityStats();
  private meter: QualityMeter | null = null;
  private bound: MotionMatchingController | null = null;
  private data: DataLevel | null = null;
  private dataDb: Database | null = null;
  private dataJob: Promise<void> | null = null;
  private readonly cells: Array<{ value: HTMLTableCellElement; data: HTMLTableCellElement }> = [];
  /** Steps and seconds observed since the reset (the page's own rate). */
  private steps = 0;
  private seconds = 0;

  constructor(private readonly host: QualityHost, openButton: HTMLElement | null) {
    const style = document.createElement('style');
    style.textContent = STYLE;
    document.head.appendChild(style);
    const header = make('header');
    header.append(make('span', '', 'quality (player)'));
    const close = make('button', '', '×');
    close.title = 'close';
    close.addEventListener('click', () => this.show(false));
    header.append(close);
    const table = make('table');
    const head = make('tr');
    for (const h of ['measure', 'you', 'data', 'target']) head.append(make('th', '', h));
    table.append(make('thead'), this.body);
    table.tHead!.append(head);
    for (const c of PANEL_COLUMNS) {
      const row = make('tr');
      const name = make('td', '', `${c.label} (${c.unit})`);
      const value = make('td', '', '–'), data = make('td', '', '–');
      row.append(name, value, data, make('td', '', c.target ? targetText(c.target) : ''));
      this.body.append(row);
      this.cells.push({ value, data });
    }
    const reset = make('button', '', 'reset');
    reset.title = 'start the figures over (R resets the player too)';
    reset.addEventListener('click', () => this.reset());
    const buttons = make('div', 'mm-q-row');
    buttons.append(reset);
    this.root.append(header, table, this.status, buttons);
    document.body.appendChild(this.root);
    openButton?.addEventListener('click', () => this.show(this.root.classList.contains('hidden')));
  }

  get visible(): boolean {
    return !this.root.classList.contains('hidden');
  }

  show(on: boolean): void {
    this.root.classList.toggle('hidden', !on);
    if (on) { void this.measureData(); this.update(); }
  }

  /** Starts the player's figures over (a teleport would read as a pop). */
  reset(): void {
    this.stats = new QualityStats();
    this.meter = null;
    this.bound = null;
    this.steps = 0;
    this.seconds = 0;
    this.update();
  }

  /** Measures the player's step just taken (call after every step of the player). */
  observe(dt: number): void {
    const p = this.host.player();
    if (!p || !(dt > 0)) return;
    if (p.controller !== this.bound) {
      // A new database or player: new figures, and the data's level of that database.
      this.stats = new QualityStats();
      this.meter = new QualityMeter(p.controller, this.stats);
      this.bound = p.controller;
      this.steps = 0;
      this.seconds = 0;
      if (this.visible) void this.measureData();
    }
    this.meter!.observe(p.input, dt);
    this.steps++;
    this.seconds += dt;
  }

  /** The data's own level of the running database, measured a few clips per task. */
  private measureData(): Promise<void> {
    const db = this.host.database();
    if (!db) return Promise.resolve();
    if (this.dataDb === db && this.dataJob) return this.dataJob;
    this.dataDb = db;
    this.data = null;
    this.dataJob = (async () => {
      const stats = new QualityStats();
      let clip = 0, slice = performance.now();
      while (clip < db.clips.length) {
        playbackStats(db, PANEL_DATA_HZ, stats, clip, clip + 1);
        clip++;
        if (performance.now() - slice > 30) {
          this.status.textContent = `measuring the data's own level: clip ${clip} of ${db.clips.length}…`;
          await nextTask();
          slice = performance.now();
          if (this.dataDb !== db) return; // another database came in meanwhile
        }
      }
      this.data = dataLevelOf(db, stats.report());
      this.update();
    })();
    return this.dataJob;
  }

  /** Redraws the figures (a few times a second). */
  update(): void {
    if (!this.visible) return;
    const report = this.stats.report();
    PANEL_COLUMNS.forEach((c, i) => {
      const cell = this.cells[i];
      cell.value.textContent = formatColumnValue(c, columnValue(c, report));
      const verdict = this.steps > 0 ? columnVerdict(c, report, this.data) : null;
      cell.value.className = verdict === true ? 'met' : verdict === false ? 'missed' : '';
      cell.data.textContent = formatColumnValue(c, columnDataValue(c, this.data));
    });
    const rate = this.seconds > 0 ? this.steps / this.seconds : 0;
    this.status.textContent = `${this.seconds.toFixed(0)} s measured at ${rate.toFixed(0)} steps/s (the data's level at ${PANEL_DATA_HZ}/s)`
      + (this.data ? '' : ` · the data's level: measuring…`)
      + '\nmeasured from the joints drawn; skate counts foot joints within 2.5 cm of their lowest height (Zhang et al. 2018): docs/quality.md';
  }

  handle(): QualityPanelHandle {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const panel = this;
    return {
      get visible() { return panel.visible; },
      show: (on: boolean) => panel.show(on),
      reset: () => panel.reset(),
      dataReady: () => panel.measureData(),
      get figures() {
        panel.update(); // the table shows what this returns
        const report = panel.stats.report();
        const meets: Record<string, boolean> = {};
        for (const c of PANEL_COLUMNS) {
          const v = columnVerdict(c, report, panel.data);
          if (v !== null) meets[c.key] = v;
        }
        return {
          seconds: panel.seconds,
          stepsPerSecond: panel.seconds > 0 ? panel.steps / panel.seconds : 0,
          player: figuresOf(report),
          data: panel.data ? figuresOf(panel.data.report) : null,
          meets,
        };
      },
    };
  }
}
