// Bench rows for the toolkits beyond GTK (docs/linux.md's matrix): an AX read of a Qt 5 app
// (speedcrunch), of Chromium on a local page of about 200 nodes, and of an X11 app with no
// accessibility (xcalc: a one-node tree) with its screenshot and OCR reads. An app that is not installed
// gives no row, and says so. Qt 5 and Chromium's web content are read through the helper's
// record mirror (helper/linux/record-mirror.ts): the timed reads are its steady state, taken
// after the app's events have been followed for a moment; a further Chromium row times a read
// right after the page changed, when every kept record's states and name are read again.
import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import type { App } from "../src/desk/app.js";
import type { Desk } from "../src/desk/desk.js";
import { SETTLE_MS } from "../helper/linux/record-mirror.js";
import { atMost, median, timeAsync, type Row } from "./report.js";
import { cpuPerCall, cpuRow, type CallCpu, type HelperProcess } from "./call-cpu.js";

const RUNS = 20;
const WARMUP_RUNS = 3;
/** An OCR read takes tesseract's time (a few hundred ms): fewer runs. */
const OCR_RUNS = 5;
/** Issue 18: a web page of ~200 nodes reads in ≤ 50 ms. */
const WEB_TARGET_MS = 50;
const QT_TARGET_MS = 20;
const X11_ONLY_TARGET_MS = 10;
/** The approvals these rows need (the bench's config.json). */
export const TOOLKIT_APPS = ["speedcrunch", "chromium", "xcalc"];

export interface ToolkitRows {
  rows: Row[];
  samples: Record<string, number[]>;
  cpuPerCallMs: Record<string, CallCpu>;
}

