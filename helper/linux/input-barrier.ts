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
  const started = Date.now();
  let pinged = false;
  // A window the input closed (Escape on a dialog) cannot answer: the app got that far, and a
  // ping to a window it still has (same X connection, so the same queue) proves the rest.
  for (;;) {
    const window = await pingableWindow(pid);
    if (window === null) return pinged ? { handled: false, via: "x11-ping", waitedMs: Date.now() - started } : NO_BARRIER;
    pinged = true;
    const left = timeoutMs - (Date.now() - started);
    const answer = left > 0 ? await pingOnce(x, window, left) : "timeout";
    if (answer !== "destroyed") return { handled: answer === "answered", via: "x11-ping", waitedMs: Date.now() - started };
  }
}

type PingAnswer = "answered" | "destroyed" | "timeout";

/** Pings `window` and waits for its answer, its destruction, or the timeout. */
async function pingOnce(x: X11Client, window: number, timeoutMs: number): Promise<PingAnswer> {
  await listenOnRoot(x);
  const [protocols, ping] = await Promise.all([x.atom("WM_PROTOCOLS"), x.atom("_NET_WM_PING")]);
  lastToken = (lastToken % 0xfffffffe) + 1;
  const token = lastToken;
  const answer = pingAnswer(x, { protocols, ping, token, window }, timeoutMs);
  try {
    await x.clientMessage(window, "WM_PROTOCOLS", [ping, token, window, 0, 0]);
  } catch {
    // Gone before the ping went out (BadWindow).
    answer.cancel();
    return "destroyed";
  }
  return answer.result;
}

interface Ping {
  protocols: number;
  ping: number;
  token: number;
  window: number;
}

/**
 * Listens for the answer to `ping` (subscribed before it goes out). The window's DestroyNotify
 * reaches this connection because windowsOfPid selected StructureNotify on every window it
 * read the pid of (window-pids.ts).
 */
function pingAnswer(x: X11Client, ping: Ping, timeoutMs: number): { result: Promise<PingAnswer>; cancel(): void } {
  let finish: (answer: PingAnswer) => void = () => undefined;
  const result = new Promise<PingAnswer>((resolve) => {
    const timer = setTimeout(() => finish("timeout"), timeoutMs);
    const unsubscribe = x.onEvent((ev) => {
      if (ev.name === "DestroyNotify" && ev.window === ping.window) finish("destroyed");
      if (ev.name === "ClientMessage" && ev.messageType === ping.protocols && ev.data?.[0] === ping.ping && ev.data[1] === ping.token) finish("answered");
    });
    finish = (answer) => {
      clearTimeout(timer);
      unsubscribe();
      resolve(answer);
    };
  });
  return { result, cancel: () => finish("timeout") };
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
