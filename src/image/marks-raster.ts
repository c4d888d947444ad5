// Paints set-of-marks straight into raw pixels: white halos, then coloured boxes, then labels
// on top so no box crosses a label. It replaced an SVG overlay that librsvg rasterized and
// sharp composited over a second decode of the image, pixel for pixel the same (see
// test/desk/marks.test.ts). Painted in the image's own 3 or 4 bytes a pixel, so the image needs
// no alpha band added at the decode and dropped again at the encode (~10 ms of a 1568×980 PNG).
import type { Frame } from "../helper/protocol.js";
import type { Rect } from "./label-placement.js";

export interface Canvas {
  /** Raw pixels row by row: R G B, or R G B A for an image with alpha of its own. */
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
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
const RGB: readonly (readonly number[])[] = COLOURS.map((hex) => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16)));
const WHITE_RGB: readonly number[] = [255, 255, 255];

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
  const { data, width, height, channels } = canvas;
  if ((channels !== 3 && channels !== 4) || data.length !== width * height * channels) throw new RangeError("paintMarks: the canvas is not whole R G B or R G B A pixels");
  const painter = new Painter(canvas);
  const shown = marks.flatMap((mark) => {
    const box = clip(mark.frame, width, height);
    return box ? [{ mark, box, colour: colourIndex(mark.index) }] : [];
  });
  // One halo over all boxes: where halos overlap a pixel is lightened once, as one stroke would.
  painter.lightenUnion(shown.flatMap(({ box }) => ringBands(box, HALO_REACH)));
  // Boxes colour by colour, in the order of COLOURS, then labels in mark order.
  for (let colour = 0; colour < RGB.length; colour++) {
    for (const each of shown) if (each.colour === colour) painter.ring(each.box, BOX_REACH, colour);
  }
  for (const { mark, colour } of shown) paintLabel(painter, mark.index, mark.label, colour);
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

/** The pen of white, after the colours. */
const WHITE = RGB.length;
// Below this many pixels a plain loop beats a native copy (a box's sides, glyph dots).
const SHORT_RUN = 16;

/** What a channel becomes under the halo: 75% white over it, rounded down as sharp's composite did. */
const LIGHTER = Uint8Array.from({ length: 256 }, (_, v) => 255 - HALO_KEEP + Math.floor((v * HALO_KEEP) / 255));

/**
 * Rectangles filled in the canvas's own layout, clipped to it. Each pen is a whole row of its
 * colour, so a long run is one native copy; alpha, where there is a band for it, is opaque.
 */
class Painter {
  private readonly data: Buffer;
  private readonly width: number;
  private readonly height: number;
  private readonly channels: 3 | 4;
  private readonly pens: Buffer[];
  /** Per pen, views of its row by length: Buffer copy's own bookkeeping cost more than the copy. */
  private readonly spans: Map<number, Uint8Array>[];
  /** Aligned words over the canvas's bytes: word k holds data bytes 4k - shift to 4k - shift + 3. */
  private readonly words: Uint32Array;
  private readonly shift: number;
  /** Where alpha, if there is a band for it, sits in a word at this shift. */
  private readonly alphaMask: number;

  constructor(canvas: Canvas) {
    ({ data: this.data, width: this.width, height: this.height, channels: this.channels } = canvas);
    // Words over the same bytes, aligned in memory even when the pixels are not (the Linux
    // helper's R G B X view of its shared segment starts one byte in): the word path works on
    // the aligned words inside a run, the bytes before and after go one at a time.
    this.shift = this.data.byteOffset & 3;
    this.words = new Uint32Array(this.data.buffer, this.data.byteOffset - this.shift, (this.data.length + this.shift) >> 2);
    this.alphaMask = byteMask((3 + this.shift) & 3);
    this.pens = [...RGB, WHITE_RGB].map((rgb) => {
      const pixel = this.channels === 4 ? [...rgb, 255] : rgb;
      return Buffer.alloc(this.width * this.channels, Buffer.from(pixel));
    });
    this.spans = this.pens.map(() => new Map<number, Uint8Array>());
  }

  /** A stroke `reach` pixels either side of the box's edge in one pen. */
  ring(box: Rect, reach: number, pen: number): void {
    for (const band of ringBands(box, reach)) this.fill(band.x, band.y, band.w, band.h, pen);
  }

