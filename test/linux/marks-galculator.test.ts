/**
 * Set-of-marks on a real window: galculator read and captured through the real kernel on
 * the virtual desktop. The labels must not cover the text of the elements they name: the
 * text (the pixels inside a text-bearing element that stand out from its background) must
 * be the same pixels after marking. Containers are not marked by default; `marks: "all"`
 * marks them too.
 */
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endHomeProcesses } from "../../src/client/home-processes.js";
import { drawMarks } from "../../src/desk/marks.js";
import { COLOURS } from "../../src/image/marks-raster.js";
import { bearsText, selectMarks } from "../../src/desk/mark-selection.js";
import type { AXNode } from "../../src/helper/protocol.js";
import { startHeadlessKernel, type RunningKernel } from "../support/kernel-process.js";

const missing = ["Xvfb", "openbox", "dbus-daemon", "galculator"].filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
if (missing.length > 0) console.warn(`test/linux/marks-galculator.test.ts skipped: ${missing.join(", ")} not installed`);

interface Raw {
  data: Buffer;
  width: number;
  height: number;
}

async function decode(png: Buffer): Promise<Raw> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

const luminance = (img: Raw, x: number, y: number): number => {
  const p = (y * img.width + x) * 3;
  return 0.2126 * img.data[p]! + 0.7152 * img.data[p + 1]! + 0.0722 * img.data[p + 2]!;
};

