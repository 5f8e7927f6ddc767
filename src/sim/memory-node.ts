/**
 * What a simulation will need in memory, checked before anything is allocated: a crowd too large
 * for the machine is refused with the figure, instead of growing until the system or V8 aborts.
 */
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import type { Database } from '../database/database.js';
import { MotionMatchingController } from '../runtime/controller/controller.js';
import { QualityMeter } from '../runtime/quality/meter.js';
import { ScriptedDriver } from './scenarios.js';

/**
 * JavaScript objects per agent besides its state block (controller, views, meter, driver, input):
 * measured with process.memoryUsage() around AgentGroup construction, 3.3-4.7 KB at 1,000-20,000
 * agents on the built-in database; rounded up.
 */
const HEAP_BYTES_PER_AGENT = 5000;

export interface SimulationMemoryEstimate {
  /** Typed-array bytes (state blocks, per-step timing, recording), outside the V8 heap. */
  bufferBytes: number;
  /** V8 heap bytes per thread (the agents' objects are split across threads). */
  heapBytesPerThread: number;
}

export function estimateSimulationMemory(db: Database, agents: number, steps: number, hz: number, workers: number, recordAgent: boolean): SimulationMemoryEstimate {
  const J = db.skeleton.names.length, dt = 1 / hz;
  const predictEvery = Math.max(1, Math.round(0.1 * hz));
  const perAgent = 8 * (ScriptedDriver.storageSize + MotionMatchingController.storageSize(db) + QualityMeter.storageSize(J, dt, predictEvery));
  const timing = 12 * steps * workers; // per thread: search time and count per step
  const recording = recordAgent ? steps * J * 7 * 4 + steps * 7 * 8 : 0;
  return { bufferBytes: agents * perAgent + timing + recording, heapBytesPerThread: Math.ceil(agents / workers) * HEAP_BYTES_PER_AGENT };
}

function gigabytes(n: number): string {
  return `${(n / 2 ** 30).toFixed(1)} GB`;
}

/** Throws RangeError with the figures when the estimate exceeds the V8 heap limit or 3/4 of the machine's memory. */
export function requireSimulationFits(estimate: SimulationMemoryEstimate, agents: number): void {
  const heapLimit = getHeapStatistics().heap_size_limit;
  const machine = totalmem();
  const total = estimate.bufferBytes + estimate.heapBytesPerThread;
  if (estimate.heapBytesPerThread > 0.8 * heapLimit) {
    throw new RangeError(
      `${agents.toLocaleString('en-US')} agents need about ${gigabytes(estimate.heapBytesPerThread)} of JavaScript heap per thread, ` +
      `more than the ${gigabytes(heapLimit)} this process may use: use fewer agents, more --workers, or run node with a larger --max-old-space-size`,
    );
  }
  if (total > 0.75 * machine) {
    throw new RangeError(
      `${agents.toLocaleString('en-US')} agents need about ${gigabytes(total)} of memory, more than 3/4 of this machine's ${gigabytes(machine)}: ` +
      `use fewer agents or shorter runs, or split the crowd over machines`,
    );
  }
}
