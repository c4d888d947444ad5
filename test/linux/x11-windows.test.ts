// EWMH windows against a real Xvfb + openbox with galculator and mousepad.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  activate,
  activeWindow,
  activeWindowId,
  pidOfActiveWindow,
  windowFrame,
  windowsOfPid,
} from "../../helper/linux/windows.js";
import { keys } from "../../helper/linux/input.js";
import { parseChord } from "../../helper/linux/keysyms.js";
import type { WindowInfo } from "../../src/helper/protocol.js";
import { hasX11Tools, mainWindow, run, startTestDesktop, waitFor, type TestDesktop } from "./x-server.js";

describe.skipIf(!hasX11Tools())("X11 windows (EWMH)", () => {
  let desktop: TestDesktop;
  let galculator: { pid: number; window: WindowInfo };
  let mousepad: { pid: number; window: WindowInfo };

  beforeAll(async () => {
    desktop = await startTestDesktop();
    const calc = desktop.launch("galculator");
    const editor = desktop.launch("mousepad");
    galculator = { pid: calc.pid ?? 0, window: await mainWindow(calc.pid ?? 0) };
    mousepad = { pid: editor.pid ?? 0, window: await mainWindow(editor.pid ?? 0) };
  });

  afterAll(async () => {
    await desktop?.stop();
  });

  it("lists galculator's window with its title and a sane frame", async () => {
    const windows = await windowsOfPid(galculator.pid);
    expect(windows).toHaveLength(1);
    const [w] = windows;
    expect(w).toMatchObject({ index: 0, title: "galculator", scale: 1, main: true, minimized: false });
    expect(w.subrole).toBe("AXStandardWindow");
    const [x, y, width, height] = w.frame;
    expect(width).toBeGreaterThan(100);
    expect(height).toBeGreaterThan(100);
    expect(x).toBeGreaterThanOrEqual(0);
    expect(y).toBeGreaterThanOrEqual(0);
    expect(x + width).toBeLessThanOrEqual(1280);
    expect(y + height).toBeLessThanOrEqual(800);
  });

  it("agrees with xwininfo on the frame (client area in root coordinates)", async () => {
    const info = run(desktop, "xwininfo", ["-id", String(galculator.window.windowId)]);
    const field = (name: string): number => Number(new RegExp(`${name}:\\s+(-?\\d+)`).exec(info)?.[1]);
    expect(await windowFrame(galculator.window.windowId ?? 0)).toEqual([
      field("Absolute upper-left X"),
      field("Absolute upper-left Y"),
      field("Width"),
      field("Height"),
    ]);
  });

  it("reads a UTF-8 title from _NET_WM_NAME", async () => {
    const id = String(mousepad.window.windowId);
    run(desktop, "xdotool", ["set_window", "--name", "Notizen – größer ✓", id]);
    await waitFor(async () => (await windowsOfPid(mousepad.pid))[0]?.title === "Notizen – größer ✓", "new title");
  });

  it("switches between two apps and reports the active one", async () => {
    await activate(galculator.window.windowId ?? 0);
    expect(await activeWindowId()).toBe(galculator.window.windowId);
    expect(await pidOfActiveWindow()).toBe(galculator.pid);
    expect(run(desktop, "xdotool", ["getactivewindow"]).trim()).toBe(String(galculator.window.windowId));
    expect((await windowsOfPid(galculator.pid))[0].focused).toBe(true);
    expect((await windowsOfPid(mousepad.pid))[0].focused).toBe(false);

    await activate(mousepad.window.windowId ?? 0);
    expect(await pidOfActiveWindow()).toBe(mousepad.pid);
    expect(run(desktop, "xdotool", ["getactivewindow"]).trim()).toBe(String(mousepad.window.windowId));
    const active = await activeWindow();
    expect(active).toMatchObject({ windowId: mousepad.window.windowId, focused: true, main: true });
  });

  it("reports a minimized window and un-minimizes it on activate", async () => {
    const id = galculator.window.windowId ?? 0;
    run(desktop, "xdotool", ["windowminimize", "--sync", String(id)]);
    await waitFor(async () => (await windowsOfPid(galculator.pid))[0]?.minimized, "minimized state");
    await activate(id);
    const [w] = await windowsOfPid(galculator.pid);
    expect(w).toMatchObject({ minimized: false, focused: true });
  });

  it("lists an app's windows front to back, main being the frontmost", async () => {
    await activate(mousepad.window.windowId ?? 0);
    await keys([parseChord("ctrl+shift+n")]); // mousepad: a second window, same process
    const [front, back] = await waitFor(async () => {
      const list = await windowsOfPid(mousepad.pid);
      // openbox restacks the new window before it gives it the focus; wait for both.
      return list.length === 2 && list[0].windowId !== mousepad.window.windowId && list[0].focused ? list : null;
    }, "mousepad's second window in front, focused");
    expect(front).toMatchObject({ index: 0, focused: true, main: true });
    expect(back).toMatchObject({ index: 1, windowId: mousepad.window.windowId, focused: false, main: false });

    await activate(mousepad.window.windowId ?? 0);
    const again = await windowsOfPid(mousepad.pid);
    expect(again.map((w) => w.windowId)).toEqual([mousepad.window.windowId, front.windowId]);
    expect(again[0]).toMatchObject({ index: 0, focused: true, main: true });
  });

  it("refuses a window id the window manager does not manage", async () => {
    await expect(activate(0x1234567)).rejects.toMatchObject({ code: "no_window" });
  });

  it("gives an empty list for a pid without windows", async () => {
    expect(await windowsOfPid(process.pid)).toEqual([]);
  });
});
