import { describe, expect, it } from 'vitest';
import { smallestHeapGrowth } from '../helpers/heap-growth.js';

// The allocation tests (test/three/*) rest on this measure: it must see an allocation per call and
// must read near zero for a loop that allocates nothing.
describe('smallestHeapGrowth', () => {
  it('sees 1,000 escaping 256-byte arrays and reads near zero for a loop that allocates nothing', () => {
    const kept: number[][] = [];
    const allocating = smallestHeapGrowth(() => { kept.length = 0; for (let i = 0; i < 1000; i++) kept.push(new Array<number>(30).fill(i + 0.5)); });
    const scratch = new Float64Array(32);
    const none = smallestHeapGrowth(() => { for (let i = 0; i < 1000; i++) scratch[i & 31] += i; });
    console.log(`1,000 allocations of 256 bytes: ${allocating} bytes; none: ${none} bytes`);
    expect(allocating).toBeGreaterThan(200 * 1000);
    expect(none).toBeLessThan(64 * 1024);
  });
});
