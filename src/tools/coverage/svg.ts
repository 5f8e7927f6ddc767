/**
 * Polar heat maps of a coverage report: one per speed band and measure. Angle = direction of
 * travel relative to facing (forward up, left on the left: the view from above and behind the
 * character), rings = turn rate (innermost = fastest right turn, outermost = fastest left turn),
 * colour = the measure from green (good) through yellow to red (bad), grey = not measured.
 * Plain SVG strings: the HTML report inlines them and the demo's panel draws them and places the
 * player's current request on them (polarPoint).
 */
import { describeCell } from './grid.js';
import { judgedValue, type CoverageMeasure } from './measures.js';
import type { CoverageCellResult, CoverageReport } from './coverage.js';

export interface PolarLayout {
  size: number;
  cx: number;
  cy: number;
  /** Inner and outer radius of the rings. */
  inner: number;
  outer: number;
  /** Signed turn rates, ascending: ring i spans [inner + i·w, inner + (i+1)·w]. */
  turnRates: readonly number[];
  /** Directions (degrees) of the sectors, evenly spaced. */
  directions: readonly number[];
}

export function polarLayout(report: Pick<CoverageReport, 'grid'>, size = 190): PolarLayout {
  // Room around the disc for the direction labels (the widest, "right", is ~26 px).
  return { size, cx: size / 2, cy: size / 2, inner: 0.1 * size, outer: 0.34 * size, turnRates: report.grid.turnRates, directions: report.grid.directions };
}

function ringWidth(l: PolarLayout): number {
  return (l.outer - l.inner) / Math.max(1, l.turnRates.length);
}

/** Screen position of direction `deg` (0 = up, +90 = left) at radius r. */
function at(l: PolarLayout, deg: number, r: number): [number, number] {
  const a = (deg * Math.PI) / 180;
  return [l.cx - r * Math.sin(a), l.cy - r * Math.cos(a)];
}

/**
 * Where a request (direction in degrees, turn rate in degrees per second) lies on the map: turn
 * rates between the grid's are placed between its rings, those beyond them at the edge.
 */
export function polarPoint(l: PolarLayout, direction: number, turnRate: number): { x: number; y: number } {
  const rates = l.turnRates, w = ringWidth(l);
  let ring: number;
  if (rates.length <= 1 || turnRate <= rates[0]) ring = 0;
  else if (turnRate >= rates[rates.length - 1]) ring = rates.length - 1;
  else {
    let i = 0;
    while (turnRate > rates[i + 1]) i++;
    ring = i + (turnRate - rates[i]) / (rates[i + 1] - rates[i]);
  }
  const [x, y] = at(l, direction, l.inner + (ring + 0.5) * w);
  return { x, y };
}

