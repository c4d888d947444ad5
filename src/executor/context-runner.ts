import vm from "node:vm";
import { enterUserCode, leaveUserCode } from "./sigint-watchdog.js";

/** Thrown by `ContextRunner.call` when SIGINT broke the code it was running. */
export class InterruptedError extends Error {
  constructor() {
    super("interrupted");
    this.name = "InterruptedError";
  }
}

const PUMP_MS_BUSY = 2;
const PUMP_MS_IDLE = 25;

/** What the runner tells the stop gate (stop-gate.ts) about entering and leaving user code. */
export interface UserCodeMarks {
  enterUserCode(): void;
  leaveUserCode(): void;
  interrupted(): void;
}

/**
 * Owns the session's vm context and is the only place that enters it.
 *
 * The context keeps its own microtask queue (`microtaskMode: "afterEvaluate"`), which
 * is drained only at the end of a `runInContext` call. Entering the context only
 * through `call` (under `breakOnSigint`) therefore means every piece of user code —
 * the cell body, a continuation after an `await`, a timer callback — runs where
 * SIGINT can break it without losing the context.
 *
 * Every entry is one breakOnSigint call of a trampoline; inside it, the stop gate is told
 * that user code runs, the code runs, the context's microtasks are drained by a nested
 * call, and the gate is told that user code is over — all while Node's SIGINT watchdog
 * is active, so the kernel's signal (sent only while the gate's mark says so) never lands
 * outside it.
 */
export class ContextRunner {
  readonly context: vm.Context;
  private readonly trampoline = new vm.Script("__deskbook__.trampoline()", { filename: "deskbook:call" });
  private readonly drainScript = new vm.Script("undefined", { filename: "deskbook:drain" });
  private pending: (() => unknown) | undefined;
  private pumpTimer: NodeJS.Timeout | undefined;
  private busy = false;
  private inside = false;

  /** The context's own `globalThis` (builtins included), for completion and inspection. */
  readonly global: object;

  constructor(
    private readonly onInterrupt: () => void,
    private readonly marks: UserCodeMarks,
  ) {
    this.context = createSessionContext();
    const hidden = { trampoline: () => this.runPending() };
    Object.defineProperty(this.context, "__deskbook__", { value: hidden, enumerable: false });
    this.global = vm.runInContext("globalThis", this.context) as object;
    this.schedulePump();
  }

  /** Host values a cell sees as globals; non-enumerable so they don't read as the user's bindings. */
  defineGlobals(globals: Record<string, unknown>): void {
    for (const [name, value] of Object.entries(globals)) {
      Object.defineProperty(this.context, name, { value, writable: true, configurable: true, enumerable: false });
    }
  }

  /**
   * Host globals a cell sees under the same names, each read from the host on first use: Node
   * defines `fetch` and its kin as lazy getters that load undici (~7 MB), so copying them at
   * start would load it in every executor. The first read or write turns the name into an
   * ordinary writable property, as defineGlobals makes.
   */
  defineLazyHostGlobals(names: readonly string[]): void {
    const context = this.context;
    const settle = (name: string, value: unknown): void => {
      Object.defineProperty(context, name, { value, writable: true, configurable: true, enumerable: false });
    };
    for (const name of names) {
      Object.defineProperty(context, name, {
        get: () => {
          const value: unknown = (globalThis as Record<string, unknown>)[name];
          settle(name, value);
          return value;
        },
        set: (value: unknown) => settle(name, value),
        configurable: true,
        enumerable: false,
      });
    }
  }

  /** Adds host-side members to the hidden `__deskbook__` object (e.g. the module loader). */
  extendHidden(members: Record<string, unknown>): void {
    Object.assign((this.context as { __deskbook__: object }).__deskbook__, members);
  }

  /** Runs `fn` inside the context under breakOnSigint, then drains the context's microtasks. */
  call<T>(fn: () => T): T {
    // Already inside (a host function called from user code): the outer call covers it.
    if (this.inside) return fn();
    this.pending = fn;
    this.inside = true;
    // The SIGINT handler is settled before and after, as listeners may have changed (sigint-watchdog.ts).
    enterUserCode();
    try {
      return this.trampoline.runInContext(this.context, { breakOnSigint: true }) as T;
    } catch (error) {
      if (!isInterruption(error)) throw error;
      this.marks.interrupted();
      this.onInterrupt();
      throw new InterruptedError();
    } finally {
      this.inside = false;
      this.pending = undefined;
      leaveUserCode();
    }
  }

  /** Runs a compiled script in the context under breakOnSigint. */
  runScript(script: vm.Script): unknown {
    return this.call(() => script.runInContext(this.context));
  }

  /** Wraps a host callback so that it runs (and its microtasks drain) inside `call`. */
  guard<A extends unknown[]>(fn: (...args: A) => unknown, onError: (error: unknown) => void): (...args: A) => void {
    return (...args: A) => {
      try {
        this.call(() => fn(...args));
      } catch (error) {
        if (!(error instanceof InterruptedError)) onError(error);
      }
    };
  }

  /** Drains continuations that host promises queued in the context (e.g. `await fetch()`). */
  drain(): void {
    try {
      this.call(() => undefined);
    } catch (error) {
      if (!(error instanceof InterruptedError)) throw error;
    }
  }

  /** A cell is running: pump often so host-promise continuations are not delayed. */
  setBusy(busy: boolean): void {
    this.busy = busy;
    this.schedulePump();
  }

  close(): void {
    clearTimeout(this.pumpTimer);
  }

  /** The trampoline's body, inside the breakOnSigint call. */
  private runPending(): unknown {
    this.marks.enterUserCode();
    try {
      return this.pending?.();
    } finally {
      try {
        // Continuations run here, inside the call and its marks, not after it returns.
        this.drainScript.runInContext(this.context);
      } finally {
        this.marks.leaveUserCode();
      }
    }
  }

  private schedulePump(): void {
    clearTimeout(this.pumpTimer);
    this.pumpTimer = setTimeout(() => {
      this.drain();
      this.schedulePump();
    }, this.busy ? PUMP_MS_BUSY : PUMP_MS_IDLE);
    this.pumpTimer.unref();
  }
}

/**
 * A context whose global object is an ordinary V8 global (`DONT_CONTEXTIFY`),
 * not one that forwards every property access to a host-side sandbox object
 * through interceptors. Top-level bindings live on that global, so this is
 * what makes a top-level loop run at the speed of the same loop in a function
 * (a contextified global costs a C++ interceptor call per access: ~100× slower),
 * and it keeps V8's global lookup caches correct when a later cell adds a name.
 * The context keeps its own microtask queue (see ContextRunner).
 */
export function createSessionContext(): vm.Context {
  return vm.createContext(vm.constants.DONT_CONTEXTIFY, { microtaskMode: "afterEvaluate", name: "deskbook" });
}

function isInterruption(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === "ERR_SCRIPT_EXECUTION_INTERRUPTED";
}
