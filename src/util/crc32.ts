/**
 * CRC-32 as used by zlib, gzip and PNG (IEEE 802.3; reflected polynomial 0xEDB88320, initial value
 * and final xor 0xFFFFFFFF). In Node, zlib's own (`zlib.crc32`, native, Node 20.15+: 1-2 GB/s, 6-10
 * times this file's loop; a float32 database's checksums were a third of its decode). Elsewhere
 * (browsers) table-driven, slicing-by-8 for the bulk of the input and a byte loop for the tail.
 * Browser-safe: zlib is taken through process.getBuiltinModule, never imported.
 */

const POLY = 0xedb88320;

/** Inputs at least this long go to zlib where there is one. */
const NATIVE_MIN_BYTES = 256;

type Crc32Function = (data: Uint8Array, value: number) => number;

/** Node's zlib.crc32 (same function, same continuation convention), or null outside Node or before 20.15. */
const NATIVE_CRC32: Crc32Function | null = (() => {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const zlib = typeof host?.getBuiltinModule === 'function' ? (host.getBuiltinModule('node:zlib') as { crc32?: Crc32Function } | undefined) : undefined;
  return typeof zlib?.crc32 === 'function' ? zlib.crc32 : null;
})();

/** TABLES[k][b]: CRC contribution of byte b followed by k zero bytes. 8 x 256 entries. */
const TABLES: Uint32Array[] = (() => {
  const t: Uint32Array[] = [];
  const t0 = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? POLY ^ (c >>> 1) : c >>> 1;
    t0[n] = c >>> 0;
  }
  t.push(t0);
  for (let k = 1; k < 8; k++) {
    const prev = t[k - 1];
    const cur = new Uint32Array(256);
    for (let n = 0; n < 256; n++) cur[n] = (t0[prev[n] & 0xff] ^ (prev[n] >>> 8)) >>> 0;
    t.push(cur);
  }
  return t;
})();

/**
 * CRC-32 of bytes[start, end), as an unsigned 32-bit number.
 * `previous` continues a running CRC (the result of an earlier call over the bytes just before), so
 * crc32(ab) === crc32(b, 0, b.length, crc32(a)) — the same convention as zlib's `crc32(data, value)`.
 */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length, previous = 0): number {
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || end > bytes.length) {
    throw new RangeError(`crc32: range [${start}, ${end}) is outside the ${bytes.length}-byte input`);
  }
  // Short inputs stay here: the call into zlib and the view cost more than they save.
  if (NATIVE_CRC32 !== null && end - start >= NATIVE_MIN_BYTES) return NATIVE_CRC32(bytes.subarray(start, end), previous >>> 0) >>> 0;
  return portableCrc32(bytes, start, end, previous);
}

/** crc32 without zlib (what browsers run), for any range already checked. */
export function portableCrc32(bytes: Uint8Array, start = 0, end = bytes.length, previous = 0): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES;
  let c = ~previous >>> 0;
  let i = start;
  const end8 = start + ((end - start) & ~7);
  while (i < end8) {
    const lo = (c ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24))) >>> 0;
    c =
      t7[lo & 0xff] ^ t6[(lo >>> 8) & 0xff] ^ t5[(lo >>> 16) & 0xff] ^ t4[lo >>> 24] ^
      t3[bytes[i + 4]] ^ t2[bytes[i + 5]] ^ t1[bytes[i + 6]] ^ t0[bytes[i + 7]];
    i += 8;
  }
  while (i < end) c = t0[(c ^ bytes[i++]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/** "0x1234abcd": CRCs formatted for messages. */
export function formatCrc(crc: number): string {
  return '0x' + (crc >>> 0).toString(16).padStart(8, '0');
}
