// wmHandled: proof that the window manager has handled every request it got before now. A WM
// handles its events one at a time, in order, so its answer to a request sent now comes after
// everything it did for the earlier ones (another app's activation request among them).
//
// The request asks for the frame extents of a window of this connection's own that is never
// mapped (_NET_REQUEST_FRAME_EXTENTS, which openbox answers for windows it does not manage by
// writing _NET_FRAME_EXTENTS on them). Nobody else writes on that window, so the PropertyNotify
// is the barrier's own answer: a barrier on a real window (a no-op _NET_WM_STATE message,
// answered by a _NET_WM_STATE write) could not tell its answer from a change someone else caused.
import { sharedX11, type X11Client } from "./x11-client.js";

const PROPERTY_CHANGE_MASK = 0x400000;
const REQUEST = "_NET_REQUEST_FRAME_EXTENTS";

/** Connections whose WM lists the request in _NET_SUPPORTED (a no is read again: the WM may start later). */
const supported = new WeakSet<X11Client>();

/**
 * Resolves true once the WM has answered, false when it cannot answer one (no WM, or one
 * without _NET_REQUEST_FRAME_EXTENTS), after `timeoutMs`, or once `signal` aborts.
 */
export async function wmHandled(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
  const x = await sharedX11();
  if (!(await wmAnswersBarrier())) return false;
  const extents = await x.atom("_NET_FRAME_EXTENTS");
  let window = 0;
  let done: (answered: boolean) => void = () => undefined;
  const answered = new Promise<boolean>((resolve) => (done = resolve));
  const unsubscribe = x.onEvent((event) => {
    if (window && event.window === window && event.name === "PropertyNotify" && event.atom === extents) done(true);
  });
  const timer = setTimeout(() => done(false), timeoutMs);
  const abort = (): void => done(false);
  signal?.addEventListener("abort", abort, { once: true });
  try {
    if (signal?.aborted) return false;
    window = await x.createUnmappedWindow(PROPERTY_CHANGE_MASK);
    await x.rootClientMessage(window, REQUEST, [0, 0, 0, 0, 0]);
    return await answered;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", abort);
    unsubscribe();
    if (window) await x.destroyWindow(window).catch(() => undefined);
  }
}

/** Whether the WM lists _NET_REQUEST_FRAME_EXTENTS in _NET_SUPPORTED: without it no barrier is answered. */
export async function wmAnswersBarrier(): Promise<boolean> {
  const x = await sharedX11();
  if (supported.has(x)) return true;
  const [prop, request] = await Promise.all([x.property(x.root, "_NET_SUPPORTED"), x.atom(REQUEST)]);
  if (!prop || prop.format !== 32) return false;
  for (let off = 0; off + 4 <= prop.data.length; off += 4) {
    if (prop.data.readUInt32LE(off) === request) {
      supported.add(x);
      return true;
    }
  }
  return false;
}