  fill(x: number, y: number, w: number, h: number, pen: number): void {
    const x0 = Math.max(0, x);
    const x1 = Math.min(this.width, x + w);
    const y0 = Math.max(0, y);
    const y1 = Math.min(this.height, y + h);
    if (x1 <= x0 || y1 <= y0) return;
    const { data, width, channels } = this;
    const row = this.pens[pen]!;
    const length = (x1 - x0) * channels;
    const [r, g, b] = [row[0]!, row[1]!, row[2]!];
    for (let yy = y0; yy < y1; yy++) {
      const start = (yy * width + x0) * channels;
      if (x1 - x0 >= SHORT_RUN) data.set(this.span(pen, length), start);
      else if (channels === 3) for (let i = start, end = start + length; i < end; i += 3) (data[i] = r), (data[i + 1] = g), (data[i + 2] = b);
      else for (let i = start, end = start + length; i < end; i += 4) (data[i] = r), (data[i + 1] = g), (data[i + 2] = b), (data[i + 3] = 255);
    }
  }

  /**
   * Digit `digit`'s lit dots in white, for a glyph wholly inside the canvas: the same stores as
   * a fill per run of dots, without a fill's clipping and set-up per run (a few % of painting).
   * White is 255 in every byte, alpha included. False, painting nothing, when not wholly inside.
   */
  glyph(x: number, y: number, digit: number): boolean {
    const { data, width, height, channels } = this;
    if (x < 0 || y < 0 || x + GLYPH_W > width || y + GLYPH_H > height) return false;
    const runs = GLYPH_RUNS[digit]!;
    const stride = width * channels;
    const origin = y * stride + x * channels;
    for (let r = 0; r < runs.length; r += 4) {
      const start = origin + runs[r + 1]! * stride + runs[r]! * channels;
      const length = runs[r + 2]! * channels;
      for (let row = 0, at = start; row < runs[r + 3]!; row++, at += stride) for (let i = at; i < at + length; i++) data[i] = 255;
    }
    return true;
  }

  private span(pen: number, length: number): Uint8Array {
    const views = this.spans[pen]!;
    let view = views.get(length);
    if (!view) views.set(length, (view = this.pens[pen]!.subarray(0, length)));
    return view;
  }

  /**
   * 75% white over every pixel of the rectangles' union, once per pixel however many cover it;
   * alpha is kept. Row by row, the rectangles crossing the row (listed per row, in order of
   * their left edge) merge into runs, so no pixel is looked at twice and none outside is read.
   */
  lightenUnion(rects: readonly Rect[]): void {
    const { width, height } = this;
    const kept = byLeftEdge(rects.map((r) => clipRect(r, width, height)).filter((r): r is Rect => r !== undefined), width);
    const rows = rowLists(kept, height);
    for (let y = 0; y < height; y++) {
      let [runStart, runEnd] = [0, -1];
      for (let k = rows.start[y]!, end = rows.start[y + 1]!; k < end; k++) {
        const r = kept[rows.items[k]!]!;
        if (r.x > runEnd) {
          if (runEnd > runStart) this.lightenRun(y, runStart, runEnd);
          [runStart, runEnd] = [r.x, r.x + r.w];
        } else if (r.x + r.w > runEnd) runEnd = r.x + r.w;
      }
      if (runEnd > runStart) this.lightenRun(y, runStart, runEnd);
    }
  }

  /** The run's bytes four at a time where they are word-aligned, one at a time at its ends. */
  private lightenRun(y: number, x0: number, x1: number): void {
    const { width, channels, words, shift } = this;
    const [start, end] = [(y * width + x0) * channels, (y * width + x1) * channels];
    // In memory offsets (data index + shift), so the words are aligned ones.
    const first = Math.min(end + shift, (start + shift + 3) & ~3);
    const last = Math.max(first, (end + shift) & ~3);
    this.lightenBytes(start, first - shift);
    // Alpha, where there is a band for it, is every fourth byte, so a word holds one pixel's.
    const keep = channels === 4 ? this.alphaMask : 0;
    for (let k = first >> 2, stop = last >> 2; k < stop; k++) {
      const w = words[k]!;
      words[k] = (lighterWord(w) & ~keep) | (w & keep);
    }
    this.lightenBytes(last - shift, end);
  }

  private lightenBytes(start: number, end: number): void {
    const { data, channels } = this;
    for (let i = start; i < end; i++) if (channels === 3 || (i & 3) !== 3) data[i] = LIGHTER[data[i]!]!;
  }
}

