/**
 * 2D debug views (canvas), for the player:
 * - the clip playing and where in it, the current and last search cost;
 * - a bar per feature group: how much of the cost between the last query and the playing frame
 *   each group carries (trajectory vs feet vs hips);
 * - a histogram of batch search times over the last frames;
 * - a database timeline: every frame of the database coloured by its cost against the player's
 *   last query (bright = cheap), clips as bands, the playing frame in white, the last transition
 *   in magenta. Hover to see which clip and frame a pixel is.
 */
import type { Database } from '../../src/database/database.js';
import type { MotionMatchingController } from '../../src/runtime/controller/controller.js';
import { groupColumns } from '../../src/features/schema.js';
import type { SampleRing } from './stats.js';

export const GROUP_COLOURS = ['#ff9a3c', '#ffd23f', '#7bd88f', '#4fd8ff', '#b48cff', '#ff6b9a', '#9ad0c2', '#e0e0e0'];

function context(canvas: HTMLCanvasElement): CanvasRenderingContext2D {
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2D canvas context');
  return ctx;
}

/** Text read-out of the clip, frame and costs. */
export function describePlayback(c: MotionMatchingController): string {
  const db = c.db, clip = db.clips[c.clipIndex];
  const speed = Math.hypot(c.simVelocity[0], c.simVelocity[2]);
  const local = c.frame - clip.start;
  const name = `${clip.name}${clip.mirrored ? ' (mirrored)' : ''}`;
  const cost = Number.isFinite(c.lastCost) ? c.lastCost.toFixed(3) : '–';
  // A search that found nothing cheaper than continuing reports the continuing bound (may dip below 0).
  const searched = Number.isFinite(c.lastSearchCost) ? Math.max(0, c.lastSearchCost).toFixed(3) : '–';
  return [
    `clip  ${name}`,
    `frame ${local} / ${clip.count}  (db ${c.frame})  t ${c.clipTime.toFixed(2)} s`,
    `cost  ${cost}  last search ${searched}`,
    `${c.counters.searches} searches  ${c.counters.transitions} transitions  ${speed.toFixed(2)} m/s`,
  ].join('\n');
}

export class CostBars {
  private readonly ctx: CanvasRenderingContext2D;
  private cols: Array<[number, number]> = [];
  private names: string[] = [];
  private scale = 1;
  readonly values: number[] = [];

  constructor(private readonly canvas: HTMLCanvasElement, db: Database) {
    this.ctx = context(canvas);
    this.setDatabase(db);
  }

  setDatabase(db: Database): void {
    this.cols = groupColumns(db.schema);
    this.names = db.schema.groups.map((g) => g.name);
    this.values.length = this.cols.length;
    this.scale = 1;
  }

  /** Per-group squared distance between query (normalised) and frame `frame`'s row. */
  static groupCosts(db: Database, query: Float32Array, frame: number, cols: Array<[number, number]>, out: number[]): void {
    const S = db.stride, f = db.features;
    for (let g = 0; g < cols.length; g++) {
      let sum = 0;
      for (let d = cols[g][0]; d < cols[g][1]; d++) {
        const e = query[d] - f[frame * S + d];
        sum += e * e;
      }
      out[g] = sum;
    }
  }

  draw(c: MotionMatchingController): void {
    CostBars.groupCosts(c.db, c.request.query, c.frame, this.cols, this.values);
    const ctx = this.ctx, W = this.canvas.width, H = this.canvas.height;
    ctx.clearRect(0, 0, W, H);
    let max = 0, total = 0;
    for (const v of this.values) { max = Math.max(max, v); total += v; }
    // Ease the scale so bars do not jump with every frame.
    this.scale = Math.max(0.25, this.scale + (Math.max(max, 0.25) - this.scale) * (max > this.scale ? 0.5 : 0.03));
    const n = this.values.length;
    const rowH = Math.min(18, (H - 14) / Math.max(1, n));
    const labelW = 118, barW = W - labelW - 44;
    ctx.font = '10px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (let g = 0; g < n; g++) {
      const y = g * rowH;
      ctx.fillStyle = '#9aa3ad';
      ctx.fillText(this.names[g], 0, y + rowH / 2);
      ctx.fillStyle = 'rgba(255,255,255,0.06)';
      ctx.fillRect(labelW, y + 2, barW, rowH - 4);
      ctx.fillStyle = GROUP_COLOURS[g % GROUP_COLOURS.length];
      ctx.fillRect(labelW, y + 2, Math.min(barW, (barW * this.values[g]) / this.scale), rowH - 4);
      ctx.fillStyle = '#e6e8eb';
      ctx.fillText(this.values[g].toFixed(2), labelW + barW + 4, y + rowH / 2);
    }
    // Stacked total.
    const y = n * rowH + 2;
    let x = labelW;
    const sumW = barW;
    for (let g = 0; g < n; g++) {
      const w = total > 0 ? (sumW * this.values[g]) / total : 0;
      ctx.fillStyle = GROUP_COLOURS[g % GROUP_COLOURS.length];
      ctx.fillRect(x, y, w, 8);
      x += w;
    }
    ctx.fillStyle = '#9aa3ad';
    ctx.fillText('total', 0, y + 4);
    ctx.fillStyle = '#e6e8eb';
    ctx.fillText(total.toFixed(2), labelW + barW + 4, y + 4);
  }
}

