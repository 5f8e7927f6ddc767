/**
 * `motionmatch quality` (src/apps/commands/quality.ts, src/tools/quality/): one simulation per
 * scenario, the table, the JSON, the SVG chart, and the mistakes it refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, runCliInProcess, tempDir } from '../helpers/cli.js';
import { generateBuiltinClips } from '../../src/builtin/generate.js';
import { buildDatabase } from '../../src/database/build.js';
import { encodeDatabase } from '../../src/database/mmdb/mmdb.js';
import type { QualityReport } from '../../src/runtime/quality/meter.js';
import { QualityStats } from '../../src/runtime/quality/metrics.js';
import { QUALITY_COLUMNS, columnDataValue, columnRatio, columnValue, columnVerdict, formatColumnValue, type QualityColumn } from '../../src/tools/quality/columns.js';
import { QUALITY_TARGETS, meetsTarget, type DataLevel, type QualityTarget } from '../../src/tools/quality/targets.js';
import { QUALITY_SCENARIOS, type ScenarioQuality } from '../../src/tools/quality/run.js';
import { formatQualityTable, formatRatio, qualityVerdictLines } from '../../src/tools/quality/table.js';
import { panelAxis, qualitySvg } from '../../src/tools/quality/svg.js';

// -------------------------------------------------------------------------------------------------
// A strict little XML reader: enough to say a chart is well-formed and to look inside it.

interface XmlElement { name: string; attrs: Record<string, string>; children: XmlElement[]; text: string }

const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g;

function checkText(text: string, where: string): void {
  if (text.includes('<')) throw new Error(`raw '<' in text ${where}`);
  if (text.replace(ENTITY, '').includes('&')) throw new Error(`unescaped '&' ${where}: ${text.slice(0, 60)}`);
}

function parseXml(src: string): XmlElement {
  const tag = /<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[A-Za-z_:][\w:.-]*\s*=\s*"[^"]*")*)\s*(\/?)>/y;
  const attr = /([A-Za-z_:][\w:.-]*)\s*=\s*"([^"]*)"/g;
  let i = src.startsWith('<?xml') ? src.indexOf('?>') + 2 : 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  while (i < src.length) {
    const lt = src.indexOf('<', i);
    const text = src.slice(i, lt < 0 ? src.length : lt);
    if (stack.length) {
      checkText(text, `in <${stack[stack.length - 1].name}>`);
      stack[stack.length - 1].text += text;
    } else if (text.trim() !== '') {
      throw new Error(`text outside the root element: ${text.slice(0, 40)}`);
    }
    if (lt < 0) break;
    tag.lastIndex = lt;
    const m = tag.exec(src);
    if (!m) throw new Error(`malformed tag at ${lt}: ${src.slice(lt, lt + 60)}`);
    const [, closing, name, attrText, selfClosing] = m;
    if (closing) {
      const open = stack.pop();
      if (!open || open.name !== name) throw new Error(`</${name}> closes <${open?.name ?? 'nothing'}>`);
    } else {
      if (root && !stack.length) throw new Error('a second root element');
      const attrs: Record<string, string> = {};
      for (const a of attrText.matchAll(attr)) {
        if (a[1] in attrs) throw new Error(`attribute ${a[1]} twice in <${name}>`);
        checkText(a[2], `in attribute ${a[1]} of <${name}>`);
        attrs[a[1]] = a[2];
      }
      const el: XmlElement = { name, attrs, children: [], text: '' };
      if (stack.length) stack[stack.length - 1].children.push(el);
      else root = el;
      if (!selfClosing) stack.push(el);
    }
    i = tag.lastIndex;
  }
  if (stack.length) throw new Error(`<${stack[stack.length - 1].name}> is never closed`);
  if (!root) throw new Error('no root element');
  return root;
}

function all(el: XmlElement, pred: (e: XmlElement) => boolean): XmlElement[] {
  return [...(pred(el) ? [el] : []), ...el.children.flatMap((c) => all(c, pred))];
}

// -------------------------------------------------------------------------------------------------

interface QualityJson {
  db: { source: string; frames: number; clips: number };
  settings: { agents: number; seconds: number; hz: number; seed: number; workers: number };
  targets: typeof QUALITY_TARGETS;
  columns: Array<{ key: string; label: string; unit: string; target: QualityTarget | null; diagnostic: boolean; data: number | null }>;
  data: { quality: QualityReport; standing: boolean; sidesteps: boolean; popJointName: string };
  scenarios: Array<ScenarioQuality & { ratios: Record<string, number>; popJointName: string }>;
  allTargetsMet: boolean;
  svg: string | null;
}

/** Figures every scenario has (the stop and facing figures exist only where a scenario stops or asks for a facing). */
const REPORT_FIELDS: Array<keyof QualityReport> = [
  'seconds', 'steps', 'skateCmPerSec', 'skateP95CmPerSec', 'skateAllCmPerSec', 'belowGroundShare', 'belowGroundP99Cm', 'belowGroundMaxCm',
  'hipsHeightCm', 'hipsOffsetCm', 'popP999', 'popMax', 'trajectoryError05Cm', 'trajectoryError1Cm', 'searchesPerSec', 'transitionsPerSec',
  'labelSkateCmPerSec', 'maxTransitionJump',
];

