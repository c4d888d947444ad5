// Where each set-of-marks label goes: of a few spots at and around the element's corners, the
// one that covers the least of the element's own text, then of other elements' text, then of
// labels already placed. "Text" is ink: pixels inside a text-bearing element that stand out
// from that element's own background, read from the screenshot itself (text-ink.ts).
import type { Frame } from "../helper/protocol.js";
import { TextInk } from "./text-ink.js";

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

// Covering the element's own text costs most; then others' text; then other labels.
const OWN_INK = 10;
const OTHER_INK = 2;
const OTHER_LABEL = 6;
// The grid of Taken, in pixels: about a label's size.
const CELL = 32;

/** A label rectangle per element, in order. */
export function placeLabels(raster: Raster, items: readonly Placeable[]): Rect[] {
  const spotArea = items.reduce((sum, item) => sum + SPOTS * item.size.w * item.size.h, 0);
  const ink = items.some((item) => item.text) ? new TextInk(raster, items, spotArea) : undefined;
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

/** How many spots `candidates` offers a label. */
const SPOTS = 9;

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
 * label already placed OTHER_LABEL.
 */
function costOf(rect: Rect, k: number, item: Placeable, ink: TextInk | undefined, taken: Taken): number {
  const cost = OTHER_LABEL * taken.count(rect);
  if (!ink) return cost;
  const covered = ink.count(rect, item.text ? k : -1);
  return cost + OTHER_INK * (covered.all - covered.own) + OWN_INK * covered.own;
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