/** Histogram of batch search times (log-spaced bins from 10 µs to 100 ms). */
export class SearchHistogram {
  private readonly ctx: CanvasRenderingContext2D;
  private readonly bins = new Float64Array(28);
  private static readonly LO = Math.log10(0.01);
  private static readonly HI = Math.log10(100);

  constructor(private readonly canvas: HTMLCanvasElement) {
    this.ctx = context(canvas);
  }

  draw(searchMs: SampleRing, searches: SampleRing): void {
    const ctx = this.ctx, W = this.canvas.width, H = this.canvas.height;
    const B = this.bins.length, lo = SearchHistogram.LO, hi = SearchHistogram.HI;
    this.bins.fill(0);
    const n = Math.min(searchMs.size, 240);
    let counted = 0;
    for (let i = 0; i < n; i++) {
      if (searches.recent(i) === 0) continue; // frames without a search say nothing about search speed
      const ms = Math.max(1e-3, searchMs.recent(i));
      const b = Math.min(B - 1, Math.max(0, Math.floor(((Math.log10(ms) - lo) / (hi - lo)) * B)));
      this.bins[b]++;
      counted++;
    }
    ctx.clearRect(0, 0, W, H);
    const plotH = H - 14;
    let peak = 1;
    for (const v of this.bins) peak = Math.max(peak, v);
    const bw = W / B;
    for (let b = 0; b < B; b++) {
      const h = (plotH * this.bins[b]) / peak;
      ctx.fillStyle = '#4fd8ff';
      ctx.fillRect(b * bw + 1, plotH - h, bw - 2, h);
    }
    ctx.font = '9px system-ui, sans-serif';
    ctx.fillStyle = '#9aa3ad';
    ctx.textBaseline = 'top';
    for (const [label, ms] of [['0.01', 0.01], ['0.1', 0.1], ['1', 1], ['10', 10], ['100 ms', 100]] as const) {
      const x = ((Math.log10(ms) - lo) / (hi - lo)) * W;
      ctx.fillRect(x, plotH, 1, 3);
      ctx.fillText(label, Math.min(W - 28, Math.max(0, x - 6)), plotH + 3);
    }
    if (counted === 0) {
      ctx.fillStyle = '#9aa3ad';
      ctx.fillText('no searches yet', 4, 4);
    }
  }
}

/** Every database frame coloured by its cost against the player's last query. */
export class DatabaseTimeline {
  private readonly ctx: CanvasRenderingContext2D;
  private db: Database;
  private costs = new Float32Array(0);
  private image: ImageData | null = null;
  private framesSinceCompute = 1e9;
  private hoverX = -1;
  /** Frames between cost refreshes (grows with the database so the pass stays ~1 ms). */
  private interval = 6;

  constructor(private readonly canvas: HTMLCanvasElement, db: Database, private readonly hoverLabel: HTMLElement) {
    this.ctx = context(canvas);
    this.db = db;
    this.setDatabase(db);
    canvas.addEventListener('mousemove', (e) => {
      const r = canvas.getBoundingClientRect();
      this.hoverX = ((e.clientX - r.left) / r.width) * canvas.width;
    });
    canvas.addEventListener('mouseleave', () => {
      this.hoverX = -1;
      this.hoverLabel.textContent = '';
    });
  }

  setDatabase(db: Database): void {
    this.db = db;
    this.costs = new Float32Array(db.frameCount);
    this.framesSinceCompute = 1e9;
    this.interval = Math.max(6, Math.ceil((db.frameCount * db.stride) / 400_000) * 6);
  }

