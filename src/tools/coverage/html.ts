/**
 * The coverage report as one self-contained HTML page (inline SVG and CSS, no JavaScript, no
 * request: it opens from disk): the capture requests, then a polar heat map per speed band and measure.
 * The report's JSON rides along in a <script type="application/json"> element, so the demo's
 * coverage panel can load the page itself as well as the JSON.
 */
import { COVERAGE_MEASURES, THIN_COST, UNCOVERED_COST } from './measures.js';
import { legendSvg, polarMapSvg } from './svg.js';
import { COVERAGE_REPORT_VERSION, type CoverageReport } from './coverage.js';

/** The id of the element that carries the report's JSON in the page. */
export const COVERAGE_JSON_ELEMENT_ID = 'coverage-report';

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** JSON that can sit inside a <script> element (no "</script>", no "<!--"). */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/**
 * A coverage report from the text of a report file: the JSON `motionmatch coverage --json` prints,
 * or an HTML page it wrote (the JSON embedded in it). Throws Error naming `source` and the problem.
 */
export function parseCoverageReport(text: string, source = 'coverage report'): CoverageReport {
  let value: unknown;
  const trimmed = text.trimStart();
  try {
    if (trimmed.startsWith('{')) value = JSON.parse(trimmed);
    else {
      const m = new RegExp(`<script type="application/json" id="${COVERAGE_JSON_ELEMENT_ID}">([\\s\\S]*?)</script>`).exec(text);
      if (!m) throw new Error('neither the JSON of `motionmatch coverage --json` nor an HTML page written by `motionmatch coverage --out`');
      value = JSON.parse(m[1]);
    }
  } catch (e) {
    throw new Error(`${source}: ${(e as Error).message}`);
  }
  const r = value as Partial<CoverageReport> | null;
  if (!r || typeof r !== 'object') throw new Error(`${source}: not a coverage report`);
  if (r.version !== COVERAGE_REPORT_VERSION) throw new Error(`${source}: coverage report version ${String(r.version)}, this engine reads version ${COVERAGE_REPORT_VERSION}`);
  const numbers = (a: unknown): boolean => Array.isArray(a) && a.every((x) => typeof x === 'number' && Number.isFinite(x));
  if (!r.grid || !numbers(r.grid.speeds) || !numbers(r.grid.directions) || !numbers(r.grid.turnRates)) throw new Error(`${source}: the report's grid is missing or damaged`);
  if (!Array.isArray(r.cells) || r.cells.length === 0) throw new Error(`${source}: the report has no cells`);
  for (const c of r.cells) {
    if (!c || typeof c.speed !== 'number' || typeof c.direction !== 'number' || typeof c.turnRate !== 'number' || typeof c.bestCost !== 'number' || typeof c.verdict !== 'string') {
      throw new Error(`${source}: cell ${r.cells.indexOf(c)} is damaged (speed, direction, turnRate, bestCost and verdict are required)`);
    }
  }
  if (!r.database || !Array.isArray(r.requests) || !r.summary || !r.settings) throw new Error(`${source}: the report lacks its database, settings, summary or requests`);
  return r as CoverageReport;
}

const STYLE = `
body { background: #1b1f25; color: #e6e8eb; font: 13px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; margin: 24px; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 15px; margin: 22px 0 8px; }
.dim, figcaption { color: #9aa3ad; } code { background: #242a33; padding: 1px 4px; border-radius: 3px; }
.summary span { margin-right: 14px; } .uncovered { color: #ff6b6b; } .thin { color: #ffb347; } .covered { color: #7bd88f; }
ol.requests li { margin: 4px 0; } ol.requests .tag { font-size: 11px; border-radius: 3px; padding: 0 4px; margin-right: 6px; border: 1px solid currentColor; }
table.maps { border-collapse: collapse; } table.maps th { font-weight: 600; text-align: left; padding: 4px 8px; vertical-align: bottom; }
table.maps td { padding: 2px 4px; } table.maps th.speed { vertical-align: middle; white-space: nowrap; }
.legend { font-size: 11px; color: #9aa3ad; max-width: 200px; }
`;

