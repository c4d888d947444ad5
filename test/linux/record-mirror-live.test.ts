// The record mirror on a real page: after each step of filling Chromium's order form, the tree
// the helper serves (its web content kept between reads, and the browser's own UI from a
// GetItems answer kept while the app sent no event, both dropped by the app's events) equals a
// read made afresh on a new connection, whose mirror keeps nothing yet. A change the mirror
// missed shows up here as a node that differs. Frames are left out (never kept, and a fresh
// read is a moment apart), and so is the memory use a tab's name carries (it changes now and then).
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/desk/app.js";
import type { AXNode } from "../../src/helper/protocol.js";
import { Atspi } from "../../helper/linux/atspi.js";
import { SETTLE_MS } from "../../helper/linux/record-mirror.js";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools, sleep } from "./helper-harness.js";

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "chromium"]);
const ORDER_FORM = pathToFileURL(fileURLToPath(new URL("../fixtures/web/order-form.html", import.meta.url))).href;
if (missing.length > 0) console.warn(`test/linux/record-mirror-live.test.ts skipped: ${missing.join(", ")} missing`);

/** What the window's nodes say, without their index (each connection numbers its own) or frame. */
function page(nodes: readonly AXNode[]): string[] {
  if (!nodes.some((node) => node.role === "AXWebArea")) throw new Error("no web page in the tree");
  return nodes.map(({ i: _i, frame: _frame, ...rest }) => {
    const title = rest.title?.replace(/ - Memory usage - [\d.]+ [KMG]B$/, "");
    return JSON.stringify(title === undefined ? rest : { ...rest, title });
  });
}

describe.skipIf(missing.length > 0)("record mirror against fresh reads (Chromium)", () => {
  let run: DeskOnHelper;
  let browser: App;

  beforeAll(async () => {
    run = await startDeskOnHelper();
    const profile = mkdtempSync(join(run.machine.dir, "chromium-"));
    const args = [`--user-data-dir=${profile}`, "--no-first-run", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", ORDER_FORM];
    browser = await run.desk.launch("chromium", { args, env: { TMPDIR: profile } });
    run.machine.trackPid(browser.pid);
    await browser.waitFor({ role: "text field", label: "Name" }, { timeout: 15_000 });
    await sleep(SETTLE_MS + 200); // from now on the helper keeps what it reads
  }, 60_000);
  afterAll(async () => run?.stop());

  /** A fresh read, once two in a row agree (the page has settled after the step). */
  async function settledFresh(): Promise<string[]> {
    const env = run.machine.env;
    let last: string[] | undefined;
    for (let attempt = 0; attempt < 40; attempt++) {
      const fresh = await Atspi.connect({ a11yBusAddress: env.AT_SPI_BUS_ADDRESS, sessionBusAddress: env.DBUS_SESSION_BUS_ADDRESS });
      try {
        const now = page((await fresh.tree(browser.pid)).nodes);
        if (last && JSON.stringify(last) === JSON.stringify(now)) return now;
        last = now;
      } finally {
        fresh.close();
      }
      await sleep(150);
    }
    throw new Error("the page never settled");
  }

  async function expectMirrorTrue(step: string): Promise<void> {
    const fresh = await settledFresh();
    const served = page((await browser.getAXState({ emit: false, disableDiffing: true })).nodes);
    expect(served, step).toEqual(fresh);
  }

  it("stays true through typing, a check box, a pop-up and its option, the page's answer, and the browser's own Back button", async () => {
    // Twice unchanged: the second read is served from the mirror.
    await expectMirrorTrue("first read");
    await expectMirrorTrue("unchanged");
    await browser.setValue((await browser.find({ role: "text field", label: "Name" }))!.i, "Ada");
    await expectMirrorTrue("typed into a field");
    await browser.click((await browser.find({ role: "checkbox", label: "Gift wrap" }))!.i);
    await expectMirrorTrue("ticked a check box");
    await browser.click((await browser.find({ label: "Item", role: "pop-up button" }))!.i);
    await browser.waitFor({ role: "menu item", label: "Cherry", exact: true }, { timeout: 5_000 });
    await expectMirrorTrue("opened a pop-up");
    await browser.click((await browser.find({ role: "menu item", label: "Cherry", exact: true }))!.i);
    await expectMirrorTrue("chose an option");
    await browser.click((await browser.find({ role: "button", label: "Place order" }))!.i);
    await browser.waitFor("Ordered 1 × Cherry as a gift for Ada", { timeout: 5_000 });
    await expectMirrorTrue("the page answered");
    // A link within the page: a history entry, so the browser's own Back button turns enabled.
    const back = await browser.find({ role: "button", label: "Back" });
    expect(back?.disabled).toBe(true);
    await browser.click((await browser.find({ role: "link", label: "Back to the form" }))!.i);
    for (let tries = 0; (await browser.find({ role: "button", label: "Back" }))?.disabled; tries++) {
      if (tries > 50) throw new Error("the Back button never turned enabled");
      await sleep(100);
    }
    await expectMirrorTrue("the browser's own UI changed");
  }, 90_000);
});
