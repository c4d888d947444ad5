// OCR with Debian's tesseract-ocr: a rendered text image read back with its line boxes, and
// app.readText on galculator's display after pressing 6 × 7 =.
import { spawnSync } from "node:child_process";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recognizeLines } from "../../helper/linux/ocr.js";
import { blackOnWhite, MAX_CLEAN_PIXELS, otsuLevel, prepareImage, wipeLines } from "../../helper/linux/ocr-image.js";
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

describe("preparing an image for OCR", () => {
  it("thresholds between the two greys, dark text on light, a dark ground inverted", () => {
    const light = Uint8Array.from([200, 210, 205, 40, 50, 200, 220, 215]);
    expect(otsuLevel(light)).toBeGreaterThanOrEqual(50);
    expect(otsuLevel(light)).toBeLessThan(200);
    blackOnWhite(light);
    expect([...light]).toEqual([255, 255, 255, 0, 0, 255, 255, 255]);
    const dark = Uint8Array.from([30, 20, 25, 230, 240, 30, 20, 25]);
    blackOnWhite(dark);
    expect([...dark]).toEqual([255, 255, 255, 0, 0, 255, 255, 255]);
  });

  it("wipes runs at least the line length across and down, and keeps shorter strokes", () => {
    const [w, h] = [12, 6];
    const pixels = new Uint8Array(w * h).fill(255);
    for (let x = 0; x < w; x++) pixels[x] = 0; // a border along the top
    for (let y = 0; y < h; y++) pixels[y * w + 11] = 0; // and down the right
    for (let x = 3; x < 6; x++) pixels[3 * w + x] = 0; // a letter's stroke, 3 long
    wipeLines(pixels, w, h, 6);
    expect(pixels.filter((p) => p === 0).length).toBe(3);
    expect([pixels[3 * w + 3], pixels[3 * w + 4], pixels[3 * w + 5]]).toEqual([0, 0, 0]);
  });
});

describe("the pixels binarize and removeLines pass over", () => {
  // A window of 1920×1080 at the default scale 3: 18.7 M pixels, 0.9 s of the helper's thread.
  const window = () => sharp({ create: { width: 1920, height: 1080, channels: 3, background: "#ddd" } }).png().toBuffer();

  it("refuses more than the cap with a coded error naming the option and what would fit", async () => {
    const png = await window();
    await expect(prepareImage(png, undefined, { removeLines: true })).rejects.toMatchObject({
      code: "bad_request",
      message: expect.stringMatching(new RegExp(`readText's removeLines takes at most ${MAX_CLEAN_PIXELS} pixels enlarged; 1920×1080 at scale 3 is 18662400: ask a scale of at most 1\\.42, or a smaller region`)),
    });
    await expect(prepareImage(png, undefined, { binarize: true, scale: 2 })).rejects.toMatchObject({ code: "bad_request", message: expect.stringMatching(/readText's binarize/) });
  });

  it("takes a scale or a region that fits, and enlarges without the options whatever the size", async () => {
    const png = await window();
    expect((await prepareImage(png, undefined, { removeLines: true, scale: 1.4 })).scale).toBe(1.4);
    expect((await prepareImage(png, [0, 0, 600, 400], { removeLines: true })).scale).toBe(3);
    expect((await prepareImage(png, undefined, {})).scale).toBe(3);
  });
});

describe.skipIf(!hasTesseract)("tesseract on small boxed UI text", () => {
  // A keypad as small toolkits draw it: single characters 11 pixels high, each in a bordered key.
  const keys = [["7", "8", "9"], ["4", "5", "6"], ["1", "2", "3"]];
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="100"><rect width="160" height="100" fill="white"/>${keys
    .flatMap((row, r) => row.map((label, c) => `<rect x="${6 + c * 50}" y="${4 + r * 31}" width="44" height="26" fill="white" stroke="black" stroke-width="1.5"/><text x="${24 + c * 50}" y="${22 + r * 31}" font-family="DejaVu Sans" font-size="12" fill="black">${label}</text>`))
    .join("")}</svg>`;

  it("reads each key's label as a word with its own frame once the borders are wiped", async () => {
    const png = await sharp(Buffer.from(svg)).png().toBuffer();
    const lines = await recognizeLines(png, undefined, { removeLines: true, scale: 2, layout: "block" });
    expect(lines.map((l) => l.text)).toEqual(["7 8 9", "4 5 6", "1 2 3"]);
    const five = lines[1]!.words![1]!;
    expect(five.text).toBe("5");
    // Inside the middle key, in the whole image's pixels.
    expect(five.frame[0]).toBeGreaterThan(56);
    expect(five.frame[0] + five.frame[2]).toBeLessThan(100);
    expect(five.frame[1]).toBeGreaterThan(35);
    expect(five.frame[1] + five.frame[3]).toBeLessThan(61);
  });

  it("reads light text on a dark ground when binarized, and only the characters asked for", async () => {
    const dark = `<svg xmlns="http://www.w3.org/2000/svg" width="220" height="40"><rect width="220" height="40" fill="#202830"/>
      <text x="10" y="26" font-family="DejaVu Sans" font-size="14" fill="#d0d8e0">Total 1234</text></svg>`;
    const png = await sharp(Buffer.from(dark)).png().toBuffer();
    expect((await recognizeLines(png, undefined, { binarize: true, layout: "line" })).map((l) => l.text)).toEqual(["Total 1234"]);
    const digits = await recognizeLines(png, undefined, { binarize: true, layout: "line", chars: "0123456789" });
    expect(digits.map((l) => l.text).join(" ")).toMatch(/1234/);
    expect(digits.map((l) => l.text).join(" ")).not.toMatch(/[A-Za-z]/);
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
