/**
 * `motionmatch quality` (src/apps/commands/quality.ts, src/tools/quality/): one simulation per
 * scenario, the table, the JSON, the SVG chart, and the mistakes it refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { generateBuiltinClips } from '../../src/builtin/generate.js';
import { buildDatabase } from '../../src/database/build.js';
import { encodeDatabase } from '../../src/database/mmdb/mmdb.js';
import type { QualityReport } from '../../src/runtime/quality/meter.js';
import { QUALITY_COLUMNS, type QualityColumn } from '../../src/tools/quality/columns.js';
import { QUALITY_TARGETS, meetsTarget } from '../../src/tools/quality/targets.js';
import { QUALITY_SCENARIOS, type ScenarioQuality } from '../../src/tools/quality/run.js';
import { formatQualityTable, qualityVerdictLines } from '../../src/tools/quality/table.js';
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
  columns: Array<{ key: string; label: string; unit: string; target: { limit: number; inclusive: boolean } | null }>;
  scenarios: ScenarioQuality[];
  allTargetsMet: boolean;
  svg: string | null;
}

const REPORT_FIELDS: Array<keyof QualityReport> = [
  'seconds', 'steps', 'footSkateCmPerSec', 'footSkateP95CmPerSec', 'trajectoryError05Cm', 'trajectoryError1Cm',
  'maxTransitionJump', 'typicalJumpP95', 'searchesPerSec', 'transitionsPerSec',
];

function expectWellFormedChart(svg: string, scenarios: readonly ScenarioQuality[], columns: readonly QualityColumn[]): XmlElement {
  const root = parseXml(svg);
  expect(root.name).toBe('svg');
  expect(root.attrs.xmlns).toBe('http://www.w3.org/2000/svg');
  // One bar group per scenario, in order, each with one bar per measure.
  const groups = all(root, (e) => e.name === 'g' && e.attrs.class === 'scenario');
  expect(groups.map((g) => g.attrs['data-scenario'])).toEqual(scenarios.map((s) => s.scenario));
  for (const [k, g] of groups.entries()) {
    const bars = g.children.filter((c) => c.name === 'rect' && c.attrs.class === 'bar');
    expect(bars.map((b) => b.attrs['data-key'])).toEqual(columns.map((c) => c.key));
    for (const [j, bar] of bars.entries()) {
      const c = columns[j], v = scenarios[k].quality[c.key];
      // A red bar is a missed target, a green one a met target, a grey one no target.
      const fill = bar.attrs.fill;
      if (!c.target) expect(fill).toBe('#8d99ae');
      else expect(fill).toBe(meetsTarget(v, c.target) ? '#2a9d5c' : '#d64541');
      expect(bar.children.find((t) => t.name === 'title')?.text).toContain(scenarios[k].scenario);
    }
  }
  // Within a measure, bar heights are proportional to the values.
  for (const [j, c] of columns.entries()) {
    const heights = groups.map((g) => Number(g.children.filter((e) => e.name === 'rect')[j].attrs.height));
    const values = scenarios.map((s) => s.quality[c.key]);
    const top = Math.max(...values);
    // Heights are written to 0.01 px: each may be off by 0.005 px, the tallest too.
    const tallest = Math.max(...heights);
    for (let k = 0; k < values.length; k++) {
      if (top > 0) expect(Math.abs(heights[k] - (values[k] / top) * tallest), `${c.key} ${scenarios[k].scenario}`).toBeLessThanOrEqual(0.0101);
    }
  }
  // A panel per measure, a dashed target line for each measure that has a target.
  expect(all(root, (e) => e.attrs.class === 'measure').map((e) => e.attrs['data-key'])).toEqual(columns.map((c) => c.key));
  expect(all(root, (e) => e.attrs.class === 'target').map((e) => e.attrs['data-key'])).toEqual(columns.filter((c) => c.target).map((c) => c.key));
  return root;
}

describe('motionmatch quality on the built-in database', () => {
  const dir = tempDir('mm-quality-');
  const args = ['quality', '--agents', '6', '--seconds', '3', '--seed', '5'];
  let out: QualityJson;
  let again: QualityJson;
  let text: string;

  beforeAll(() => {
    const a = runCli([...args, '--json', '--svg', join(dir, 'chart.svg')]);
    expect(a.code, a.stderr).toBe(0);
    out = JSON.parse(a.stdout);
    const b = runCli([...args, '--json']);
    expect(b.code, b.stderr).toBe(0);
    again = JSON.parse(b.stdout);
    const t = runCli(args);
    expect(t.code, t.stderr).toBe(0);
    text = t.stdout;
  }, 180_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs every scenario once with the settings asked for, each with its full quality report', () => {
    expect(out.scenarios.map((s) => s.scenario)).toEqual([...QUALITY_SCENARIOS]);
    expect(out.settings).toMatchObject({ agents: 6, seconds: 3, hz: 30, seed: 5, workers: 1 });
    expect(out.db.source).toBe('builtin');
    expect(out.db.frames).toBeGreaterThan(1000);
    expect(out.targets).toEqual(QUALITY_TARGETS);
    expect(out.columns.map((c) => c.key)).toEqual(QUALITY_COLUMNS.map((c) => c.key));
    for (const s of out.scenarios) {
      for (const k of REPORT_FIELDS) expect(Number.isFinite(s.quality[k]), `${s.scenario}.${k}`).toBe(true);
      expect(s.quality.steps).toBe(6 * 90);
      expect(s.quality.seconds).toBeCloseTo(6 * 3, 6);
      expect(s.hash).toMatch(/^[0-9a-f]{16}$/);
      // The verdicts follow the values and the shared targets.
      for (const [key, target] of Object.entries(QUALITY_TARGETS)) {
        expect(s.meetsTargets[key], `${s.scenario}.${key}`).toBe(meetsTarget(s.quality[key as keyof QualityReport], target));
      }
    }
    expect(out.allTargetsMet).toBe(out.scenarios.every((s) => Object.values(s.meetsTargets).every(Boolean)));
    // Scenarios are different behaviours, not one run printed four times.
    expect(new Set(out.scenarios.map((s) => s.hash)).size).toBe(4);
  });

  it('is deterministic, and each row is what `simulate --scenario` reports', () => {
    expect(again.scenarios.map((s) => [s.hash, s.quality])).toEqual(out.scenarios.map((s) => [s.hash, s.quality]));
    const sim = runCli(['simulate', '--scenario', 'strafe', '--agents', '6', '--seconds', '3', '--seed', '5', '--json']);
    expect(sim.code, sim.stderr).toBe(0);
    const r = JSON.parse(sim.stdout) as { hash: string; quality: QualityReport };
    const strafe = out.scenarios.find((s) => s.scenario === 'strafe')!;
    expect(strafe.hash).toBe(r.hash);
    expect(strafe.quality).toEqual(r.quality);
  });

  it('prints one row per scenario under the column headers, with the values of the JSON and misses marked', () => {
    const lines = text.split('\n');
    const header = lines.find((l) => l.startsWith('scenario'))!;
    for (const c of QUALITY_COLUMNS) expect(header).toContain(c.header);
    expect(lines.find((l) => l.startsWith('target'))).toMatch(/< 1 .*< 3 .*<= 4 .*< 10 .*< 6/);
    for (const s of out.scenarios) {
      const row = lines.find((l) => l.startsWith(s.scenario + ' '))!;
      expect(row, s.scenario).toBeDefined();
      const cells = row.trim().split(/\s+/).slice(1);
      expect(cells).toHaveLength(QUALITY_COLUMNS.length);
      for (const [j, c] of QUALITY_COLUMNS.entries()) {
        const missed = c.target ? !meetsTarget(s.quality[c.key], c.target) : false;
        expect(cells[j], `${s.scenario} ${c.key}`).toBe(s.quality[c.key].toFixed(c.digits) + (missed ? '*' : ''));
      }
    }
    expect(text).toMatch(out.allTargetsMet ? /all targets met/ : /\* misses its target/);
    expect(text).toMatch(/quality on built-in database \(\d[\d,]* frames, \d+ clips\): 6 agents x 3 s per scenario at 30 Hz, seed 5/);
  });

  it('--svg writes a well-formed chart: a bar group per scenario, a panel and target line per measure', () => {
    const svg = readFileSync(join(dir, 'chart.svg'), 'utf8');
    expect(out.svg).toBe(join(dir, 'chart.svg'));
    const root = expectWellFormedChart(svg, out.scenarios, QUALITY_COLUMNS);
    expect(all(root, (e) => e.name === 'title')[0].text).toMatch(/built-in database/);
    // Nothing else left in the folder (the temporary file was renamed into place).
    expect(readdirSync(dir)).toEqual(['chart.svg']);
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

  it('takes the file as DB or --db, and escapes its name in the chart', () => {
    const a = runCli(['quality', file, '--agents', '3', '--seconds', '2', '--json', '--svg', join(dir, 'c.svg')]);
    expect(a.code, a.stderr).toBe(0);
    const q = JSON.parse(a.stdout) as QualityJson;
    expect(q.db).toMatchObject({ source: file, frames });
    const svg = readFileSync(join(dir, 'c.svg'), 'utf8');
    expect(svg).toContain('small &amp; &quot;odd&quot; &lt;name&gt;.mmdb');
    expectWellFormedChart(svg, q.scenarios, QUALITY_COLUMNS);
    const b = runCli(['quality', '--db', file, '--agents', '3', '--seconds', '2', '--json']);
    expect(b.code, b.stderr).toBe(0);
    expect((JSON.parse(b.stdout) as QualityJson).scenarios.map((s) => s.hash)).toEqual(q.scenarios.map((s) => s.hash));
  });
});

describe('motionmatch quality refuses mistakes', () => {
  const dir = tempDir('mm-quality-bad-');
  writeFileSync(join(dir, 'broken.mmdb'), 'not a database');
  mkdirSync(join(dir, 'folder'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('bad options exit with 2, naming the option, before running anything', () => {
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
      const r = runCli(['quality', ...extra, ...(extra.includes('--svg') ? [] : ['--svg', join(dir, 'never.svg')])]);
      expect(r.code, `${extra.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain('usage: motionmatch quality');
      expect(r.stdout).toBe('');
    }
    expect(existsSync(join(dir, 'never.svg'))).toBe(false);
  });

  it('bad files exit with 1 and one line naming them, before the run', () => {
    const cases: Array<[string[], RegExp]> = [
      [[join(dir, 'missing.mmdb')], /missing\.mmdb.*no such file/],
      [[join(dir, 'broken.mmdb')], /broken\.mmdb/],
      [[join(dir, 'folder')], /folder.*directory/],
      [['--svg', join(dir, 'no-such-folder', 'c.svg')], /cannot write SVG chart .*no-such-folder.*does not exist/],
      [['--svg', join(dir, 'folder')], /cannot write SVG chart .*folder.*directory/],
    ];
    for (const [extra, message] of cases) {
      const t0 = Date.now();
      const r = runCli(['quality', ...extra, '--agents', '2', '--seconds', '2']);
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
  const report = (o: Partial<QualityReport>): QualityReport => ({
    seconds: 10, steps: 300, footSkateCmPerSec: 0.5, footSkateP95CmPerSec: 2, ankleSkateCmPerSec: 1.5, trajectoryError05Cm: 3, trajectoryError1Cm: 5,
    maxTransitionJump: 4, typicalJumpP95: 1, searchesPerSec: 10, transitionsPerSec: 4, ...o,
  });
  const row = (scenario: string, q: QualityReport): ScenarioQuality => ({ scenario, quality: q, meetsTargets: {}, hash: '0'.repeat(16), searches: 0, wallSeconds: 0, agentStepsPerSec: 0 });
  const rows = [row('calm', report({})), row('wild', report({ footSkateCmPerSec: 12.3456, transitionsPerSec: 4.01, maxTransitionJump: 6 }))];

  it('marks exactly the values that miss their targets (a limit itself is inclusive only where the target says so)', () => {
    const lines = formatQualityTable(rows);
    const calm = lines.find((l) => l.startsWith('calm'))!, wild = lines.find((l) => l.startsWith('wild'))!;
    expect(calm).not.toContain('*'); // transitions 4 <= 4 meets its target
    expect(wild.split(/\s+/).filter((c) => c.endsWith('*'))).toEqual(['12.35*', '4.01*', '6.00*']);
    expect(qualityVerdictLines(rows)).toEqual(['* misses its target:', '  calm: none', '  wild: skate mean, transitions, max jump']);
    expect(qualityVerdictLines([rows[0]])).toEqual(['all targets met']);
    // Columns line up: the digits of every row end at the same places ('*' hangs after them).
    const digitEnds = (l: string) => [...l.matchAll(/\S+/g)].slice(1).map((m) => m.index! + m[0].replace(/\*$/, '').length);
    expect(digitEnds(calm)).toEqual(digitEnds(wild));
  });

  it('a new column is one entry in the list: it shows in the table and gets its own panel', () => {
    const extra: QualityColumn = { key: 'typicalJumpP95', label: 'typical jump, p95', header: 'jump p95', unit: 'm/s', digits: 3, target: { limit: 0.5, inclusive: false } };
    const columns = [...QUALITY_COLUMNS, extra];
    const lines = formatQualityTable(rows, columns);
    expect(lines[0]).toMatch(/jump p95$/);
    expect(lines.find((l) => l.startsWith('calm'))).toMatch(/1\.000\*$/);
    const svg = qualitySvg(rows, { title: 't', subtitle: 's' }, columns);
    expectWellFormedChart(svg, rows, columns);
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
