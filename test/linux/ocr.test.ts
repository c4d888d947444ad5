// OCR with Debian's tesseract-ocr: a rendered text image read back with its line boxes, and
// app.readText on galculator's display after pressing 6 × 7 =.
import { spawnSync } from "node:child_process";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recognizeLines } from "../../helper/linux/ocr.js";
import type { App } from "../../src/desk/app.js";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools, waitFor } from "./helper-harness.js";

const hasTesseract = spawnSync("sh", ["-c", "command -v tesseract"]).status === 0;
if (!hasTesseract) console.warn("test/linux/ocr.test.ts skipped: tesseract missing");
const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "galculator"]);

describe.skipIf(!hasTesseract)("tesseract on a rendered image", () => {
  it("reads two lines with their boxes in the image's pixels", async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="120"><rect width="400" height="120" fill="white"/>
      <text x="20" y="40" font-family="DejaVu Sans" font-size="22" fill="black">Invoice total 1234</text>
      <text x="20" y="95" font-family="DejaVu Sans" font-size="22" fill="black">Paid in full</text></svg>`;
    const png = await sharp(Buffer.from(svg)).png().toBuffer();
    const lines = await recognizeLines(png);
    expect(lines.map((l) => l.text)).toEqual(["Invoice total 1234", "Paid in full"]);
    const [first, second] = lines;
    expect(first!.frame[0]).toBeGreaterThanOrEqual(15);
    expect(first!.frame[0]).toBeLessThanOrEqual(25);
    expect(first!.frame[1]).toBeGreaterThan(15);
    expect(first!.frame[1] + first!.frame[3]).toBeLessThanOrEqual(48);
    expect(second!.frame[1]).toBeGreaterThan(first!.frame[1] + first!.frame[3]);
    expect(first!.confidence).toBeGreaterThan(0.5);
    // A region reads only what is in it, frames still in the whole image's pixels.
    const lower = await recognizeLines(png, [0, 60, 400, 60]);
    expect(lower.map((l) => l.text)).toEqual(["Paid in full"]);
    expect(Math.abs(lower[0]!.frame[1] - second!.frame[1])).toBeLessThanOrEqual(2);
  });
});

describe.skipIf(!hasTesseract || missing.length > 0)("app.readText on galculator", () => {
  let run: DeskOnHelper;
  let calc: App;

  beforeAll(async () => {
    run = await startDeskOnHelper();
    calc = await run.desk.getApp("galculator");
    run.machine.trackPid(calc.pid);
  });
  afterAll(async () => run?.stop());

  it("reads the result off the display", async () => {
    // Builds of galculator differ in the multiplication sign.
    const times = (await calc.find({ role: "button", label: "×", exact: true })) ? "×" : "*";
    for (const key of ["6", times, "7", "="]) await calc.click({ find: { role: "button", label: key, exact: true } });
    const display = (await calc.getAXState({ frames: true, emit: false })).nodes.find((n) => n.role === "AXTextArea" || n.role === "AXTextField")!;
    await waitFor(async () => /42/.test((await calc.find({ role: display.role }))?.value ?? ""), "42 on the display");
    const [x, y, w, h] = display.frame!.map(Math.round) as [number, number, number, number];
    const lines = await calc.readText([x, y, w, h]);
    expect(lines.map((l) => l.text).join(" ")).toMatch(/\b42\b/);
    for (const line of lines) {
      expect(line.frame[0]).toBeGreaterThanOrEqual(x - 1);
      expect(line.frame[1]).toBeGreaterThanOrEqual(y - 1);
    }
    expect((await calc.readText()).length).toBeGreaterThan(0);
  });
});
