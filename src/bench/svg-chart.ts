/**
 * A self-contained SVG chart of a benchmark report, written by hand (no dependency):
 *
 * - one panel per database and sigma: grouped bars of the median microseconds per query, one group
 *   per method, one bar per backend, on a logarithmic axis shared by all panels; a whisker reaches
 *   the p99; a red outline and "≠N" flag results that disagree with the JS brute-force reference;
 * - one panel per database for batch throughput: queries per second (log axis) per method and
 *   sigma, one bar per mode (searchBatch on the calling thread, MatcherPool with N workers).
 *
 * Every bar carries a <title> tooltip with the exact numbers.
 */
import type { BatchRow, BenchReport, BenchRow } from './report.js';
import { fmt } from './report.js';

const METHOD_ORDER = ['brute', 'brute-f16', 'brute-u8', 'early', 'window', 'aabb', 'aabb-u8', 'kdtree', 'kdtree-u8', 'cluster', 'cluster-u8'];
const BACKEND_ORDER = ['js', 'wasm-scalar', 'wasm-simd'];
const BACKEND_COLOR: Record<string, string> = { 'js': '#d9534f', 'wasm-scalar': '#f0ad4e', 'wasm-simd': '#337ab7' };
const MODE_COLORS = ['#5cb85c', '#8e6cc0', '#8c564b', '#17becf', '#bcbd22', '#7f7f7f'];
const FALLBACK_COLORS = ['#7f7f7f', '#bcbd22', '#17becf'];

const PANEL_W = 540;
const PANEL_H = 270;
const PAD = { left: 62, right: 14, top: 34, bottom: 42 };
const GAP = 18;
const HEADER_H = 96;

/** Escapes text for SVG element content and attribute values. */
export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const n2 = (x: number): string => (Math.round(x * 100) / 100).toString();

function orderBy<T>(values: Iterable<T>, order: readonly T[]): T[] {
  const set = [...new Set(values)];
  return set.sort((a, b) => {
    const ia = order.indexOf(a);
    const ib = order.indexOf(b);
    return (ia < 0 ? order.length : ia) - (ib < 0 ? order.length : ib);
  });
}

function unique<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}

/** Decade bounds [10^a, 10^b] holding every positive value (at least one decade). */
function logRange(values: number[]): [number, number] {
  const pos = values.filter((v) => v > 0 && Number.isFinite(v));
  if (pos.length === 0) return [1, 10];
  let lo = Math.floor(Math.log10(Math.min(...pos)));
  let hi = Math.ceil(Math.log10(Math.max(...pos)));
  if (hi <= lo) hi = lo + 1;
  if (!Number.isFinite(lo)) lo = 0;
  return [10 ** lo, 10 ** hi];
}

/** Decade tick labels: 1 µs, 10 µs, ..., 1 ms, ..., 1 s. */
function timeTick(us: number): string {
  if (us >= 1e6) return `${us / 1e6} s`;
  if (us >= 1e3) return `${us / 1e3} ms`;
  return `${us} µs`;
}

/** Queries per second, compact: 950, 12.3k, 1.2M. */
function rateLabel(qps: number): string {
  if (qps >= 1e6) return `${fmt(qps / 1e6)}M`;
  if (qps >= 1e3) return `${fmt(qps / 1e3)}k`;
  return fmt(qps);
}

function rateTick(qps: number): string {
  if (qps >= 1e6) return `${qps / 1e6}M`;
  if (qps >= 1e3) return `${qps / 1e3}k`;
  return String(qps);
}

interface Bar {
  value: number;
  whisker?: number;
  color: string;
  label: string;
  tooltip: string;
  bad?: string;
}

interface Group {
  label: string;
  bars: Bar[];
}

/**
 * One panel at (x, y): title, log axis from lo to hi with decade grid lines, groups of bars.
 * Returns SVG markup.
 */
