/**
 * The front of a tuning sweep as an SVG: trajectory error (responsiveness) across, and down the
 * panels the quality index and the four quality measures. Every evaluated point is a grey dot,
 * Pareto-front points are blue, the 2-D front of the first panel is a line, the defaults a white
 * diamond and the recommendation an orange ring. Lower is better on every axis.
 */
import type { TuneResult } from './tune.js';
import type { TuneObjectives } from './front.js';

interface Panel {
  title: string;
  y: (i: number) => number;
  line: boolean;
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** About five round tick values covering [lo, hi]. */
export function niceTicks(lo: number, hi: number): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / 5, mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((k) => k * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(10)));
  return out;
}

function padRange(values: number[]): [number, number] {
  const lo = Math.min(...values), hi = Math.max(...values);
  const pad = (hi - lo) * 0.06 || Math.abs(hi) * 0.1 || 1;
  return [lo - pad, hi + pad];
}

export function tuneFrontSvg(result: TuneResult, o: { title: string; subtitle?: string }): string {
  const ev = result.evaluations;
  const front = new Set(result.front);
  const obj = (k: keyof TuneObjectives) => (i: number) => ev[i].objectives[k];
  const panels: Panel[] = [
    { title: 'quality index (mean of the four below over the defaults\'; 1 = defaults)', y: (i) => ev[i].qualityIndex, line: true },
    { title: 'foot skate, near-ground mean (cm/s)', y: obj('footSkateCmPerSec'), line: false },
    { title: 'feet below the ground, depth p99 (cm)', y: obj('belowGroundP99Cm'), line: false },
    { title: 'pops: per-step velocity change p99.9 (m/s)', y: obj('popP999'), line: false },
    { title: 'transitions per second', y: obj('transitionsPerSec'), line: false },
  ];
  const pw = 400, ph = 230, left = 60, top = 88, gapX = 70, gapY = 70;
  const W = left + 2 * pw + gapX + 24;
  const rows = Math.ceil(panels.length / 2);
  const H = top + rows * ph + (rows - 1) * gapY + 74;
  const xs = ev.map((e) => e.objectives.trajectoryErrorCm);
  const [x0, x1] = padRange(xs);
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="system-ui, sans-serif">`);
  out.push(`<rect width="${W}" height="${H}" fill="#1b1f25"/>`);
  out.push(`<text x="${left}" y="26" font-size="16" fill="#e6e8eb">${esc(o.title)}</text>`);
  if (o.subtitle) out.push(`<text x="${left}" y="44" font-size="11" fill="#9aa3ad">${esc(o.subtitle)}</text>`);
  panels.forEach((p, k) => {
    const px = left + (k % 2) * (pw + gapX), py = top + Math.floor(k / 2) * (ph + gapY);
    const ys = ev.map((_, i) => p.y(i));
    const [y0, y1] = padRange(ys);
    const sx = (v: number) => px + ((v - x0) / (x1 - x0)) * pw;
    const sy = (v: number) => py + ph - ((v - y0) / (y1 - y0)) * ph;
    out.push(`<rect x="${px}" y="${py}" width="${pw}" height="${ph}" fill="#20252d" stroke="#3a424d"/>`);
    out.push(`<text x="${px}" y="${py - 8}" font-size="11" fill="#e6e8eb">${esc(p.title)}</text>`);
    for (const t of niceTicks(x0, x1)) {
      out.push(`<line x1="${sx(t).toFixed(1)}" y1="${py + ph}" x2="${sx(t).toFixed(1)}" y2="${py + ph + 4}" stroke="#6b7480"/>`);
      out.push(`<text x="${sx(t).toFixed(1)}" y="${py + ph + 15}" font-size="9" fill="#9aa3ad" text-anchor="middle">${t}</text>`);
    }
    out.push(`<text x="${px + pw / 2}" y="${py + ph + 30}" font-size="10" fill="#9aa3ad" text-anchor="middle">trajectory error at 1 s (cm) — responsiveness, lower is better</text>`);
    for (const t of niceTicks(y0, y1)) {
      out.push(`<line x1="${px - 4}" y1="${sy(t).toFixed(1)}" x2="${px + pw}" y2="${sy(t).toFixed(1)}" stroke="#2c333c"/>`);
      out.push(`<text x="${px - 7}" y="${(sy(t) + 3).toFixed(1)}" font-size="9" fill="#9aa3ad" text-anchor="end">${t}</text>`);
    }
    if (p.line && result.front2d.length > 1) {
      const pts = result.front2d.map((i) => `${sx(xs[i]).toFixed(1)},${sy(ys[i]).toFixed(1)}`).join(' ');
      out.push(`<polyline points="${pts}" fill="none" stroke="#5ec8ff" stroke-width="1.5"/>`);
    }
    ev.forEach((e, i) => {
      const cx = sx(xs[i]).toFixed(1), cy = sy(ys[i]).toFixed(1);
      const tip = `#${i} ${e.phase}: trajectory error ${xs[i].toFixed(2)} cm, quality index ${e.qualityIndex.toFixed(3)}`;
      out.push(`<circle cx="${cx}" cy="${cy}" r="${front.has(i) ? 3.6 : 2.4}" fill="${front.has(i) ? '#5ec8ff' : '#6b7480'}"><title>${esc(tip)}</title></circle>`);
    });
    const d = 0;
    out.push(`<path d="M${sx(xs[d]).toFixed(1)},${(sy(ys[d]) - 6).toFixed(1)} l6,6 l-6,6 l-6,-6 Z" fill="#ffffff"><title>defaults</title></path>`);
    if (result.recommended !== null) {
      const r = result.recommended;
      out.push(`<circle cx="${sx(xs[r]).toFixed(1)}" cy="${sy(ys[r]).toFixed(1)}" r="7" fill="none" stroke="#ffb347" stroke-width="2.2"><title>recommended (#${r})</title></circle>`);
    }
  });
  const ly = H - 10;
  out.push(`<circle cx="${left}" cy="${ly - 4}" r="2.4" fill="#6b7480"/><text x="${left + 8}" y="${ly}" font-size="10" fill="#9aa3ad">evaluated</text>`);
  out.push(`<circle cx="${left + 80}" cy="${ly - 4}" r="3.6" fill="#5ec8ff"/><text x="${left + 88}" y="${ly}" font-size="10" fill="#9aa3ad">Pareto front (all four measures)</text>`);
  out.push(`<path d="M${left + 270},${ly - 10} l6,6 l-6,6 l-6,-6 Z" fill="#ffffff"/><text x="${left + 280}" y="${ly}" font-size="10" fill="#9aa3ad">defaults</text>`);
  out.push(`<circle cx="${left + 350}" cy="${ly - 4}" r="6" fill="none" stroke="#ffb347" stroke-width="2"/><text x="${left + 362}" y="${ly}" font-size="10" fill="#9aa3ad">recommended</text>`);
  out.push('</svg>');
  return out.join('\n');
}
