import { describe, expect, it } from 'vitest';
import { commandLineGives } from '../../src/util/jit-node.js';

describe('V8 tuning for crowds', () => {
  it('leaves flags the command line sets to the command line, in either polarity and spelling', () => {
    expect(commandLineGives('--no-concurrent-recompilation', ['--concurrent-recompilation'])).toBe(true);
    expect(commandLineGives('--no-concurrent-recompilation', ['--no-concurrent_recompilation'])).toBe(true);
    expect(commandLineGives('--max-inlined-bytecode-size=1500', ['--max_inlined_bytecode_size=900'])).toBe(true);
    // A different flag that shares a prefix is not the same flag.
    expect(commandLineGives('--max-inlined-bytecode-size=1500', ['--max-inlined-bytecode-size-cumulative=10'])).toBe(false);
    expect(commandLineGives('--no-concurrent-recompilation', ['--inspect', '--max-old-space-size=4096'])).toBe(false);
  });
});