/** Colour of a judged value on a measure's scale: green at or below `good`, red at or above `bad`. */
export function measureColour(m: Pick<CoverageMeasure, 'good' | 'bad'>, v: number | null): string {
  if (v === null || !Number.isFinite(v)) return v === null ? '#555b63' : '#8b1e1e';
  const t = Math.max(0, Math.min(1, (v - m.good) / (m.bad - m.good)));
  // Hue 130 (green) to 0 (red) through yellow; bad values also darker.
  const hue = Math.round(130 * (1 - t));
  const light = Math.round(46 - 8 * t);
  return `hsl(${hue}, 62%, ${light}%)`;
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function sectorPath(l: PolarLayout, d0: number, d1: number, r0: number, r1: number): string {
  const [ax, ay] = at(l, d0, r1), [bx, by] = at(l, d1, r1), [cx, cy] = at(l, d1, r0), [dx, dy] = at(l, d0, r0);
  const large = d1 - d0 > 180 ? 1 : 0;
  const f = (n: number) => n.toFixed(2);
  // Increasing direction runs counter-clockwise on screen (sweep flag 0).
  return `M${f(ax)},${f(ay)}A${f(r1)},${f(r1)} 0 ${large} 0 ${f(bx)},${f(by)}L${f(cx)},${f(cy)}A${f(r0)},${f(r0)} 0 ${large} 1 ${f(dx)},${f(dy)}Z`;
}

/** A cell's figure as shown in its tooltip. */
export function formatMeasure(m: CoverageMeasure, c: CoverageCellResult): string {
  const v = c[m.key];
  if (v === null) return `${m.label}: not measured`;
  const judged = m.key === 'bestCost' ? ` (${(judgedValue(m.key, c) ?? 0).toFixed(2)} × (1 + v²))` : '';
  return `${m.label}: ${v.toFixed(m.digits)}${m.unit ? ` ${m.unit}` : ''}${judged}`;
}

/** One polar map: the cells of speed `speed` coloured by measure `m`. */
export function polarMapSvg(report: CoverageReport, speed: number, m: CoverageMeasure, opts: { size?: number; title?: string; id?: string } = {}): string {
  const l = polarLayout(report, opts.size);
  const w = ringWidth(l);
  const cells = report.cells.filter((c) => c.speed === speed);
  const n = l.directions.length, span = 360 / Math.max(1, n);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${l.size} ${l.size}" width="${l.size}" height="${l.size}" role="img"${opts.id ? ` id="${escapeXml(opts.id)}"` : ''} class="polar" data-speed="${speed}" data-measure="${m.key}">`);
  parts.push(`<title>${escapeXml(opts.title ?? `${m.label} at ${speed.toFixed(1)} m/s`)}</title>`);
  for (const c of cells) {
    const ring = l.turnRates.indexOf(c.turnRate);
    if (ring < 0) continue;
    const r0 = l.inner + ring * w, r1 = r0 + w - 0.6;
    const fill = measureColour(m, judgedValue(m.key, c));
    const tip = escapeXml(`${describeCell(c)}\n${formatMeasure(m, c)}\nverdict: ${c.verdict}${c.nearest[0] ? `\nnearest clip: ${c.nearest[0].name}${c.nearest[0].mirrored ? ' (mirrored)' : ''}` : ''}`);
    if (speed === 0) {
      parts.push(`<circle cx="${l.cx}" cy="${l.cy}" r="${((r0 + r1) / 2).toFixed(2)}" fill="none" stroke="${fill}" stroke-width="${(r1 - r0).toFixed(2)}" data-cell="${c.index}"><title>${tip}</title></circle>`);
    } else {
      const d0 = c.direction - span / 2 + 0.4, d1 = c.direction + span / 2 - 0.4;
      parts.push(`<path d="${sectorPath(l, d0, d1, r0, r1)}" fill="${fill}" data-cell="${c.index}"><title>${tip}</title></path>`);
    }
  }
  // The straight-ahead ring outlined, and the four directions named.
  const zero = l.turnRates.indexOf(0);
  if (zero >= 0) {
    for (const r of [l.inner + zero * w, l.inner + (zero + 1) * w - 0.6]) parts.push(`<circle cx="${l.cx}" cy="${l.cy}" r="${r.toFixed(2)}" fill="none" stroke="#ffffff" stroke-opacity="0.35" stroke-width="0.6"/>`);
  }
  const label = (deg: number, text: string, anchor: string) => {
    const [x, y] = at(l, deg, l.outer + 6);
    parts.push(`<text x="${x.toFixed(1)}" y="${(y + 3).toFixed(1)}" font-size="9" fill="#9aa3ad" text-anchor="${anchor}">${text}</text>`);
  };
  label(0, 'fwd', 'middle');
  label(90, 'left', 'end');
  label(-90, 'right', 'start');
  label(180, 'back', 'middle');
  parts.push('</svg>');
  return parts.join('');
}

/** The colour scale of a measure as a small horizontal bar with its good and bad marks. */
export function legendSvg(m: CoverageMeasure, width = 190): string {
  const stops = Array.from({ length: 11 }, (_, i) => {
    const v = m.good + ((m.bad - m.good) * i) / 10;
    return `<stop offset="${i * 10}%" stop-color="${measureColour(m, v)}"/>`;
  }).join('');
  const id = `grad-${m.key}`;
  const unit = m.key === 'bestCost' ? ' × (1 + v²)' : m.unit ? ` ${m.unit}` : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="26" viewBox="0 0 ${width} 26"><defs><linearGradient id="${id}">${stops}</linearGradient></defs>`
    + `<rect x="0" y="2" width="${width}" height="9" fill="url(#${id})"/>`
    + `<text x="0" y="23" font-size="9" fill="#9aa3ad">≤ ${m.good}${unit}</text><text x="${width}" y="23" font-size="9" fill="#9aa3ad" text-anchor="end">≥ ${m.bad}${unit}</text></svg>`;
}
