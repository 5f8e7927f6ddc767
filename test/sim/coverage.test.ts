/**
 * Coverage (src/tools/coverage/): the request grid and its names, the ideal query (the same
 * springs as the controller), the exact best match, the verdicts and capture requests, the maps
 * and the report formats — and that it tells the truth on built-in data with holes made on purpose.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { generateBuiltinClips } from '../../src/builtin/generate.js';
import { buildDatabase } from '../../src/database/build.js';
import type { Database } from '../../src/database/database.js';
import { Matcher } from '../../src/search/matcher.js';
import { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { DEFAULT_CONTROLLER_OPTIONS } from '../../src/runtime/controller/options.js';
import { databaseRuntime } from '../../src/runtime/database-runtime.js';
import { quatInvRotateVec3, quatRotateVec3 } from '../../src/math/quat.js';
import { trajectoryLayout } from '../../src/runtime/controller/trajectory-layout.js';
import { coverageGrid, databaseTopSpeed, describeCell, evenSpeeds, motionName, wrapDegrees, type CoverageCell } from '../../src/tools/coverage/grid.js';
import { allowedFrames, bestTrajectoryMatch, idealTrajectoryQuery, SETTLE_SECONDS, steadyInput, trajectoryColumns } from '../../src/tools/coverage/query.js';
import { cellVerdict, costScale, UNCOVERED_COST } from '../../src/tools/coverage/measures.js';
import { captureRequests } from '../../src/tools/coverage/requests.js';
import { computeCoverage, type CoverageCellResult, type CoverageReport } from '../../src/tools/coverage/coverage.js';
import { coverageHtml, parseCoverageReport, scriptSafeJson } from '../../src/tools/coverage/html.js';
import { measureColour, polarLayout, polarMapSvg, polarPoint } from '../../src/tools/coverage/svg.js';
import { COVERAGE_MEASURES } from '../../src/tools/coverage/measures.js';

const { skeleton, clips } = generateBuiltinClips();
const pick = (re: RegExp) => clips.filter((c) => re.test(c.name)).map((clip) => ({ skeleton, clip }));
let full: Database;
/** Forward locomotion only: no sidesteps, no backward walks, no idle. */
let forwardOnly: Database;

beforeAll(() => {
  full = buildDatabase(clips.map((clip) => ({ skeleton, clip })));
  forwardOnly = buildDatabase(pick(/^(walk_0\.8|walk_1\.2|walk_1\.6|jog_2\.2|run_3\.5|walk_turn_(left|right)_90)$/), { mirror: true });
});

