// Text recognition with Debian's tesseract-ocr, for windows whose text is drawn rather than
// exposed (canvases, remote desktops, a calculator's display). The image is prepared first
// (ocr-image.ts); the caller picks the layout and may narrow the characters read.
import { spawn } from "node:child_process";
import { DeskError } from "../../src/helper/desk-error.js";
import type { Frame, OcrLayout, TextLine, TextWord } from "../../src/helper/protocol.js";
import { prepareImage, type PrepareOptions } from "./ocr-image.js";

const OCR_TIMEOUT_MS = 30_000;
/** tesseract's page segmentation mode for each layout. */
const PAGE_MODES: Record<OcrLayout, string> = { auto: "3", block: "6", line: "7", word: "8", sparse: "11" };

export interface OcrOptions extends PrepareOptions {
  layout?: OcrLayout;
  chars?: string;
}

/** The lines of `png` (or of `region` of it), frames in the image's pixels, top to bottom. */
export async function recognizeLines(png: Buffer, region?: Frame, options: OcrOptions = {}): Promise<TextLine[]> {
  const [x0, y0] = region ?? [0, 0];
  const { png: input, scale } = await prepareImage(png, region, options);
  // A whole window has columns and scattered labels (automatic layout); a region is one block.
  const layout = options.layout ?? (region ? "block" : "auto");
  const tsv = await tesseract(input, PAGE_MODES[layout], options.chars);
  const place = (word: RawWord): TextWord => ({
    text: word.text,
    frame: [x0 + word.box[0] / scale, y0 + word.box[1] / scale, word.box[2] / scale, word.box[3] / scale],
    confidence: word.confidence,
  });
  return parseLines(tsv).map((line) => ({ ...place(line), words: line.words.map(place) }));
}

interface RawWord {
  text: string;
  box: Frame;
  confidence: number;
}

interface RawLine extends RawWord {
  words: RawWord[];
}


/** tesseract's TSV: one row per word (level 5) with block, paragraph and line numbers. */
export function parseLines(tsv: string): RawLine[] {
  const lines = new Map<string, RawWord[]>();
  for (const row of tsv.split("\n").slice(1)) {
    const cells = row.split("\t");
    if (cells.length < 12 || cells[0] !== "5") continue;
    const text = cells.slice(11).join("\t").trim();
    const conf = Number(cells[10]);
    if (text === "" || conf < 0) continue;
    const box = cells.slice(6, 10).map(Number) as Frame;
    const key = cells.slice(1, 5).join(".");
    lines.set(key, [...(lines.get(key) ?? []), { text, box, confidence: conf / 100 }]);
  }
  return [...lines.values()].map(joinWords).sort((a, b) => a.box[1] - b.box[1] || a.box[0] - b.box[0]);
}

/** One line from its words: their text joined, the box around them all, the mean confidence. */
function joinWords(words: RawWord[]): RawLine {
  const left = Math.min(...words.map((w) => w.box[0]));
  const top = Math.min(...words.map((w) => w.box[1]));
  const right = Math.max(...words.map((w) => w.box[0] + w.box[2]));
  const bottom = Math.max(...words.map((w) => w.box[1] + w.box[3]));
  const ordered = [...words].sort((a, b) => a.box[0] - b.box[0]);
  return {
    text: ordered.map((w) => w.text).join(" "),
    box: [left, top, right - left, bottom - top],
    confidence: words.reduce((sum, w) => sum + w.confidence, 0) / words.length,
    words: ordered,
  };
}

function tesseract(png: Buffer, psm: string, chars: string | undefined): Promise<string> {
  // tesseract takes the list of characters to read as a config variable.
  const only = chars === undefined ? [] : ["-c", `tessedit_char_whitelist=${chars}`];
  return new Promise((resolve, reject) => {
    const child = spawn("tesseract", ["stdin", "stdout", "--psm", psm, "-l", "eng", ...only, "tsv"], { stdio: ["pipe", "pipe", "pipe"] });
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
