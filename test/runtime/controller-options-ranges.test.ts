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

describe('controller options: the foot IK and ground groups given in part', () => {
  it('fills the rest of a group from its defaults, and names the option a bad value is given for', async () => {
    const { DEFAULT_GROUND_OPTIONS } = await import('../../src/runtime/ground/ground-options.js');
    const o = resolveControllerOptions({ footIKOptions: { maxHipsDrop: 0.05 }, groundOptions: { maxFootTilt: 0.2 } });
    expect(o.footIKOptions).toEqual({ ...DEFAULT_FOOT_IK_OPTIONS, maxHipsDrop: 0.05 });
    expect(o.groundOptions).toEqual({ ...DEFAULT_GROUND_OPTIONS, maxFootTilt: 0.2 });
    // The defaults themselves are never written to.
    expect(DEFAULT_CONTROLLER_OPTIONS.footIKOptions).toEqual(DEFAULT_FOOT_IK_OPTIONS);
    expect(DEFAULT_FOOT_IK_OPTIONS.maxHipsDrop).toBe(0);
    // (Taken as the whole group, this was refused for unlockLegLengths, "got undefined".)
    expect(() => resolveControllerOptions({ footIKOptions: { blendHalfLife: 0 } })).toThrow(/foot IK option blendHalfLife must be a finite number > 0/);
    expect(() => resolveControllerOptions({ footIKOptions: { maxHipsDrop: -1 } })).toThrow(/maxHipsDrop/);
    // A misspelt option is refused, naming it and the options there are (it was ignored).
    expect(() => resolveControllerOptions({ serchInterval: 0.2 } as never)).toThrow(/^unknown controller option "serchInterval" \(options: searchInterval, /);
    expect(() => resolveControllerOptions({ footIKOptions: { maxHipDrop: 0.1 } } as never)).toThrow(/^unknown foot IK option "maxHipDrop" \(options: unlockLegLengths, blendHalfLife, maxHipsDrop, hipsDropSpeed\)$/);
    expect(() => resolveControllerOptions({ groundOptions: { tilt: 1 } } as never)).toThrow(/^unknown ground option "tilt"/);
    // A whole group given as before resolves to the same values.
    expect(resolveControllerOptions({ footIKOptions: { ...DEFAULT_FOOT_IK_OPTIONS } }).footIKOptions).toEqual(DEFAULT_FOOT_IK_OPTIONS);
  });
});
