// The window watch behind the window actions, when the window closes between the action's look-up
// and the watch: the action answers no_window, and nothing of the watch stays behind (no event
// listener on the shared connection, no selection on the root), so later actions work as before.
// And a move answers with the frame asked for even when a state change of the window's comes
// between the request and the window manager's answer: the barrier knows its own answer.
// The test's own X client owns the windows, so the helper's pid check finds them under this process.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { windowAction } from "../../helper/linux/window-actions.js";
import { windowsOfPid } from "../../helper/linux/windows.js";
import { sharedX11, type X11Client } from "../../helper/linux/x11-client.js";
import { ButtonHolder } from "./button-holder.js";
import { hasX11Tools, openboxOf, run, sleep, startTestDesktop, waitFor, type TestDesktop } from "./x-server.js";

const STRUCTURE_NOTIFY_MASK = 0x20000;

describe.skipIf(!hasX11Tools())("window actions on a window that closes first", () => {
  let desktop: TestDesktop;
  let x: X11Client;
  /** The window that closes, and the ones acted on after it. */
  let doomed: ButtonHolder;
  let next: ButtonHolder;
  let stateful: ButtonHolder;

  // All test windows are opened first: a client connecting after one closed gets its slot and so
  // its window ids, and a loaded openbox still unmanaging the closed window would take the new one
  // for it.
  beforeAll(async () => {
    desktop = await startTestDesktop();
    x = await sharedX11();
    doomed = await managedWindow();
    next = await managedWindow();
    stateful = await managedWindow();
  });
  afterAll(async () => {
    await next?.close();
    await stateful?.close();
    await desktop?.stop();
  });

  /** A managed top-level window of this process. */
  async function managedWindow(): Promise<ButtonHolder> {
    const holder = await ButtonHolder.open(100, 100, 300, 200);
    await waitFor(async () => (await windowsOfPid(process.pid)).some((w) => w.windowId === holder.window), "the window manager to manage the test window");
    return holder;
  }

  it("answers no_window and leaves no listener or root selection behind", async () => {
    const listeners = x.eventListeners;
    const rootMask = await x.eventMask(x.root);
    // The window goes away right when the watch starts selecting its events: after the look-up.
    const select = x.selectInput.bind(x);
    x.selectInput = async (window, mask) => {
      if (window === doomed.window) await doomed.close();
      return select(window, mask);
    };
    try {
      await expect(windowAction({ pid: process.pid, windowId: doomed.window, action: "move", x: 40, y: 60 })).rejects.toMatchObject({ code: "no_window" });
    } finally {
      x.selectInput = select;
    }
    expect(x.eventListeners).toBe(listeners);
    expect(await x.eventMask(x.root)).toBe(rootMask);

    const moved = await windowAction({ pid: process.pid, windowId: next.window, action: "move", x: 40, y: 60 });
    expect(moved.window?.frame.slice(0, 2)).toEqual([40, 60]);
    expect(x.eventListeners).toBe(listeners);
    expect(await x.eventMask(x.root)).toBe(rootMask);
    // The watch's selection is gone; what the window-pid cache holds on the window (to hear it
    // destroyed) stays, since the watch gives back only its own events.
    expect(await x.eventMask(next.window)).toBe(STRUCTURE_NOTIFY_MASK);
  });

  it("a move does not take someone else's state change for the window manager's answer", async () => {
    const window = stateful;
    const wm = openboxOf(desktop.display);
    // openbox stopped: the move and its barrier wait in its queue, and meanwhile another client
    // writes the window's _NET_WM_STATE (as a concurrent state change would).
    const send = x.rootClientMessage.bind(x);
    let sent = 0;
    x.rootClientMessage = async (id, type, data) => {
      await send(id, type, data);
      if (++sent === 2) run(desktop, "xprop", ["-id", String(window.window), "-f", "_NET_WM_STATE", "32a", "-set", "_NET_WM_STATE", "_NET_WM_STATE_SKIP_PAGER"]);
    };
    process.kill(wm, "SIGSTOP");
    let answered = false;
    try {
      const moving = windowAction({ pid: process.pid, windowId: window.window, action: "move", x: 70, y: 90 }).finally(() => (answered = true));
      await waitFor(async () => sent === 2, "the barrier to be sent");
      await sleep(500);
      expect(answered).toBe(false);
      process.kill(wm, "SIGCONT");
      expect((await moving).window?.frame.slice(0, 2)).toEqual([70, 90]);
    } finally {
      process.kill(wm, "SIGCONT");
      x.rootClientMessage = send;
    }
  });
});
