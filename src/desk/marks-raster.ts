// Paints set-of-marks straight into raw pixels: white halos, then coloured boxes, then labels
// on top so no box crosses a label. It replaced an SVG overlay that librsvg rasterized and
// sharp composited over a second decode of the image, pixel for pixel the same (see
// test/desk/marks.test.ts). Pixels are painted as 32-bit words: runs with TypedArray fill.
import type { Frame } from "../helper/protocol.js";
import type { Rect } from "./label-placement.js";

export interface Canvas {
  /** Raw R G B A pixels, row by row, starting at a multiple of 4 bytes (painted as 32-bit words). */
  data: Buffer;
  width: number;
  height: number;
  channels: 4;
}

export interface PaintedMark {
  index: number;
  /** In image pixels. */
  frame: Frame;
  /** Where its label goes. */
  label: Rect;
}


// Saturated mid-dark colours: visible on light UIs, white digits on them pass 4.5:1 contrast,
// and the white halo around boxes and labels carries them on dark UIs.
export const COLOURS: readonly string[] = ["#C62828", "#1565C0", "#2E7D32", "#6A1B9A", "#AD1457", "#00695C", "#BF360C", "#283593"];
/** A pixel as the 32-bit word it is in memory, whatever the machine's byte order. */
function word(bytes: readonly number[]): number {
  return new Uint32Array(Uint8Array.from(bytes).buffer)[0]!;
}
const PIXELS: readonly number[] = COLOURS.map((hex) => word([...[1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16)), 255]));
const WHITE = word([255, 255, 255, 255]);
const ALPHA = word([0, 0, 0, 255]);

/** The halo reaches 2 pixels either side of a box's edge at 75% white; the box's stroke 1. */
const HALO_REACH = 2;
const HALO_KEEP = 64; // of 255: what shows through the halo (25%)
const BOX_REACH = 1;

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

/** A label's size in image pixels: its digits plus padding. */
export function labelSize(index: number): { w: number; h: number } {
  const digits = digitsOf(index);
  return { w: 2 * PAD + digits.length * GLYPH_W + (digits.length - 1) * GAP, h: LABEL_H };
}

/** Paints every mark whose frame reaches into the image; the others are skipped. */
export function paintMarks(canvas: Canvas, marks: readonly PaintedMark[]): void {
  const { data, width, height } = canvas;
  if (data.byteOffset % 4 !== 0 || data.length !== width * height * 4) throw new RangeError("paintMarks: the canvas is not whole aligned R G B A pixels");
  const pixels: Pixels = { words: new Uint32Array(data.buffer, data.byteOffset, width * height), width, height };
  const shown = marks.flatMap((mark) => {
    const box = clip(mark.frame, width, height);
    return box ? [{ mark, box, colour: colourIndex(mark.index) }] : [];
  });
  // One halo over all boxes: where halos overlap a pixel is lightened once, as one stroke would.
  const haloed = new Uint8Array(width * height);
  for (const { box } of shown) for (const band of ring(box, HALO_REACH)) lighten(pixels, haloed, band);
  // Boxes colour by colour, in the order of COLOURS, then labels in mark order.
  PIXELS.forEach((colourWord, colour) => {
    for (const each of shown) if (each.colour === colour) for (const band of ring(each.box, BOX_REACH)) fill(pixels, band, colourWord);
  });
  for (const { mark, colour } of shown) paintLabel(pixels, mark.index, mark.label, PIXELS[colour]!);
}

interface Pixels {
  words: Uint32Array;
  width: number;
  height: number;
}

