// The settle after input waits until the app has handled it, against real mousepad: a read right
// after typeText shows every character typed even when the app had no CPU while the keys went
// out. The app is frozen (SIGSTOP) across the typing and thawed after longer than the pause
// after input (settleMs), as a loaded scheduler starving it would, but every time: busy loops
// hit the race only now and then (40 rounds under six passed without the wait), and they would
// load the machine for the other tests. Without the wait, 9 of 10 rounds read the text short of
// its last keys.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/desk/app.js";
import type { HelperClient } from "../../src/helper/client.js";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools } from "./helper-harness.js";

const missing = missingTools();
if (missing.length > 0) console.warn(`test/linux/typing-settle.test.ts skipped: ${missing.join(", ")} missing`);

const ROUNDS = 10;

/** The methods the desk sends while `body` runs. */
async function methodsSent(client: HelperClient, body: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const request = client.request.bind(client);
  client.request = ((method: string, ...rest: unknown[]) => {
    sent.push(method);
    return (request as (...args: unknown[]) => unknown)(method, ...rest);
  }) as typeof client.request;
  try {
    await body();
  } finally {
    client.request = request;
  }
  return sent;
}

describe.skipIf(missing.length > 0)("the settle after input waits until the app has handled it", () => {
  let run: DeskOnHelper;
  let editor: App;

  beforeAll(async () => {
    run = await startDeskOnHelper();
    editor = await run.desk.getApp("mousepad");
    run.machine.trackPid(editor.pid);
    await editor.focus((await editor.find({ role: "text area" }))!.i);
  }, 60_000);
  afterAll(async () => {
    if (editor) process.kill(editor.pid, "SIGCONT");
    await run?.stop();
  });

  it(`reads everything typeText typed into an app that was frozen meanwhile, ${ROUNDS} rounds`, async () => {
    const wrong: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await editor.pressKey("ctrl+a");
      const text = `round ${round} of glovebox`;
      process.kill(editor.pid, "SIGSTOP");
      const thaw = setTimeout(() => process.kill(editor.pid, "SIGCONT"), 100 + round * 30);
      await editor.typeText(text);
      const value = (await editor.find({ role: "text area" }))!.value;
      clearTimeout(thaw);
      process.kill(editor.pid, "SIGCONT");
      if (value !== text) wrong.push(`round ${round}: ${JSON.stringify(value)}`);
    }
    expect(wrong).toEqual([]);
  }, 60_000);

  it("answers handled only once the app has handled the input: not while it is frozen, at once after", async () => {
    const { pid } = editor;
    process.kill(pid, "SIGSTOP");
    try {
      expect(await run.client.request("inputHandled", { pid, timeoutMs: 300 })).toMatchObject({ handled: false, via: "x11-ping" });
    } finally {
      process.kill(pid, "SIGCONT");
    }
    expect(await run.client.request("inputHandled", { pid, timeoutMs: 10_000 })).toMatchObject({ handled: true, via: "x11-ping" });
    // A process with no window has nothing to ping: the helper says so at once.
    expect(await run.client.request("inputHandled", { pid: process.pid, timeoutMs: 10_000 })).toEqual({ handled: false, via: "none", waitedMs: 0 });
  }, 30_000);

  it("answers once the app has handled a key that closed its active window", async () => {
    await editor.menu(["Search", "Find and Replace…"]);
    await editor.waitFor({ role: "AXWindow", title: "Find and Replace" }, { timeout: 10_000 });
    // The dialog is the active window, so it is pinged first, behind the Escape that closes it.
    // (mousepad hides this dialog; a window the input destroys is never pinged in vain either:
    // its DestroyNotify moves the wait on to another window of the app.)
    await run.client.request("keys", { pid: editor.pid, chords: [{ key: "Escape", mods: [] }] });
    expect(await run.client.request("inputHandled", { pid: editor.pid, timeoutMs: 20_000 }, { timeoutMs: 30_000 })).toMatchObject({ handled: true, via: "x11-ping" });
    await editor.waitFor({ role: "AXWindow", title: "Find and Replace" }, { gone: true, timeout: 10_000 });
  }, 60_000);

  it("asks after each input action, and never with settleMs 0", async () => {
    expect(await methodsSent(run.client, () => editor.typeText("x"))).toContain("inputHandled");
    // A read is no input: nothing to wait for.
    expect(await methodsSent(run.client, () => editor.find({ role: "text area" }))).not.toContain("inputHandled");
    run.machine.writeConfig({ approval: "allow-all", settleMs: 0 });
    try {
      const sent = await methodsSent(run.client, async () => {
        await editor.typeText("y");
        await editor.pressKey("BackSpace");
      });
      expect(sent).toEqual(expect.arrayContaining(["type", "keys"]));
      expect(sent).not.toContain("inputHandled");
    } finally {
      run.machine.writeConfig({ approval: "allow-all" });
    }
  }, 30_000);
});
