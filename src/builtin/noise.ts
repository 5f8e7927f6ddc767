/**
 * Seeded noise for the built-in data (never Math.random: the clips must be byte-identical on every
 * run): string seeds and smooth noise over time.
 */

import { createRandom } from '../util/prng.js';

export { createRandom };

/** FNV-1a hash of a string, as a seed. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Smooth deterministic noise in about [-1, 1]: a sum of a few sines with random frequencies
 * (around `baseHz`) and phases. Returns a function of time.
 */
export function smoothNoise(random: () => number, baseHz: number, octaves = 3): (t: number) => number {
  const f: number[] = [], p: number[] = [], a: number[] = [];
  let total = 0;
  for (let i = 0; i < octaves; i++) {
    f.push(baseHz * (1 + i) * (0.8 + 0.4 * random()));
    p.push(2 * Math.PI * random());
    a.push(1 / (1 + i));
    total += 1 / (1 + i);
  }
  return (t: number) => {
    let s = 0;
    for (let i = 0; i < octaves; i++) s += a[i] * Math.sin(2 * Math.PI * f[i] * t + p[i]);
    return s / total;
  };
}
