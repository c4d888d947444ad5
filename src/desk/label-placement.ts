// Where each set-of-marks label goes: of a few spots at and around the element's corners, the
// one that covers the least of the element's own text, then of other elements' text, then of
// labels already placed. "Text" is ink: pixels inside a text-bearing element that stand out
// from that element's own background, read from the screenshot itself.
import type { Frame } from "../helper/protocol.js";

export interface Raster {
  /** Raw pixels, `channels` bytes each, row by row. */
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Placeable {
  frame: Frame;
  /** The element bears text, so its ink is worth keeping clear. */
  text?: boolean;
  /** The label's size. */
  size: { w: number; h: number };
}

// Pixels this far inside a frame belong to its content, not its border or the mark's own stroke.
const INSET = 3;
// A pixel is ink when some channel differs this much from the element's background.
const INK_DIFFERENCE = 64;
// Covering the element's own text costs most; then others' text; then other labels.
const OWN_INK = 10;
const OTHER_INK = 2;
const OTHER_LABEL = 6;
// The grid of Taken, in pixels: about a label's size.
const CELL = 32;

/** A label rectangle per element, in order. */
export function placeLabels(raster: Raster, items: readonly Placeable[]): Rect[] {
  const ink = items.some((item) => item.text) ? inkMap(raster, items) : undefined;
  const taken = new Taken(raster.width, raster.height);
  return items.map((item, k) => {
    let best: Rect | undefined;
    let bestCost = Infinity;
    for (const [order, rect] of candidates(item.frame, item.size, raster).entries()) {
      const cost = costOf(rect, k, item, ink, taken) * 100 + order;
      if (cost < bestCost) [best, bestCost] = [rect, cost];
      if (cost < 100) break; // nothing covered: no later spot can cost less
    }
    taken.add(best!);
    return best!;
  });
}

/** Which element's text ink each pixel is (-1: none), and a summed-area table of all ink. */
interface Ink {
  owner: Int32Array;
  /** (width + 1) × (height + 1): ink pixels above and left of each corner. */
  sums: Int32Array;
  width: number;
}

/** For each pixel, the element whose text ink it is. Smaller elements win over larger ones. */
function inkMap(raster: Raster, items: readonly Placeable[]): Ink {
  const owner = new Int32Array(raster.width * raster.height).fill(-1);
  const order = items.map((_, k) => k).filter((k) => items[k]!.text);
  order.sort((a, b) => area(items[b]!.frame) - area(items[a]!.frame));
  for (const k of order) {
    const inner = inside(items[k]!.frame, INSET, raster);
    if (!inner) continue;
    const [br, bg, bb] = dominantColour(raster, inner);
    const { data, channels, width } = raster;
    for (let y = inner.y; y < inner.y + inner.h; y++) {
      for (let x = inner.x; x < inner.x + inner.w; x++) {
        const p = (y * width + x) * channels;
        const diff = Math.max(Math.abs(data[p]! - br), Math.abs(data[p + 1]! - bg), Math.abs(data[p + 2]! - bb));
        if (diff >= INK_DIFFERENCE) owner[y * width + x] = k;
      }
    }
  }
  return { owner, sums: summedArea(owner, raster.width, raster.height), width: raster.width };
}

function summedArea(owner: Int32Array, width: number, height: number): Int32Array {
  const stride = width + 1;
  const sums = new Int32Array(stride * (height + 1));
  for (let y = 0; y < height; y++) {
    let row = 0;
    for (let x = 0; x < width; x++) {
      if (owner[y * width + x]! >= 0) row += 1;
      sums[(y + 1) * stride + x + 1] = sums[y * stride + x + 1]! + row;
    }
  }
  return sums;
}

function inkIn(ink: Ink, rect: Rect): number {
  const stride = ink.width + 1;
  const height = ink.owner.length / ink.width;
  const [x0, y0, x1, y1] = [rect.x, rect.y, Math.min(ink.width, rect.x + rect.w), Math.min(height, rect.y + rect.h)];
  return ink.sums[y1 * stride + x1]! - ink.sums[y0 * stride + x1]! - ink.sums[y1 * stride + x0]! + ink.sums[y0 * stride + x0]!;
}

/** Corners inside the frame first, then just outside it; every spot kept within the image. */
function candidates(frame: Frame, size: { w: number; h: number }, raster: Raster): Rect[] {
  const [fx, fy, fw, fh] = frame.map(Math.round) as Frame;
  const { w, h } = size;
  const spots: [number, number][] = [
    [fx, fy], // inside, top left
    [fx + fw - w, fy], // inside, top right
    [fx, fy - h], // above, left
    [fx - w, fy], // left of it, top
    [fx, fy + fh - h], // inside, bottom left
    [fx + fw - w, fy + fh - h], // inside, bottom right
    [fx + fw - w, fy - h], // above, right
    [fx + fw, fy], // right of it, top
    [fx, fy + fh], // below, left
  ];
  return spots.map(([x, y]) => ({
    x: Math.max(0, Math.min(x, raster.width - w)),
    y: Math.max(0, Math.min(y, raster.height - h)),
    w,
    h,
  }));
}

/**
 * Each covered pixel of the element's own text costs OWN_INK, of other text OTHER_INK, of a
 * label already placed OTHER_LABEL. Counted from the summed-area table, and by looking at
 * pixels only where the element's own ink or a placed label can be.
 */
function costOf(rect: Rect, k: number, item: Placeable, ink: Ink | undefined, taken: Taken): number {
  let cost = OTHER_LABEL * taken.count(rect);
  if (!ink || inkIn(ink, rect) === 0) return cost;
  const own = item.text ? ownInk(ink, rect, k, item.frame) : 0;
  return cost + OTHER_INK * (inkIn(ink, rect) - own) + OWN_INK * own;
}

/** The pixels of `rect` that are element k's own ink, which lies inside its frame's inset. */
function ownInk(ink: Ink, rect: Rect, k: number, frame: Frame): number {
  const [fx, fy, fw, fh] = frame.map(Math.round) as Frame;
  const x0 = Math.max(rect.x, fx + INSET);
  const y0 = Math.max(rect.y, fy + INSET);
  const x1 = Math.min(rect.x + rect.w, fx + fw - INSET, ink.width);
  const y1 = Math.min(rect.y + rect.h, fy + fh - INSET, ink.owner.length / ink.width);
  let count = 0;
  for (let y = y0; y < y1; y++) for (let i = y * ink.width + x0, end = y * ink.width + x1; i < end; i++) if (ink.owner[i] === k) count += 1;
  return count;
}

/**
 * The labels placed so far, kept as rectangles on a coarse grid that says which are near a
 * spot. What a spot covers of them is the area of their union within it, counted exactly
 * (the pixels a pixel map would count) from the few that reach it.
 */
class Taken {
  private readonly rects: Rect[] = [];
  private readonly cells: (number[] | undefined)[];
  private readonly columns: number;
  /** Per label, the last query that looked at it: each is counted once per query. */
  private readonly seen: number[] = [];
  private query = 0;

