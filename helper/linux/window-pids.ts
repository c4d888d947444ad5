// The pid behind each managed window, read once per window and kept until the X server says the
// window is destroyed. A window's pid cannot change while it exists (_NET_WM_PID is set before
// it is mapped; the X-Resource answer is the client that made it), and every read of the window
// list needs the pid of every managed window, so reading it each time cost one request per
// window on the desktop, at every `windows`, `axTree`, `activate` and input check.
//
// Invalidation: the entry is made only once this connection has selected StructureNotify on the
// window, and that selection goes out before the pid is read (X handles one connection's
// requests in order), so any later destruction of the window reaches this connection as a
// DestroyNotify and drops the entry. An id the server hands out again after that (to a window of
// another client, possibly another pid) is read afresh. Replies and events come in order on the
// one socket, and the event handler runs before any later reply's continuation, so no read can
// see a reused id's stale pid. A window gone before its selection took is not cached.
import { forgetWindow, holdEvents } from "./event-selection.js";
import type { X11Client } from "./x11-client.js";

const STRUCTURE_NOTIFY_MASK = 0x20000;

const caches = new WeakMap<X11Client, Map<number, Promise<number | null>>>();
/** The answers already in, per connection: which windows a pid had at the last reads. */
const settled = new WeakMap<X11Client, Map<number, number | null>>();

function cacheOf(x: X11Client): Map<number, Promise<number | null>> {
  let cache = caches.get(x);
  if (!cache) {
    const made = new Map<number, Promise<number | null>>();
    x.onEvent((event) => {
      if (event.name !== "DestroyNotify" || event.window === undefined) return;
      made.delete(event.window);
      settled.get(x)?.delete(event.window);
      forgetWindow(x, event.window);
    });
    caches.set(x, (cache = made));
    settled.set(x, new Map());
  }
  return cache;
}

/** The pid of a managed window (see the top), or null when neither _NET_WM_PID nor X-Resource names one. */
export function cachedWindowPid(x: X11Client, windowId: number, read: () => Promise<number | null>): Promise<number | null> {
  const cache = cacheOf(x);
  const known = cache.get(windowId);
  if (known) return known;
  // Both requests leave in this tick: the selection is processed before the pid read.
  const selected = holdEvents(x, windowId, STRUCTURE_NOTIFY_MASK);
  const pid = read();
  const entry = Promise.all([selected, pid]).then(([, value]) => value);
  cache.set(windowId, entry);
  entry.then((value) => {
    if (cache.get(windowId) === entry) settled.get(x)?.set(windowId, value);
  }, () => undefined);
  // A window gone before it was selected (or whose read failed) is not kept.
  entry.catch(() => {
    if (cache.get(windowId) === entry) cache.delete(windowId);
  });
  return entry;
}

/** The windows known (from earlier reads, not yet destroyed) to belong to `pid`. */
export function knownWindowsOf(x: X11Client, pid: number): number[] {
  const known = settled.get(x);
  return known ? [...known].filter(([, owner]) => owner === pid).map(([id]) => id) : [];
}

/** How many windows' pids are kept on this connection (a leak shows here). */
export function cachedWindowCount(x: X11Client): number {
  return caches.get(x)?.size ?? 0;
}