function panel(x: number, y: number, title: string, groups: Group[], lo: number, hi: number, tickLabel: (v: number) => string): string {
  const px = x + PAD.left;
  const py = y + PAD.top;
  const pw = PANEL_W - PAD.left - PAD.right;
  const ph = PANEL_H - PAD.top - PAD.bottom;
  const ly = (v: number): number => {
    const t = (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo));
    return py + ph - Math.min(1, Math.max(0, t)) * ph;
  };
  const parts: string[] = [];
  parts.push(`<g>`);
  parts.push(`<rect x="${x}" y="${y}" width="${PANEL_W}" height="${PANEL_H}" fill="#ffffff" stroke="#dddddd"/>`);
  parts.push(`<text x="${x + PANEL_W / 2}" y="${y + 20}" text-anchor="middle" font-size="13" font-weight="bold">${escapeXml(title)}</text>`);
  for (let e = Math.round(Math.log10(lo)); e <= Math.round(Math.log10(hi)); e++) {
    const v = 10 ** e;
    const yy = n2(ly(v));
    parts.push(`<line x1="${px}" y1="${yy}" x2="${px + pw}" y2="${yy}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${px - 6}" y="${n2(ly(v) + 4)}" text-anchor="end" font-size="10" fill="#555555">${escapeXml(tickLabel(v))}</text>`);
  }
  parts.push(`<line x1="${px}" y1="${py}" x2="${px}" y2="${py + ph}" stroke="#999999"/>`);
  parts.push(`<line x1="${px}" y1="${py + ph}" x2="${px + pw}" y2="${py + ph}" stroke="#999999"/>`);
  const gw = groups.length ? pw / groups.length : pw;
  groups.forEach((g, gi) => {
    const gx = px + gi * gw;
    const nb = Math.max(1, g.bars.length);
    const bw = Math.min(34, (gw * 0.82) / nb);
    const bx0 = gx + (gw - bw * nb) / 2;
    let prevLabelY = Infinity;
    let prevWide = false;
    g.bars.forEach((b, bi) => {
      const bx = bx0 + bi * bw;
      const top = ly(b.value);
      const h = Math.max(0.5, py + ph - top);
      const stroke = b.bad ? ' stroke="#cc0000" stroke-width="2"' : '';
      parts.push(`<rect x="${n2(bx + 1)}" y="${n2(py + ph - h)}" width="${n2(bw - 2)}" height="${n2(h)}" fill="${b.color}"${stroke}><title>${escapeXml(b.tooltip)}</title></rect>`);
      let labelY = top;
      if (b.whisker !== undefined && b.whisker > b.value) {
        const wy = ly(b.whisker);
        const cx = n2(bx + bw / 2);
        parts.push(`<line x1="${cx}" y1="${n2(top)}" x2="${cx}" y2="${n2(wy)}" stroke="#333333" stroke-width="1"/>`);
        parts.push(`<line x1="${n2(bx + bw / 2 - 3)}" y1="${n2(wy)}" x2="${n2(bx + bw / 2 + 3)}" y2="${n2(wy)}" stroke="#333333" stroke-width="1"/>`);
        labelY = wy;
      }
      // Labels wider than their bar spill over the neighbour's: lift one that would collide.
      const wide = b.label.length * 5.2 > bw;
      let textY = labelY - 3;
      if ((wide || prevWide) && Math.abs(textY - prevLabelY) < 10) textY = Math.min(textY, prevLabelY - 10);
      prevLabelY = textY;
      prevWide = wide;
      labelY = textY + 3;
      parts.push(`<text x="${n2(bx + bw / 2)}" y="${n2(labelY - 3)}" text-anchor="middle" font-size="8.5" fill="#222222">${escapeXml(b.label)}</text>`);
      if (b.bad) parts.push(`<text x="${n2(bx + bw / 2)}" y="${n2(labelY - 13)}" text-anchor="middle" font-size="9" font-weight="bold" fill="#cc0000">${escapeXml(b.bad)}</text>`);
    });
    parts.push(`<text x="${n2(gx + gw / 2)}" y="${py + ph + 16}" text-anchor="middle" font-size="11">${escapeXml(g.label)}</text>`);
  });
  parts.push(`</g>`);
  return parts.join('\n');
}

function legend(x: number, y: number, items: Array<{ label: string; color: string }>): string {
  const parts: string[] = [];
  let cx = x;
  for (const it of items) {
    parts.push(`<rect x="${cx}" y="${y - 10}" width="12" height="12" fill="${it.color}"/>`);
    parts.push(`<text x="${cx + 17}" y="${y}" font-size="12">${escapeXml(it.label)}</text>`);
    cx += 30 + it.label.length * 7;
  }
  return parts.join('\n');
}

