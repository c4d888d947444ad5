// app.windows() actions on mousepad under openbox: focus, move, resize, minimize and close,
// each answered with the window as the window manager left it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/desk/app.js";
import type { AppWindow } from "../../src/desk/app-window.js";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools, sleep, waitFor } from "./helper-harness.js";
import { openboxOf } from "./x-server.js";

const missing = missingTools();
if (missing.length > 0) console.warn(`test/linux/desk-windows.test.ts skipped: ${missing.join(", ")} missing`);

describe.skipIf(missing.length > 0)("app.windows() actions on mousepad", () => {
  let run: DeskOnHelper;
  let editor: App;
  let main: AppWindow;

  beforeAll(async () => {
    run = await startDeskOnHelper();
    editor = await run.desk.getApp("mousepad");
    run.machine.trackPid(editor.pid);
    [main] = await editor.windows();
  });
  afterAll(async () => run?.stop());

  /** The window as `windows()` lists it now. */
  const listed = async (id: number | undefined): Promise<AppWindow | undefined> => (await editor.windows()).find((w) => w.windowId === id);

  it("moves the window's content to the point asked, and reads the frame back", async () => {
    const moved = await main.move(50, 70);
    expect(moved).toBe(main);
    expect(main.frame.slice(0, 2)).toEqual([50, 70]);
    expect((await listed(main.windowId))!.frame).toEqual(main.frame);
  });

  it("resizes, and clamps a size below the app's minimum to what the window manager allowed", async () => {
    await main.resize(700, 500);
    expect(main.frame).toEqual([50, 70, 700, 500]);
    await main.resize(1, 1);
    const [, , width, height] = main.frame;
    expect(width).toBeGreaterThan(1);
    expect(height).toBeGreaterThan(1);
    expect((await listed(main.windowId))!.frame).toEqual(main.frame);
  });

  it("minimizes, and focus brings it back in front", async () => {
    await main.minimize();
    expect(main.minimized).toBe(true);
    expect(main.focused).toBe(false);
    await main.focus();
    expect(main).toMatchObject({ minimized: false, focused: true });
  });

  it("waits for a window manager that takes longer than a second to answer", async () => {
    // openbox stopped for 1.5 s: a helper that gave the WM one second read the window back unchanged.
    const wm = openboxOf(run.machine.desktop.DISPLAY!);
    const held = async <T>(action: () => Promise<T>): Promise<T> => {
      process.kill(wm, "SIGSTOP");
      let answered = false;
      const done = action().finally(() => (answered = true));
      try {
        await sleep(1_500);
        expect(answered).toBe(false);
      } finally {
        process.kill(wm, "SIGCONT");
      }
      return done;
    };
    await held(() => main.move(80, 90));
    expect(main.frame.slice(0, 2)).toEqual([80, 90]);
    await held(() => main.minimize());
    expect(main).toMatchObject({ minimized: true, focused: false });
    await main.focus();
  });

  it("closes a second window, which is gone afterwards", async () => {
    await editor.pressKey("ctrl+shift+n");
    const second = await waitFor(async () => (await editor.windows()).find((w) => w.windowId !== main.windowId), "a second window");
    await second.close();
    expect(second.open).toBe(false);
    expect(await listed(second.windowId)).toBeUndefined();
    expect(await listed(main.windowId)).toBeDefined();
  });

  it("the helper refuses a window of another app, and a move without its point", async () => {
    const other = await run.desk.getApp("galculator");
    run.machine.trackPid(other.pid);
    const [calcWindow] = await other.windows();
    await expect(run.client.request("windowAction", { pid: editor.pid, windowId: calcWindow!.windowId!, action: "focus" })).rejects.toMatchObject({ code: "no_window" });
    await expect(run.client.request("windowAction", { pid: editor.pid, windowId: main.windowId!, action: "move", x: 1 })).rejects.toMatchObject({ code: "bad_request" });
  });

  it("refuses bad sizes before asking the helper", async () => {
    await expect(main.resize(0, 100)).rejects.toThrow(TypeError);
    await expect(main.move(Number.NaN, 1)).rejects.toThrow(TypeError);
  });
});
