import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as zlib from 'node:zlib';
import { crc32, formatCrc, portableCrc32 } from '../../src/util/crc32.js';

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);
const zlibCrc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

describe('crc32', () => {
  it('matches the standard check values', () => {
    expect(crc32(ascii('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    expect(crc32(ascii('a'))).toBe(0xe8b7be43);
    expect(crc32(ascii('abc'))).toBe(0x352441c2);
    expect(crc32(ascii('The quick brown fox jumps over the lazy dog'))).toBe(0x414fa339);
    expect(crc32(new Uint8Array(32))).toBe(0x190a55ad);
    expect(crc32(new Uint8Array(32).fill(0xff))).toBe(0xff6cab0b);
  });

  it('is unsigned', () => {
    for (const s of ['123456789', 'abc', 'hello world', '\u00ff\u00fe']) expect(crc32(ascii(s))).toBeGreaterThanOrEqual(0);
  });

  it('honours start/end and continues a running CRC', () => {
    const b = ascii('xx123456789yy');
    expect(crc32(b, 2, 11)).toBe(0xcbf43926);
    const whole = ascii('123456789');
    expect(crc32(whole, 4, 9, crc32(whole, 0, 4))).toBe(0xcbf43926);
    expect(() => crc32(b, 5, 4)).toThrow(RangeError);
    expect(() => crc32(b, 0, 99)).toThrow(RangeError);
    expect(() => crc32(b, -1)).toThrow(RangeError);
  });

  it('formats CRCs as 8 hex digits', () => {
    expect(formatCrc(0xcbf43926)).toBe('0xcbf43926');
    expect(formatCrc(0x1a)).toBe('0x0000001a');
  });

  it.runIf(typeof zlibCrc32 === 'function')('agrees with zlib.crc32 on random data, ranges and continuations', () => {
    fc.assert(
      // Up to 700 bytes: ranges below and above the length from which crc32 hands over to zlib
      // (256), so that both paths and the portable one (what browsers run) are checked against zlib.
      fc.property(fc.uint8Array({ maxLength: 700, size: 'max' }), fc.nat(), fc.nat(), fc.nat(), (data, a, b, seed) => {
        const s = data.length ? a % (data.length + 1) : 0;
        const e = s + (data.length - s ? b % (data.length - s + 1) : 0);
        const prev = seed >>> 0;
        expect(crc32(data)).toBe(zlibCrc32!(data));
        expect(crc32(data, s, e)).toBe(zlibCrc32!(data.subarray(s, e)));
        expect(portableCrc32(data, s, e, prev)).toBe(crc32(data, s, e, prev));
        // zlib.crc32(<empty>, value) returns 0 (C zlib's "NULL buffer = initial value" idiom); an empty
        // continuation is the identity here, which is what incremental use needs.
        if (e > s) expect(crc32(data, s, e, prev)).toBe(zlibCrc32!(data.subarray(s, e), prev));
        else expect(crc32(data, s, e, prev)).toBe(prev);
      }),
      { numRuns: 2000 },
    );
  });

  it.runIf(typeof zlibCrc32 === 'function')('agrees with zlib.crc32 on a large buffer', () => {
    const big = new Uint8Array(3_000_001);
    let x = 12345;
    for (let i = 0; i < big.length; i++) { x = (Math.imul(x, 1103515245) + 12345) >>> 0; big[i] = x >>> 24; }
    expect(crc32(big)).toBe(zlibCrc32!(big));
    expect(crc32(big, 7, big.length - 3)).toBe(zlibCrc32!(big.subarray(7, big.length - 3)));
    expect(portableCrc32(big)).toBe(zlibCrc32!(big));
    // A running CRC continued through zlib from one computed here, and the other way round.
    expect(crc32(big, 1000, big.length, portableCrc32(big, 0, 1000))).toBe(zlibCrc32!(big));
    expect(portableCrc32(big, 1000, big.length, crc32(big, 0, 1000))).toBe(zlibCrc32!(big));
  });
});
