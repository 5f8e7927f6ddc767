/**
 * The `motionmatch quality --svg` chart, written by hand (no dependency): one panel per
 * QUALITY_COLUMNS measure, one bar per scenario in each, green when the scenario meets the
 * measure's target, red when it misses it, grey when the measure has none or it cannot be judged;
 * the target is a dashed red line across the panel (a target relative to the data at its value for
 * this database), the data's own level a dotted grey one. Each scenario's bars form one
 * <g class="scenario"> group, and every bar carries a <title> tooltip with the exact value and its
 * ratio to the data's.
 */
import type { QualityColumn } from './columns.js';
import { QUALITY_COLUMNS, columnDataValue, columnRatio, columnValue, columnVerdict, formatColumnValue, withUnit } from './columns.js';
import { needsText, targetLimit, targetText, type DataLevel } from './targets.js';
import { formatRatio } from './table.js';
import type { ScenarioQuality } from './run.js';

const PANEL_W = 300;
const PANEL_H = 230;
const PAD = { left: 50, right: 14, top: 44, bottom: 34 };
const GAP = 16;
const MARGIN = 16;
const HEADER_H = 92;
const PANELS_PER_ROW = 3;

const COLOR = { meets: '#2a9d5c', misses: '#d64541', none: '#8d99ae', target: '#b02a27', data: '#3d4b5c', grid: '#e4e7eb', axis: '#5f6b7a', text: '#1f2933' };

export interface QualityChartInfo {
  /** First line, e.g. "motionmatch quality: real.mmdb". */
  title: string;
  /** Second line: the run's settings. */
  subtitle: string;
}

/** Escapes text for SVG element content and attribute values. */
export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** What a bar shows of a figure: shares as percentages, differences by their size. */
function chartValue(c: QualityColumn, v: number): number {
  const x = c.percent ? 100 * v : v;
  return c.signed ? Math.abs(x) : x;
}

/** Coordinates with at most two decimals (shorter files, same picture). */
const n2 = (x: number): string => (Math.round(x * 100) / 100).toString();