/** The level JSON reports back as the DataLevel the columns judge with. */
const levelOf = (q: QualityJson): DataLevel => ({ report: q.data.quality, standing: q.data.standing, sidesteps: q.data.sidesteps });

/** JSON turns NaN into null: the report as the code had it. */
function revive(r: QualityReport): QualityReport {
  const out = { ...r } as Record<string, unknown>;
  for (const [k, v] of Object.entries(out)) if (v === null) out[k] = Number.NaN;
  return out as unknown as QualityReport;
}

function expectWellFormedChart(svg: string, scenarios: readonly ScenarioQuality[], columns: readonly QualityColumn[], data: DataLevel | null): XmlElement {
  const root = parseXml(svg);
  expect(root.name).toBe('svg');
  expect(root.attrs.xmlns).toBe('http://www.w3.org/2000/svg');
  // One bar group per scenario, in order, each with one bar per measure it has a figure for.
  const groups = all(root, (e) => e.name === 'g' && e.attrs.class === 'scenario');
  expect(groups.map((g) => g.attrs['data-scenario'])).toEqual(scenarios.map((s) => s.scenario));
  for (const [k, g] of groups.entries()) {
    const bars = g.children.filter((c) => c.name === 'rect' && c.attrs.class === 'bar');
    const shown = columns.filter((c) => Number.isFinite(columnValue(c, scenarios[k].quality)));
    expect(bars.map((b) => b.attrs['data-key'])).toEqual(shown.map((c) => c.key));
    for (const [j, bar] of bars.entries()) {
      const c = shown[j], verdict = columnVerdict(c, scenarios[k].quality, data);
      // A red bar is a missed target, a green one a met target, a grey one none (or one that cannot be judged).
      expect(bar.attrs.fill, `${scenarios[k].scenario} ${c.key}`).toBe(verdict === null ? '#8d99ae' : verdict ? '#2a9d5c' : '#d64541');
      expect(bar.children.find((t) => t.name === 'title')?.text).toContain(scenarios[k].scenario);
    }
  }
  // Within a measure, bar heights are proportional to the values.
  for (const c of columns) {
    const pairs = groups.flatMap((g, k) => {
      const bar = g.children.find((e) => e.name === 'rect' && e.attrs['data-key'] === c.key);
      const v = columnValue(c, scenarios[k].quality) * (c.percent ? 100 : 1);
      return bar ? [[Number(bar.attrs.height), c.signed ? Math.abs(v) : v] as const] : [];
    });
    const top = Math.max(...pairs.map((p) => p[1])), tallest = Math.max(...pairs.map((p) => p[0]));
    // Heights are written to 0.01 px: each may be off by 0.005 px, the tallest too.
    for (const [h, v] of pairs) if (top > 0) expect(Math.abs(h - (v / top) * tallest), c.key).toBeLessThanOrEqual(0.0101);
  }
  // A panel per measure; a dashed target line for each measure whose target has a limit here; the data's level where it has one.
  expect(all(root, (e) => e.attrs.class === 'measure').map((e) => e.attrs['data-key'])).toEqual(columns.map((c) => c.key));
  const judged = columns.filter((c) => c.target && (c.target.kind === undefined || c.target.kind === 'value' || Number.isFinite(columnDataValue(c, data))));
  expect(all(root, (e) => e.attrs.class === 'target').map((e) => e.attrs['data-key'])).toEqual(judged.map((c) => c.key));
  expect(all(root, (e) => e.attrs.class === 'data-level').map((e) => e.attrs['data-key'])).toEqual(columns.filter((c) => Number.isFinite(columnDataValue(c, data))).map((c) => c.key));
  return root;
}