/** Well-formed XML: every tag closed in order, attributes quoted, no raw '<' or '&' in text. */
function expectWellFormed(xml: string): void {
  const stack: string[] = [];
  const re = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(xml)) !== null) {
    consumed = re.lastIndex;
    if (m[5] !== undefined) {
      expect(m[5].replace(/&(amp|lt|gt|quot|#\d+);/g, '')).not.toMatch(/[&<]/);
      continue;
    }
    if (m[1]) expect(stack.pop()).toBe(m[2]);
    else if (!m[4]) stack.push(m[2]);
  }
  expect(consumed).toBe(xml.length);
  expect(stack).toEqual([]);
}

describe('the request grid', () => {
  it('covers standing once per turn rate and every moving speed all round, turn rates both ways', () => {
    const g = coverageGrid(full);
    expect(g.speeds[0]).toBe(0);
    expect(g.speeds.length).toBe(6);
    expect(g.speeds[5]).toBeCloseTo(Math.round(10 * databaseTopSpeed(full)) / 10, 5);
    expect(g.turnRates).toEqual([-90, -45, 0, 45, 90]);
    expect(g.directions.length).toBe(16);
    expect(g.directions).toContain(180);
    expect(g.directions).not.toContain(-180);
    expect(g.cells.length).toBe(5 + 5 * 16 * 5);
    expect(g.cells.map((c) => c.index)).toEqual(g.cells.map((_, i) => i));
    const custom = coverageGrid(full, { speeds: [1.5, 0.5, 1.5], directions: 4, turnRates: [0, 30] });
    expect(custom.speeds).toEqual([0, 0.5, 1.5]);
    expect(custom.directions).toEqual([0, 90, 180, -90]);
    expect(custom.cells.length).toBe(3 + 2 * 4 * 3);
  });

  it('refuses bad grids by name', () => {
    expect(() => coverageGrid(full, { directions: 0 })).toThrow(/directions must be an integer in \[1, 360\]/);
    expect(() => coverageGrid(full, { speeds: [-1] })).toThrow(/speeds must be in \(0, 20\]/);
    expect(() => coverageGrid(full, { turnRates: [-5] })).toThrow(/turn rates must be in \[0, 720\]/);
    expect(() => coverageGrid(full, { turnRates: [] })).toThrow(/at least one turn rate/);
    expect(() => coverageGrid(full, { speedBands: 0 })).toThrow(/speed bands/);
  });

  it('names motions the way a capture session would', () => {
    expect(motionName(1.2, 0)).toBe('forward walk');
    expect(motionName(1.2, 90)).toBe('sidestep left');
    expect(motionName(1.2, -90)).toBe('sidestep right');
    expect(motionName(1.2, 180)).toBe('backward walk');
    expect(motionName(1.2, 45)).toBe('diagonal walk forward-left');
    expect(motionName(1.2, -135)).toBe('diagonal walk backward-right');
    expect(motionName(2.5, 90)).toBe('sideways jog left');
    expect(motionName(3.5, 0)).toBe('forward run');
    expect(motionName(4.5, 180)).toBe('backward sprint');
    expect(describeCell({ speed: 1.5, direction: -90, turnRate: 0 })).toBe('sidestep right at 1.5 m/s');
    expect(describeCell({ speed: 0, direction: 0, turnRate: 90 })).toBe('turn in place left 90°/s');
    expect(describeCell({ speed: 2.5, direction: 0, turnRate: -45 })).toBe('forward jog at 2.5 m/s, turning right 45°/s');
    expect(wrapDegrees(-180)).toBe(180);
    expect(wrapDegrees(540)).toBe(180);
    expect(evenSpeeds(3.44, 5)).toEqual([0.7, 1.4, 2.1, 2.8, 3.4]);
  });
});

describe('the ideal query of a steady request', () => {
  const opts = { trajectoryHalfLife: DEFAULT_CONTROLLER_OPTIONS.trajectoryHalfLife, facingHalfLife: DEFAULT_CONTROLLER_OPTIONS.facingHalfLife };

  it('is the straight line and the unchanged facing of a steady walk, in every direction', () => {
    const layout = trajectoryLayout(full);
    for (const direction of [0, 90, -90, 180, 45]) {
      const q = idealTrajectoryQuery(full, { speed: 1.5, direction, turnRate: 0 }, opts);
      const a = (direction * Math.PI) / 180;
      for (const g of layout.positions) {
        for (let k = 0; k < g.count; k++) {
          const t = layout.times[g.first + k];
          expect(q[g.col + 2 * k]).toBeCloseTo(1.5 * t * Math.sin(a), 3);
          expect(q[g.col + 2 * k + 1]).toBeCloseTo(1.5 * t * Math.cos(a), 3);
        }
      }
      for (const g of layout.directions) {
        for (let k = 0; k < g.count; k++) {
          expect(q[g.col + 2 * k]).toBeCloseTo(0, 4);
          expect(q[g.col + 2 * k + 1]).toBeCloseTo(1, 4);
        }
      }
      // Pose columns are left at 0: only the trajectory is judged.
      for (let d = 0; d < layout.positions[0].col; d++) expect(q[d]).toBe(0);
    }
  });

  it('is what the controller predicts after driving its springs with the same request (turning ones included)', async () => {
    const port = new MatcherSearchPort(await Matcher.create(full, { backend: 'js' }));
    const layout = trajectoryLayout(full);
    for (const cell of [{ speed: 1.2, direction: 90, turnRate: 0 }, { speed: 2.5, direction: 0, turnRate: 45 }, { speed: 0, direction: 0, turnRate: -90 }, { speed: 1, direction: 180, turnRate: 90 }]) {
      const q = idealTrajectoryQuery(full, cell, opts);
      const c = new MotionMatchingController(full, { orientationWarp: 0 }); // the request as asked, as coverage judges it
      const input = createInput();
      const dt = 1 / 60;
      for (let s = 1; s <= Math.round((SETTLE_SECONDS + 2) / dt); s++) {
        steadyInput(cell, s * dt, input);
        c.update(dt, input, port);
      }
      c.predictTrajectory();
      // The controller's own prediction, in the frame of its simulated trajectory.
      const v = new Float64Array(3), r = new Float64Array(3);
      for (const g of layout.positions) {
        for (let k = 0; k < g.count; k++) {
          const t = 3 * (g.first + k);
          v[0] = c.trajectoryPositions[t] - c.simPosition[0]; v[1] = 0; v[2] = c.trajectoryPositions[t + 2] - c.simPosition[2];
          quatInvRotateVec3(r, 0, c.simRotation, 0, v, 0);
          expect(q[g.col + 2 * k], JSON.stringify(cell)).toBeCloseTo(r[0], 2);
          expect(q[g.col + 2 * k + 1], JSON.stringify(cell)).toBeCloseTo(r[2], 2);
        }
      }
      for (const g of layout.directions) {
        for (let k = 0; k < g.count; k++) {
          v[0] = 0; v[1] = 0; v[2] = 1;
          quatRotateVec3(r, 0, c.trajectoryRotations, 4 * (g.first + k), v, 0);
          quatInvRotateVec3(v, 0, c.simRotation, 0, r, 0);
          expect(q[g.col + 2 * k], JSON.stringify(cell)).toBeCloseTo(v[0], 2);
          expect(q[g.col + 2 * k + 1], JSON.stringify(cell)).toBeCloseTo(v[2], 2);
        }
      }
      // A left turn looks left ahead (x > 0 at +1 s), a right turn right.
      const last = layout.directions[0];
      const x1 = q[last.col + 2 * (last.count - 1)];
      if (cell.turnRate !== 0) expect(Math.sign(x1)).toBe(Math.sign(cell.turnRate));
    }
  });
});

describe('the best match', () => {
  it('is exact: the brute-force minimum over the allowed frames, per clip too', () => {
    const cols = trajectoryColumns(full);
    expect(cols.length).toBe(12);
    const allowed = allowedFrames(full);
    const clipOf = databaseRuntime(full).clipOf;
    // A frame's own raw trajectory features find a frame at cost 0.
    let f0 = 1234;
    while (!allowed[f0]) f0++;
    const own = new Float32Array(full.stride);
    for (const d of cols) own[d] = full.rawFeatures[f0 * full.stride + d];
    const m0 = bestTrajectoryMatch(full, own, cols, allowed, clipOf);
    expect(m0.cost).toBeLessThan(1e-9);
    // Any query: the oracle below agrees.
    const q = idealTrajectoryQuery(full, { speed: 1.3, direction: 30, turnRate: 45 }, DEFAULT_CONTROLLER_OPTIONS);
    const m = bestTrajectoryMatch(full, q, cols, allowed, clipOf);
    let best = Infinity, bestFrame = -1;
    const perClip = new Array(full.clips.length).fill(Infinity);
    for (let f = 0; f < full.frameCount; f++) {
      if (!allowed[f]) continue;
      let c = 0;
      for (const d of cols) { const e = full.features[f * full.stride + d] - (q[d] - full.mean[d]) / full.scale[d]; c += e * e; }
      if (c < best) { best = c; bestFrame = f; }
      perClip[clipOf[f]] = Math.min(perClip[clipOf[f]], c);
    }
    expect(m.frame).toBe(bestFrame);
    expect(m.cost).toBeCloseTo(best, 9);
    perClip.forEach((c, i) => expect(m.clipCosts[i]).toBeCloseTo(c, 9));
  });

  it('keeps to the frames with the required tags and without the excluded ones', () => {
    const strafe = allowedFrames(full, ['strafe']);
    const bit = 1 << full.tagNames.indexOf('strafe');
    for (let f = 0; f < full.frameCount; f++) expect(strafe[f] === 1).toBe(full.candidates[f] === 1 && (full.tagBits[f] & bit) !== 0);
    const noBackward = allowedFrames(full, [], ['backward']);
    const back = 1 << full.tagNames.indexOf('backward');
    for (let f = 0; f < full.frameCount; f++) if (noBackward[f]) expect(full.tagBits[f] & back).toBe(0);
    expect(() => allowedFrames(full, ['dance'])).toThrow(/tag "dance" is not in this database \(its tags: .*strafe/);
  });
});

describe('verdicts and capture requests', () => {
  it('judges the cost against 1 + v², then the run', () => {
    expect(costScale(2)).toBe(5);
    expect(cellVerdict({ speed: 2, bestCost: UNCOVERED_COST * 5, trajectoryErrorCm: 0, facingErrorDeg: 0, footSkateCmPerSec: 0 })).toBe('uncovered');
    expect(cellVerdict({ speed: 2, bestCost: UNCOVERED_COST * 5 - 0.01, trajectoryErrorCm: 0, facingErrorDeg: 0, footSkateCmPerSec: 0 })).toBe('thin');
    expect(cellVerdict({ speed: 2, bestCost: 0.5, trajectoryErrorCm: 0, facingErrorDeg: 0, footSkateCmPerSec: 0 })).toBe('covered');
    expect(cellVerdict({ speed: 2, bestCost: 0.5, trajectoryErrorCm: 30, facingErrorDeg: 0, footSkateCmPerSec: 0 })).toBe('thin');
    expect(cellVerdict({ speed: 2, bestCost: 0.5, trajectoryErrorCm: null, facingErrorDeg: null, footSkateCmPerSec: 12 })).toBe('thin');
    expect(cellVerdict({ speed: 0, bestCost: Number.NaN, trajectoryErrorCm: null, facingErrorDeg: null, footSkateCmPerSec: null })).toBe('uncovered');
  });

  const cell = (index: number, speed: number, direction: number, turnRate: number, bestCost: number): CoverageCellResult => {
    const c: CoverageCellResult = {
      index, speed, direction, turnRate, bestCost, bestFrame: 0, nearest: [{ clip: 0, name: 'walk_a', mirrored: false, tags: [], cost: bestCost, time: 0 }],
      // Runs that go as badly as the match (a distant match strays and skates).
      trajectoryErrorCm: bestCost > 1 ? 40 : 3, facingErrorDeg: 3, footSkateCmPerSec: bestCost > 1 ? 50 : 0.5, transitionsPerSec: 2, playedClip: 'walk_a', verdict: 'covered',
    };
    c.verdict = cellVerdict(c);
    return c;
  };

  it('are one per motion, worst first; a mirrored database merges the two sides', () => {
    const cells = [
      cell(0, 1.5, 0, 0, 0.1), cell(1, 1.5, 90, 0, 40), cell(2, 1.5, -90, 0, 41), cell(3, 1.5, 180, 0, 60), cell(4, 1.5, 90, 45, 45), cell(5, 0.8, 90, 0, 20),
      cell(6, 1.5, 45, 0, 5),
    ];
    const plain = captureRequests(cells, { mirrored: false });
    // Sidestep left's worst cell (turning, cost 45) is worse than sidestep right's (41).
    expect(plain.map((r) => r.motion)).toEqual(['backward walk', 'sidestep left', 'sidestep right', 'diagonal walk forward-left']);
    expect(plain[0].text).toMatch(/^backward walk at 1\.5 m\/s — best match cost 60\.00, trajectory error 40 cm, facing error 3°, foot skate 50\.0 cm\/s; nearest clips: walk_a 60\.00/);
    const left = plain.find((r) => r.motion === 'sidestep left')!;
    expect(left.speeds).toEqual([0.8, 1.5]);
    expect(left.turnRates).toEqual([0, 45]);
    expect(left.cells).toEqual([1, 4, 5]);
    expect(left.text).toMatch(/^sidestep left at 0\.8–1\.5 m\/s, also turning \(up to 45°\/s\) — at 1\.5 m\/s: best match cost 40\.00/);
    expect(plain.at(-1)!.verdict).toBe('thin');
    const mirrored = captureRequests(cells, { mirrored: true });
    const side = mirrored.filter((r) => r.motion.startsWith('sidestep'));
    expect(side.length).toBe(1);
    expect(side[0].motion).toBe('sidestep left (or right: mirroring makes the other side)');
    expect(side[0].cells).toEqual([1, 2, 4, 5]);
    expect(captureRequests(cells, { mirrored: false, limit: 2 }).length).toBe(2);
  });

  it('point out a mirror image that is covered when the database has no mirrored copies', () => {
    const cells = [cell(0, 1.5, 90, 45, 0.1), cell(1, 1.5, -90, -45, 40)];
    const [r] = captureRequests(cells, { mirrored: false });
    expect(r.mirrorHint).toMatch(/mirror image \(sidestep left at 1\.5 m\/s, turning left 45°\/s\) is covered: rebuilding with --mirror fills it/);
    expect(r.text).toContain('rebuilding with --mirror');
    expect(captureRequests(cells, { mirrored: true })[0].mirrorHint).toBeNull();
  });
});

describe('computeCoverage', () => {
  let report: CoverageReport;
  beforeAll(async () => {
    const port = new MatcherSearchPort(await Matcher.create(forwardOnly));
    report = computeCoverage(forwardOnly, port, { speeds: [1.2, 2.2], directions: 8, turnRates: [0, 90], name: 'forward only' });
  });

  it('tells the truth: forward walking is covered, sidesteps and backward walking are not', () => {
    const at = (speed: number, direction: number, turnRate = 0) => report.cells.find((c) => c.speed === speed && c.direction === direction && c.turnRate === turnRate)!;
    expect(at(1.2, 0).verdict).toBe('covered');
    expect(at(1.2, 0).trajectoryErrorCm!).toBeLessThan(15);
    for (const d of [90, -90, 180]) {
      expect(at(1.2, d).verdict, `direction ${d}`).toBe('uncovered');
      expect(at(1.2, d).bestCost).toBeGreaterThan(10 * at(1.2, 0).bestCost);
      // The character cannot do what is asked: it strays from the request. (Its feet no longer show it:
      // feet on the ground follow the capture and planted ones stay locked, so an uncovered request
      // skates about as much as a covered one, where it used to drag the feet at 5 times the skate.)
      expect(at(1.2, d).trajectoryErrorCm!, `direction ${d}`).toBeGreaterThan(3 * at(1.2, 0).trajectoryErrorCm!);
      expect(Number.isFinite(at(1.2, d).footSkateCmPerSec!)).toBe(true);
    }
    expect(at(0, 0).verdict).toBe('uncovered'); // no idle clip
    const motions = report.requests.map((r) => r.motion);
    expect(motions).toContain('backward walk');
    expect(motions.some((m) => m.startsWith('sidestep left'))).toBe(true);
    expect(report.requests.every((r) => r.verdict === 'uncovered' || r.verdict === 'thin')).toBe(true);
    expect(report.summary.covered + report.summary.thin + report.summary.uncovered).toBe(report.cells.length);
    expect(report.database.mirrored).toBe(true);
  });

  it('takes tags into account: strafe-only frames answer sidesteps and not forward runs', async () => {
    const port = new MatcherSearchPort(await Matcher.create(full));
    const r = computeCoverage(full, port, { speeds: [1], directions: 4, turnRates: [0], requireTags: ['strafe'], run: { measureSeconds: 1 } });
    const at = (direction: number) => r.cells.find((c) => c.speed === 1 && c.direction === direction)!;
    expect(at(90).verdict).toBe('covered');
    expect(at(90).nearest[0].tags).toContain('strafe');
    expect(at(90).bestCost).toBeLessThan(at(0).bestCost);
    for (const c of r.cells) for (const n of c.nearest) expect(n.tags).toContain('strafe');
    expect(r.settings.requireTags).toEqual(['strafe']);
  });

  it('is deterministic, and the cost-only report has the same costs without runs', () => {
    const again = computeCoverage(forwardOnly, null, { speeds: [1.2, 2.2], directions: 8, turnRates: [0, 90], costOnly: true });
    report.cells.forEach((c, i) => {
      expect(again.cells[i].bestCost).toBe(c.bestCost);
      expect(again.cells[i].trajectoryErrorCm).toBeNull();
    });
    expect(again.settings.run).toBeNull();
    expect(() => computeCoverage(forwardOnly, null, {})).toThrow(/controller runs need a search/);
  });

  it('reads back from its JSON and from its HTML page', () => {
    const json = JSON.stringify(report);
    const fromJson = parseCoverageReport(json, 'r.json');
    expect(fromJson).toEqual(JSON.parse(json));
    const html = coverageHtml(report, { command: 'motionmatch coverage x.mmdb --out "r.html"' });
    expect(parseCoverageReport(html, 'r.html')).toEqual(JSON.parse(json));
    expect(html).toContain('What to capture next');
    expect(html).toContain('backward walk');
    expect(html).toContain('motionmatch coverage x.mmdb --out &quot;r.html&quot;');
    // One map per speed band and measure, every one well-formed SVG.
    const maps = html.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
    const polar = maps.filter((s) => s.includes('class="polar"'));
    expect(polar.length).toBe(report.grid.speeds.length * COVERAGE_MEASURES.length);
    for (const svg of maps) expectWellFormed(svg);
    for (const bad of ['', 'not json', '{"version":99}', '<html></html>', '{"version":1,"grid":{"speeds":[0],"directions":[0],"turnRates":[0]},"cells":[{}]}']) {
      expect(() => parseCoverageReport(bad, 'bad.json')).toThrow(/^bad\.json: /);
    }
  });

  it('keeps the JSON inside the page safe from a clip named like a closing script tag', () => {
    expect(scriptSafeJson({ name: '</script><script>alert(1)</script>' })).not.toContain('</script>');
    expect(JSON.parse(scriptSafeJson({ name: '</script>' }))).toEqual({ name: '</script>' });
  });
});

describe('polar maps', () => {
  const report = { grid: { speeds: [0, 1], directions: [0, 90, 180, -90], turnRates: [-90, 0, 90] } } as unknown as CoverageReport;

  it('puts forward up, left on the left, and turn rates from the inside (right) to the outside (left)', () => {
    const l = polarLayout(report, 200);
    const up = polarPoint(l, 0, 0), left = polarPoint(l, 90, 0), back = polarPoint(l, 180, 0);
    expect(up.x).toBeCloseTo(l.cx, 6);
    expect(up.y).toBeLessThan(l.cy);
    expect(left.x).toBeLessThan(l.cx);
    expect(back.y).toBeGreaterThan(l.cy);
    const r = (p: { x: number; y: number }) => Math.hypot(p.x - l.cx, p.y - l.cy);
    expect(r(polarPoint(l, 0, -90))).toBeLessThan(r(polarPoint(l, 0, 0)));
    expect(r(polarPoint(l, 0, 0))).toBeLessThan(r(polarPoint(l, 0, 90)));
    expect(r(polarPoint(l, 0, 45))).toBeGreaterThan(r(polarPoint(l, 0, 0)));
    expect(r(polarPoint(l, 0, 45))).toBeLessThan(r(polarPoint(l, 0, 90)));
    expect(r(polarPoint(l, 0, 500))).toBeCloseTo(r(polarPoint(l, 0, 90)), 6);
  });

  it('colours from green through yellow to red, grey when not measured', () => {
    const m = { good: 1, bad: 3 };
    expect(measureColour(m, 0)).toBe('hsl(130, 62%, 46%)');
    expect(measureColour(m, 2)).toBe('hsl(65, 62%, 42%)');
    expect(measureColour(m, 9)).toBe('hsl(0, 62%, 38%)');
    expect(measureColour(m, null)).toBe('#555b63');
  });

  it('draws one sector per cell of the band', () => {
    const cells = [0, 90, 180, -90].flatMap((direction, i) => [-90, 0, 90].map((turnRate, j) => ({
      index: 3 * i + j, speed: 1, direction, turnRate, bestCost: i, bestFrame: 0, nearest: [], trajectoryErrorCm: null, facingErrorDeg: null,
      footSkateCmPerSec: null, transitionsPerSec: null, playedClip: null, verdict: 'covered' as const,
    })));
    const svg = polarMapSvg({ ...report, cells } as unknown as CoverageReport, 1, COVERAGE_MEASURES[0]);
    expectWellFormed(svg);
    expect((svg.match(/<path /g) ?? []).length).toBe(12);
    expect(svg).toContain('data-cell="11"');
  });
});

describe('a cell the grid lists', () => {
  it('has an input whose facing turns at the cell rate and whose travel keeps its angle to the facing', () => {
    const c: CoverageCell = { index: 0, speed: 2, direction: -90, turnRate: 45 };
    const input = { velocityX: 0, velocityZ: 0, facing: 0 };
    steadyInput(c, 2, input);
    expect(input.facing).toBeCloseTo(Math.PI / 2, 9);
    expect(Math.hypot(input.velocityX, input.velocityZ)).toBeCloseTo(2, 9);
    expect(wrapDegrees((Math.atan2(input.velocityX, input.velocityZ) - input.facing) * 180 / Math.PI)).toBeCloseTo(-90, 6);
  });
});
