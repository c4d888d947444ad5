// The passive Escape watcher (XInput2 raw key events) against a real Xvfb + openbox.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EscapeWatcher, type EscapePress } from "../../helper/linux/escape-watcher.js";
import { keys, type } from "../../helper/linux/input.js";
import { parseChord } from "../../helper/linux/keysyms.js";
import { captureWindow } from "../../helper/linux/screenshot.js";
import { activate, windowFrame } from "../../helper/linux/windows.js";
import { hasX11Tools, mainWindow, sleep, startTestDesktop, waitFor, type TestDesktop } from "./x-server.js";

const execFileAsync = promisify(execFile);
/** How long "no event" is waited for. Raw events arrive within a few ms. */
const QUIET_MS = 400;

describe.skipIf(!hasX11Tools())("X11 Escape watcher", () => {
  let desktop: TestDesktop;
  let watcher: EscapeWatcher | null = null;
  let presses: EscapePress[] = [];
  let calcWindow = 0;

  /** An outside process presses Escape through XTEST, like a user's automation tool would. */
  const xdotool = (...args: string[]): Promise<unknown> => execFileAsync("xdotool", args, { env: desktop.env });

  beforeAll(async () => {
    desktop = await startTestDesktop();
    const app = desktop.launch("galculator");
    calcWindow = (await mainWindow(app.pid ?? 0)).windowId ?? 0;
    await activate(calcWindow);
  });

  afterEach(async () => {
    await watcher?.stop();
    watcher = null;
    presses = [];
  });

  afterAll(async () => {
    await desktop?.stop();
  });

  async function startWatching(): Promise<void> {
    watcher = await EscapeWatcher.start();
    watcher.onEscape((press) => presses.push(press));
  }

  it("reports an Escape pressed by another process (xdotool key Escape)", async () => {
    await startWatching();
    await xdotool("key", "Escape");
    await waitFor(async () => presses.length === 1, "the Escape event", 3000);
    expect(presses[0]).toMatchObject({ synthetic: true });
    expect(presses[0].sourceId).toBeGreaterThan(0);
  });

  it("ignores the Escapes the helper sends itself", async () => {
    await startWatching();
    await keys([{ key: "Escape", mods: [] }]);
    await keys([parseChord("shift+Escape")]);
    await type("\u001b");
    await sleep(QUIET_MS);
    expect(presses).toEqual([]);
  });

  it("tells a helper Escape and an outside one apart when both come at once", async () => {
    await startWatching();
    await Promise.all([keys([{ key: "Escape", mods: [] }]), xdotool("key", "Escape")]);
    await sleep(QUIET_MS);
    expect(presses).toHaveLength(1);
  });

  it("ignores other keys", async () => {
    await startWatching();
    await xdotool("key", "a", "Return", "ctrl+c");
    await sleep(QUIET_MS);
    expect(presses).toEqual([]);
  });

  it("keeps reporting after the keymap changes (borrowed keycodes for typing)", async () => {
    await startWatching();
    await type("ħ✓");
    await xdotool("key", "Escape");
    await waitFor(async () => presses.length === 1, "the Escape event", 3000);
  });

  it("stops reporting once stopped", async () => {
    await startWatching();
    await watcher?.stop();
    await xdotool("key", "Escape");
    await sleep(QUIET_MS);
    expect(presses).toEqual([]);
  });

  it("lets the focused app still get its Escape (nothing is grabbed)", async () => {
    // galculator clears its display on Escape: 12 → 0.
    const display = async (): Promise<Buffer> => {
      const [x, y, w] = await windowFrame(calcWindow);
      return (await captureWindow([x, y, w, 100], w, 100, "png")).data;
    };
    await activate(calcWindow);
    const cleared = await display();
    await startWatching();
    await type("12");
    await waitFor(async () => !(await display()).equals(cleared), "galculator to show 12");
    await xdotool("key", "Escape");
    await waitFor(async () => presses.length === 1, "the Escape event", 3000);
    await waitFor(async () => (await display()).equals(cleared), "galculator to clear on Escape");
  });
});