/**
 * LIGHTER applied to each byte of a 32-bit word at once. floor(v * 64 / 255) is v >> 2 except
 * for v = 255 (64, not 63), so each byte becomes 191 + (v >> 2), plus 1 where it was 255
 * (found exactly, with no carry between bytes, by the zero-byte test on its complement).
 */
function lighterWord(w: number): number {
  const inverse = ~w;
  const was255 = ~(((inverse & 0x7f7f7f7f) + 0x7f7f7f7f) | inverse | 0x7f7f7f7f);
  return (0xbfbfbfbf + ((w >>> 2) & 0x3f3f3f3f) + ((was255 >>> 7) & 0x01010101)) >>> 0;
}

/** The bits of a 32-bit word, in this machine's byte order, that hold its byte `at` (0 to 3). */
function byteMask(at: number): number {
  const bytes = new Uint8Array(4);
  bytes[at] = 0xff;
  return new Uint32Array(bytes.buffer)[0]!;
}

/** The four bands (top, bottom, left, right) of a stroke `reach` pixels either side of a box's edge. */
function ringBands(box: Rect, reach: number): Rect[] {
  const [ox, oy, ow, oh] = [box.x - reach, box.y - reach, box.w + 2 * reach, box.h + 2 * reach];
  const band = 2 * reach;
  const sideH = Math.max(0, box.h - band);
  const [across, down] = [Math.min(band, oh), Math.min(band, ow)];
  return [
    { x: ox, y: oy, w: ow, h: across },
    { x: ox, y: Math.max(oy, box.y + box.h - reach), w: ow, h: across },
    { x: ox, y: box.y + reach, w: down, h: sideH },
    { x: Math.max(ox, box.x + box.w - reach), y: box.y + reach, w: down, h: sideH },
  ];
}

function clipRect(r: Rect, width: number, height: number): Rect | undefined {
  const [x0, y0, x1, y1] = [Math.max(0, r.x), Math.max(0, r.y), Math.min(width, r.x + r.w), Math.min(height, r.y + r.h)];
  return x1 > x0 && y1 > y0 ? { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } : undefined;
}

/** The rectangles by left edge, counting-sorted (edges are pixels 0..width-1): a comparator sort of thousands cost more than the lightening. */
function byLeftEdge(rects: readonly Rect[], width: number): Rect[] {
  const start = new Int32Array(width + 1);
  for (const r of rects) start[r.x + 1]! += 1;
  for (let x = 0; x < width; x++) start[x + 1]! += start[x]!;
  const sorted = new Array<Rect>(rects.length);
  for (const r of rects) sorted[start[r.x]!++] = r;
  return sorted;
}

/** For each row, the rectangles crossing it, in their given order: row y's are items[start[y]] to items[start[y + 1] - 1]. */
function rowLists(rects: readonly Rect[], height: number): { start: Int32Array; items: Int32Array } {
  const start = new Int32Array(height + 1);
  for (const r of rects) for (let y = r.y; y < r.y + r.h; y++) start[y + 1]! += 1;
  for (let y = 0; y < height; y++) start[y + 1]! += start[y]!;
  const items = new Int32Array(start[height]!);
  const next = start.slice(0, height);
  rects.forEach((r, k) => {
    for (let y = r.y; y < r.y + r.h; y++) items[next[y]!++] = k;
  });
  return { start, items };
}

/** A filled label with a white border and white digits. */
function paintLabel(painter: Painter, index: number, spot: Rect, colour: number): void {
  painter.fill(spot.x, spot.y, spot.w, spot.h, WHITE);
  painter.fill(spot.x + 1, spot.y + 1, spot.w - 2, spot.h - 2, colour);
  const digits = digitsOf(index);
  for (let k = 0; k < digits.length; k++) {
    const [left, top] = [spot.x + PAD + k * (GLYPH_W + GAP), spot.y + PAD];
    const digit = digits.charCodeAt(k) - 48;
    if (painter.glyph(left, top, digit)) continue;
    const runs = GLYPH_RUNS[digit]!;
    for (let r = 0; r < runs.length; r += 4) painter.fill(left + runs[r]!, top + runs[r + 1]!, runs[r + 2]!, runs[r + 3]!, WHITE);
  }
}

/** Each glyph as runs of lit dots, x y w h in image pixels from its top left, four numbers a run. */
const GLYPH_RUNS: readonly Int16Array[] = GLYPHS.map((rows) =>
  Int16Array.from(rows.flatMap((row, r) => [...row.matchAll(/1+/g)].flatMap((run) => [run.index! * DOT, r * DOT, run[0].length * DOT, DOT]))),
);
