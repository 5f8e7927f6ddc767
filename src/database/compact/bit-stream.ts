/**
 * Packed little-endian bit fields: the writer used by the encoder and the allocation-free reader
 * the decoder's hot loop calls. Bit i of the stream is bit (i & 7) of byte (i >> 3).
 */

/** Appends fields of up to 32 bits to a growing byte buffer. */
export class BitWriter {
  private bytes = new Uint8Array(1024);
  private bitLength = 0;

  /** Appends the low `bits` bits of `value` (0 <= bits <= 32). */
  write(value: number, bits: number): void {
    for (let i = 0; i < bits; i++) {
      if ((this.bitLength >> 3) >= this.bytes.length) this.grow();
      if ((value >>> i) & 1) this.bytes[this.bitLength >> 3] |= 1 << (this.bitLength & 7);
      this.bitLength++;
    }
  }

  /** Pads to the next byte boundary (zero bits). */
  alignToByte(): void {
    this.bitLength = Math.ceil(this.bitLength / 8) * 8;
    while ((this.bitLength >> 3) > this.bytes.length) this.grow();
  }

  /** Appends whole bytes (after aligning). */
  writeBytes(data: Uint8Array): void {
    this.alignToByte();
    while ((this.bitLength >> 3) + data.length > this.bytes.length) this.grow();
    this.bytes.set(data, this.bitLength >> 3);
    this.bitLength += data.length * 8;
  }

  get byteLength(): number {
    return Math.ceil(this.bitLength / 8);
  }

  /** The bytes written so far (a copy). */
  finish(): Uint8Array {
    return this.bytes.slice(0, this.byteLength);
  }

  private grow(): void {
    const next = new Uint8Array(this.bytes.length * 2);
    next.set(this.bytes);
    this.bytes = next;
  }
}

/**
 * The `bits`-bit field (0..24) starting at bit `bitPos` of `data`. Reads at most four bytes; bytes past
 * the end read as 0 (the caller has checked that the field itself lies inside the data).
 */
export function readBits(data: Uint8Array, bitPos: number, bits: number): number {
  const i = bitPos >>> 3, shift = bitPos & 7;
  const word = (data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24)) >>> shift;
  // shift + bits <= 7 + 24 = 31, so the field lies in the 32-bit word.
  return bits === 0 ? 0 : word & (0xffffffff >>> (32 - bits));
}

/** A 32-bit field (raw float samples): two 16-bit reads, since one read holds at most 25 useful bits. */
export function readBits32(data: Uint8Array, bitPos: number): number {
  return (readBits(data, bitPos, 16) | (readBits(data, bitPos + 16, 16) << 16)) >>> 0;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The float32 whose IEEE bit pattern is `bits`. */
export function floatFromBits(bits: number): number {
  u32[0] = bits;
  return f32[0];
}

/** The IEEE bit pattern of `v` rounded to float32. */
export function bitsFromFloat(v: number): number {
  f32[0] = v;
  return u32[0];
}
