/**
 * Frame statistics: fixed-size rings of samples with median / mean / percentile read-outs.
 * Allocation-free per sample; a read-out sorts a scratch copy (60-240 numbers).
 */
import type { EngineMode } from './engines.js';
import type { Readouts } from './ui.js';

export class SampleRing {
  private readonly values: Float64Array;
  private readonly scratch: Float64Array;
  private head = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    this.values = new Float64Array(capacity);
    this.scratch = new Float64Array(capacity);
  }

  push(v: number): void {
    this.values[this.head] = v;
    this.head = (this.head + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  clear(): void {
    this.head = 0;
    this.count = 0;
  }

  get size(): number {
    return this.count;
  }

  /** The i-th most recent sample (0 = newest). */
  recent(i: number): number {
    return this.values[(this.head - 1 - i + 2 * this.capacity) % this.capacity];
  }

  /** The newest `n` (default all) samples, oldest first, into a view of the scratch buffer. */
  last(n = this.count): Float64Array {
    const k = Math.min(n, this.count);
    for (let i = 0; i < k; i++) this.scratch[i] = this.recent(k - 1 - i);
    return this.scratch.subarray(0, k);
  }

  /** q-quantile (0..1) of the newest `n` samples; NaN when empty. */
  quantile(q: number, n = this.count): number {
    const s = this.last(n);
    if (s.length === 0) return Number.NaN;
    s.sort();
    const pos = Math.min(s.length - 1, Math.max(0, q * (s.length - 1)));
    const lo = Math.floor(pos), hi = Math.ceil(pos);
    return s[lo] + (s[hi] - s[lo]) * (pos - lo);
  }

  median(n = this.count): number {
    return this.quantile(0.5, n);
  }

  mean(n = this.count): number {
    const k = Math.min(n, this.count);
    if (k === 0) return Number.NaN;
    let sum = 0;
    for (let i = 0; i < k; i++) sum += this.recent(i);
    return sum / k;
  }

  /** Median, mean, 95th percentile, min and max of the newest n samples. */
  summary(n = this.count): { median: number; mean: number; p95: number; min: number; max: number } {
    const s = this.last(n);
    if (s.length === 0) return { median: Number.NaN, mean: Number.NaN, p95: Number.NaN, min: Number.NaN, max: Number.NaN };
    s.sort();
    const q = (f: number): number => {
      const pos = f * (s.length - 1), lo = Math.floor(pos), hi = Math.ceil(pos);
      return s[lo] + (s[hi] - s[lo]) * (pos - lo);
    };
    let sum = 0;
    for (const v of s) sum += v;
    return { median: q(0.5), mean: sum / s.length, p95: q(0.95), min: s[0], max: s[s.length - 1] };
  }

  max(n = this.count): number {
    const k = Math.min(n, this.count);
    let m = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < k; i++) m = Math.max(m, this.recent(i));
    return k ? m : Number.NaN;
  }
}

/** Per-frame timings the engine reports (milliseconds) and the searches it made. */
export interface StepTiming {
  prepareMs: number;
  searchMs: number;
  completeMs: number;
  updateMs: number;
  searches: number;
  /** With levels of detail: agents at each level in this step. */
  levels?: number[];
  /** With levels of detail: agents whose pose was held out of view in this step. */
  held?: number;
  /** Split engine: the slower worker's own step (AI, step, pose copy) and how much faster the other was. */
  workerMs?: number;
  imbalanceMs?: number;
  /** Split engine: the slower worker's copy of the poses into the draw buffer (within workerMs). */
  copyMs?: number;
}

/** Everything the read-outs and the automation handle show. */
export class FrameStats {
  readonly update = new SampleRing(240);
  readonly prepare = new SampleRing(240);
  readonly search = new SampleRing(240);
  readonly complete = new SampleRing(240);
  /** Microseconds per query of frames that searched. */
  readonly perQuery = new SampleRing(240);
  readonly searches = new SampleRing(240);
  readonly render = new SampleRing(240);
  /** Wall time between frames (ms). */
  readonly interval = new SampleRing(240);
  /** Split engine: the slower worker's step, the gap to the faster one, and its pose copy (NaN in other modes). */
  readonly worker = new SampleRing(240);
  readonly imbalance = new SampleRing(240);
  readonly copy = new SampleRing(240);
  /** With levels of detail: agents whose pose was held out of view (NaN without). */
  readonly held = new SampleRing(240);
  frames = 0;
  /** With levels of detail: agents at each level in the last step (empty without). */
  readonly levels: number[] = [];
  private lastFrameAt = Number.NaN;

  record(t: StepTiming): void {
    this.frames++;
    this.update.push(t.updateMs);
    this.prepare.push(t.prepareMs);
    this.search.push(t.searchMs);
    this.complete.push(t.completeMs);
    this.searches.push(t.searches);
    if (t.searches > 0) this.perQuery.push((1000 * t.searchMs) / t.searches);
    this.worker.push(t.workerMs ?? Number.NaN);
    this.imbalance.push(t.imbalanceMs ?? Number.NaN);
    this.copy.push(t.copyMs ?? Number.NaN);
    this.held.push(t.held ?? Number.NaN);
    this.levels.length = 0;
    if (t.levels) for (const n of t.levels) this.levels.push(n);
  }

  /** Call once per displayed frame with performance.now(). */
  tick(now: number): void {
    if (!Number.isNaN(this.lastFrameAt)) this.interval.push(now - this.lastFrameAt);
    this.lastFrameAt = now;
  }

  get fps(): number {
    const ms = this.interval.median(60);
    return ms > 0 ? 1000 / ms : Number.NaN;
  }

  /** The page's figures for `engine`, with `drawn` characters drawn (ui.ts readouts). */
  readouts(engine: { workerShare: number; threads: number; mode: EngineMode; agentCount: number }, drawn: number, software: boolean): Readouts {
    return {
      fps: this.fps, frameMs: this.interval.median(60), updateMs: this.update.median(60), searchMs: this.search.median(60),
      queryUs: this.perQuery.median(60), searches: this.searches.mean(60), renderMs: this.render.median(60),
      workerShare: engine.workerShare, threads: engine.threads, mode: engine.mode, agents: engine.agentCount, drawn, software,
    };
  }

  window(n: number) {
    const k = Math.max(1, Math.min(240, Math.floor(n)));
    let searches = 0, searchMs = 0;
    const m = Math.min(k, this.searches.size);
    for (let i = 0; i < m; i++) { searches += this.searches.recent(i); searchMs += this.search.recent(i); }
    return {
      frames: Math.min(k, this.update.size),
      updateMs: this.update.summary(k),
      prepareMs: this.prepare.summary(k),
      searchMs: this.search.summary(k),
      completeMs: this.complete.summary(k),
      renderMs: this.render.summary(k),
      intervalMs: this.interval.summary(k),
      workerMs: this.worker.summary(k),
      imbalanceMs: this.imbalance.summary(k),
      copyMs: this.copy.summary(k),
      held: this.held.summary(k),
      searchesPerFrame: m ? searches / m : Number.NaN,
      searchUsPerQuery: searches ? (1000 * searchMs) / searches : Number.NaN,
    };
  }

  reset(): void {
    for (const r of [this.update, this.prepare, this.search, this.complete, this.perQuery, this.searches, this.render, this.interval, this.worker, this.imbalance, this.copy, this.held]) r.clear();
    this.lastFrameAt = Number.NaN;
  }
}
