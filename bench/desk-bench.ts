/**
 * Deskbook desk benchmark: `npm run build && node dist/bench/desk-bench.js`.
 *
 * Measures the per-step costs of a read on the kernel side: formatting and diffing an
 * 800-node accessibility tree, and encoding a 1568-pixel screenshot as PNG and JPEG with the
 * shipped settings (src/image/encode.ts). Prints a table and writes the same rows to
 * bench/desk-results.json.
 *
 * Exit code is 0 when every measurement completed (even with MISS verdicts: this is a
 * report, not a gate) and 1 when the bench itself failed.
 */
import { writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { DEFAULT_CONFIG } from "../src/config/config.js";
import { diffTrees } from "../src/desk/ax-diff.js";
import { formatTree, type FormatInput } from "../src/desk/ax-text.js";
import { encodeImage, JPEG_OPTIONS, PNG_OPTIONS, type RawImage } from "../src/image/encode.js";
import { ImageSpace } from "../src/desk/image-space.js";
import { drawMarks, type Mark } from "../src/desk/marks.js";
import { markPixels } from "../src/image/mark-pixels.js";
import { encodeCapture } from "../helper/linux/capture-encode.js";
import type { AXNode, Frame, WindowInfo } from "../src/helper/protocol.js";
import { atMost, median, printTable, round, timeAsyncCpu, timeSync, type Row, type Timed } from "./report.js";

// Compiled to dist/bench/, so the repo root is two levels up.
const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const RESULTS_FILE = join(REPO_ROOT, "bench/desk-results.json");

const TREE_NODES = 800;
const TREE_MAX_DEPTH = 12;
const TREE_CHANGED_SHARE = 0.05;
const TREE_RUNS = 50;
const TREE_TARGET_MS = 5;

const SHOT_WIDTH = 1568;
const SHOT_HEIGHT = 980;
const ENCODE_RUNS = 20;
const ENCODE_TARGET_MS = 40;
const MARKS_TARGET_MS = 40;
const JPEG_QUALITY = DEFAULT_CONFIG.screenshot.quality;
/** Untimed runs first: the kernel is long-lived, so steady state is what a step pays. */
const WARMUP_RUNS = 5;

// ---------------------------------------------------------------------------
// Deterministic inputs

function rng(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 48271) % 2147483647) / 2147483647;
}

const WORDS = (
  "Open Save Export Share Print Undo Redo Cut Copy Paste Delete Rename Duplicate Format Insert " +
  "Table Chart Image Comment Sidebar Inspector Zoom Fit Page Layout Styles Fonts Colors Account " +
  "Settings Network Display Sound Keyboard Trackpad Battery Invoice Total Amount Due Customer " +
  "Quarterly Report Revenue Expenses Draft Inbox Archive Flagged Sent Reply Forward Search"
).split(" ");

const WINDOW: WindowInfo = {
  index: 0,
  title: "Quarterly report — Numbers",
  frame: [0, 25, 1440, 875],
  scale: 2,
  focused: true,
  main: true,
  minimized: false,
  windowId: 77,
};

/** Containers and leaves in rough proportion to a document app's tree. */
const CONTAINERS = ["AXGroup", "AXGroup", "AXScrollArea", "AXSplitGroup", "AXToolbar", "AXTable", "AXRow", "AXList", "AXTabGroup", "AXOutline"];
const LEAVES = ["AXButton", "AXButton", "AXStaticText", "AXStaticText", "AXStaticText", "AXTextField", "AXCheckBox", "AXPopUpButton", "AXImage", "AXLink", "AXCell", "AXMenuButton", "AXSlider", "AXRadioButton"];

function phrase(random: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(" ");
}

