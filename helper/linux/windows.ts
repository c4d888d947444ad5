// Top-level windows from the window manager's EWMH properties. Frames are the client area
// (without the WM's decorations) in root coordinates; X has no backing scale, so scale is 1.

import { DeskError } from "../../src/helper/desk-error.js";
import type { Frame, WindowInfo } from "../../src/helper/protocol.js";
import { cachedWindowPid, knownWindowsOf } from "./window-pids.js";
import { watchWindow } from "./window-watch.js";
import { wmAnswersBarrier, wmHandled } from "./wm-barrier.js";
import { sharedX11, type Property, type X11Client } from "./x11-client.js";

/** A loaded machine's window manager can take seconds to get to a request (openbox was seen holding a click 2 s). */
const ACTIVATE_TIMEOUT_MS = 5_000;
/** _NET_ACTIVE_WINDOW source indication: 2 = pager, which WMs obey without focus-stealing checks. */
const SOURCE_PAGER = 2;

/** macOS subroles for the EWMH window types, so clients see one vocabulary. */
const SUBROLES: ReadonlyMap<string, string> = new Map([
  ["_NET_WM_WINDOW_TYPE_NORMAL", "AXStandardWindow"],
  ["_NET_WM_WINDOW_TYPE_DIALOG", "AXDialog"],
  ["_NET_WM_WINDOW_TYPE_UTILITY", "AXFloatingWindow"],
  ["_NET_WM_WINDOW_TYPE_TOOLBAR", "AXFloatingWindow"],
  ["_NET_WM_WINDOW_TYPE_SPLASH", "AXSystemDialog"],
]);

/** A process's managed windows, front to back; main is the frontmost standard window. */
export async function windowsOfPid(pid: number): Promise<WindowInfo[]> {
  const x = await sharedX11();
  // The windows the pid had at the last read are described at once, beside the list itself, so
  // a steady desktop costs one round of pipelined requests; a window new since is read after.
  const early = new Map(knownWindowsOf(x, pid).map((id) => [id, described(x, id)]));
  const [ids, active] = await Promise.all([clientList(x), activeWindowId()]);
  const pids = await Promise.all(ids.map((id) => windowPid(x, id).catch(() => null)));
  const mine = ids.filter((_, i) => pids[i] === pid);
  const infos = await Promise.all(mine.map((id) => early.get(id) ?? described(x, id)));
  return numbered(infos.filter((w): w is WindowInfo => w !== null).map((w) => ({ ...w, focused: w.windowId === active })));
}

/** describe, with a window gone meanwhile (BadWindow) as null. */
function described(x: X11Client, id: number): Promise<WindowInfo | null> {
  const info = describe(x, id, null);
  return info.catch(() => null);
}

/** The pids owning managed windows (_NET_WM_PID), front to back, each once: the running GUI apps. */
export async function windowOwnerPids(): Promise<number[]> {
  const x = await sharedX11();
  const ids = await clientList(x);
  const pids = await Promise.all(ids.map((id) => windowPid(x, id).catch(() => null)));
  return [...new Set(pids.filter((pid): pid is number => pid !== null && pid > 0))];
}

/** The window the window manager reports as active, or null (desktop, no WM). */
export async function activeWindowId(): Promise<number | null> {
  const x = await sharedX11();
  const prop = await x.property(x.root, "_NET_ACTIVE_WINDOW");
  const id = prop ? cardinals(prop)[0] : 0;
  return id ? id : null;
}

/** The active window described like windowsOfPid's entries (index within its own process). */
export async function activeWindow(): Promise<WindowInfo | null> {
  const id = await activeWindowId();
  if (id === null) return null;
  const x = await sharedX11();
  const pid = await windowPid(x, id).catch(() => null);
  if (pid !== null) {
    const found = (await windowsOfPid(pid)).find((w) => w.windowId === id);
    if (found) return found;
  }
  const alone = await describe(x, id, id).catch(() => null);
  return alone ? { ...alone, main: true } : null;
}

/** The pid owning the active window (_NET_WM_PID), or null. */
export async function pidOfActiveWindow(): Promise<number | null> {
  const id = await activeWindowId();
  if (id === null) return null;
  return windowPid(await sharedX11(), id).catch(() => null);
}

/**
 * Asks the WM to activate (raise, focus, un-minimize) a window; answers once the WM has handled
 * the request and _NET_ACTIVE_WINDOW names the window.
 *
 * The state is read only after the WM has handled what it got before (wm-barrier.ts): another
 * app may have asked to be activated a moment ago (GTK 3 presents a window when an element of it
 * takes the focus through accessibility), and a state read before the WM got to that request
 * would be about to change. A window active, on top and not minimized once the WM is done is left
 * alone: the message would only queue ahead of the caller's next request while this call answered
 * at once (a few of those in a row kept a loaded openbox busy past the next activation's deadline).
 */
