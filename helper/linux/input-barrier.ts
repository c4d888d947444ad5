// inputHandled: proof that an app has handled the input sent to it so far, for the settle after
// an action. XTEST input returns once the X server has queued the events for the app, not once
// the app has read them; a read right after can see the text before its last keys.
//
// The proof is an EWMH ping (_NET_WM_PING) sent to the app's window after the input, on the same
// X connection, so the server queues it behind the input events. GTK 3 translates the next X
// event only when its own event queue is empty (_gdk_x11_display_queue_events), and answers a
// ping while translating it, so its answer means every earlier event has been dispatched: the
// keys' handlers have run. Caveats: an input method that hands keys to another process (ibus)
// inserts text after that; a keyboard frozen by a window manager's grab delivers the keys after
// the ping; other toolkits answer on reading the ping, not necessarily after handling what came
// before. The answer goes to the root window, where this connection selects SubstructureNotify.
import type { InputHandledResult } from "../../src/helper/protocol.js";
import { holdEvents } from "./event-selection.js";
import { windowProtocols, windowsOfPid } from "./windows.js";
import { sharedX11, type X11Client } from "./x11-client.js";

/** SubstructureNotifyMask: the ping answers sent to the root (with SubstructureRedirect, which the WM holds). */
const SUBSTRUCTURE_NOTIFY = 1 << 19;
const NO_BARRIER: InputHandledResult = { handled: false, via: "none", waitedMs: 0 };

/** Connections that already listen for ping answers on the root (held for the connection's life). */
const listening = new WeakMap<X11Client, Promise<void>>();
/** The ping's timestamp field, echoed back: it tells this helper's pings apart (0 is CurrentTime, never used). */
let lastToken = 0;

export async function inputHandled(pid: number, timeoutMs: number): Promise<InputHandledResult> {
  const x = await sharedX11();
  const window = await pingableWindow(pid);
  if (window === null) return NO_BARRIER;
  await listenOnRoot(x);
  const [protocols, ping] = await Promise.all([x.atom("WM_PROTOCOLS"), x.atom("_NET_WM_PING")]);
  lastToken = (lastToken % 0xfffffffe) + 1;
  const token = lastToken;
  const started = Date.now();
  const answer = pingAnswer(x, protocols, ping, token, timeoutMs);
  try {
    await x.clientMessage(window, "WM_PROTOCOLS", [ping, token, window, 0, 0]);
  } catch {
    // The window went away meanwhile: nothing will answer.
    answer.cancel();
    return NO_BARRIER;
  }
  return { handled: await answer.handled, via: "x11-ping", waitedMs: Date.now() - started };
}

/** Listens for the answer to ping `token` (subscribed before the ping goes out); false after `timeoutMs`. */
function pingAnswer(x: X11Client, protocols: number, ping: number, token: number, timeoutMs: number): { handled: Promise<boolean>; cancel(): void } {
  let finish: (handled: boolean) => void = () => undefined;
  const handled = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => finish(false), timeoutMs);
    const unsubscribe = x.onEvent((ev) => {
      if (ev.name === "ClientMessage" && ev.messageType === protocols && ev.data?.[0] === ping && ev.data[1] === token) finish(true);
    });
    finish = (answered) => {
      clearTimeout(timer);
      unsubscribe();
      resolve(answered);
    };
  });
  return { handled, cancel: () => finish(false) };
}

/** The app's window that takes part in _NET_WM_PING, the active one first; null when it has none. */
async function pingableWindow(pid: number): Promise<number | null> {
  const windows = await windowsOfPid(pid);
  const ordered = [...windows.filter((w) => w.focused), ...windows.filter((w) => !w.focused)];
  for (const { windowId } of ordered) {
    if (windowId === undefined) continue;
    const protocols = await windowProtocols(windowId).catch((): string[] => []);
    if (protocols.includes("_NET_WM_PING")) return windowId;
  }
  return null;
}

function listenOnRoot(x: X11Client): Promise<void> {
  let held = listening.get(x);
  if (!held) {
    held = holdEvents(x, x.root, SUBSTRUCTURE_NOTIFY).catch((error: unknown) => {
      listening.delete(x);
      throw error;
    });
    listening.set(x, held);
  }
  return held;
}