function leaf(random: () => number, i: number, d: number, frame: Frame): AXNode {
  const role = LEAVES[Math.floor(random() * LEAVES.length)]!;
  const node: AXNode = { i, d, role, frame };
  if (role === "AXStaticText") node.value = phrase(random, 1 + Math.floor(random() * 12));
  else if (role === "AXTextField") Object.assign(node, { title: phrase(random, 1), value: phrase(random, 3), settable: true });
  else if (role === "AXSlider") Object.assign(node, { value: (random() * 100).toFixed(0), actions: ["AXIncrement", "AXDecrement"] });
  else if (role === "AXPopUpButton") Object.assign(node, { title: phrase(random, 1), actions: ["AXPress", "AXShowMenu"] });
  else if (random() < 0.7) node.title = phrase(random, 1 + Math.floor(random() * 2));
  else node.desc = phrase(random, 2);
  if (random() < 0.15) node.id = `${role.slice(2).toLowerCase()}-${i}`;
  if (random() < 0.05) node.disabled = true;
  if (random() < 0.03) node.selected = true;
  return node;
}

/** A tree in document order: depth-first, each container with a few children. */
function syntheticTree(count: number, seed: number): AXNode[] {
  const random = rng(seed);
  const nodes: AXNode[] = [{ i: 0, d: 0, role: "AXWindow", title: WINDOW.title, frame: WINDOW.frame, actions: ["AXRaise"] }];
  const grow = (d: number): void => {
    const children = 2 + Math.floor(random() * 6);
    for (let k = 0; k < children && nodes.length < count; k++) {
      const frame: Frame = [Math.floor(random() * 1300), 25 + Math.floor(random() * 800), 20 + Math.floor(random() * 200), 16 + Math.floor(random() * 30)];
      const container = d < TREE_MAX_DEPTH && random() < 0.35;
      const i = nodes.length;
      if (container) {
        nodes.push({ i, d, role: CONTAINERS[Math.floor(random() * CONTAINERS.length)]!, frame, ...(random() < 0.3 ? { desc: phrase(random, 2) } : {}) });
        grow(d + 1);
      } else {
        nodes.push(leaf(random, i, d, frame));
      }
    }
  };
  while (nodes.length < count) grow(1);
  return nodes;
}

/** The next read: ~5% of elements differ — mostly edits, a few removed and added. */
function nextRead(previous: readonly AXNode[], share: number, seed: number): AXNode[] {
  const random = rng(seed);
  const total = Math.round(previous.length * share);
  const removedCount = Math.floor(total / 10);
  const addedCount = removedCount;
  const edits = total - removedCount - addedCount;
  const nodes = previous.map((n) => ({ ...n }));
  for (let k = 0; k < edits; k++) {
    const n = nodes[1 + Math.floor(random() * (nodes.length - 1))]!;
    if (n.value !== undefined) n.value = phrase(random, 2);
    else n.selected = !n.selected;
  }
  for (let k = 0; k < removedCount; k++) nodes.splice(1 + Math.floor(random() * (nodes.length - 1)), 1);
  let nextIndex = previous.length;
  for (let k = 0; k < addedCount; k++) nodes.push(leaf(random, nextIndex++, 2, [100, 100, 80, 20]));
  return nodes;
}

function formatInput(nodes: AXNode[]): FormatInput {
  const space = new ImageSpace(WINDOW, DEFAULT_CONFIG.screenshot);
  return {
    app: "Numbers",
    window: WINDOW,
    image: { width: space.width, height: space.height },
    nodes,
    truncated: false,
    frames: true,
    space,
    maxTextLength: DEFAULT_CONFIG.ax.maxTextLength,
  };
}

