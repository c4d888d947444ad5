// Counts events per key (an app's bus name) and wakes who waits for the next, for waitChange.
// A waiter passes the count it last saw (`after`) so that an event between two calls is never
// lost: the call then returns at once.

export interface ChangeWait {
  seq: number;
  changed: boolean;
}

export class EventCounter<K> {
  readonly #counts = new Map<K, number>();
  readonly #waiters = new Map<K, Set<() => void>>();

  bump(key: K): void {
    this.#counts.set(key, this.seq(key) + 1);
    this.wake(key);
  }

  seq(key: K): number {
    return this.#counts.get(key) ?? 0;
  }

  /** The key's connection closed: its count starts again (a waiter's `after` above it counts as a change). */
  drop(key: K): void {
    this.#counts.delete(key);
    this.wake(key);
  }

  /**
   * Resolves once the count differs from `after` (default: the count now), or after `timeoutMs`.
   * A count below `after` means it started again (a new connection): a change, too.
   */
  wait(key: K, after: number | undefined, timeoutMs: number): Promise<ChangeWait> {
    const baseline = after ?? this.seq(key);
    if (this.seq(key) !== baseline || timeoutMs <= 0) return Promise.resolve(this.result(key, baseline));
    return new Promise((resolve) => {
      const waiters = this.#waiters.get(key) ?? new Set<() => void>();
      this.#waiters.set(key, waiters);
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(wake);
        resolve(this.result(key, baseline));
      };
      const wake = (): void => done();
      const timer = setTimeout(done, timeoutMs);
      waiters.add(wake);
    });
  }

  private wake(key: K): void {
    const waiters = this.#waiters.get(key);
    if (!waiters) return;
    this.#waiters.delete(key);
    for (const wake of waiters) wake();
  }

  private result(key: K, baseline: number): ChangeWait {
    const seq = this.seq(key);
    return { seq, changed: seq !== baseline };
  }
}
