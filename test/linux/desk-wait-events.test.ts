// Event-driven waits on the virtual desktop: waitChange wakes on galculator's and mousepad's
// AT-SPI events (a long timeout that only an event can cut short), answers unchanged when
// nothing happens, and never loses an event between two calls; waitFor and expect resolve on
// a change made while they wait, with events and with polling alike; a click on a disabled
// button waits for it to turn enabled.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/desk/app.js";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools, sleep } from "./helper-harness.js";

const missing = missingTools();
if (missing.length > 0) console.warn(`test/linux/desk-wait-events.test.ts skipped: ${missing.join(", ")} missing`);

/** Far beyond the test's own timeout: a waitChange that returns earlier was woken by an event. */
const ONLY_AN_EVENT_ENDS_IT = 60_000;

describe.skipIf(missing.length > 0)("event-driven waits", () => {
  let run: DeskOnHelper;
  let calc: App;
  let editor: App;

  beforeAll(async () => {
    run = await startDeskOnHelper();
    calc = await run.desk.getApp("galculator");
    editor = await run.desk.getApp("mousepad");
    run.machine.trackPid(calc.pid);
    run.machine.trackPid(editor.pid);
  });
  afterAll(async () => run?.stop());

  const waitChange = (pid: number, after: number | undefined, timeoutMs: number) =>
    run.client.request("waitChange", { pid, timeoutMs, ...(after !== undefined && { after }) }, { timeoutMs: timeoutMs + 10_000 });
  /** Waits until a 300 ms wait passes without an event (at most 20 tries). */
  const quiet = async (pid: number) => {
    let last = await waitChange(pid, undefined, 0);
    for (let tries = 0; tries < 20; tries++) {
      const next = await waitChange(pid, last.seq, 300);
      if (!next.changed) return next;
      last = next;
    }
    throw new Error(`pid ${pid} never went quiet`);
  };
  const key = async (label: string): Promise<number> => (await calc.find({ role: "button", label, exact: true }))!.i;

  it("wakes on a press in galculator, and answers unchanged when nothing happens", async () => {
    const clear = await key("C");
    expect(await waitChange(calc.pid, undefined, 0)).toMatchObject({ changed: false, watching: true });
    // The app just started and took focus: let those events pass, then an idle wait is unchanged.
    const start = await quiet(calc.pid);
    expect(await waitChange(calc.pid, start.seq, 300)).toEqual({ seq: start.seq, changed: false, watching: true });
    const woken = waitChange(calc.pid, start.seq, ONLY_AN_EVENT_ENDS_IT);
    await run.client.request("performAction", { pid: calc.pid, index: clear, action: "AXPress" });
    const result = await woken;
    expect(result.changed).toBe(true);
    expect(result.seq).toBeGreaterThan(start.seq);
  }, 20_000);

  it("returns at once for an event that came between two calls", async () => {
    const start = await waitChange(calc.pid, undefined, 0);
    await run.client.request("performAction", { pid: calc.pid, index: await key("5"), action: "AXPress" });
    // Nothing waits now; the events are counted, so the next call sees them without waiting.
    await sleep(300);
    expect(await waitChange(calc.pid, start.seq, ONLY_AN_EVENT_ENDS_IT)).toMatchObject({ changed: true });
  }, 20_000);

  it("wakes on mousepad's text and window events", async () => {
    const area = (await editor.find({ role: "AXTextArea" }))!;
    let start = await waitChange(editor.pid, undefined, 0);
    const typed = waitChange(editor.pid, start.seq, ONLY_AN_EVENT_ENDS_IT);
    await run.client.request("setValue", { pid: editor.pid, index: area.i, value: "changed by a test" });
    expect(await typed).toMatchObject({ changed: true });
    start = await waitChange(editor.pid, undefined, 0);
    const dialog = waitChange(editor.pid, start.seq, ONLY_AN_EVENT_ENDS_IT);
    await editor.menu(["Search", "Find and Replace…"]);
    expect(await dialog).toMatchObject({ changed: true });
    await editor.waitFor({ role: "AXWindow", title: "Find and Replace" }, { timeout: 10_000 });
    await editor.pressKey("Escape");
    await editor.waitFor({ role: "AXWindow", title: "Find and Replace" }, { gone: true, timeout: 10_000 });
  }, 30_000);

  it.each([true, false])("resolves waitFor and expect on a change made while they wait (events: %s)", async (events) => {
    await calc.click(await key("C"));
    await calc.expect({ role: "text area", value: "0" }, { events });
    const later = sleep(400).then(async () => calc.click(await key("9")));
    const found = await calc.waitFor({ role: "text area", value: "9" }, { events, timeout: 10_000 });
    expect(found?.value?.trim()).toBe("9");
    await later;
  }, 30_000);

  it("click waits for a disabled button to turn enabled, and sends nothing while it stays disabled", async () => {
    const area = (await editor.find({ role: "AXTextArea" }))!;
    await editor.setValue(area.i, "one two");
    await editor.menu(["Search", "Find and Replace…"]);
    await editor.waitFor({ role: "AXWindow", title: "Find and Replace" }, { timeout: 10_000 });
    const findButton = { role: "button", label: "Find", window: "Find and Replace" };
    const search = (await editor.find({ role: "text field" }))!;
    await editor.setValue(search.i, "");
    // mousepad's Find is disabled while there is nothing to search for.
    expect(await editor.locate(findButton)).toMatchObject({ disabled: true });
    const logged = () => readFileSync(join(run.machine.home, "actions.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    const before = logged().length;
    const refused = await editor.click(findButton, { timeout: 300 }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "action_failed", message: expect.stringMatching(/Find.* in Mousepad stayed disabled for 300 ms, so the click was not sent/) });
    expect(logged().slice(before).filter((l) => l.action === "click" || l.action === "performAction")).toEqual([]);

    const clicked = editor.click(findButton);
    await sleep(400);
    await editor.setValue(search.i, "two");
    await clicked;
    // The press came after the search text that enabled it, not before.
    expect(logged().slice(before).map((l) => [l.action, l.axAction])).toEqual([["setValue", undefined], ["performAction", "AXPress"]]);
    await editor.pressKey("Escape");
    await editor.waitFor({ role: "AXWindow", title: "Find and Replace" }, { gone: true, timeout: 10_000 });
  }, 30_000);

  it("refuses a timeout or interval that is not milliseconds, before reading, for waitFor and expect alike", async () => {
    for (const wait of [calc.waitFor.bind(calc), calc.expect.bind(calc)]) {
      for (const interval of [-1, 0, 5, Number.NaN]) await expect(wait("x", { interval })).rejects.toThrow(RangeError);
      await expect(wait("x", { interval: "fast" as unknown as number })).rejects.toThrow(/interval is a number of milliseconds, not "fast"/);
      await expect(wait("x", { timeout: Number.NaN })).rejects.toThrow(/timeout is milliseconds ≥ 0, not NaN/);
    }
    const timedOut = await calc.waitFor("no such element", { timeout: 0 }).catch((e: unknown) => e);
    expect(timedOut).toMatchObject({ name: "WaitTimeout", code: "wait_timeout" });
  });
});