/** A document-app screenshot: chrome, sidebar, text, a table, a chart and a photo. */
function screenshotSvg(width: number, height: number): string {
  const random = rng(42);
  const text = (x: number, y: number, size: number, body: string, extra = ""): string =>
    `<text x="${x}" y="${y}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="${size}" ${extra}>${body}</text>`;
  const parts: string[] = [
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<defs><linearGradient id="bar" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ececec"/><stop offset="1" stop-color="#d6d6d6"/></linearGradient>`,
    `<filter id="photo"><feTurbulence type="fractalNoise" baseFrequency="0.012" numOctaves="5" seed="3"/>`,
    `<feColorMatrix type="matrix" values="0.9 0.3 0 0 0.1 0.2 0.8 0.2 0 0.1 0.1 0.3 0.9 0 0.05 0 0 0 0 1"/></filter></defs>`,
    `<rect width="${width}" height="52" fill="url(#bar)"/>`,
    text(width / 2, 22, 13, "Quarterly report — Numbers", 'text-anchor="middle" fill="#333"'),
    `<rect y="52" width="240" height="${height - 52}" fill="#f3f3f6"/>`,
  ];
  for (let k = 0; k < 14; k++) {
    parts.push(`<rect x="${90 + k * 62}" y="30" width="54" height="18" rx="4" fill="#fafafa" stroke="#bbb"/>`);
    parts.push(text(117 + k * 62, 43, 10, WORDS[k]!, 'text-anchor="middle" fill="#222"'));
  }
  for (let k = 0; k < 36; k++) {
    const y = 78 + k * 24;
    if (k === 5) parts.push(`<rect x="8" y="${y - 16}" width="224" height="22" rx="5" fill="#2f6fe0"/>`);
    parts.push(`<rect x="18" y="${y - 12}" width="14" height="14" rx="3" fill="${["#6aa0ff", "#9a6cf0", "#ff9f43", "#4cc38a"][k % 4]}"/>`);
    parts.push(text(40, y, 13, phrase(random, 2), `fill="${k === 5 ? "#fff" : "#222"}"`));
  }
  parts.push(text(270, 95, 22, phrase(random, 4), 'font-weight="bold" fill="#111"'));
  for (let k = 0; k < 9; k++) parts.push(text(270, 130 + k * 19, 14, phrase(random, 12), 'fill="#333"'));
  for (let r = 0; r < 18; r++) {
    const y = 320 + r * 24;
    parts.push(`<rect x="270" y="${y}" width="820" height="24" fill="${r === 0 ? "#e8eaf0" : r % 2 ? "#fff" : "#f7f8fa"}"/>`);
    for (let c = 0; c < 6; c++) {
      const cell = r === 0 ? WORDS[c]! : c > 2 ? (random() * 10000).toFixed(2) : phrase(random, 2);
      parts.push(text(278 + c * 136, y + 16, 12, cell, `fill="${r === 0 ? "#000" : "#333"}"`));
    }
  }
  parts.push(`<rect x="1116" y="76" width="410" height="270" filter="url(#photo)"/>`);
  let path = "M1120 700";
  for (let k = 0; k < 40; k++) path += ` L${1120 + k * 10} ${640 - Math.sin(k / 4) * 50 - random() * 30}`;
  parts.push(`<rect x="1110" y="400" width="430" height="320" rx="8" fill="#fbfbfd" stroke="#ddd"/>`);
  parts.push(`<path d="${path} L1510 700 Z" fill="#2f6fe0" fill-opacity="0.25" stroke="#2f6fe0" stroke-width="2"/>`);
  parts.push(`<rect y="${height - 28}" width="${width}" height="28" fill="#f0f0f0"/>`);
  parts.push(text(12, height - 10, 11, phrase(random, 10), 'fill="#666"'));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${parts.join("")}</svg>`;
}

/** Rendered once, untimed. Without fonts the text is missing and the PNG is smaller. */
async function screenshotRaw(): Promise<RawImage> {
  const { data, info } = await sharp(Buffer.from(screenshotSvg(SHOT_WIDTH, SHOT_HEIGHT)))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: 3 };
}

async function main(): Promise<number> {
  const began = performance.now();
  const previous = syntheticTree(TREE_NODES, 1);
  const current = nextRead(previous, TREE_CHANGED_SHARE, 2);
  const prevInput = formatInput(previous);
  const curInput = formatInput(current);
  const sample = diffTrees(previous, current, curInput);

  const formatMs = timeSync(TREE_RUNS, WARMUP_RUNS, () => void formatTree(prevInput));
  const diffMs = timeSync(TREE_RUNS, WARMUP_RUNS, () => void diffTrees(previous, current, curInput));
  const bothMs = timeSync(TREE_RUNS, WARMUP_RUNS, () => {
    formatTree(prevInput);
    diffTrees(previous, current, curInput);
  });

  const raw = await screenshotRaw();
  let pngBytes = 0;
  let jpegBytes = 0;
  const pngMs = await timeAsyncCpu(ENCODE_RUNS, WARMUP_RUNS, async () => (pngBytes = (await encodeImage(raw, "png", JPEG_QUALITY)).length));
  const jpegMs = await timeAsyncCpu(ENCODE_RUNS, WARMUP_RUNS, async () => (jpegBytes = (await encodeImage(raw, "jpeg", JPEG_QUALITY)).length));
  const png = await encodeImage(raw, "png", JPEG_QUALITY);
  const marks: Mark[] = current.flatMap((n) => (n.frame ? [{ index: n.i, frame: curInput.space.frameToImage(n.frame) }] : []));
  let marksBytes = 0;
  const marksMs = await timeAsyncCpu(ENCODE_RUNS, WARMUP_RUNS, async () => (marksBytes = (await drawMarks(png, "png", JPEG_QUALITY, marks)).length));
  // As the Linux helper does it: its own encode (helper/linux/capture-encode.ts) paints into the
  // capture's R G B X view in place, drops the pad band and encodes once. No decode. The view
  // is refilled each time, as a screen read refills the shared segment. The whole path, with
  // the X read and the desk API's call, is bench/linux-bench.ts's set-of-marks row.
  let helperBytes = 0;
  const rgbx = await sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 3 } }).ensureAlpha().raw().toBuffer();
  const captured = { data: Buffer.alloc(rgbx.length), channels: 4 as const };
  const size = { width: raw.width, height: raw.height };
  const helperMs = await timeAsyncCpu(ENCODE_RUNS, WARMUP_RUNS, async () => {
    rgbx.copy(captured.data);
    helperBytes = (await encodeCapture(captured, size, { ...size, format: "png", quality: JPEG_QUALITY, marks })).length;
  });
  // The steps of drawMarks apart: the decode, then placing and painting (the encode is the PNG row's work).
  const decodeMs = await timeAsyncCpu(ENCODE_RUNS, WARMUP_RUNS, () => sharp(png).toColourspace("srgb").raw().toBuffer());
  const canvas = { data: Buffer.from(raw.data), width: raw.width, height: raw.height, channels: 3 as const };
  const paintMs = await timeAsyncCpu(ENCODE_RUNS, WARMUP_RUNS, async () => markPixels(canvas, marks));
  const cpuRow = (metric: string, timed: Timed): Row => ({ metric: `${metric}, CPU time (median)`, value: median(timed.cpu), unit: "ms", target: "-", verdict: "-" });

  const bothMedian = median(bothMs);
  const pngMedian = median(pngMs.wall);
  const jpegMedian = median(jpegMs.wall);
  const marksMedian = median(marksMs.wall);
  const helperMedian = median(helperMs.wall);
  const tree = `${TREE_NODES} nodes`;
  const rows: Row[] = [
    { metric: `AX format, ${tree}, frames on (median of ${TREE_RUNS})`, value: median(formatMs), unit: "ms", target: "-", verdict: "-" },
    { metric: `AX diff, ${tree}, ${sample.changed} changed + ${sample.added} added + ${sample.removed.length} removed`, value: median(diffMs), unit: "ms", target: "-", verdict: "-" },
    { metric: `AX format + diff, ${tree} (median of ${TREE_RUNS})`, value: bothMedian, unit: "ms", target: `≤ ${TREE_TARGET_MS} ms`, verdict: atMost(bothMedian, TREE_TARGET_MS) },
    { metric: `PNG encode ${raw.width}×${raw.height} (median of ${ENCODE_RUNS})`, value: pngMedian, unit: "ms", target: `≤ ${ENCODE_TARGET_MS} ms`, verdict: atMost(pngMedian, ENCODE_TARGET_MS) },
    cpuRow("PNG encode", pngMs),
    { metric: "PNG size", value: pngBytes / 1024, unit: "KiB", target: "-", verdict: "-" },
    { metric: `JPEG q${JPEG_QUALITY} encode ${raw.width}×${raw.height} (median of ${ENCODE_RUNS})`, value: jpegMedian, unit: "ms", target: `≤ ${ENCODE_TARGET_MS} ms`, verdict: atMost(jpegMedian, ENCODE_TARGET_MS) },
    cpuRow("JPEG encode", jpegMs),
    { metric: `JPEG q${JPEG_QUALITY} size`, value: jpegBytes / 1024, unit: "KiB", target: "-", verdict: "-" },
    { metric: `set-of-marks, ${marks.length} marks, painted by the Linux helper's encode into its R G B X capture, one PNG encode (median of ${ENCODE_RUNS})`, value: helperMedian, unit: "ms", target: `≤ ${MARKS_TARGET_MS} ms`, verdict: atMost(helperMedian, MARKS_TARGET_MS) },
    cpuRow("set-of-marks by the Linux helper's encode", helperMs),
    { metric: "its PNG size", value: helperBytes / 1024, unit: "KiB", target: "-", verdict: "-" },
    { metric: `set-of-marks, ${marks.length} marks, painted by the desk API: PNG decoded, painted, encoded again (helpers that do not paint: macOS) (median of ${ENCODE_RUNS})`, value: marksMedian, unit: "ms", target: `≤ ${MARKS_TARGET_MS} ms`, verdict: atMost(marksMedian, MARKS_TARGET_MS) },
    cpuRow("set-of-marks decoded and encoded again", marksMs),
    { metric: "set-of-marks PNG size", value: marksBytes / 1024, unit: "KiB", target: "-", verdict: "-" },
    cpuRow("of which decoding the PNG", decodeMs),
    cpuRow("of which placing the labels and painting the marks", paintMs),
  ];

  console.log(`\nload average ${loadavg().map((v) => v.toFixed(2)).join(", ")} on ${cpus().length} CPUs: wall times include waiting for a core, CPU times do not\n`);
  printTable(rows);
  const misses = rows.filter((r) => r.verdict === "MISS").length;
  const totalS = (performance.now() - began) / 1000;
  console.log(`\n${misses ? `${misses} target(s) missed` : "all targets met"}; bench took ${totalS.toFixed(1)} s; results in bench/desk-results.json`);

  const results = {
    generatedAt: new Date().toISOString(),
    environment: { node: process.version, platform: `${process.platform}-${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model, loadavg: loadavg(), sharp: sharp.versions },
    settings: { png: PNG_OPTIONS, jpeg: { ...JPEG_OPTIONS, quality: JPEG_QUALITY }, warmupRuns: WARMUP_RUNS },
    tree: { nodes: previous.length, maxDepth: Math.max(...previous.map((n) => n.d)), fullTextChars: formatTree(prevInput).length, diffTextChars: sample.text.length },
    rows: rows.map((r) => ({ ...r, value: r.value === null ? null : round(r.value) })),
    samples: { formatMs: formatMs.map((v) => round(v)), diffMs: diffMs.map((v) => round(v)), bothMs: bothMs.map((v) => round(v)), pngMs: samples(pngMs), jpegMs: samples(jpegMs), marksMs: samples(marksMs), helperMarksMs: samples(helperMs), decodeMs: samples(decodeMs), paintMs: samples(paintMs) },
    durationSeconds: round(totalS, 1),
  };
  await writeFile(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  return 0;
}

function samples(timed: Timed): { wall: number[]; cpu: number[] } {
  return { wall: timed.wall.map((v) => round(v)), cpu: timed.cpu.map((v) => round(v)) };
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
