// activate answers only once the app really is active, also right after something else asked
// the window manager for the focus: focusElement on another app (GTK 3 presents the element's
// window when it grabs the focus) or another client's activation request. Before, activate
// read _NET_ACTIVE_WINDOW while openbox still held mousepad's request, found galculator active
// and on top, sent nothing, and openbox then gave mousepad the focus: the contract test's
// "userInCalculator" waited 5 s for galculator in vain. openbox is stopped (SIGSTOP) while the
// request waits in its queue, so the race happens every time, not now and then.
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/desk/app.js";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools, sleep } from "./helper-harness.js";
import { openboxOf } from "./x-server.js";

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "galculator", "mousepad", "xdotool"]);
if (missing.length > 0) console.warn(`test/linux/activate-after-focus.test.ts skipped: ${missing.join(", ")} missing`);

/** How long openbox stays stopped: a call that does not wait for it has long answered by then. */
const HELD_MS = 500;
const ROUNDS = 10;

describe.skipIf(missing.length > 0)("activate right after another focus request", () => {
  let run: DeskOnHelper;
  let editor: App;
  let calc: App;
  let wm: number;
  let area: number;

  const active = async (app: App): Promise<boolean> => (await run.client.request("isActive", { pid: app.pid })).active;
  const activate = (app: App): Promise<unknown> => run.client.request("activate", { pid: app.pid });
  const focusArea = (): Promise<unknown> => run.client.request("focusElement", { pid: editor.pid, index: area });
  /** Runs `call` with openbox stopped for HELD_MS; answers whether the call had answered before openbox went on. */
  const withWmHeld = async (call: () => Promise<unknown>): Promise<boolean> => {
    process.kill(wm, "SIGSTOP");
    let answered = false;
    try {
      const done = call().finally(() => (answered = true));
      await sleep(HELD_MS);
      const early = answered;
      process.kill(wm, "SIGCONT");
      await done;
      return early;
    } finally {
      process.kill(wm, "SIGCONT");
    }
  };

  beforeAll(async () => {
    run = await startDeskOnHelper();
    editor = await run.desk.getApp("mousepad");
    run.machine.trackPid(editor.pid);
    calc = await run.desk.getApp("galculator");
    run.machine.trackPid(calc.pid);
    area = (await editor.find({ role: "text area" }))!.i;
    wm = openboxOf(run.machine.desktop.DISPLAY!);
  }, 90_000);
  afterAll(async () => {
    if (wm) process.kill(wm, "SIGCONT");
    await run?.stop();
  });

  it("waits for an activation request the window manager still holds, then activates its own app", async () => {
    await activate(calc);
    const [mousepadWindow] = await run.client.request("windows", { pid: editor.pid });
    const answeredEarly = await withWmHeld(async () => {
      // Another client asks for mousepad (no --sync: the request just waits in openbox's queue).
      execFileSync("xdotool", ["windowactivate", String(mousepadWindow!.windowId)], { env: run.machine.env, timeout: 10_000 });
      await activate(calc);
    });
    expect(await active(calc)).toBe(true);
    expect(answeredEarly).toBe(false);
    await sleep(300);
    expect(await active(calc)).toBe(true);
  }, 30_000);

  it("focusElement answers once the window manager has handled the window the focus presented", async () => {
    await activate(calc);
    expect(await withWmHeld(focusArea)).toBe(false);
    expect(await active(editor)).toBe(true);
  }, 30_000);

  it(`focusElement on the editor, then activate the calculator: it stays in front, ${ROUNDS} rounds`, async () => {
    const lost: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await focusArea();
      await activate(calc);
      const now = await active(calc);
      await sleep(200);
      if (!now || !(await active(calc))) lost.push(round);
    }
    expect(lost).toEqual([]);
  }, 60_000);
});
