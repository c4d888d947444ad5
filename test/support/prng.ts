/**
 * A small seeded random source for tests that pick random inputs (fuzzing, randomized
 * stop timing). The seed comes from DESKBOOK_SEED when set, so a failure can be replayed,
 * and every such test prints the seed it used.
 */
export interface Prng {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  bytes(length: number): Buffer;
}

export function seededPrng(seed: number = envSeed() ?? (Math.random() * 2 ** 32) >>> 0): Prng {
  let state = seed >>> 0;
  // mulberry32: tiny, fast, and good enough to spread test inputs.
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    seed,
    next,
    int,
    pick: <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!,
    bytes: (length: number): Buffer => Buffer.from(Array.from({ length }, () => int(0, 255))),
  };
}

function envSeed(): number | undefined {
  const text = process.env.DESKBOOK_SEED;
  return text && /^\d+$/.test(text) ? Number(text) : undefined;
}
