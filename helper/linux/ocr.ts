// Text recognition with Debian's tesseract-ocr, for windows whose text is drawn rather than
// exposed (canvases, remote desktops, a calculator's display). The image is enlarged first:
// tesseract reads text around 30 pixels high best, and screen text is often 10 to 15.
import { spawn } from "node:child_process";
import sharp from "sharp";
import { DeskError } from "../../src/helper/desk-error.js";
import type { Frame, TextLine } from "../../src/helper/protocol.js";

const ENLARGE = 3;
const OCR_TIMEOUT_MS = 30_000;

/** The lines of `png` (or of `region` of it), frames in the image's pixels, top to bottom. */
export async function recognizeLines(png: Buffer, region?: Frame): Promise<TextLine[]> {
  const [x0, y0] = region ?? [0, 0];
  let image = sharp(png);
  if (region) image = image.extract({ left: region[0], top: region[1], width: region[2], height: region[3] });
  const meta = await sharp(png).metadata();
  const width = region ? region[2] : meta.width ?? 1;
  const input = await image.resize({ width: width * ENLARGE, kernel: "lanczos3" }).greyscale().png().toBuffer();
  // A whole window has columns and scattered labels (automatic layout); a region is one block.
  const tsv = await tesseract(input, region ? "6" : "3");
  return parseLines(tsv).map((line) => ({
    text: line.text,
    frame: [x0 + line.box[0] / ENLARGE, y0 + line.box[1] / ENLARGE, line.box[2] / ENLARGE, line.box[3] / ENLARGE],
    confidence: line.confidence,
  }));
}

interface RawLine {
  text: string;
  box: Frame;
  confidence: number;
}

/** tesseract's TSV: one row per word (level 5) with block, paragraph and line numbers. */
export function parseLines(tsv: string): RawLine[] {
  const lines = new Map<string, { words: string[]; left: number; top: number; right: number; bottom: number; conf: number[] }>();
  for (const row of tsv.split("\n").slice(1)) {
    const cells = row.split("\t");
    if (cells.length < 12 || cells[0] !== "5") continue;
    const text = cells.slice(11).join("\t").trim();
    const conf = Number(cells[10]);
    if (text === "" || conf < 0) continue;
    const [left, top, w, h] = cells.slice(6, 10).map(Number) as [number, number, number, number];
    const key = cells.slice(1, 5).join(".");
    const line = lines.get(key) ?? { words: [], left, top, right: left + w, bottom: top + h, conf: [] };
    line.words.push(text);
    line.conf.push(conf);
    line.left = Math.min(line.left, left);
    line.top = Math.min(line.top, top);
    line.right = Math.max(line.right, left + w);
    line.bottom = Math.max(line.bottom, top + h);
    lines.set(key, line);
  }
  return [...lines.values()]
    .map((l) => ({
      text: l.words.join(" "),
      box: [l.left, l.top, l.right - l.left, l.bottom - l.top] as Frame,
      confidence: l.conf.reduce((a, b) => a + b, 0) / l.conf.length / 100,
    }))
    .sort((a, b) => a.box[1] - b.box[1] || a.box[0] - b.box[0]);
}

function tesseract(png: Buffer, psm: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("tesseract", ["stdin", "stdout", "--psm", psm, "-l", "eng", "tsv"], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), OCR_TIMEOUT_MS);
    child.once("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new DeskError("failed", error.code === "ENOENT" ? "tesseract is not installed (apt-get install tesseract-ocr)" : `tesseract: ${error.message}`));
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new DeskError("failed", `tesseract failed (status ${code}): ${err.trim().split("\n").pop() ?? ""}`));
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(png);
  });
}
