// Keys held on mousepad: keyDown/keyUp keep a key down across other input (Shift over a key
// press), pressKey's duration holds each key, a read-only grant still lets a key go, and a
// client that goes away leaves nothing down.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/desk/app.js";
import { HelperClient } from "../../src/helper/client.js";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools, waitFor } from "./helper-harness.js";

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "mousepad"]);
if (missing.length > 0) console.warn(`test/linux/desk-keys-held.test.ts skipped: ${missing.join(", ")} missing`);

describe.skipIf(missing.length > 0)("keys held", () => {
  let run: DeskOnHelper;
  let editor: App;
  let area: number;

  beforeAll(async () => {
    run = await startDeskOnHelper();
    editor = await run.desk.getApp("mousepad");
    run.machine.trackPid(editor.pid);
    area = (await editor.find({ role: "AXTextArea" }))!.i;
  });
  afterAll(async () => run?.stop());

  const text = async (): Promise<string> => (await editor.find({ role: "AXTextArea" }))?.value ?? "";
  const fresh = async (): Promise<void> => {
    await editor.setValue(area, "");
    await editor.focus(area);
  };

  it("holds Shift across a key press, and releases it with keyUp", async () => {
    await fresh();
    await editor.keyDown("Shift_L");
    await editor.pressKey("a");
    await editor.keyUp("Shift_L");
    await editor.pressKey("b");
    await waitFor(async () => (await text()) === "Ab", '"Ab"');
  });

  it("holds each key for duration ms", async () => {
    await fresh();
    const started = Date.now();
    await editor.pressKey(["c", "d"], { duration: 300 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    await waitFor(async () => /^c+d+$/.test(await text()), "c then d");
    await expect(editor.pressKey("c", { duration: 20_000 })).rejects.toThrow(RangeError);
  });

  it("lets a held key go under every grant, so a read-only switch never leaves it down", async () => {
    await fresh();
    await editor.keyDown("Shift_L");
    run.machine.writeConfig({ approval: "allow-all", grant: "read-only" });
    try {
      await expect(editor.keyDown("Control_L")).rejects.toMatchObject({ code: "not_granted" });
      await editor.keyUp("Shift_L");
    } finally {
      run.machine.writeConfig({ approval: "allow-all" });
    }
    await editor.pressKey("g");
    await waitFor(async () => (await text()) === "g", "an unshifted g after the release");
  });

  it("refuses a chord or a key the keyboard map lacks", async () => {
    await expect(editor.keyDown("ctrl+a")).rejects.toThrow(TypeError);
    await expect(editor.keyDown("é")).rejects.toMatchObject({ code: "bad_key" });
  });

  it("releases held keys when the client that held them disconnects", async () => {
    const other = await HelperClient.connect({ socketPath: run.helper.socket, clientName: "holder", requestTimeoutMs: 30_000 });
    await fresh();
    await other.request("keyDown", { pid: editor.pid, key: "Shift_L" });
    await other.close();
    await waitFor(async () => {
      await editor.setValue(area, "");
      await editor.pressKey("e");
      return (await text()) === "e";
    }, "an unshifted e once the holder is gone");
  });
});
