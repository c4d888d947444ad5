// The toolkit matrix on the virtual desktop: each row drives a real app of one toolkit the way a
// cell would, and reads the result back (docs/linux.md, "Which apps work"). GTK 3 rows live in
// the galculator and mousepad tests.
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/desk/app.js";
import { SETTLE_MS } from "../../helper/linux/record-mirror.js";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools } from "./helper-harness.js";

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "chromium", "xcalc", "speedcrunch"]);
const ORDER_FORM = pathToFileURL(fileURLToPath(new URL("../fixtures/web/order-form.html", import.meta.url))).href;
if (missing.length > 0) console.warn(`test/linux/toolkit-matrix.test.ts skipped: ${missing.join(", ")} missing`);

describe.skipIf(missing.length > 0)("toolkit matrix", () => {
  let run: DeskOnHelper;

  beforeAll(async () => {
    run = await startDeskOnHelper();
  });
  afterAll(async () => run?.stop());

  async function bound(query: string): Promise<App> {
    const app = await run.desk.getApp(query);
    run.machine.trackPid(app.pid);
    return app;
  }

  it("Qt 5 (speedcrunch): an expression set in its editor, Return pressed, the result read from its display", async () => {
    const calc = await bound("speedcrunch");
    // Two text areas: the result display above, the expression editor (focused, settable) below.
    await calc.waitFor({ role: "text area" }, { timeout: 10_000 });
    const areas = await calc.findAll({ role: "text area" });
    const editor = areas.find((node) => node.settable);
    const display = areas.find((node) => !node.settable);
    expect(editor, String(await calc.getAXState({ emit: false }))).toBeDefined();
    await calc.setValue(editor!.i, "6*7");
    expect((await calc.find({ role: "text area", value: "6*7" }))?.i).toBe(editor!.i);
    await calc.pressKey("Return");
    // The display keeps the history: the expression, then its result.
    const answer = await calc.waitFor({ role: "text area", value: "= 42" }, { timeout: 5_000 });
    expect(answer?.i).toBe(display!.i);
    expect(answer?.value).toMatch(/6\s*[*×]\s*7\s*= 42/);
  }, 60_000);

  it("a Qt 5 app that cannot join the tree (started on another D-Bus session): launch answers at once with the reason, reads show its window alone, pixels and OCR drive it", async () => {
    const calc = await run.desk.launch("speedcrunch", { env: { DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(run.machine.dir, "no-such-bus")}` } });
    run.machine.trackPid(calc.pid);
    // The reason, not the deadline's registry note: its environment says it never will, so launch did not wait.
    const notes = run.shown.map((bundle) => String(bundle["text/plain"])).join("\n");
    expect(notes).toMatch(/SpeedCrunch: shows a window but no accessibility tree[^:]*: it was started on another D-Bus session \(DBUS_SESSION_BUS_ADDRESS=unix:path=.*no-such-bus; this desktop's is .*\) \(start it with desk\.env's variables\), so it cannot join this desktop's accessibility tree/);
    const tree = await calc.getAXState();
    expect(tree.nodes).toEqual([expect.objectContaining({ i: 0, role: "AXWindow", title: "SpeedCrunch" })]);
    expect(String(tree)).toMatch(/this app's toolkit has accessibility, but the app has not joined the accessibility tree: it was started on another D-Bus session .* drive it by pixels/);
    await calc.typeText("6*7\n");
    // Its menu bar is light, its result area dark: OCR reads the area below the menu bar's line on its own.
    const { width, height } = await calc.getScreenshot({ emit: false });
    const menu = (await calc.readText()).find((line) => /Session/.test(line.text));
    expect(menu, "speedcrunch's menu bar").toBeDefined();
    const below = Math.ceil(menu!.frame[1] + menu!.frame[3]) + 2;
    const deadline = Date.now() + 5_000;
    let read = "";
    while (!/= ?42\b/.test(read) && Date.now() < deadline) read = (await calc.readText([0, below, width, height - below])).map((line) => line.text).join("\n");
    expect(read).toMatch(/6\s*\*\s*7\s*= ?42\b/);
    await calc.quit();
  }, 60_000);

  it("Chromium (a local form page): fill a field, set a number, tick a box, choose an option, press the button, read the answer", async () => {
    const profile = mkdtempSync(join(run.machine.dir, "chromium-"));
    const args = [`--user-data-dir=${profile}`, "--no-first-run", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", ORDER_FORM];
    // Its temporary files go with the profile, which the harness removes.
    const browser = await run.desk.launch("chromium", { args, env: { TMPDIR: profile } });
    run.machine.trackPid(browser.pid);
    // Started as root, it got the flags it needs, and the cell was told why.
    const notes = run.shown.map((bundle) => String(bundle["text/plain"])).join("\n");
    expect(notes).toMatch(/--force-renderer-accessibility/);
    if (process.getuid?.() === 0) {
      expect(notes).toMatch(/--no-sandbox: Chromium-based apps refuse to run as root/);
      expect(readFileSync(`/proc/${browser.pid}/cmdline`, "utf8").replace(/\0/g, " "), `pid ${browser.pid}`).toContain("--no-sandbox");
    }
    const name = await browser.waitFor({ role: "text field", label: "Name" }, { timeout: 10_000 });
    const tree = String(await browser.getAXState());
    // Headings, links and buttons show their text; Chromium's per-node boilerplate is left out.
    expect(tree).toMatch(/heading "Order form"/);
    expect(tree).toMatch(/link "Back to the form"/);
    expect(tree).toMatch(/button "Place order"(?! \[)/);
    expect(tree).not.toMatch(/showContextMenu|doDefault/);
    expect(await browser.actions(name!.i)).toContain("showContextMenu");

    await browser.setValue(name!.i, "Ada Lovelace");
    const quantity = await browser.find({ label: "Quantity" });
    await browser.setValue(quantity!.i, 3);
    await browser.click((await browser.find({ role: "checkbox", label: "Gift wrap" }))!.i);
    await browser.click((await browser.find({ label: "Item", role: "pop-up button" }))!.i);
    const banana = await browser.waitFor({ role: "menu item", label: "Banana", exact: true }, { timeout: 5_000 });
    await browser.click(banana!.i);
    await browser.click((await browser.find({ role: "button", label: "Place order" }))!.i);
    const answer = await browser.waitFor("Ordered 3 × Banana as a gift for Ada Lovelace", { timeout: 5_000 });
    expect(answer).toBeDefined();
    expect((await browser.find({ role: "text field", label: "Name" }))?.value).toBe("Ada Lovelace");
  }, 60_000);

  it("Chromium, a page that comes late: its content is read once it arrives (its document replaces the empty one with no event on their panel)", async () => {
    // The server sends the page's head at once and holds its body until the browser's empty
    // document has been read and kept (the head past the parser's first buffer).
    const form = readFileSync(fileURLToPath(new URL(ORDER_FORM)), "utf8");
    const body = form.indexOf("<body>");
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).write(`${form.slice(0, body)}<!--${" ".repeat(4096)}-->`);
      void released.then(() => response.end(form.slice(body)));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const profile = mkdtempSync(join(run.machine.dir, "chromium-"));
      const args = [`--user-data-dir=${profile}`, "--no-first-run", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", url];
      const browser = await run.desk.launch("chromium", { args, env: { TMPDIR: profile } });
      run.machine.trackPid(browser.pid);
      // The head is in once the window has the page's title. What reads see is kept from
      // SETTLE_MS after the helper first walked the page: read the empty document past that.
      let since: number | undefined;
      while (since === undefined || Date.now() < since + 2 * SETTLE_MS) {
        const tree = String(await browser.getAXState());
        expect(tree).not.toMatch(/heading "Order form"/);
        if (since === undefined && /window "Order form/.test(tree)) since = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      release();
      const name = await browser.waitFor({ role: "text field", label: "Name" }, { timeout: 10_000 });
      expect(name).toBeDefined();
      expect(String(await browser.getAXState())).toMatch(/heading "Order form"/);
    } finally {
      release();
      server.closeAllConnections();
      server.close();
    }
  }, 60_000);

  it("an X11 app with no accessibility (xcalc): found by name and window, one-node tree with a note, 6*7 computed by keys found by OCR, 42 read off its display", async () => {
    // xcalc has no desktop entry and sets no _NET_WM_PID: PATH finds it, X-Resource ties its window to it.
    const calc = await bound("xcalc");
    const [window] = await calc.windows();
    expect(window).toMatchObject({ title: "Calculator", main: true });
    const tree = await calc.getAXState();
    expect(tree.nodes).toEqual([expect.objectContaining({ i: 0, d: 0, role: "AXWindow", title: "Calculator" })]);
    expect(String(tree)).toMatch(/this app exposes no accessibility \(no AT-SPI tree\): drive it by pixels/);
    const shot = await calc.getScreenshot({ emit: false });
    expect([shot.width, shot.height]).toEqual([window!.frame[2], window!.frame[3]]);
    expect(await computeByPixels(calc, await keypad(calc), "42")).toBe("42");
    // Keys are found again at another window size: nothing here knows where they are.
    const [width, height] = [window!.frame[2], window!.frame[3]];
    const resized = await window!.resize(Math.round(width * 1.5), Math.round(height * 1.25));
    expect(resized.frame[2]).toBeGreaterThan(width);
    const keys = await keypad(calc);
    await calc.click(key(keys, "AC"));
    expect(await readDisplay(calc, keys, "0")).toBe("0");
    expect(await computeByPixels(calc, keys, "42")).toBe("42");
  }, 90_000);
});

type Words = Map<string, [number, number, number, number][]>;

/** xcalc's labels as OCR reads them off the window: each label's frames. */
async function keypad(calc: App): Promise<Words> {
  // The keys are boxed: borders wiped, the rows read as lines, each label a word with its box.
  const lines = await calc.readText({ removeLines: true, scale: 2, layout: "block" });
  const words: Words = new Map();
  for (const word of lines.flatMap((line) => line.words ?? [])) words.set(word.text, [...(words.get(word.text) ?? []), word.frame]);
  return words;
}

function centre([x, y, w, h]: [number, number, number, number]): [number, number] {
  return [x + w / 2, y + h / 2];
}

/** The centre of the one label `label`. */
function key(words: Words, label: string): [number, number] {
  const frames = words.get(label) ?? [];
  expect(frames, `${label} among ${[...words.keys()].join(" ")}`).toHaveLength(1);
  return centre(frames[0]!);
}

/** Clicks 6 * 7 = at points read off the window; answers the display's text once it reads `expected` (or at 5 s). */
async function computeByPixels(calc: App, words: Words, expected: string): Promise<string> {
  const [six, seven] = [key(words, "6"), key(words, "7")];
  // The operator column is where "-" and "+" sit. xcalc draws "*" as a 5-pixel speck no OCR
  // reads, so its key is taken from the layout: that column, in the row of 7; "=" is the "="
  // in that column (tesseract also sees a stray "=" in a border between two keys).
  const column = centre((words.get("+") ?? words.get("-") ?? [])[0]!)[0];
  const equals = (words.get("=") ?? []).map(centre).find(([x]) => Math.abs(x - column) < 10);
  expect(equals, `"=" in the column at x ${column}`).toBeDefined();
  for (const point of [six, [column, seven[1]], seven, equals!] as [number, number][]) await calc.click(point);
  return readDisplay(calc, words, expected);
}

/**
 * The number on xcalc's display (the box above its angle mode line, "DEG"), read as one line of
 * digits; read again until it is `expected` (xcalc redraws a moment after the click), at most 5 s.
 */
async function readDisplay(calc: App, words: Words, expected: string): Promise<string> {
  const mode = words.get("DEG")?.[0];
  expect(mode, "xcalc's angle mode line").toBeDefined();
  const { width } = await calc.getScreenshot({ emit: false });
  const region: [number, number, number, number] = [0, 0, width, Math.floor(mode![1])];
  const deadline = Date.now() + 5_000;
  for (;;) {
    const [display] = await calc.readText(region, { removeLines: true, scale: 2, layout: "line", chars: "0123456789.-" });
    if (display?.text === expected || Date.now() > deadline) return display?.text ?? "";
  }
}