/** The frame inside the image, inset by a pixel at the image edge so the stroke stays visible. */
function clip(frame: Frame, width: number, height: number): Rect | undefined {
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

function digitsOf(index: number): string {
  return String(Math.max(0, Math.trunc(index)));
}

/** A stroke `reach` pixels either side of the box's edge, as four bands (top, bottom, left, right). */
function ring(box: Rect, reach: number): Rect[] {
  const outer = { x: box.x - reach, y: box.y - reach, w: box.w + 2 * reach, h: box.h + 2 * reach };
  const band = 2 * reach;
  const sideH = Math.max(0, box.h - band);
  return [
    { x: outer.x, y: outer.y, w: outer.w, h: Math.min(band, outer.h) },
    { x: outer.x, y: Math.max(outer.y, box.y + box.h - reach), w: outer.w, h: Math.min(band, outer.h) },
    { x: outer.x, y: box.y + reach, w: Math.min(band, outer.w), h: sideH },
    { x: Math.max(outer.x, box.x + box.w - reach), y: box.y + reach, w: Math.min(band, outer.w), h: sideH },
  ];
}

/** `rect` clipped to the canvas, as pixel bounds; undefined when nothing is left. */
function bounds(pixels: Pixels, rect: Rect): { x0: number; x1: number; y0: number; y1: number } | undefined {
  const x0 = Math.max(0, rect.x);
  const x1 = Math.min(pixels.width, rect.x + rect.w);
  const y0 = Math.max(0, rect.y);
  const y1 = Math.min(pixels.height, rect.y + rect.h);
  return x1 > x0 && y1 > y0 ? { x0, x1, y0, y1 } : undefined;
}

// Below this many pixels a plain loop beats a call to TypedArray fill (a box's sides, glyph dots).
const SHORT_RUN = 16;

function fill(pixels: Pixels, rect: Rect, colour: number): void {
  const area = bounds(pixels, rect);
  if (!area) return;
  const { words, width } = pixels;
  const short = area.x1 - area.x0 < SHORT_RUN;
  for (let y = area.y0; y < area.y1; y++) {
    const [start, end] = [y * width + area.x0, y * width + area.x1];
    if (!short) words.fill(colour, start, end);
    else for (let p = start; p < end; p++) words[p] = colour;
  }
}

/**
 * What each channel becomes under the halo, 75% white over it rounded down as sharp's
 * composite did, one table per channel holding its byte at its place in the word.
 */
const LIGHTER: readonly Uint32Array[] = [0, 1, 2].map((channel) =>
  Uint32Array.from({ length: 256 }, (_, v) => {
    const bytes = [0, 0, 0, 0];
    bytes[channel] = 255 - HALO_KEEP + Math.floor((v * HALO_KEEP) / 255);
    return word(bytes);
  }),
);
const SHIFTS: readonly number[] = [0, 1, 2].map((channel) => Math.log2(word([0, 0, 0, 0].map((_, k) => (k === channel ? 1 : 0)))));

/** 75% white over what is there, once per pixel however many halos cover it. */
function lighten(pixels: Pixels, done: Uint8Array, rect: Rect): void {
  const area = bounds(pixels, rect);
  if (!area) return;
  const { words, width } = pixels;
  const [red, green, blue] = LIGHTER as [Uint32Array, Uint32Array, Uint32Array];
  const [rs, gs, bs] = SHIFTS as [number, number, number];
  for (let y = area.y0; y < area.y1; y++) {
    for (let p = y * width + area.x0, end = y * width + area.x1; p < end; p++) {
      if (done[p]) continue;
      done[p] = 1;
      const v = words[p]!;
      words[p] = (red[(v >>> rs) & 255]! | green[(v >>> gs) & 255]! | blue[(v >>> bs) & 255]! | (v & ALPHA)) >>> 0;
    }
  }
}

/** A filled label with a white border and white digits. */
function paintLabel(pixels: Pixels, index: number, spot: Rect, colour: number): void {
  fill(pixels, spot, WHITE);
  fill(pixels, { x: spot.x + 1, y: spot.y + 1, w: spot.w - 2, h: spot.h - 2 }, colour);
  const digits = digitsOf(index);
  for (let k = 0; k < digits.length; k++) paintGlyph(pixels, Number(digits[k]), spot.x + PAD + k * (GLYPH_W + GAP), spot.y + PAD);
}

/** Each glyph as runs of lit dots, [row, first column, columns], in image pixels from its top left. */
const GLYPH_RUNS: readonly (readonly Rect[])[] = GLYPHS.map((rows) =>
  rows.flatMap((row, r) => [...row.matchAll(/1+/g)].map((run) => ({ x: run.index! * DOT, y: r * DOT, w: run[0].length * DOT, h: DOT }))),
);

function paintGlyph(pixels: Pixels, digit: number, left: number, top: number): void {
  for (const run of GLYPH_RUNS[digit]!) fill(pixels, { x: left + run.x, y: top + run.y, w: run.w, h: run.h }, WHITE);
}
