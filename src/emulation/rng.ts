/**
 * Deterministic random helpers for seeding emulator data: the same seed always yields the same data.
 */
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

export interface Rng {
  /** Integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** Float in [0, 1). */
  float(): number;
  /** True with probability p (0..1). */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Picks by relative weight; entries with weight <= 0 are never picked. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T;
  /** A shuffled copy (Fisher-Yates); the input is left untouched. */
  shuffle<T>(items: readonly T[]): T[];
  /** n distinct items in random order (all of them if n >= length). */
  sample<T>(items: readonly T[], n: number): T[];
  /** A version-4-shaped UUID drawn from this generator, so seeded ids are reproducible too. */
  uuid(): string;
  /** An independent generator derived from this one, for sub-streams that must not shift each other. */
  fork(): Rng;
}

/** Spreads the bits of a small integer seed over 32 bits (a murmur3-style finaliser). */
function mixSeed(seed: number): number {
  let h = (seed ^ 0x9e3779b9) | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

export function createRng(seed: number): Rng {
  if (!Number.isFinite(seed)) throw new RangeError(`createRng: seed must be a finite number, got ${seed}`);
  const gen = xoroshiro128plus(mixSeed(Math.trunc(seed)));
  // Small neighbouring seeds start from similar states; the first outputs show it (e.g. "80000001-..." ids).
  for (let i = 0; i < 16; i++) gen.next();

  const rng: Rng = {
    int(min, max) {
      if (!Number.isInteger(min) || !Number.isInteger(max) || max < min) {
        throw new RangeError(`rng.int: invalid range [${min}, ${max}]`);
      }
      return uniformInt(gen, min, max);
    },
    float: () => uniformFloat64(gen),
    chance: (p) => uniformFloat64(gen) < p,
    pick(items) {
      if (items.length === 0) throw new RangeError('rng.pick: empty list');
      return items[uniformInt(gen, 0, items.length - 1)] as (typeof items)[number];
    },
    weighted(entries) {
      let total = 0;
      for (const [, w] of entries) if (w > 0) total += w;
      if (total <= 0) throw new RangeError('rng.weighted: no entry has a positive weight');
      let roll = uniformFloat64(gen) * total;
      let last: (typeof entries)[number] | undefined;
      for (const entry of entries) {
        if (entry[1] <= 0) continue;
        last = entry;
        roll -= entry[1];
        if (roll < 0) return entry[0];
      }
      // Floating-point rounding can leave a sliver past the last bucket.
      return (last as (typeof entries)[number])[0];
    },
    shuffle(items) {
      const out = items.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = uniformInt(gen, 0, i);
        const tmp = out[i] as (typeof out)[number];
        out[i] = out[j] as (typeof out)[number];
        out[j] = tmp;
      }
      return out;
    },
    sample(items, n) {
      return rng.shuffle(items).slice(0, Math.max(0, n));
    },
    uuid() {
      const hex: string[] = [];
      for (let i = 0; i < 4; i++)
        hex.push((uniformInt(gen, 0, 0xffffffff) >>> 0).toString(16).padStart(8, '0'));
      const h = hex.join('');
      const variant = ((Number.parseInt(h[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    },
    fork: () => createRng(uniformInt(gen, -0x80000000, 0x7fffffff)),
  };
  return rng;
}