/** A step of 1, 2, 2.5 or 5 times a power of ten, about range/count. */
function niceStep(range: number, count: number): number {
  const raw = range / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

/** The axis of a panel: from 0 to a round number above every value and the target. */
export function panelAxis(values: readonly number[], limit: number | undefined): { max: number; ticks: number[] } {
  const top = Math.max(0, ...values.filter(Number.isFinite), limit !== undefined ? limit * 1.25 : 0);
  if (!(top > 0)) return { max: 1, ticks: [0, 0.5, 1] };
  const step = niceStep(top, 4);
  const max = Math.ceil(top / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let i = 0; i * step <= max + step * 1e-9; i++) ticks.push(+(i * step).toPrecision(12));
  return { max, ticks };
}

interface Panel {
  column: QualityColumn;
  x: number;
  y: number;
  max: number;
  ticks: number[];
  /** The data's own figure (NaN: none) and the target's limit at it (NaN: no target). */
  dataValue: number;
  limit: number;
}

function panelFrame(p: Panel, scenarios: readonly string[]): string[] {
  const { column: c, x, y } = p;
  const px = x + PAD.left, py = y + PAD.top, pw = PANEL_W - PAD.left - PAD.right, ph = PANEL_H - PAD.top - PAD.bottom;
  const out = [`<g class="measure" data-key="${escapeXml(c.key)}">`];
  out.push(`<rect x="${n2(x)}" y="${n2(y)}" width="${PANEL_W}" height="${PANEL_H}" rx="6" fill="#ffffff" stroke="#d5dae1"/>`);
  out.push(`<text x="${n2(x + 12)}" y="${n2(y + 20)}" font-size="13" font-weight="600" fill="${COLOR.text}">${escapeXml(c.label)}</text>`);
  out.push(`<text x="${n2(x + 12)}" y="${n2(y + 35)}" font-size="11" fill="${COLOR.axis}">${escapeXml(c.unit)}</text>`);
  // The target's words sit in the header, where no bar can cover them; the dashed line shows where it is.
  const relative = c.target !== undefined && (c.target.kind === 'ratio' || c.target.kind === 'near');
  const targetWords = !c.target ? '' : relative
    ? `${targetText(c.target)}${Number.isFinite(p.limit) ? ` (${withUnit(formatColumnValue(c, p.limit / (c.percent ? 100 : 1)), c)})` : ''}`
    : withUnit(targetText(c.target), c);
  out.push(c.target
    ? `<text x="${n2(x + PANEL_W - 12)}" y="${n2(y + 35)}" font-size="11" text-anchor="end" fill="${COLOR.target}">target ${escapeXml(targetWords)}${c.target.needs ? escapeXml(` ${needsText(c.target)}`) : ''}</text>`
    : `<text x="${n2(x + PANEL_W - 12)}" y="${n2(y + 35)}" font-size="11" text-anchor="end" fill="${COLOR.axis}">no target</text>`);
  for (const t of p.ticks) {
    const ty = py + ph - (t / p.max) * ph;
    out.push(`<line x1="${n2(px)}" y1="${n2(ty)}" x2="${n2(px + pw)}" y2="${n2(ty)}" stroke="${COLOR.grid}"/>`);
    out.push(`<text x="${n2(px - 6)}" y="${n2(ty + 4)}" font-size="10" text-anchor="end" fill="${COLOR.axis}">${escapeXml(String(t))}</text>`);
  }
  out.push(`<line x1="${n2(px)}" y1="${n2(py + ph)}" x2="${n2(px + pw)}" y2="${n2(py + ph)}" stroke="${COLOR.axis}"/>`);
  const slot = pw / Math.max(1, scenarios.length);
  scenarios.forEach((s, i) => {
    out.push(`<text x="${n2(px + slot * (i + 0.5))}" y="${n2(py + ph + 16)}" font-size="11" text-anchor="middle" fill="${COLOR.text}">${escapeXml(s)}</text>`);
  });
  out.push('</g>');
  return out;
}

function targetLine(p: Panel): string[] {
  const t = p.column.target;
  if (!t || !Number.isFinite(p.limit)) return [];
  const px = p.x + PAD.left, pw = PANEL_W - PAD.left - PAD.right, ph = PANEL_H - PAD.top - PAD.bottom;
  const ty = p.y + PAD.top + ph - (p.limit / p.max) * ph;
  const here = t.kind === 'ratio' || t.kind === 'near' ? ` (${withUnit(formatColumnValue(p.column, p.limit), p.column)} here)` : '';
  return [
    `<g class="target" data-key="${escapeXml(p.column.key)}">`,
    `<line x1="${n2(px)}" y1="${n2(ty)}" x2="${n2(px + pw)}" y2="${n2(ty)}" stroke="${COLOR.target}" stroke-width="1.5" stroke-dasharray="6 4">` +
      `<title>target ${escapeXml(withUnit(targetText(t), p.column) + here)}</title></line>`,
    '</g>',
  ];
}

function dataLine(p: Panel): string[] {
  if (!Number.isFinite(p.dataValue)) return [];
  const px = p.x + PAD.left, pw = PANEL_W - PAD.left - PAD.right, ph = PANEL_H - PAD.top - PAD.bottom;
  const ty = p.y + PAD.top + ph - (p.dataValue / p.max) * ph;
  return [
    `<g class="data-level" data-key="${escapeXml(p.column.key)}">`,
    `<line x1="${n2(px)}" y1="${n2(ty)}" x2="${n2(px + pw)}" y2="${n2(ty)}" stroke="${COLOR.data}" stroke-width="1.2" stroke-dasharray="2 3">` +
      `<title>the data itself: ${escapeXml(withUnit(formatColumnValue(p.column, p.dataValue), p.column))}</title></line>`,
    '</g>',
  ];
}

function scenarioBars(row: ScenarioQuality, index: number, count: number, panels: readonly Panel[], data: DataLevel | null): string[] {
  const out = [`<g class="scenario" data-scenario="${escapeXml(row.scenario)}">`];
  for (const p of panels) {
    const c = p.column, raw = columnValue(c, row.quality);
    if (!Number.isFinite(raw)) continue;
    const v = chartValue(c, raw);
    const px = p.x + PAD.left, pw = PANEL_W - PAD.left - PAD.right, ph = PANEL_H - PAD.top - PAD.bottom, base = p.y + PAD.top + ph;
    const slot = pw / count, w = slot * 0.62, x = px + slot * index + (slot - w) / 2;
    const h = Math.max(0, (v / p.max) * ph);
    const verdict = columnVerdict(c, row.quality, data);
    const fill = verdict === null ? COLOR.none : verdict ? COLOR.meets : COLOR.misses;
    const ratio = formatRatio(columnRatio(c, row.quality, data));
    const text = withUnit(formatColumnValue(c, raw), c) + (ratio ? `, ${ratio} the data's` : '');
    const judged = c.target && verdict !== null ? ` (target ${targetText(c.target)}: ${verdict ? 'met' : 'missed'})` : '';
    out.push(`<rect class="bar" data-key="${escapeXml(c.key)}" x="${n2(x)}" y="${n2(base - h)}" width="${n2(w)}" height="${n2(h)}" rx="2" fill="${fill}">` +
      `<title>${escapeXml(`${row.scenario}, ${c.label}: ${text}${judged}`)}</title></rect>`);
    out.push(`<text x="${n2(x + w / 2)}" y="${n2(base - h - 4)}" font-size="10" text-anchor="middle" fill="${COLOR.text}">${escapeXml(formatColumnValue(c, raw))}</text>`);
  }
  out.push('</g>');
  return out;
}

function legend(x: number, y: number): string[] {
  const items: Array<[string, string]> = [[COLOR.meets, 'meets its target'], [COLOR.misses, 'misses its target'], [COLOR.none, 'no target']];
  const out = ['<g class="legend">'];
  let at = x;
  for (const [color, label] of items) {
    out.push(`<rect x="${n2(at)}" y="${n2(y - 10)}" width="12" height="12" rx="2" fill="${color}"/>`);
    out.push(`<text x="${n2(at + 17)}" y="${n2(y)}" font-size="11" fill="${COLOR.text}">${label}</text>`);
    at += 34 + label.length * 6;
  }
  out.push(`<line x1="${n2(at)}" y1="${n2(y - 4)}" x2="${n2(at + 26)}" y2="${n2(y - 4)}" stroke="${COLOR.target}" stroke-width="1.5" stroke-dasharray="6 4"/>`);
  out.push(`<text x="${n2(at + 32)}" y="${n2(y)}" font-size="11" fill="${COLOR.text}">target (lower is better)</text>`);
  at += 32 + 24 * 6 + 20;
  out.push(`<line x1="${n2(at)}" y1="${n2(y - 4)}" x2="${n2(at + 26)}" y2="${n2(y - 4)}" stroke="${COLOR.data}" stroke-width="1.2" stroke-dasharray="2 3"/>`);
  out.push(`<text x="${n2(at + 32)}" y="${n2(y)}" font-size="11" fill="${COLOR.text}">the data itself (plain playback)</text>`);
  out.push('</g>');
  return out;
}

/** The chart as a standalone SVG document. */
export function qualitySvg(rows: readonly ScenarioQuality[], info: QualityChartInfo, columns: readonly QualityColumn[] = QUALITY_COLUMNS, data: DataLevel | null = null): string {
  const perRow = Math.max(1, Math.min(PANELS_PER_ROW, columns.length));
  const panelRows = Math.max(1, Math.ceil(columns.length / perRow));
  const width = 2 * MARGIN + perRow * PANEL_W + (perRow - 1) * GAP;
  const height = HEADER_H + panelRows * PANEL_H + (panelRows - 1) * GAP + MARGIN;
  const scenarios = rows.map((r) => r.scenario);
  const panels: Panel[] = columns.map((column, i) => {
    const d = columnDataValue(column, data), dataValue = chartValue(column, d);
    const limit = column.target ? chartValue(column, column.target.kind === 'near' ? Math.abs(d) + targetLimit(column.target, d) : targetLimit(column.target, d)) : Number.NaN;
    const axis = panelAxis([...rows.map((r) => chartValue(column, columnValue(column, r.quality))), dataValue], Number.isFinite(limit) ? limit : undefined);
    return {
      column, dataValue, limit,
      x: MARGIN + (i % perRow) * (PANEL_W + GAP),
      y: HEADER_H + Math.floor(i / perRow) * (PANEL_H + GAP),
      ...axis,
    };
  });
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif">`,
    `<title>${escapeXml(info.title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#f5f7fa"/>`,
    `<text x="${MARGIN}" y="30" font-size="18" font-weight="600" fill="${COLOR.text}">${escapeXml(info.title)}</text>`,
    `<text x="${MARGIN}" y="50" font-size="12" fill="${COLOR.axis}">${escapeXml(info.subtitle)}</text>`,
    ...legend(MARGIN, 76),
    ...panels.flatMap((p) => panelFrame(p, scenarios)),
    ...rows.flatMap((r, i) => scenarioBars(r, i, rows.length, panels, data)),
    ...panels.flatMap(dataLine),
    ...panels.flatMap(targetLine),
    '</svg>',
  ];
  return out.join('\n') + '\n';
}