export async function activate(windowId: number): Promise<void> {
  const x = await sharedX11();
  const deadline = Date.now() + ACTIVATE_TIMEOUT_MS;
  await wmHandled(ACTIVATE_TIMEOUT_MS);
  const stacked = await clientList(x);
  if (!stacked.includes(windowId)) {
    throw new DeskError("no_window", `window ${windowId} is not a managed top-level window`);
  }
  const current = (await activeWindowId()) ?? 0;
  if (current === windowId && stacked[0] === windowId && !(await atomNames(x, windowId, "_NET_WM_STATE")).includes("_NET_WM_STATE_HIDDEN")) return;
  const watch = await watchWindow(windowId);
  try {
    await x.rootClientMessage(windowId, "_NET_ACTIVE_WINDOW", [SOURCE_PAGER, 0, current, 0, 0]);
    await watch.barrier();
    // Active after the WM's answer to the barrier: an activation read before it could be undone by a request still queued.
    const done = await watch.until(async () => {
      const handled = watch.answered() || !(await wmAnswersBarrier());
      return handled && (await activeWindowId()) === windowId ? true : undefined;
    }, Math.max(0, deadline - Date.now()));
    if (done) return;
  } finally {
    await watch.close();
  }
  throw new DeskError("activate_failed", `the window manager did not activate window ${windowId} within ${ACTIVATE_TIMEOUT_MS / 1000} s`);
}

/** The client area of a window in root coordinates (BadWindow error if it is gone). */
export async function windowFrame(windowId: number): Promise<Frame> {
  return clientFrame(await sharedX11(), windowId);
}

async function clientFrame(x: X11Client, windowId: number): Promise<Frame> {
  const [geometry, origin] = await Promise.all([x.geometry(windowId), x.toRoot(windowId)]);
  return [origin.x, origin.y, geometry.width, geometry.height];
}

/** The pid in _NET_WM_PID, else the window's client's pid from X-Resource, else null; kept per window (window-pids.ts). */
function windowPid(x: X11Client, windowId: number): Promise<number | null> {
  return cachedWindowPid(x, windowId, () => readWindowPid(x, windowId));
}

async function readWindowPid(x: X11Client, windowId: number): Promise<number | null> {
  const prop = await x.property(windowId, "_NET_WM_PID");
  const claimed = prop ? cardinals(prop)[0] : undefined;
  if (claimed) return claimed;
  // Xt and other old toolkits (xcalc, xterm) never set _NET_WM_PID: ask the server who made it.
  return x.clientPid(windowId).catch(() => null);
}

async function describe(x: X11Client, id: number, active: number | null): Promise<WindowInfo> {
  const [title, frame, states, type] = await Promise.all([
    windowTitle(x, id),
    clientFrame(x, id),
    atomNames(x, id, "_NET_WM_STATE"),
    atomNames(x, id, "_NET_WM_WINDOW_TYPE"),
  ]);
  const subrole = SUBROLES.get(type[0] ?? "_NET_WM_WINDOW_TYPE_NORMAL");
  return {
    index: 0,
    title,
    frame,
    scale: 1,
    focused: id === active,
    main: false,
    minimized: states.includes("_NET_WM_STATE_HIDDEN"),
    ...(subrole ? { subrole } : {}),
    windowId: id,
  };
}

/** Sets index by position and main on the first standard window (or the first window). */
function numbered(windows: WindowInfo[]): WindowInfo[] {
  const mainAt = Math.max(0, windows.findIndex((w) => w.subrole === "AXStandardWindow"));
  return windows.map((w, index) => ({ ...w, index, main: index === mainAt }));
}

/** Managed windows front to back: _NET_CLIENT_LIST_STACKING is bottom to top. */
async function clientList(x: X11Client): Promise<number[]> {
  const stacking = await x.property(x.root, "_NET_CLIENT_LIST_STACKING");
  if (stacking) return cardinals(stacking).reverse();
  const mapped = await x.property(x.root, "_NET_CLIENT_LIST");
  return mapped ? cardinals(mapped) : [];
}

/** _NET_WM_NAME (UTF-8), else WM_NAME (Latin-1 STRING, or UTF8_STRING when so typed). */
async function windowTitle(x: X11Client, id: number): Promise<string> {
  const netName = await x.property(id, "_NET_WM_NAME");
  if (netName) return netName.data.toString("utf8");
  const name = await x.property(id, "WM_NAME");
  if (!name) return "";
  const utf8 = name.type === (await x.atom("UTF8_STRING"));
  return name.data.toString(utf8 ? "utf8" : "latin1");
}

/** The protocols a window's client takes part in (WM_PROTOCOLS: WM_DELETE_WINDOW, _NET_WM_PING …). */
export async function windowProtocols(windowId: number): Promise<string[]> {
  return atomNames(await sharedX11(), windowId, "WM_PROTOCOLS");
}

async function atomNames(x: X11Client, id: number, property: string): Promise<string[]> {
  const prop = await x.property(id, property);
  return prop ? Promise.all(cardinals(prop).map((atom) => x.atomName(atom))) : [];
}

/** 32-bit items of a property (ATOM, WINDOW, CARDINAL). */
function cardinals(prop: Property): number[] {
  if (prop.format !== 32) return [];
  const out: number[] = [];
  for (let off = 0; off + 4 <= prop.data.length; off += 4) out.push(prop.data.readUInt32LE(off));
  return out;
}