export async function toolkitRows(desk: Desk, apps: App[], home: string, helper: HelperProcess): Promise<ToolkitRows> {
  const rows: Row[] = [];
  const samples: Record<string, number[]> = {};
  const cpuPerCallMs: Record<string, CallCpu> = {};
  const read = (app: App) => () => app.getAXState({ emit: false, disableDiffing: true });
  if (installed("speedcrunch")) {
    // A Qt app that does not come up says why, and the other toolkits' rows still run.
    try {
      const calc = await desk.getApp("speedcrunch");
      apps.push(calc);
      await calc.waitFor({ role: "text area" }, { timeout: 15_000 });
      await settled();
      const nodes = (await read(calc)()).nodes.length;
      samples.speedcrunchAxMs = await timeAsync(RUNS, WARMUP_RUNS, read(calc));
      rows.push({ metric: `AX read + format, Qt 5 speedcrunch (${nodes} nodes, no AT-SPI cache), mirrored`, value: median(samples.speedcrunchAxMs), unit: "ms", target: `≤ ${QT_TARGET_MS} ms`, verdict: atMost(median(samples.speedcrunchAxMs), QT_TARGET_MS) });
    } catch (error) {
      console.log(`note: no Qt row: ${(error as Error).message}`);
    }
  } else console.log("note: speedcrunch is not installed: no Qt row");
  if (installed("chromium")) {
    const page = join(home, "web-page.html");
    await writeFile(page, webPage());
    const args = [`--user-data-dir=${join(home, "chromium-profile")}`, "--no-first-run", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", pathToFileURL(page).href];
    const browser = await desk.launch("chromium", { args });
    apps.push(browser);
    // The last row is below the fold: found only if content scrolled out of view is read.
    await browser.waitFor({ role: "link", label: "Row 40" }, { timeout: 20_000 });
    await settled();
    const nodes = (await read(browser)()).nodes.length;
    samples.chromiumAxMs = await timeAsync(RUNS, WARMUP_RUNS, read(browser));
    rows.push({ metric: `AX read + format, Chromium, local page (${nodes} nodes with the browser's own), mirrored`, value: median(samples.chromiumAxMs), unit: "ms", target: `≤ ${WEB_TARGET_MS} ms`, verdict: atMost(median(samples.chromiumAxMs), WEB_TARGET_MS) });
    // The browser's main process answers AT-SPI, so its CPU is the app's share of a read.
    cpuPerCallMs.chromiumAx = await cpuPerCall(helper, RUNS, read(browser), browser.pid);
    rows.push(cpuRow("AX read + format, Chromium page", cpuPerCallMs.chromiumAx, "Chromium's main process"));
    samples.chromiumChangedAxMs = await readsAfterChange(browser);
    rows.push({ metric: "AX read + format, Chromium, right after the page changed (a check box ticked), mirror partly dropped", value: median(samples.chromiumChangedAxMs), unit: "ms", target: "-", verdict: "-" });
  } else console.log("note: chromium is not installed: no Chromium row");
  if (installed("xcalc")) {
    const calc = await desk.getApp("xcalc");
    apps.push(calc);
    samples.xcalcAxMs = await timeAsync(RUNS, WARMUP_RUNS, read(calc));
    rows.push({ metric: "AX read, xcalc (no accessibility: the one-node tree)", value: median(samples.xcalcAxMs), unit: "ms", target: `≤ ${X11_ONLY_TARGET_MS} ms`, verdict: atMost(median(samples.xcalcAxMs), X11_ONLY_TARGET_MS) });
    samples.xcalcPngMs = await timeAsync(RUNS, WARMUP_RUNS, () => calc.getScreenshot({ emit: false }));
    rows.push({ metric: "window screenshot, xcalc, capture + PNG", value: median(samples.xcalcPngMs), unit: "ms", target: "-", verdict: "-" });
    // Whole-window OCR, as the toolkit matrix reads xcalc's keypad: plain, then with its key borders wiped.
    const { width, height } = await calc.getScreenshot({ emit: false });
    samples.xcalcOcrMs = await timeAsync(OCR_RUNS, 1, () => calc.readText({ scale: 2, layout: "block" }));
    rows.push({ metric: `OCR, xcalc whole window (${width}×${height}, scale 2)`, value: median(samples.xcalcOcrMs), unit: "ms", target: "-", verdict: "-" });
    samples.xcalcOcrLinesMs = await timeAsync(OCR_RUNS, 1, () => calc.readText({ removeLines: true, scale: 2, layout: "block" }));
    rows.push({ metric: "OCR, xcalc whole window, removeLines (scale 2)", value: median(samples.xcalcOcrLinesMs), unit: "ms", target: "-", verdict: "-" });
  } else console.log("note: xcalc is not installed (x11-apps): no X11-only row");
  return { rows, samples, cpuPerCallMs };
}

/** The helper keeps what it reads of an app once it has followed the app's events this long. */
function settled(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 200));
}

/**
 * Reads timed right after the page changed: the check box pressed, a moment for the page's
 * events to arrive, then the read (which must show the new state: nothing stale is served).
 */
async function readsAfterChange(browser: App): Promise<number[]> {
  const box = await browser.find({ role: "checkbox", label: "Tick" });
  if (!box) throw new Error("the bench page's check box is not in the tree");
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    await browser.performAction(box.i, "AXPress");
    await new Promise((resolve) => setTimeout(resolve, 150));
    const t0 = performance.now();
    const tree = await browser.getAXState({ emit: false, disableDiffing: true });
    times.push(performance.now() - t0);
    const shown = tree.nodes.find((node) => node.i === box.i)?.value;
    const expected = run % 2 === 0 ? "1" : "0";
    if (shown !== expected) throw new Error(`the read after press ${run + 1} shows the check box as ${shown}, not ${expected}`);
  }
  return times;
}

function installed(program: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${program}`]).status === 0;
}

/** About 200 accessible nodes: headings, a table of links and numbers, a form. */
function webPage(): string {
  const rows = Array.from({ length: 40 }, (_, n) => `<tr><td><a href="#r${n + 1}">Row ${n + 1}</a></td><td>${(n + 1) * 7}</td></tr>`).join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bench page</title></head><body>
<h1>Bench page</h1><h2>Numbers</h2><table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody>
${rows}
</tbody></table><h2>Form</h2><form><label>Name <input type="text"></label><label><input type="checkbox"> Tick</label><button type="button">Send</button></form>
</body></html>
`;
}
