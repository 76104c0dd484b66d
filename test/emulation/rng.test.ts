// The seeded RNG helpers: reproducibility, bounds and distributions.
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/emulation/rng.js';

describe('createRng', () => {
  it('repeats the same sequence for the same seed and differs for another seed', () => {
    const draw = (seed: number) => {
      const rng = createRng(seed);
      return [rng.int(0, 1_000_000), rng.float(), rng.uuid(), rng.pick(['a', 'b', 'c', 'd'])];
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
  });

  it('keeps int within inclusive bounds and reaches both ends', () => {
    const rng = createRng(1);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const n = rng.int(3, 6);
      expect(n).toBeGreaterThanOrEqual(3);
      expect(n).toBeLessThanOrEqual(6);
      seen.add(n);
    }
    expect([...seen].sort()).toEqual([3, 4, 5, 6]);
    expect(() => rng.int(5, 4)).toThrow(RangeError);
  });

  it('weighted never picks zero-weight entries and favours heavy ones', () => {
    const rng = createRng(2);
    const counts = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 5000; i++) {
      counts[
        rng.weighted([
          ['a', 1],
          ['b', 9],
          ['c', 0],
        ] as const)
      ]++;
    }
    expect(counts.c).toBe(0);
    expect(counts.b).toBeGreaterThan(counts.a * 5);
    expect(() => rng.weighted([['x', 0]] as const)).toThrow(RangeError);
  });

  it('shuffle returns a permutation without touching the input; sample returns distinct items', () => {
    const rng = createRng(3);
    const input = [1, 2, 3, 4, 5, 6, 7, 8];
    const shuffled = rng.shuffle(input);
    expect(input).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect([...shuffled].sort((a, b) => a - b)).toEqual(input);
    const sample = rng.sample(input, 3);
    expect(new Set(sample).size).toBe(3);
    expect(rng.sample(input, 20)).toHaveLength(8);
  });

  it('chance(0) is never true and chance(1) always is', () => {
    const rng = createRng(4);
    for (let i = 0; i < 100; i++) {
      expect(rng.chance(0)).toBe(false);
      expect(rng.chance(1)).toBe(true);
    }
  });

  it('mints version-4-shaped, distinct UUIDs', () => {
    const rng = createRng(5);
    const ids = Array.from({ length: 500 }, () => rng.uuid());
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('fork gives an independent but reproducible stream', () => {
    const a = createRng(9);
    const b = createRng(9);
    expect(a.fork().uuid()).toBe(b.fork().uuid());
    expect(a.uuid()).toBe(b.uuid());
  });
});