/** The chart for `report` as a standalone SVG document (starts with "<svg"). */
export function renderSvgChart(report: BenchReport): string {
  const rows = report.rows;
  const sets = unique(rows.map((r) => r.set).concat(report.batch.map((b) => b.set)));
  const sigmas = unique(rows.map((r) => r.sigma).concat(report.batch.map((b) => b.sigma)));
  const backends = orderBy(rows.map((r) => r.backend), BACKEND_ORDER);
  const color = (b: string): string => BACKEND_COLOR[b] ?? FALLBACK_COLORS[backends.indexOf(b) % FALLBACK_COLORS.length];

  const cols = Math.max(1, Math.min(sigmas.length, 3));
  const [lo, hi] = logRange(rows.flatMap((r) => [r.medianUs, r.p99Us]));
  const panels: string[] = [];
  let y = HEADER_H;

  for (const set of sets) {
    const setRows = rows.filter((r) => r.set === set);
    if (setRows.length === 0) continue;
    const setSigmas = unique(setRows.map((r) => r.sigma));
    setSigmas.forEach((sigma, i) => {
      const col = i % cols;
      if (i > 0 && col === 0) y += PANEL_H + GAP;
      const sr = setRows.filter((r) => r.sigma === sigma);
      const methods = orderBy(sr.map((r) => r.method), METHOD_ORDER);
      const groups: Group[] = methods.map((method) => ({
        label: method,
        bars: backends
          .map((b) => sr.find((r) => r.method === method && r.backend === b))
          .filter((r): r is BenchRow => r !== undefined)
          .map((r) => ({
            value: r.medianUs,
            whisker: r.p99Us,
            color: color(r.backend),
            label: fmt(r.medianUs) + (r.capped ? '*' : ''),
            tooltip: `${r.set} σ=${r.sigma} ${r.backend} ${r.method}${r.reference ? ' (reference)' : ''}: median ${fmt(r.medianUs)} µs, p99 ${fmt(r.p99Us)} µs, ` +
              `${fmt(r.speedupVsJsBrute)}× JS brute, ${r.queries} queries${r.capped ? ' (time budget)' : ''}, ${r.mismatches}/${r.checked} mismatches`,
            bad: r.mismatches > 0 ? `≠${r.mismatches}` : undefined,
          })),
      }));
      const frames = sr[0].frames;
      panels.push(panel(GAP + col * (PANEL_W + GAP), y, `${set} (${frames} frames), σ = ${sigma}: median µs per query`, groups, lo, hi, timeTick));
    });
    y += PANEL_H + GAP;
  }

  const batch = report.batch;
  let modeItems: Array<{ label: string; color: string }> = [];
  if (batch.length) {
    const modeKey = (b: BatchRow): string => (b.mode === 'pool' ? `pool ${b.threads} thread${b.threads === 1 ? '' : 's'}` : 'searchBatch (calling thread)');
    const modes = unique(batch.map(modeKey));
    const modeColor = (k: string): string => MODE_COLORS[modes.indexOf(k) % MODE_COLORS.length];
    modeItems = modes.map((k) => ({ label: k, color: modeColor(k) }));
    const [blo, bhi] = logRange(batch.map((b) => b.queriesPerSecond));
    const bsets = unique(batch.map((b) => b.set));
    bsets.forEach((set, i) => {
      const col = i % cols;
      if (i > 0 && col === 0) y += PANEL_H + GAP;
      const br = batch.filter((b) => b.set === set);
      const keys = unique(br.map((b) => `${b.method}|${b.sigma}`));
      const groups: Group[] = keys.map((key) => {
        const [method, sigma] = key.split('|');
        return {
          label: `${method} σ${sigma}`,
          bars: br.filter((b) => `${b.method}|${b.sigma}` === key).map((b) => ({
            value: b.queriesPerSecond,
            color: modeColor(modeKey(b)),
            label: rateLabel(b.queriesPerSecond),
            tooltip: `${b.set} σ=${b.sigma} ${b.method} ${modeKey(b)} (${b.backend}): ${Math.round(b.queriesPerSecond)} queries/s, ` +
              `${fmt(b.medianBatchMs)} ms per batch of ${b.batchSize}, ${b.mismatches}/${b.checked} mismatches`,
            bad: b.mismatches > 0 ? `≠${b.mismatches}` : undefined,
          })),
        };
      });
      panels.push(panel(GAP + col * (PANEL_W + GAP), y, `${set}: batch throughput, queries/s`, groups, blo, bhi, rateTick));
    });
    y += PANEL_H + GAP;
  }

  const width = GAP + cols * (PANEL_W + GAP);
  const height = Math.max(y, HEADER_H + 40);
  const m = report.machine;
  const header: string[] = [];
  header.push(`<text x="${GAP}" y="26" font-size="17" font-weight="bold">motionmatch bench: search time per query (log scale) and batch throughput</text>`);
  header.push(`<text x="${GAP}" y="46" font-size="11" fill="#555555">${escapeXml(`${m.cpu}, ${m.cores} cores, Node ${m.node}, ${m.os}, ${m.date}. Bar and label = median, whisker = p99, * = row stopped by its time budget, ≠N = N results differ from JS brute force.`)}</text>`);
  header.push(legend(GAP, 72, backends.map((b) => ({ label: b, color: color(b) }))));
  if (modeItems.length) header.push(legend(GAP + 330, 72, modeItems));
  if (rows.length === 0 && batch.length === 0) header.push(`<text x="${GAP}" y="${HEADER_H + 20}" font-size="13">no results</text>`);

  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif">`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#f7f7f7"/>`,
    ...header,
    ...panels,
    '</svg>',
    '',
  ].join('\n');
}