/** The table's line for a column (by its label), cut into cells: unit, data, target, one per scenario. */
function tableCells(lines: readonly string[], column: QualityColumn): string[] {
  const line = lines.find((l) => l.startsWith(column.label + ' '));
  expect(line, column.label).toBeDefined();
  return line!.slice(column.label.length).trim().split(/\s{2,}/);
}

describe('motionmatch quality on the built-in database', () => {
  const dir = tempDir('mm-quality-');
  const args = ['quality', '--agents', '6', '--seconds', '3', '--seed', '5'];
  let out: QualityJson;
  let again: QualityJson;
  let text: string;

  beforeAll(async () => {
    const a = await runCliInProcess([...args, '--json', '--svg', join(dir, 'chart.svg')]);
    expect(a.code, a.stderr).toBe(0);
    out = JSON.parse(a.stdout);
    for (const s of out.scenarios) s.quality = revive(s.quality);
    out.data.quality = revive(out.data.quality);
    const b = await runCliInProcess([...args, '--json']);
    expect(b.code, b.stderr).toBe(0);
    again = JSON.parse(b.stdout);
    for (const s of again.scenarios) s.quality = revive(s.quality);
    const t = runCli(args);
    expect(t.code, t.stderr).toBe(0);
    text = t.stdout;
  }, 180_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs every scenario once with the settings asked for, each with its full quality report', () => {
    expect(out.scenarios.map((s) => s.scenario)).toEqual([...QUALITY_SCENARIOS]);
    expect(out.settings).toMatchObject({ agents: 6, seconds: 3, hz: 60, seed: 5, workers: 1 });
    expect(out.db.source).toBe('builtin');
    expect(out.db.frames).toBeGreaterThan(1000);
    expect(out.targets).toEqual(QUALITY_TARGETS);
    expect(out.columns.map((c) => c.key)).toEqual(QUALITY_COLUMNS.map((c) => c.key));
    // The data's own level, measured the same way: the built-in data stands (idle) and sidesteps (strafes).
    expect(out.data.standing).toBe(true);
    expect(out.data.sidesteps).toBe(true);
    expect(out.data.quality.skateCmPerSec).toBeGreaterThan(0);
    for (const s of out.scenarios) {
      for (const k of REPORT_FIELDS) expect(Number.isFinite(s.quality[k]), `${s.scenario}.${k}`).toBe(true);
      expect(s.quality.steps).toBe(6 * 180);
      expect(s.quality.seconds).toBeCloseTo(6 * 3, 6);
      expect(s.hash).toMatch(/^[0-9a-f]{16}$/);
      // The verdicts follow the values, the data's level and the shared targets.
      for (const c of QUALITY_COLUMNS) {
        const v = columnVerdict(c, s.quality, levelOf(out));
        expect(s.meetsTargets[c.key], `${s.scenario}.${c.key}`).toBe(v === null ? undefined : v);
      }
      // Ratios to the data's level for the columns that have one.
      expect(s.ratios.skateCmPerSec).toBeCloseTo(s.quality.skateCmPerSec / out.data.quality.skateCmPerSec, 9);
    }
    // Only strafing asks for a facing, only stop-go stops.
    expect(Number.isFinite(out.scenarios.find((s) => s.scenario === 'strafe')!.quality.facingErrorDeg)).toBe(true);
    expect(Number.isNaN(out.scenarios.find((s) => s.scenario === 'wander')!.quality.facingErrorDeg)).toBe(true);
    expect(out.allTargetsMet).toBe(out.scenarios.every((s) => Object.values(s.meetsTargets).every(Boolean)));
    // Scenarios are different behaviours, not one run printed four times.
    expect(new Set(out.scenarios.map((s) => s.hash)).size).toBe(4);
  });

  it('is deterministic, and each row is what `simulate --scenario` reports', async () => {
    expect(again.scenarios.map((s) => [s.hash, s.quality])).toEqual(out.scenarios.map((s) => [s.hash, s.quality]));
    const sim = await runCliInProcess(['simulate', '--scenario', 'strafe', '--agents', '6', '--seconds', '3', '--hz', '60', '--seed', '5', '--json']);
    expect(sim.code, sim.stderr).toBe(0);
    const r = JSON.parse(sim.stdout) as { hash: string; quality: QualityReport };
    const strafe = out.scenarios.find((s) => s.scenario === 'strafe')!;
    expect(strafe.hash).toBe(r.hash);
    expect(strafe.quality).toEqual(revive(r.quality));
  });

  it('prints one line per measure: unit, the data\'s level, the target, then each scenario\'s figure and ratio, misses marked', () => {
    const lines = text.split('\n');
    expect(lines.find((l) => l.startsWith('measure'))).toMatch(/unit\s+data\s+target\s+wander\s+path\s+stop-go\s+strafe$/);
    for (const c of QUALITY_COLUMNS) {
      const cells = tableCells(lines, c);
      expect(cells[0], c.label).toBe(c.unit);
      const scenarioCells = cells.slice(-out.scenarios.length);
      for (const [k, s] of out.scenarios.entries()) {
        const v = columnValue(c, s.quality), verdict = columnVerdict(c, s.quality, levelOf(out));
        const cell = scenarioCells[k];
        expect(cell.startsWith(formatColumnValue(c, v)), `${s.scenario} ${c.key}: ${cell}`).toBe(true);
        expect(cell.endsWith('*'), `${s.scenario} ${c.key}: ${cell}`).toBe(verdict === false);
        const ratio = columnRatio(c, s.quality, levelOf(out));
        if (Number.isFinite(ratio)) expect(cell, `${s.scenario} ${c.key}`).toContain(formatRatio(ratio));
      }
    }
    expect(tableCells(lines, QUALITY_COLUMNS.find((c) => c.key === 'skateCmPerSec')!)[1]).toBe(out.data.quality.skateCmPerSec.toFixed(1));
    expect(text).toMatch(out.allTargetsMet ? /all targets met/ : /\* misses its target/);
    expect(text).toMatch(/quality on built-in database \(\d[\d,]* frames, \d+ clips\): 6 agents x 3 s per scenario at 60 Hz, seed 5/);
  });

  it('--svg writes a well-formed chart: a bar group per scenario, a panel, target and data line per measure', () => {
    const svg = readFileSync(join(dir, 'chart.svg'), 'utf8');
    expect(out.svg).toBe(join(dir, 'chart.svg'));
    const root = expectWellFormedChart(svg, out.scenarios, QUALITY_COLUMNS, levelOf(out));
    expect(all(root, (e) => e.name === 'title')[0].text).toMatch(/built-in database/);
    // Nothing else left in the folder (the temporary file was renamed into place).
    expect(readdirSync(dir)).toEqual(['chart.svg']);
  });

  it('--hz sets the display rate the figures are measured at', async () => {
    const r = await runCliInProcess(['quality', '--agents', '2', '--seconds', '2', '--hz', '30', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const q = JSON.parse(r.stdout) as QualityJson;
    expect(q.settings.hz).toBe(30);
    expect(q.scenarios[0].quality.steps).toBe(2 * 60);
    expect((await runCliInProcess(['quality', '--hz', '5'])).stderr).toMatch(/--hz must be >= 10, got 5/);
  });
});

describe('motionmatch quality on a database file', () => {
  const dir = tempDir('mm-quality-db-');
  const file = join(dir, 'small & "odd" <name>.mmdb');
  let frames = 0;

  beforeAll(() => {
    const { skeleton, clips } = generateBuiltinClips();
    const pick = clips.filter((c) => /^(walk|run|idle|strafe)/.test(c.name)).slice(0, 12);
    const db = buildDatabase(pick.map((clip) => ({ skeleton, clip })));
    frames = db.frameCount;
    writeFileSync(file, encodeDatabase(db));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('takes the file as DB or --db, and escapes its name in the chart', async () => {
    const a = await runCliInProcess(['quality', file, '--agents', '3', '--seconds', '2', '--json', '--svg', join(dir, 'c.svg')]);
    expect(a.code, a.stderr).toBe(0);
    const q = JSON.parse(a.stdout) as QualityJson;
    expect(q.db).toMatchObject({ source: file, frames });
    const svg = readFileSync(join(dir, 'c.svg'), 'utf8');
    expect(svg).toContain('small &amp; &quot;odd&quot; &lt;name&gt;.mmdb');
    for (const sc of q.scenarios) sc.quality = revive(sc.quality);
    q.data.quality = revive(q.data.quality);
    expectWellFormedChart(svg, q.scenarios, QUALITY_COLUMNS, levelOf(q));
    const b = await runCliInProcess(['quality', '--db', file, '--agents', '3', '--seconds', '2', '--json']);
    expect(b.code, b.stderr).toBe(0);
    expect((JSON.parse(b.stdout) as QualityJson).scenarios.map((s) => s.hash)).toEqual(q.scenarios.map((s) => s.hash));
  });
});

describe('motionmatch quality refuses mistakes', () => {
  const dir = tempDir('mm-quality-bad-');
  writeFileSync(join(dir, 'broken.mmdb'), 'not a database');
  mkdirSync(join(dir, 'folder'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('bad options exit with 2, naming the option, before running anything', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--agents', '0'], /--agents must be >= 1, got 0/],
      [['--agents', 'many'], /--agents must be a number/],
      [['--agents', '2.5'], /--agents must be an integer/],
      [['--seconds', '1'], /--seconds must be >= 2, got 1/],
      [['--seconds', '-3'], /--seconds must be >= 2, got -3/],
      [['--seed', '-5'], /--seed must be >= 0, got -5/],
      [['--workers', '0'], /--workers must be >= 1/],
      [['--frobnicate'], /unknown option --frobnicate/],
      [['--agent', '3'], /did you mean --agents\?/],
      [['a.mmdb', 'b.mmdb'], /one database at a time/],
      [['a.mmdb', '--db', 'b.mmdb'], /either as DB or with --db/],
      [['--svg'], /--svg needs a value/],
      [['--svg', ''], /--svg needs a file name/],
    ];
    for (const [extra, message] of cases) {
      const r = await runCliInProcess(['quality', ...extra, ...(extra.includes('--svg') ? [] : ['--svg', join(dir, 'never.svg')])]);
      expect(r.code, `${extra.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain('usage: motionmatch quality');
      expect(r.stdout).toBe('');
    }
    expect(existsSync(join(dir, 'never.svg'))).toBe(false);
  });

  it('bad files exit with 1 and one line naming them, before the run', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[join(dir, 'missing.mmdb')], /missing\.mmdb.*no such file/],
      [[join(dir, 'broken.mmdb')], /broken\.mmdb/],
      [[join(dir, 'folder')], /folder.*directory/],
      [['--svg', join(dir, 'no-such-folder', 'c.svg')], /cannot write SVG chart .*no-such-folder.*does not exist/],
      [['--svg', join(dir, 'folder')], /cannot write SVG chart .*folder.*directory/],
    ];
    for (const [extra, message] of cases) {
      const t0 = Date.now();
      const r = await runCliInProcess(['quality', ...extra, '--agents', '2', '--seconds', '2']);
      expect(r.code, `${extra.join(' ')}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      // Refused up front, not after four simulations.
      expect(Date.now() - t0).toBeLessThan(15_000);
    }
  });

  it('--help exits 0 with the usage', () => {
    const r = runCli(['quality', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('usage: motionmatch quality');
    expect(r.stdout).toContain('--svg FILE');
  });
});

describe('quality table and chart from the column list', () => {
  /** A report with every figure NaN or 0 (what an empty QualityStats reports) but those given. */
  const report = (o: Partial<QualityReport>): QualityReport => ({ ...new QualityStats().report(), seconds: 10, steps: 300, ...o });
  const base: Partial<QualityReport> = { skateCmPerSec: 20, popMax: 5, hipsOffsetCm: 0.5, belowGroundP99Cm: 0.2, belowGroundMaxCm: 1, trajectoryError1Cm: 5, transitionsPerSec: 4 };
  const row = (scenario: string, q: QualityReport): ScenarioQuality => ({ scenario, quality: q, meetsTargets: {}, hash: '0'.repeat(16), searches: 0, wallSeconds: 0, agentStepsPerSec: 0 });
  const data: DataLevel = { report: report({ skateCmPerSec: 20, popMax: 4, hipsOffsetCm: 0, belowGroundP99Cm: 0, belowGroundMaxCm: 0 }), standing: true, sidesteps: false };
  const rows = [row('calm', report(base)), row('wild', report({ ...base, skateCmPerSec: 24.01, popMax: 6.5, hipsOffsetCm: -2.5, transitionsPerSec: 4.01, facingErrorDeg: 40 }))];

  it('judges against the data: ratios, distances, floors, and targets the data cannot meet', () => {
    const skate = QUALITY_COLUMNS.find((c) => c.key === 'skateCmPerSec')!;
    // <= 1.2x the data's 20: 24 meets it, 24.01 misses it.
    expect(columnVerdict(skate, report({ skateCmPerSec: 24 }), data)).toBe(true);
    expect(columnVerdict(skate, report({ skateCmPerSec: 24.01 }), data)).toBe(false);
    // ...but never asked below 3 cm/s: data at 0.6 cm/s accepts 3.
    const clean: DataLevel = { ...data, report: report({ skateCmPerSec: 0.6 }) };
    expect(columnVerdict(skate, report({ skateCmPerSec: 3 }), clean)).toBe(true);
    expect(columnVerdict(skate, report({ skateCmPerSec: 3.01 }), clean)).toBe(false);
    // Without the data's figure a relative target cannot be judged.
    expect(columnVerdict(skate, report({ skateCmPerSec: 1 }), null)).toBe(null);
    // Facing needs sidesteps in the data; stops need standing frames.
    const facing = QUALITY_COLUMNS.find((c) => c.key === 'facingErrorDeg')!;
    expect(columnVerdict(facing, report({ facingErrorDeg: 40 }), data)).toBe(null);
    expect(columnVerdict(facing, report({ facingErrorDeg: 40 }), { ...data, sidesteps: true })).toBe(false);
    const stop = QUALITY_COLUMNS.find((c) => c.key === 'stopRoot1CmPerSec')!;
    expect(columnVerdict(stop, report({ stopRoot1CmPerSec: 5 }), { ...data, standing: false })).toBe(null);
    expect(columnVerdict(stop, report({ stopRoot1CmPerSec: 5 }), data)).toBe(false);
    // Hips within 2 cm of the data's either way.
    const hips = QUALITY_COLUMNS.find((c) => c.key === 'hipsOffsetCm')!;
    expect(columnVerdict(hips, report({ hipsOffsetCm: -2 }), data)).toBe(true);
    expect(columnVerdict(hips, report({ hipsOffsetCm: 2.01 }), data)).toBe(false);
    expect(meetsTarget(Number.NaN, { limit: 1, inclusive: true })).toBe(null);
  });

  it('marks exactly the values that miss their targets, in the table and its verdict lines', () => {
    const lines = formatQualityTable(rows, data);
    const cell = (key: string, k: number) => tableCells(lines, QUALITY_COLUMNS.find((c) => c.key === key)!).slice(-2)[k];
    for (const key of ['skateCmPerSec', 'popMax', 'hipsOffsetCm', 'transitionsPerSec']) {
      expect(cell(key, 0), key).not.toMatch(/\*$/);
      expect(cell(key, 1), key).toMatch(/\*$/);
    }
    expect(cell('skateCmPerSec', 1)).toBe('24.0 (1.2x)*');
    expect(cell('facingErrorDeg', 1)).not.toMatch(/\*$/); // the data holds no sidesteps: not judged
    expect(qualityVerdictLines(rows, data)).toEqual([
      '* misses its target:', '  calm: none',
      '  wild: foot skate near the ground, mean; hips height against the frame played, median; largest joint velocity change per step, max; transitions per second',
    ]);
    expect(qualityVerdictLines([rows[0]], data)).toEqual(['all targets met']);
    // Columns line up: every line of the table is as wide as the header's.
    expect(new Set(lines.map((l) => l.length)).size).toBeLessThanOrEqual(lines.length);
  });

  it('a new column is one entry in the list: it shows in the table and gets its own panel', () => {
    const extra: QualityColumn = { key: 'typicalJumpP95', label: 'typical jump, p95', unit: 'm/s', digits: 3, target: { limit: 0.5, inclusive: false } };
    const columns = [...QUALITY_COLUMNS, extra];
    const withJump = rows.map((r) => row(r.scenario, { ...r.quality, typicalJumpP95: 1 }));
    const lines = formatQualityTable(withJump, data, columns);
    expect(tableCells(lines, extra).slice(-2)).toEqual(['1.000*', '1.000*']);
    const svg = qualitySvg(withJump, { title: 't', subtitle: 's' }, columns, data);
    expectWellFormedChart(svg, withJump, columns, data);
    expect(svg).toContain('typical jump, p95');
  });

  it('axes start at 0 and reach past every value and the target', () => {
    for (const [values, limit] of [[[0.5, 1.65, 0.7], 1], [[35.25, 14.3], 1], [[0, 0], undefined], [[0.001], undefined], [[99.9, 100.1], 3]] as const) {
      const { max, ticks } = panelAxis(values, limit);
      expect(ticks[0]).toBe(0);
      expect(ticks[ticks.length - 1]).toBeCloseTo(max, 9);
      expect(max).toBeGreaterThanOrEqual(Math.max(...values));
      if (limit !== undefined) expect(max).toBeGreaterThan(limit);
      expect(ticks.length).toBeGreaterThanOrEqual(2);
      expect(ticks.length).toBeLessThanOrEqual(7);
    }
  });
});