export interface CoverageHtmlOptions {
  /** The command that made the report (shown so the page can be reproduced). */
  command?: string;
}

export function coverageHtml(report: CoverageReport, o: CoverageHtmlOptions = {}): string {
  const measures = COVERAGE_MEASURES.filter((m) => m.key === 'bestCost' || report.settings.run !== null);
  const db = report.database;
  const s = report.summary;
  const out: string[] = [];
  out.push('<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">');
  out.push(`<title>coverage: ${esc(db.name)}</title><style>${STYLE}</style></head><body>`);
  out.push(`<h1>Coverage of ${esc(db.name)}</h1>`);
  out.push(`<p class="dim">${db.frames.toLocaleString('en-US')} frames in ${db.clips} clips${db.mirrored ? ' (mirrored copies included)' : ' (no mirrored copies)'}; top speed ${db.topSpeed.toFixed(2)} m/s;`
    + ` tags: ${db.tags.length ? esc(db.tags.join(', ')) : 'none'}${report.settings.requireTags.length ? `; only frames tagged ${esc(report.settings.requireTags.join(' + '))}` : ''}`
    + `${report.settings.excludeTags.length ? `; frames tagged ${esc(report.settings.excludeTags.join(', '))} left out` : ''}. ${report.cells.length} requests measured in ${report.seconds.toFixed(1)} s.</p>`);
  if (o.command) out.push(`<p class="dim">Made with <code>${esc(o.command)}</code></p>`);
  out.push(`<p class="summary"><span class="covered">${s.covered} covered</span><span class="thin">${s.thin} thin</span><span class="uncovered">${s.uncovered} uncovered</span></p>`);

  out.push('<h2>What to capture next</h2>');
  if (report.requests.length === 0) out.push('<p>Every request of the grid is covered.</p>');
  else {
    out.push('<ol class="requests">');
    for (const r of report.requests) out.push(`<li><span class="tag ${r.verdict}">${r.verdict}</span>${esc(r.text)}</li>`);
    out.push('</ol>');
  }
  out.push(`<p class="dim">A request is <span class="uncovered">uncovered</span> when its best match cost is at least ${UNCOVERED_COST} × (1 + v²) (v: speed in m/s; costs grow with the square of speed),`
    + ` <span class="thin">thin</span> from ${THIN_COST} × (1 + v²), or when the controller run strays (trajectory error ≥ 25 cm, facing error ≥ 30°, foot skate ≥ 10 cm/s).</p>`);

  out.push('<h2>Maps</h2>');
  out.push('<p class="dim">Each disc is one speed band seen from above: the angle is the direction of travel relative to facing (forward up, left on the left),'
    + ` the rings are turn rates from the fastest right turn (inside) to the fastest left turn (outside): ${report.grid.turnRates.map((r) => `${r > 0 ? '+' : ''}${r}°/s`).join(', ')};`
    + ' the outlined ring walks straight. Hover a cell for its figures.</p>');
  out.push('<table class="maps"><tr><th></th>');
  for (const m of measures) out.push(`<th>${esc(m.label)}${m.unit ? ` (${esc(m.unit)})` : ''}<div class="legend">${legendSvg(m)}</div></th>`);
  out.push('</tr>');
  for (const speed of report.grid.speeds) {
    out.push(`<tr><th class="speed">${speed === 0 ? 'standing' : `${speed.toFixed(1)} m/s`}</th>`);
    for (const m of measures) out.push(`<td>${polarMapSvg(report, speed, m)}</td>`);
    out.push('</tr>');
  }
  out.push('</table>');
  out.push('<h2>Measures</h2><ul>');
  for (const m of measures) out.push(`<li><b>${esc(m.label)}</b>: ${esc(m.help)}.</li>`);
  out.push('</ul>');
  out.push(`<script type="application/json" id="${COVERAGE_JSON_ELEMENT_ID}">${scriptSafeJson(report)}</script>`);
  out.push('</body></html>');
  return out.join('\n');
}
