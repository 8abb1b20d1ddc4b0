/**
 * Seeded pseudo-random numbers for the simulator: mulberry32 seeded by a hash of
 * (seed, call id), so a call's fate depends on neither the order nor the number of calls.
 */

/** A function returning numbers in [0, 1). */
export type Random = () => number;

/** xmur3-style 32-bit string hash. */
function hash(text: string): number {
  let h = 1779033703 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  h = Math.imul(h ^ (h >>> 16), 2246822507);
  h = Math.imul(h ^ (h >>> 13), 3266489909);
  return (h ^ (h >>> 16)) >>> 0;
}

/** mulberry32: small, fast and good enough for simulated callers. */
export function mulberry32(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The random stream of one call: the same (seed, key) always gives the same numbers. */
export function streamFor(seed: number, key: string): Random {
  return mulberry32(hash(`${seed}:${key}`));
}

/** A number drawn uniformly in [min, max]. */
export function between(random: Random, [min, max]: readonly [number, number]): number {
  return min + random() * (max - min);
}
