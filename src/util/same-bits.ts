/**
 * Whether two typed arrays (any views) hold the same bytes: a NaN equals the same NaN, 0 and -0
 * differ. Compared four bytes at a time where both views allow it.
 */
export function sameBits(a: ArrayBufferView, b: ArrayBufferView): boolean {
  if (a.byteLength !== b.byteLength) return false;
  if (a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0 && a.byteLength % 4 === 0) {
    const x = new Int32Array(a.buffer, a.byteOffset, a.byteLength >> 2), y = new Int32Array(b.buffer, b.byteOffset, b.byteLength >> 2);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    return true;
  }
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength), y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}
