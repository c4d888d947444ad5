/**
 * Node's SIGINT watchdog, held for the executor's life.
 *
 * vm's `breakOnSigint` starts Node's SIGINT watchdog for the length of one call: a thread
 * created at its start and joined at its end, with SIGINT routed to the watchdog in between
 * and to Node's default action (the process ends) outside. With a `process.on("SIGINT")`
 * listener, vm also removes and re-adds every listener around the call (a libuv signal
 * handle closed and made anew). The executor enters user code at least once per cell, so
 * that was ~40–100 µs a cell, more under load, where the join waits for the thread to be
 * scheduled (docs/design.md, issue 12).
 *
 * Held once (`startSigintWatchdog`, what Node's REPL does for its own evaluations), the
 * thread lives on and each call only counts itself in and out, and SIGINT stays routed to
 * the watchdog between calls too, where, with no call to break, it does nothing: a stray
 * `kill -INT` cannot end the session, with no listener to keep. The kernel still signals
 * only while the main thread is inside user code for the cell it stops (stop-gate.ts).
 *
 * Who holds the process's SIGINT handler follows the listeners, and the watchdog does not
 * see them: the first listener added makes libuv install its own handler, and the last one
 * removed makes libuv put back the default action (the process ends). A held watchdog only
 * installs its handler when its count goes from 0 to 1, so a call's count does not bring it
 * back. So any change to the SIGINT listeners (a cell's own, one from a host callback, a
 * library such as signal-exit adding and removing one) marks the handler as unknown, and it
 * is settled again at the start and end of each outermost call and, outside calls, as soon
 * as a listener goes: with no listener the watchdog is stopped and started again (which
 * installs its handler); with listeners it is let go of and the listeners are re-added, so
 * libuv holds the signal and vm's per-call handling applies, as Node has it. Inside a call
 * nothing is settled: vm itself takes the listeners off and puts them back around it.
 *
 * Without the binding (a Node that dropped it), or when the watchdog's thread cannot be
 * created, a listener that does nothing keeps stray signals harmless, as before.
 */

interface WatchdogBinding {
  /** False when the watchdog's thread could not be created. */
  startSigintWatchdog(): boolean;
  stopSigintWatchdog(): boolean;
}

let binding: WatchdogBinding | undefined;
let held = false;
/** The SIGINT listeners changed since the handler was last settled. */
let dirty = true;
let inCall = false;
let settling = false;

/** Called once, as the executor starts: from then on a SIGINT outside user code does nothing. */
export function holdSigintWatchdog(): void {
  binding = watchdogBinding();
  if (!binding) {
    keepStraySignalsHarmless();
    return;
  }
  process.on("newListener", (event: string | symbol) => {
    if (event === "SIGINT") dirty = true;
  });
  // Emitted after the listener is gone (and after Node closed its signal handle for the last one).
  process.on("removeListener", (event: string | symbol) => {
    if (event !== "SIGINT") return;
    dirty = true;
    if (!inCall) settleSigintHandler();
  });
  settleSigintHandler();
}

/** Called just before each outermost entry into user code (context-runner.ts). */
export function enterUserCode(): void {
  settleSigintHandler();
  inCall = true;
}

/** Called just after each outermost entry into user code returns or throws. */
export function leaveUserCode(): void {
  inCall = false;
  settleSigintHandler();
}

/** Gives SIGINT back to the watchdog when no listener is there, and to libuv when one is. */
function settleSigintHandler(): void {
  if (!binding || !dirty || settling) return;
  settling = true;
  try {
    const wasHeld = held;
    if (held) {
      // Joins the thread and puts back Node's default action, whoever held the signal.
      binding.stopSigintWatchdog();
      held = false;
    }
    if (process.listenerCount("SIGINT") === 0) {
      held = binding.startSigintWatchdog();
      if (!held) fallBack();
    } else if (wasHeld) {
      // Re-added, they give the signal back to libuv (when not held, libuv has had it since the first one came).
      const listeners = process.rawListeners("SIGINT") as Array<(...args: unknown[]) => void>;
      process.removeAllListeners("SIGINT");
      for (const listener of listeners) process.on("SIGINT", listener);
    }
  } finally {
    settling = false;
    dirty = false;
  }
}

/**
 * The watchdog's thread could not be created. Its count was taken all the same, so it is
 * given back (or every later call would count in to a watchdog with no thread); from then
 * on listeners are not followed, and one that does nothing keeps stray signals harmless.
 */
function fallBack(): void {
  binding?.stopSigintWatchdog();
  binding = undefined;
  keepStraySignalsHarmless();
}

function keepStraySignalsHarmless(): void {
  process.on("SIGINT", () => undefined);
}

/** Node's own binding for it (the REPL's); `process.binding` is deprecated, so its warning is kept quiet. */
function watchdogBinding(): WatchdogBinding | undefined {
  const quiet = process.noDeprecation;
  process.noDeprecation = true;
  try {
    const contextify = (process as unknown as { binding(name: string): Partial<Record<keyof WatchdogBinding, () => unknown>> }).binding("contextify");
    const { startSigintWatchdog, stopSigintWatchdog } = contextify;
    if (typeof startSigintWatchdog !== "function" || typeof stopSigintWatchdog !== "function") return undefined;
    return {
      startSigintWatchdog: () => startSigintWatchdog() === true,
      stopSigintWatchdog: () => stopSigintWatchdog() === true,
    };
  } catch {
    return undefined;
  } finally {
    process.noDeprecation = quiet;
  }
}
