// Seeded byte mutations for the decoder tests: the same inputs every run, so a failure repeats.

/** A small deterministic generator (mulberry32). */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` variants of `bytes`: one to three bytes set to random values (lengths and padding
 * included), and every tenth one random bytes of the same length.
 */
export function mutations(bytes: Buffer, count: number, seed: number): Buffer[] {
  const random = seeded(seed);
  const out: Buffer[] = [];
  for (let n = 0; n < count; n++) {
    if (n % 10 === 9 || bytes.length === 0) {
      out.push(Buffer.from(Array.from({ length: Math.max(bytes.length, 8) }, () => Math.floor(random() * 256))));
      continue;
    }
    const copy = Buffer.from(bytes);
    const flips = 1 + Math.floor(random() * 3);
    for (let k = 0; k < flips; k++) copy[Math.floor(random() * copy.length)] = Math.floor(random() * 256);
    out.push(copy);
  }
  return out;
}

/** The function's result, or what it threw. */
export function outcome<T>(run: () => T): T | Error {
  try {
    return run();
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