  /** Cost of every frame against the query (the plain-JS reference of the search's cost). */
  private compute(query: Float32Array): void {
    const db = this.db, S = db.stride, f = db.features, N = db.frameCount, out = this.costs;
    for (let i = 0; i < N; i++) {
      let sum = 0;
      const o = i * S;
      for (let d = 0; d < S; d++) {
        const e = query[d] - f[o + d];
        sum += e * e;
      }
      out[i] = sum;
    }
  }

  draw(c: MotionMatchingController): void {
    const W = Math.max(64, Math.floor(this.canvas.clientWidth || this.canvas.width));
    if (this.canvas.width !== W) this.canvas.width = W;
    const H = this.canvas.height;
    if (++this.framesSinceCompute >= this.interval) {
      this.compute(c.request.query);
      this.framesSinceCompute = 0;
    }
    const db = this.db, N = db.frameCount;
    if (!this.image || this.image.width !== W || this.image.height !== H) this.image = this.ctx.createImageData(W, H);
    const img = this.image, px = img.data;
    // Colour scale: log cost between the cheapest frame and a high percentile-ish bound.
    let min = Infinity, mean = 0, count = 0;
    for (let i = 0; i < N; i++) {
      if (!db.candidates[i]) continue;
      const v = this.costs[i];
      if (v < min) min = v;
      mean += v;
      count++;
    }
    mean = count ? mean / count : 1;
    const lo = Math.log(Math.max(min, 1e-4)), hi = Math.log(Math.max(mean, min * 4, 1e-3));
    const bandTop = H - 7;
    for (let x = 0; x < W; x++) {
      const a = Math.floor((x * N) / W), b = Math.max(a + 1, Math.floor(((x + 1) * N) / W));
      let best = Infinity, any = false;
      for (let i = a; i < b; i++) {
        if (!db.candidates[i]) continue;
        any = true;
        if (this.costs[i] < best) best = this.costs[i];
      }
      let r: number, g: number, bl: number;
      if (!any) {
        r = 38; g = 42; bl = 48;
      } else {
        const t = Math.min(1, Math.max(0, (Math.log(Math.max(best, 1e-4)) - lo) / (hi - lo || 1)));
        [r, g, bl] = ramp(1 - t);
      }
      for (let y = 0; y < bandTop; y++) {
        const o = (y * W + x) * 4;
        px[o] = r; px[o + 1] = g; px[o + 2] = bl; px[o + 3] = 255;
      }
    }
    // Clip bands underneath (alternating shades; mirrored clips tinted).
    for (let k = 0; k < db.clips.length; k++) {
      const clip = db.clips[k];
      const x0 = Math.floor((clip.start * W) / N), x1 = Math.max(x0 + 1, Math.floor(((clip.start + clip.count) * W) / N));
      const shade = k % 2 ? 90 : 130;
      for (let x = x0; x < Math.min(W, x1); x++) {
        for (let y = bandTop; y < H; y++) {
          const o = (y * W + x) * 4;
          px[o] = shade; px[o + 1] = shade; px[o + 2] = clip.mirrored ? shade + 50 : shade; px[o + 3] = 255;
        }
      }
    }
    this.ctx.putImageData(img, 0, 0);
    const mark = (frame: number, colour: string, width: number): void => {
      if (frame < 0) return;
      this.ctx.fillStyle = colour;
      this.ctx.fillRect(Math.floor((frame * W) / N) - (width >> 1), 0, width, H);
    };
    mark(c.lastTransitionFrame, '#ff4fd8', 2);
    mark(c.frame, '#ffffff', 2);
    if (this.hoverX >= 0) {
      const f = Math.min(N - 1, Math.max(0, Math.floor((this.hoverX * N) / W)));
      const ci = c.rt.clipOf[f];
      const clip = db.clips[ci];
      this.hoverLabel.textContent = `${clip.name}${clip.mirrored ? ' (mirrored)' : ''} frame ${f - clip.start} · cost ${this.costs[f].toFixed(3)}${db.candidates[f] ? '' : ' (not a candidate)'}`;
      this.ctx.fillStyle = 'rgba(255,255,255,0.5)';
      this.ctx.fillRect(Math.floor(this.hoverX), 0, 1, H);
    }
  }
}

/** A dark-blue -> purple -> orange -> pale-yellow ramp, t in [0, 1] (1 = brightest = cheapest). */
function ramp(t: number): [number, number, number] {
  const stops: Array<[number, number, number]> = [[20, 24, 60], [90, 40, 120], [200, 70, 80], [250, 160, 60], [255, 245, 170]];
  const x = t * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x)), u = x - i;
  const a = stops[i], b = stops[i + 1];
  return [a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u, a[2] + (b[2] - a[2]) * u];
}
