/**
 * A 64-bit digest (two 32-bit lanes of a multiply-xorshift mix) of the exact bits of float64
 * values. Used to prove that runs are bit-identical, not for security.
 *
 * The state is two int32 lanes in an Int32Array, at any offset: a crowd keeps every agent's digest
 * in one array and feeds it the words of its state buffer directly (no number is boxed per value).
 */
// The bits of one float64, shared by every digest (used within one call only).
const BITS_F64 = new Float64Array(1);
const BITS_U32 = new Uint32Array(BITS_F64.buffer);

const SEED_1 = 0x9e3779b9 | 0;
const SEED_2 = 0x85ebca6b | 0;

/** Starts digest state h[at], h[at + 1]. */
export function digestInit(h: Int32Array, at: number): void {
  h[at] = SEED_1;
  h[at + 1] = SEED_2;
}

/** Mixes one 32-bit word into digest state h[at], h[at + 1]. */
function digestWord(h: Int32Array, at: number, w: number): void {
  let k = Math.imul(w | 0, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  let h1 = h[at] ^ k;
  h1 = (h1 << 13) | (h1 >>> 19);
  h[at] = Math.imul(h1, 5) + 0xe6546b64;
  let h2 = (Math.imul(h[at + 1] ^ w, 0x2c1b3c6d) + 0x297a2d39) | 0;
  h2 ^= h2 >>> 15;
  h[at + 1] = h2;
}

/**
 * Mixes words[start, end) (e.g. a Uint32Array over float64 values: low word, then high word of
 * each, as addNumber feeds them) into digest state h[at], h[at + 1].
 */
export function digestWords(h: Int32Array, at: number, words: Uint32Array, start: number, end: number): void {
  for (let i = start; i < end; i++) digestWord(h, at, words[i]);
}

/** Digest state h[at], h[at + 1] finalised as 16 hex digits. */
export function digestHex(h: Int32Array, at: number): string {
  let a = h[at] ^ (h[at] >>> 16);
  a = Math.imul(a, 0x85ebca6b); a ^= a >>> 13; a = Math.imul(a, 0xc2b2ae35); a ^= a >>> 16;
  let b = h[at + 1] ^ (h[at + 1] >>> 16);
  b = Math.imul(b, 0x7feb352d); b ^= b >>> 15; b = Math.imul(b, 0x846ca68b); b ^= b >>> 16;
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

export class Digest {
  private readonly h = new Int32Array(2);

  constructor() {
    digestInit(this.h, 0);
  }

  addNumber(x: number): void {
    BITS_F64[0] = x;
    digestWord(this.h, 0, BITS_U32[0]);
    digestWord(this.h, 0, BITS_U32[1]);
  }

  addArray(a: ArrayLike<number>, start = 0, end = a.length): void {
    for (let i = start; i < end; i++) this.addNumber(a[i]);
  }

  addWord(w: number): void {
    digestWord(this.h, 0, w);
  }

  /** Final value as 16 hex digits. */
  hex(): string {
    return digestHex(this.h, 0);
  }
}

/**
 * The run's hash: the digest over every agent's digest (16 hex digits each) in agent order. The one
 * rule runSimulation and `motionmatch merge` combine agents by, so sharded runs merge to the
 * unsharded hash.
 */
export function digestOfAgentHashes(hashes: readonly string[]): string {
  const digest = new Digest();
  for (const h of hashes) { digest.addWord(parseInt(h.slice(0, 8), 16)); digest.addWord(parseInt(h.slice(8), 16)); }
  return digest.hex();
}
