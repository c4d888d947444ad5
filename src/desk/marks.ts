// Set-of-marks: a box around each element and its index in a small label, drawn onto the
// window image so a model can name elements by number. Digits are drawn as pixel paths, not
// SVG text, so labels look the same with or without fonts installed (fontconfig is not a
// given on every machine sharp runs on).
import { loadSharp } from "../image/sharp-loader.js";
import type { ScreenshotFormat } from "../config/config.js";
import type { Frame } from "../helper/protocol.js";
import { withFormat } from "../image/encode.js";
import { placeLabels, type Rect } from "./label-placement.js";

export interface Mark {
  index: number;
  /** In image pixels. */
  frame: Frame;
  /** The element bears text: its label keeps off that text where it can. */
  text?: boolean;
}

/** Draws the marks and re-encodes in the same format at the same size. */
export async function drawMarks(
  image: Buffer,
  format: ScreenshotFormat,
  quality: number,
  marks: readonly Mark[],
): Promise<Buffer> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  if (!width || !height) throw new Error("drawMarks: the image has no size; is it a PNG or JPEG?");
  const spots = placeLabels({ data, width, height, channels }, marks.map((m) => ({ frame: m.frame, text: m.text, size: labelSize(m.index) })));
  const overlay = Buffer.from(marksSvg(width, height, marks, spots));
  return withFormat(sharp(image).composite([{ input: overlay, left: 0, top: 0 }]), format, quality).toBuffer();
}

// Saturated mid-dark colours: visible on light UIs, white digits on them pass 4.5:1 contrast,
// and the white halo around boxes and labels carries them on dark UIs.
export const COLOURS: readonly string[] = ["#C62828", "#1565C0", "#2E7D32", "#6A1B9A", "#AD1457", "#00695C", "#BF360C", "#283593"];

/** 5×7 digit glyphs, one string per row (the classic LCD font: 0 and 8 stay distinct). */
const GLYPHS: readonly (readonly string[])[] = [
  ["01110", "10001", "10011", "10101", "11001", "10001", "01110"],
  ["00100", "01100", "00100", "00100", "00100", "00100", "01110"],
  ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],
  ["11111", "00010", "00100", "00010", "00001", "10001", "01110"],
  ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],
  ["11111", "10000", "11110", "00001", "00001", "10001", "01110"],
  ["00110", "01000", "10000", "11110", "10001", "10001", "01110"],
  ["11111", "00001", "00010", "00100", "01000", "01000", "01000"],
  ["01110", "10001", "10001", "01110", "10001", "10001", "01110"],
  ["01110", "10001", "10001", "01111", "00001", "00010", "01100"],
];
const DOT = 2; // glyph pixel size in image pixels: digits are 10×14
const GLYPH_W = 5 * DOT;
const GLYPH_H = 7 * DOT;
const GAP = DOT;
// The label's 1-pixel white border plus one clear pixel before the digits.
const PAD = 2;
const LABEL_H = GLYPH_H + 2 * PAD;

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * The overlay as SVG: halos, then boxes, then labels on top so no box crosses a label.
 * `spots` are where the labels go (placeLabels); without them, at each box's top-left corner.
 */
export function marksSvg(width: number, height: number, marks: readonly Mark[], spots?: readonly Rect[]): string {
  const halos: string[] = [];
  const boxes = COLOURS.map((): string[] => []);
  const labels: string[] = [];
  marks.forEach((mark, k) => {
    const box = clip(mark.frame, width, height);
    if (!box) return;
    const colour = colourIndex(mark.index);
    const outline = rectPath(box);
    halos.push(outline);
    boxes[colour]!.push(outline);
    labels.push(label(mark.index, spots?.[k] ?? cornerSpot(mark.index, box, width, height), COLOURS[colour]!));
  });
  if (halos.length === 0) return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"/>`;
  const strokes = boxes
    .map((paths, k) => (paths.length ? `<path d="${paths.join("")}" stroke="${COLOURS[k]}"/>` : ""))
    .join("");
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<g fill="none" shape-rendering="crispEdges">` +
    `<path d="${halos.join("")}" stroke="#ffffff" stroke-opacity="0.75" stroke-width="4"/>` +
    `<g stroke-width="2">${strokes}</g></g>` +
    `<g shape-rendering="crispEdges">${labels.join("")}</g></svg>`
  );
}

/** The frame inside the image, inset by a pixel at the image edge so the stroke stays visible. */
function clip(frame: Frame, width: number, height: number): Box | undefined {
  const [fx, fy, fw, fh] = frame.map(Math.round) as Frame;
  const x0 = Math.max(1, fx);
  const y0 = Math.max(1, fy);
  const x1 = Math.min(width - 1, fx + fw);
  const y1 = Math.min(height - 1, fy + fh);
  if (x1 <= x0 || y1 <= y0) return undefined;
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}

function colourIndex(index: number): number {
  const n = COLOURS.length;
  return ((Math.trunc(index) % n) + n) % n;
}

function rectPath(b: Box): string {
  return `M${b.x} ${b.y}h${b.w}v${b.h}h${-b.w}z`;
}

/** A label's size in image pixels: its digits plus padding. */
export function labelSize(index: number): { w: number; h: number } {
  const digits = String(Math.max(0, Math.trunc(index)));
  return { w: 2 * PAD + digits.length * GLYPH_W + (digits.length - 1) * GAP, h: LABEL_H };
}

/** The box's top-left corner, moved inward when the label would leave the image. */
function cornerSpot(index: number, box: Box, width: number, height: number): Rect {
  const { w, h } = labelSize(index);
  return { x: Math.max(0, Math.min(box.x, width - w)), y: Math.max(0, Math.min(box.y, height - h)), w, h };
}

/** A filled label in `spot`. */
function label(index: number, spot: Rect, colour: string): string {
  const digits = String(Math.max(0, Math.trunc(index)));
  const { x, y, w } = spot;
  let glyphs = "";
  for (let k = 0; k < digits.length; k++) {
    glyphs += glyphPath(Number(digits[k]), x + PAD + k * (GLYPH_W + GAP), y + PAD);
  }
  return (
    `<rect x="${x + 0.5}" y="${y + 0.5}" width="${w - 1}" height="${LABEL_H - 1}" ` +
    `fill="${colour}" stroke="#ffffff" stroke-width="1"/>` +
    `<path d="${glyphs}" fill="#ffffff"/>`
  );
}

/** One digit as horizontal runs of glyph pixels. */
function glyphPath(digit: number, left: number, top: number): string {
  let d = "";
  GLYPHS[digit]!.forEach((row, r) => {
    for (let c = 0; c < row.length; c++) {
      if (row[c] !== "1") continue;
      let end = c;
      while (row[end + 1] === "1") end += 1;
      d += `M${left + c * DOT} ${top + r * DOT}h${(end - c + 1) * DOT}v${DOT}h${-(end - c + 1) * DOT}z`;
      c = end;
    }
  });
  return d;
}
