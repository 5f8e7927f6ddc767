/**
 * Seeded pseudo-random numbers for everything that must repeat exactly (built-in clips, scripted
 * agents, test and benchmark data): never Math.random. One generator, mulberry32, usable as a
 * closure (createRandom) or with its 32-bit state kept in a caller's buffer (mulberry32Next and
 * mulberry32Output), as a crowd does to keep each agent's state in its own block.
 */

/** mulberry32's state after `state` (both uint32). */
export function mulberry32Next(state: number): number {
  return (state + 0x6d2b79f5) >>> 0;
}

/** The number in [0, 1) that mulberry32 outputs for a state made by mulberry32Next. */
export function mulberry32Output(state: number): number {
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** mulberry32: a tiny 32-bit generator, uniform in [0, 1). */
export function createRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = mulberry32Next(s);
    return mulberry32Output(s);
  };
}

/** A standard normal sample (Box-Muller) from a uniform generator. */
export function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}
