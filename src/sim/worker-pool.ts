/**
 * Simulation worker threads kept from one run to the next in a process (runInWorkers,
 * simulation.ts). A quality run, a tuning sweep or a coverage report runs many short simulations,
 * and each started threads of its own, which then stepped cold: a new thread loads the engine's
 * modules and runs every step interpreted until V8 has optimised it. `tune --workers 2` took 4.0 s
 * per evaluation on the built-in database against 0.58 s on one thread (2026-12-07). A thread kept
 * here has its code loaded and optimised already.
 *
 * An idle thread never keeps the process alive (unref) and ends after IDLE_SECONDS without work; a
 * thread that failed, or whose run failed, is ended rather than kept.
 */
import type { Worker } from 'node:worker_threads';

/** How long an idle thread is kept for the next run (s). */
export const IDLE_SECONDS = 10;

/** Idle threads by the script they run. */
const idle = new Map<string, Worker[]>();
const endTimers = new WeakMap<Worker, ReturnType<typeof setTimeout>>();

function idleList(script: string): Worker[] {
  let list = idle.get(script);
  if (!list) { list = []; idle.set(script, list); }
  return list;
}

function forget(script: string, w: Worker): void {
  const list = idleList(script), at = list.indexOf(w);
  if (at >= 0) list.splice(at, 1);
  clearTimeout(endTimers.get(w));
}

/**
 * `n` threads running `script`: idle ones first, then new ones from `start`. Each new thread is
 * watched for its exit and errors while idle (an idle thread that fails is dropped; with no
 * listener its 'error' event would end the process).
 */
export function takeWorkers(script: string, n: number, start: () => Worker): Worker[] {
  const list = idleList(script), out: Worker[] = [];
  while (out.length < n && list.length > 0) {
    const w = list.pop()!;
    clearTimeout(endTimers.get(w));
    w.ref();
    out.push(w);
  }
  try {
    while (out.length < n) {
      const w = start();
      w.on('exit', () => forget(script, w));
      w.on('error', () => forget(script, w));
      out.push(w);
    }
  } catch (e) {
    // (what was taken or started goes back idle: held here, it would keep the process alive)
    keepWorkers(script, out);
    throw e;
  }
  return out;
}

/** Keeps `workers` (whose run succeeded) for the next run of `script`; each ends after IDLE_SECONDS unless taken again. */
export function keepWorkers(script: string, workers: readonly Worker[]): void {
  const list = idleList(script);
  for (const w of workers) {
    w.unref();
    list.push(w);
    const timer = setTimeout(() => { forget(script, w); void w.terminate(); }, IDLE_SECONDS * 1000);
    timer.unref();
    endTimers.set(w, timer);
  }
}

/** Threads kept idle now (all scripts): for tests. */
export function idleWorkerCount(): number {
  let n = 0;
  for (const list of idle.values()) n += list.length;
  return n;
}

/** Ends every idle thread now (e.g. before measuring a process's memory). */
export async function endIdleWorkers(): Promise<void> {
  const all = [...idle.entries()].flatMap(([script, list]) => list.map((w) => [script, w] as const));
  for (const [script, w] of all) forget(script, w);
  await Promise.all(all.map(([, w]) => w.terminate()));
}