/** Text pixels of an element: inside its frame (away from its border), far from the frame's median brightness. */
function textPixels(img: Raw, frame: [number, number, number, number]): [number, number][] {
  const inset = 4;
  const [fx, fy, fw, fh] = frame.map(Math.round);
  const xs = [Math.max(0, fx! + inset), Math.min(img.width, fx! + fw! - inset)];
  const ys = [Math.max(0, fy! + inset), Math.min(img.height, fy! + fh! - inset)];
  const values: number[] = [];
  for (let y = ys[0]!; y < ys[1]!; y++) for (let x = xs[0]!; x < xs[1]!; x++) values.push(luminance(img, x, y));
  const median = [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const pixels: [number, number][] = [];
  for (let y = ys[0]!; y < ys[1]!; y++) for (let x = xs[0]!; x < xs[1]!; x++) if (Math.abs(luminance(img, x, y) - median) > 80) pixels.push([x, y]);
  return pixels;
}

describe.skipIf(missing.length > 0)("set-of-marks on galculator", () => {
  let dir: string;
  let home: string;
  let kernel: RunningKernel | undefined;
  let nodes: AXNode[];
  let plain: Buffer;
  let marked: Buffer;
  let markedAll: Buffer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "deskbook-marks-"));
    home = join(dir, "home");
    await mkdir(home, { recursive: true, mode: 0o700 });
    await writeFile(join(home, "config.json"), JSON.stringify({ allow: ["galculator"] }));
    kernel = await startHeadlessKernel(dir, home);
    const run = await kernel.client.execute(
      `const calc = await desk.getApp("galculator")
       // Openbox centres a new window under the pointer, which then rests on "MS": its hover and
       // the tooltip GTK shows half a second later would change the window between the captures
       // compared below. In the screen's corner the window is clear of the pointer (mid-screen).
       const [win] = await calc.windows()
       await win.move(0, 0)
       const state = await calc.getAXState({ emit: false })
       // The hover fades out over a few hundred ms: both captures are taken once the window stands still.
       let plain = await calc.getScreenshot({ emit: false })
       const stillBy = Date.now() + 5000
       while (Date.now() < stillBy) {
         await new Promise((resolve) => setTimeout(resolve, 100))
         const next = await calc.getScreenshot({ emit: false })
         if (next.data.equals(plain.data)) break
         plain = next
       }
       const marked = await calc.getScreenshot({ marks: true, emit: false })
       const all = await calc.getScreenshot({ marks: "all", emit: false })
       const after = await calc.getScreenshot({ emit: false })
       require("node:fs").writeFileSync(${JSON.stringify(join(dir, "read.json"))}, JSON.stringify({ nodes: state.nodes, plain: plain.data.toString("base64"), marked: marked.data.toString("base64"), all: all.data.toString("base64"), after: after.data.toString("base64") }))`,
      { timeoutMs: 60_000 },
    );
    expect(run.reply.content.status, JSON.stringify(run.reply.content)).toBe("ok");
    const result = JSON.parse(await readFile(join(dir, "read.json"), "utf8")) as { nodes: AXNode[]; plain: string; marked: string; all: string; after: string };
    expect(result.after === result.plain, "the window changed while it was captured").toBe(true);
    nodes = result.nodes;
    plain = Buffer.from(result.plain, "base64");
    marked = Buffer.from(result.marked, "base64");
    markedAll = Buffer.from(result.all, "base64");
  }, 90_000);

  afterAll(async () => {
    await kernel?.stop();
    await endHomeProcesses(home);
    await rm(dir, { recursive: true, force: true });
  }, 30_000);

  it("marks buttons and the display by default, not the groups around them", () => {
    const marks = selectMarks(nodes, true);
    const roles = new Set(marks.map((m) => nodes.find((n) => n.i === m.index)!.role));
    expect(roles).toContain("AXButton");
    expect(roles).toContain("AXTextArea");
    expect(roles).not.toContain("AXGroup");
    expect(roles).not.toContain("AXScrollArea");
    expect(selectMarks(nodes, "all").length).toBeGreaterThan(marks.length);
  });

  it("leaves every marked element's own text uncovered", async () => {
    const before = await decode(plain);
    const after = await decode(await drawMarks(plain, "png", 80, selectMarks(nodes, true)));
    const covered: string[] = [];
    let checked = 0;
    for (const node of nodes.filter((n) => n.frame && n.d > 0 && bearsText(n) && (n.title ?? n.value ?? "").trim() !== "")) {
      const pixels = textPixels(before, node.frame as [number, number, number, number]);
      if (pixels.length === 0) continue;
      checked += 1;
      const changed = pixels.filter(([x, y]) => Math.abs(luminance(before, x, y) - luminance(after, x, y)) > 40).length;
      if (changed > 0) covered.push(`${node.i} ${node.role} "${node.title ?? node.value}": ${changed}/${pixels.length} text pixels covered`);
    }
    expect(checked).toBeGreaterThan(20); // the digits, operators and the display were all found
    expect(covered).toEqual([]);
  });

  it("puts each box on its element's edge in its colour, in a PNG about the size the old zlib level made", async () => {
    const img = await decode(marked);
    const marks = selectMarks(nodes, true);
    const misplaced: string[] = [];
    for (const mark of marks) {
      // The stroke covers each edge's pixel and the one outside it (a pixel in at the image edge).
      // A label covers part of an edge, a neighbour's stroke may cover another: the best edge
      // must be at least half the mark's colour.
      const [fx, fy, fw, fh] = mark.frame.map(Math.round) as [number, number, number, number];
      const [x0, y0, x1, y1] = [Math.max(1, fx), Math.max(1, fy), Math.min(img.width - 1, fx + fw) - 1, Math.min(img.height - 1, fy + fh) - 1];
      const want = [1, 3, 5].map((k) => parseInt(COLOURS[mark.index % COLOURS.length]!.slice(k, k + 2), 16)).join();
      const share = (points: [number, number][]): number =>
        points.filter(([x, y]) => [0, 1, 2].map((c) => img.data[(y * img.width + x) * 3 + c]!).join() === want).length / Math.max(1, points.length);
      const column = (x: number): [number, number][] => Array.from({ length: Math.max(0, y1 - y0 - 1) }, (_, k) => [x, y0 + 1 + k]);
      const row = (y: number): [number, number][] => Array.from({ length: Math.max(0, x1 - x0 - 1) }, (_, k) => [x0 + 1 + k, y]);
      const best = Math.max(share(column(x0)), share(column(x1)), share(row(y0)), share(row(y1)));
      if (best < 0.5) misplaced.push(`${mark.index} ${JSON.stringify(mark.frame)}: at most ${(best * 100).toFixed(0)}% of an edge in ${want}`);
    }
    expect(marks.length).toBeGreaterThan(20);
    expect(misplaced.length, misplaced.join("\n")).toBeLessThanOrEqual(Math.floor(marks.length / 10));
    const level4 = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } }).png({ compressionLevel: 4, adaptiveFiltering: false }).toBuffer();
    expect(marked.length).toBeLessThan(level4.length * 1.25);
  });

  it("has the helper paint them (ping offers it), in the same pixels the desk side paints on a plain capture", async () => {
    const byDesk = await decode(await drawMarks(plain, "png", 80, selectMarks(nodes, true)));
    expect((await decode(marked)).data.equals(byDesk.data)).toBe(true);
  });

  it("draws the same marks through getScreenshot, in an image of the window's size", async () => {
    const [a, b, all] = await Promise.all([sharp(plain).metadata(), sharp(marked).metadata(), sharp(markedAll).metadata()]);
    expect([b.width, b.height]).toEqual([a.width, a.height]);
    expect([all.width, all.height]).toEqual([a.width, a.height]);
    expect(marked.equals(plain)).toBe(false);
    expect(markedAll.equals(marked)).toBe(false);
    if (process.env.DESKBOOK_BROWSER_SHOTS) await writeFile(join(process.env.DESKBOOK_BROWSER_SHOTS, "galculator-marks.png"), marked);
  });
});