  constructor(
    private readonly width: number,
    private readonly height: number,
  ) {
    this.columns = Math.ceil(width / CELL);
    this.cells = new Array<number[] | undefined>(this.columns * Math.ceil(height / CELL));
  }

  add(rect: Rect): void {
    const kept = clipTo(rect, this.width, this.height);
    if (!kept) return;
    const id = this.rects.push(kept) - 1;
    this.seen.push(0);
    this.forCells(kept, (cell) => void (this.cells[cell] ??= []).push(id));
  }

  /** How many pixels of `rect` are under a placed label. */
  count(rect: Rect): number {
    const spot = clipTo(rect, this.width, this.height);
    if (!spot) return 0;
    const query = ++this.query;
    const near: Rect[] = [];
    this.forCells(spot, (cell) => {
      for (const id of this.cells[cell] ?? []) {
        if (this.seen[id] === query) continue;
        this.seen[id] = query;
        const part = intersection(this.rects[id]!, spot);
        if (part) near.push(part);
      }
    });
    return unionArea(near);
  }

  private forCells(rect: Rect, visit: (cell: number) => void): void {
    for (let cy = Math.floor(rect.y / CELL); cy <= Math.floor((rect.y + rect.h - 1) / CELL); cy++) {
      for (let cx = Math.floor(rect.x / CELL); cx <= Math.floor((rect.x + rect.w - 1) / CELL); cx++) visit(cy * this.columns + cx);
    }
  }
}

function clipTo(rect: Rect, width: number, height: number): Rect | undefined {
  return intersection(rect, { x: 0, y: 0, w: width, h: height });
}

function intersection(a: Rect, b: Rect): Rect | undefined {
  const x0 = Math.max(a.x, b.x);
  const y0 = Math.max(a.y, b.y);
  const x1 = Math.min(a.x + a.w, b.x + b.w);
  const y1 = Math.min(a.y + a.h, b.y + b.h);
  return x1 > x0 && y1 > y0 ? { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } : undefined;
}

/** The area of a few rectangles' union: column strips between their edges, rows merged in each. */
export function unionArea(rects: readonly Rect[]): number {
  if (rects.length <= 1) return rects.length ? rects[0]!.w * rects[0]!.h : 0;
  if (rects.length === 2) {
    const [a, b] = rects as [Rect, Rect];
    const both = intersection(a, b);
    return a.w * a.h + b.w * b.h - (both ? both.w * both.h : 0);
  }
  const xs = [...new Set(rects.flatMap((r) => [r.x, r.x + r.w]))].sort((a, b) => a - b);
  let total = 0;
  for (let k = 0; k + 1 < xs.length; k++) {
    const [left, right] = [xs[k]!, xs[k + 1]!];
    const spans = rects.filter((r) => r.x <= left && r.x + r.w >= right).map((r) => [r.y, r.y + r.h] as const);
    spans.sort((a, b) => a[0] - b[0]);
    let [covered, end] = [0, -Infinity];
    for (const [y0, y1] of spans) {
      if (y0 > end) [covered, end] = [covered + (y1 - y0), y1];
      else if (y1 > end) [covered, end] = [covered + (y1 - end), y1];
    }
    total += covered * (right - left);
  }
  return total;
}

// The histogram of dominantColour, reused: 16 levels per channel.
const BUCKETS = 16 ** 3;
const counts = new Uint32Array(BUCKETS);
const channelSums = new Float64Array(BUCKETS * 3);
const seen = new Uint16Array(BUCKETS);

/** The most common colour in `rect`, on a coarse grid of 16 levels per channel (the first seen wins a tie). */
function dominantColour(raster: Raster, rect: Rect): [number, number, number] {
  const { data, channels, width } = raster;
  let distinct = 0;
  for (let y = rect.y; y < rect.y + rect.h; y++) {
    for (let x = rect.x; x < rect.x + rect.w; x++) {
      const p = (y * width + x) * channels;
      const [r, g, b] = [data[p]!, data[p + 1]!, data[p + 2]!];
      const key = ((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4);
      if (counts[key] === 0) seen[distinct++] = key;
      counts[key] += 1;
      channelSums[key * 3] += r;
      channelSums[key * 3 + 1] += g;
      channelSums[key * 3 + 2] += b;
    }
  }
  let best = -1;
  for (let k = 0; k < distinct; k++) if (best < 0 || counts[seen[k]!]! > counts[best]!) best = seen[k]!;
  const n = best < 0 ? 0 : counts[best]!;
  const colour: [number, number, number] = n === 0 ? [0, 0, 0] : [channelSums[best * 3]! / n, channelSums[best * 3 + 1]! / n, channelSums[best * 3 + 2]! / n];
  for (let k = 0; k < distinct; k++) {
    const key = seen[k]!;
    counts[key] = 0;
    channelSums.fill(0, key * 3, key * 3 + 3);
  }
  return colour;
}

/** The frame shrunk by `inset` and clipped to the image; undefined when nothing is left. */
export function inside(frame: Frame, inset: number, raster: { width: number; height: number }): Rect | undefined {
  const [fx, fy, fw, fh] = frame.map(Math.round) as Frame;
  const x0 = Math.max(0, fx + inset);
  const y0 = Math.max(0, fy + inset);
  const x1 = Math.min(raster.width, fx + fw - inset);
  const y1 = Math.min(raster.height, fy + fh - inset);
  return x1 > x0 && y1 > y0 ? { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } : undefined;
}

function area(frame: Frame): number {
  return Math.max(0, frame[2]) * Math.max(0, frame[3]);
}
