import { describe, expect, it } from 'vitest';
import { resolveControllerOptions, DEFAULT_CONTROLLER_OPTIONS } from '../../src/runtime/controller/options.js';
import { DEFAULT_FOOT_IK_OPTIONS } from '../../src/runtime/foot-ik/foot-ik.js';

describe('controller options: half-lives within their range', () => {
  it('refuses half-lives that pass "finite and > 0" but turn the springs into NaN, naming the option', () => {
    for (const v of [1e300, 1e-300, 20, 1e-4]) {
      expect(() => resolveControllerOptions({ trajectoryHalfLife: v })).toThrow(/controller option trajectoryHalfLife must be in \[0\.001, 10\] seconds, got/);
      expect(() => resolveControllerOptions({ facingHalfLife: v })).toThrow(/facingHalfLife/);
      expect(() => resolveControllerOptions({ inertializationHalfLife: v })).toThrow(/inertializationHalfLife/);
      expect(() => resolveControllerOptions({ footIKOptions: { ...DEFAULT_FOOT_IK_OPTIONS, blendHalfLife: v } })).toThrow(/footIKOptions\.blendHalfLife/);
    }
    // The root adjustment's half-lives: 0 switches it off.
    expect(() => resolveControllerOptions({ adjustPositionHalfLife: 0, adjustRotationHalfLife: 0 })).not.toThrow();
    expect(() => resolveControllerOptions({ adjustPositionHalfLife: 1e-300 })).toThrow(/adjustPositionHalfLife must be 0 \(off\) or in/);
  });

  it('accepts the defaults, the range ends, and the library\'s ways of switching a behaviour off', () => {
    expect(() => resolveControllerOptions({})).not.toThrow();
    expect(() => resolveControllerOptions({ trajectoryHalfLife: 0.001, facingHalfLife: 10 })).not.toThrow();
    // (searching never, clamping never: not a settings file's values, but no spring turns NaN)
    expect(() => resolveControllerOptions({ searchInterval: 1000, clampDistance: 1e9 })).not.toThrow();
    expect(DEFAULT_CONTROLLER_OPTIONS.trajectoryHalfLife).toBeGreaterThan(0);
  });
});
