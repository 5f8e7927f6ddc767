/**
 * A 64-bit digest (two 32-bit lanes of a multiply-xorshift mix) of the exact bits of float64
 * values. Used to prove that runs are bit-identical, not for security.
 */
// The bits of one float64, shared by every digest (used within one call only).
const BITS_F64 = new Float64Array(1);
const BITS_U32 = new Uint32Array(BITS_F64.buffer);

export class Digest {
  private h1 = 0x9e3779b9 | 0;
  private h2 = 0x85ebca6b | 0;

  addNumber(x: number): void {
    BITS_F64[0] = x;
    this.addWord(BITS_U32[0]);
    this.addWord(BITS_U32[1]);
  }

  addArray(a: ArrayLike<number>, start = 0, end = a.length): void {
    for (let i = start; i < end; i++) this.addNumber(a[i]);
  }

  addWord(w: number): void {
    let k = Math.imul(w | 0, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    this.h1 ^= k;
    this.h1 = (this.h1 << 13) | (this.h1 >>> 19);
    this.h1 = (Math.imul(this.h1, 5) + 0xe6546b64) | 0;
    this.h2 = (Math.imul(this.h2 ^ w, 0x2c1b3c6d) + 0x297a2d39) | 0;
    this.h2 ^= this.h2 >>> 15;
  }

  /** Final value as 16 hex digits. */
  hex(): string {
    let a = this.h1 ^ (this.h1 >>> 16);
    a = Math.imul(a, 0x85ebca6b); a ^= a >>> 13; a = Math.imul(a, 0xc2b2ae35); a ^= a >>> 16;
    let b = this.h2 ^ (this.h2 >>> 16);
    b = Math.imul(b, 0x7feb352d); b ^= b >>> 15; b = Math.imul(b, 0x846ca68b); b ^= b >>> 16;
    return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
  }
}
