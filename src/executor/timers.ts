import type { ContextRunner } from "./context-runner.js";

type Callback = (...args: unknown[]) => unknown;
type Timer = NodeJS.Timeout | NodeJS.Immediate;

interface Owner {
  cell: number;
  immediate: boolean;
}

/**
 * The timer functions a cell sees. Callbacks enter the context through the runner
 * (so SIGINT can break them), and each timer remembers the cell that created it:
 * stopping a cell cancels its timers, which is what ends an `await sleep(…)` that
 * was pending when the user stopped it.
 */
export class CellTimers {
  private readonly owners = new Map<Timer, Owner>();

  constructor(
    private readonly runner: ContextRunner,
    private readonly lastCell: () => number,
    private readonly onError: (error: unknown) => void,
  ) {}

  globals(): Record<string, unknown> {
    return {
      setTimeout: (fn: Callback, ms?: number, ...args: unknown[]) =>
        this.schedule((cb) => setTimeout(cb, ms, ...args), fn, { repeat: false, immediate: false }),
      setInterval: (fn: Callback, ms?: number, ...args: unknown[]) =>
        this.schedule((cb) => setInterval(cb, ms, ...args), fn, { repeat: true, immediate: false }),
      setImmediate: (fn: Callback, ...args: unknown[]) =>
        this.schedule((cb) => setImmediate(cb, ...args), fn, { repeat: false, immediate: true }),
      clearTimeout: (t: Timer | undefined) => this.clear(t),
      clearInterval: (t: Timer | undefined) => this.clear(t),
      clearImmediate: (t: Timer | undefined) => this.clear(t),
    };
  }

  /** Cancels every timer the given cell created that has not fired yet. */
  cancelCell(cell: number): number {
    let cancelled = 0;
    for (const [timer, owner] of this.owners) {
      if (owner.cell !== cell) continue;
      this.clear(timer);
      cancelled++;
    }
    return cancelled;
  }

  private schedule<T extends Timer>(
    create: (cb: (...args: unknown[]) => void) => T,
    fn: Callback,
    kind: { repeat: boolean; immediate: boolean },
  ): T {
    if (typeof fn !== "function") throw new TypeError("The callback must be a function");
    const guarded = this.runner.guard(fn, this.onError);
    const timer: T = create((...args) => {
      if (!kind.repeat) this.owners.delete(timer);
      guarded(...args);
    });
    this.owners.set(timer, { cell: this.lastCell(), immediate: kind.immediate });
    return timer;
  }

  private clear(timer: Timer | undefined): void {
    const owner = timer === undefined ? undefined : this.owners.get(timer);
    if (timer === undefined) return;
    this.owners.delete(timer);
    if (owner?.immediate) clearImmediate(timer as NodeJS.Immediate);
    else clearTimeout(timer as NodeJS.Timeout);
  }
}
