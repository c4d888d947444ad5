// Waiting for the window manager's answer to a window action, instead of sleeping a fixed time.
// While a watch is open, this connection hears a window's structure and property changes
// (ConfigureNotify, UnmapNotify, DestroyNotify; WM_STATE, _NET_WM_STATE) and
// the root's property changes (_NET_ACTIVE_WINDOW, the client lists), and each one wakes the wait
// to read the state again. A slow poll stays underneath, for a WM whose answer changes nothing
// this connection can hear.
//
// A window manager handles its events one at a time, in order, so `barrier()` can tell when it
// has finished with a request sent just before: it asks for the frame extents of a window of its
// own that is never mapped (_NET_REQUEST_FRAME_EXTENTS, which openbox answers for windows it does
// not manage by writing _NET_FRAME_EXTENTS on them), and that PropertyNotify comes after everything
// the WM did for the earlier request. Nobody else writes on that window, so the answer is the
// barrier's own: a barrier on the target window itself (a no-op _NET_WM_STATE message, answered by
// a _NET_WM_STATE write) could not tell its answer from a state change someone else caused meanwhile
// (another action, the app, the user), and would end the wait with the frame not yet moved.
import { DeskError } from "../../src/helper/desk-error.js";
import { holdEvents, releaseEvents } from "./event-selection.js";
import { sharedX11 } from "./x11-client.js";

const STRUCTURE_NOTIFY_MASK = 0x20000;
const PROPERTY_CHANGE_MASK = 0x400000;
const WINDOW_MASK = STRUCTURE_NOTIFY_MASK | PROPERTY_CHANGE_MASK;
/** Re-reads the state this often even without an event. */
const FALLBACK_POLL_MS = 250;
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
  const extents = await x.atom("_NET_FRAME_EXTENTS");
  let wake: (() => void) | undefined;
  /** A change was heard since the last probe began. */
  let changed = false;
  /** The unmapped window the barrier asks about (0: no barrier yet). */
  let barrierWindow = 0;
  let barrierSeen = false;
  const unsubscribe = x.onEvent((event) => {
    if (barrierWindow && event.window === barrierWindow) {
      if (event.name !== "PropertyNotify" || event.atom !== extents) return;
      barrierSeen = true;
    } else if (event.window !== windowId && event.window !== x.root) return;
    changed = true;
    wake?.();
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
      barrierWindow = await x.createUnmappedWindow(PROPERTY_CHANGE_MASK);
      await x.rootClientMessage(barrierWindow, "_NET_REQUEST_FRAME_EXTENTS", [0, 0, 0, 0, 0]);
    },
    answered: () => barrierSeen,
    async close() {
      if (closed) return;
      closed = true;
      unsubscribe();
      if (barrierWindow) await x.destroyWindow(barrierWindow).catch(() => undefined);
      // The window may be gone (closed): deselecting it then fails, which is fine.
      await releaseEvents(x, windowId, WINDOW_MASK).catch(() => undefined);
      await releaseEvents(x, x.root, PROPERTY_CHANGE_MASK).catch(() => undefined);
    },
  };
}
