// Waiting for the window manager's answer to a window action, instead of sleeping a fixed time.
// While a watch is open, this connection hears a window's structure and property changes
// (ConfigureNotify, UnmapNotify, DestroyNotify; WM_STATE, _NET_WM_STATE) and
// the root's property changes (_NET_ACTIVE_WINDOW, the client lists), and each one wakes the wait
// to read the state again. A slow poll stays underneath, for a WM whose answer changes nothing
// this connection can hear.
//
// `barrier()` tells when the WM has finished with a request sent just before (wm-barrier.ts).
import { DeskError } from "../../src/helper/desk-error.js";
import { holdEvents, releaseEvents } from "./event-selection.js";
import { wmHandled } from "./wm-barrier.js";
import { sharedX11 } from "./x11-client.js";

const STRUCTURE_NOTIFY_MASK = 0x20000;
const PROPERTY_CHANGE_MASK = 0x400000;
const WINDOW_MASK = STRUCTURE_NOTIFY_MASK | PROPERTY_CHANGE_MASK;
/** Re-reads the state this often even without an event. */
const FALLBACK_POLL_MS = 250;
/** Longer than any watch waits: the watch's close ends the barrier first. */
const BARRIER_TIMEOUT_MS = 60_000;
/** The core protocol's error code for a window id that names no window. */
const BAD_WINDOW = 3;


export interface WindowWatch {
  /**
   * Resolves with `probe`'s first value other than undefined, probed now, after each change
   * heard and every FALLBACK_POLL_MS; undefined once `timeoutMs` has passed.
   */
  until<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T | undefined>;
  /** Sends the barrier (above); `answered()` is true once the WM has answered it. */
  barrier(): Promise<void>;
  answered(): boolean;
  close(): Promise<void>;
}

/**
 * Starts hearing changes to `windowId` and the root; open it before sending the request.
 * Throws no_window, having undone everything, when the window is gone (closed since it was looked up).
 */
export async function watchWindow(windowId: number): Promise<WindowWatch> {
  const x = await sharedX11();
  let wake: (() => void) | undefined;
  /** A change was heard since the last probe began. */
  let changed = false;
  let barrierSeen = false;
  /** Ends a barrier still waiting when the watch closes. */
  const barrierStop = new AbortController();
  const heard = (): void => {
    changed = true;
    wake?.();
  };
  const unsubscribe = x.onEvent((event) => {
    if (event.window === windowId || event.window === x.root) heard();
  });
  try {
    await holdEvents(x, windowId, WINDOW_MASK);
  } catch (error) {
    unsubscribe();
    throw (error as { error?: number }).error === BAD_WINDOW ? new DeskError("no_window", `window ${windowId} is gone (it closed before the action began)`) : error;
  }
  try {
    await holdEvents(x, x.root, PROPERTY_CHANGE_MASK);
  } catch (error) {
    unsubscribe();
    await releaseEvents(x, windowId, WINDOW_MASK).catch(() => undefined);
    throw error;
  }
  let closed = false;
  return {
    async until(probe, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        changed = false;
        const value = await probe();
        if (value !== undefined) return value;
        const left = deadline - Date.now();
        if (left <= 0) return undefined;
        if (changed) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, FALLBACK_POLL_MS));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    },
    async barrier() {
      // The request went out before this (same connection), so the barrier queues behind it.
      void wmHandled(BARRIER_TIMEOUT_MS, barrierStop.signal).then(
        (answered) => {
          barrierSeen = answered;
          if (answered) heard();
        },
        () => undefined,
      );
    },
    answered: () => barrierSeen,
    async close() {
      if (closed) return;
      closed = true;
      unsubscribe();
      barrierStop.abort();
      // The window may be gone (closed): deselecting it then fails, which is fine.
      await releaseEvents(x, windowId, WINDOW_MASK).catch(() => undefined);
      await releaseEvents(x, x.root, PROPERTY_CHANGE_MASK).catch(() => undefined);
    },
  };
}
