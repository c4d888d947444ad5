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
 * A listener a cell adds (`process.on("SIGINT", …)`) takes the signal away from the watchdog
 * (libuv installs its own handler), so while one is there the executor lets go of the
 * watchdog and vm's own per-call handling applies, as Node has it; it holds it again once
 * the listeners are gone. Without the binding (a Node that dropped it), a listener that
 * does nothing keeps stray signals harmless, as before.
 */

interface WatchdogBinding {
  startSigintWatchdog(): void;
  stopSigintWatchdog(): boolean;
}

let binding: WatchdogBinding | undefined;
let held = false;

/** Called once, as the executor starts: from then on a SIGINT outside user code does nothing. */
export function holdSigintWatchdog(): void {
  binding = watchdogBinding();
  if (!binding) {
    process.on("SIGINT", () => undefined);
    return;
  }
  followSigintListeners();
}

/**
 * Called after each outermost entry into user code (context-runner.ts): lets go of the
 * watchdog while a cell's own SIGINT listener is there, and holds it again once none is.
 */
export function followSigintListeners(): void {
  if (!binding) return;
  const listening = process.listenerCount("SIGINT") > 0;
  if (!held && !listening) {
    binding.startSigintWatchdog();
    held = true;
  } else if (held && listening) {
    // The handler goes back to Node's default; re-adding the listeners gives it to libuv again.
    binding.stopSigintWatchdog();
    held = false;
    const listeners = process.rawListeners("SIGINT") as Array<(...args: unknown[]) => void>;
    process.removeAllListeners("SIGINT");
    for (const listener of listeners) process.on("SIGINT", listener);
  }
}

/** Node's own binding for it (the REPL's); `process.binding` is deprecated, so its warning is kept quiet. */
function watchdogBinding(): WatchdogBinding | undefined {
  const quiet = process.noDeprecation;
  process.noDeprecation = true;
  try {
    const contextify = (process as unknown as { binding(name: string): Partial<WatchdogBinding> }).binding("contextify");
    const { startSigintWatchdog, stopSigintWatchdog } = contextify;
    if (typeof startSigintWatchdog !== "function" || typeof stopSigintWatchdog !== "function") return undefined;
    return { startSigintWatchdog: () => startSigintWatchdog(), stopSigintWatchdog: () => stopSigintWatchdog() };
  } catch {
    return undefined;
  } finally {
    process.noDeprecation = quiet;
  }
}
