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

/** A label rectangle per element, in order. */
export function placeLabels(raster: Raster, items: readonly Placeable[]): Rect[] {
  const ink = inkMap(raster, items);
  const taken = new Uint8Array(raster.width * raster.height);
  return items.map((item, k) => {
    let best: Rect | undefined;
    let bestCost = Infinity;
    candidates(item.frame, item.size, raster).forEach((rect, order) => {
      const cost = costOf(rect, k, ink, taken, raster.width) * 100 + order;
      if (cost < bestCost) [best, bestCost] = [rect, cost];
    });
    mark(taken, best!, raster.width);
    return best!;
  });
}

/** For each pixel, the element whose text ink it is (-1: none). Smaller elements win over larger ones. */
function inkMap(raster: Raster, items: readonly Placeable[]): Int32Array {
  const owner = new Int32Array(raster.width * raster.height).fill(-1);
  const order = items.map((_, k) => k).filter((k) => items[k]!.text);
  order.sort((a, b) => area(items[b]!.frame) - area(items[a]!.frame));
  for (const k of order) {
    const inner = inside(items[k]!.frame, INSET, raster);
    if (!inner) continue;
    const background = dominantColour(raster, inner);
    for (let y = inner.y; y < inner.y + inner.h; y++) {
      for (let x = inner.x; x < inner.x + inner.w; x++) {
        const p = (y * raster.width + x) * raster.channels;
        let diff = 0;
        for (let c = 0; c < 3; c++) diff = Math.max(diff, Math.abs(raster.data[p + c]! - background[c]!));
        if (diff >= INK_DIFFERENCE) owner[y * raster.width + x] = k;
      }
    }
  }
  return owner;
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

function costOf(rect: Rect, k: number, ink: Int32Array, taken: Uint8Array, width: number): number {
  let cost = 0;
  for (let y = rect.y; y < rect.y + rect.h; y++) {
    for (let x = rect.x; x < rect.x + rect.w; x++) {
      const i = y * width + x;
      const owner = ink[i]!;
      if (owner === k) cost += OWN_INK;
      else if (owner >= 0) cost += OTHER_INK;
      if (taken[i]) cost += OTHER_LABEL;
    }
  }
  return cost;
}

function mark(taken: Uint8Array, rect: Rect, width: number): void {
  for (let y = rect.y; y < rect.y + rect.h; y++) taken.fill(1, y * width + rect.x, y * width + rect.x + rect.w);
}

/** The most common colour in `rect`, on a coarse grid of 16 levels per channel. */
function dominantColour(raster: Raster, rect: Rect): [number, number, number] {
  const counts = new Map<number, { n: number; sum: [number, number, number] }>();
  for (let y = rect.y; y < rect.y + rect.h; y++) {
    for (let x = rect.x; x < rect.x + rect.w; x++) {
      const p = (y * raster.width + x) * raster.channels;
      const [r, g, b] = [raster.data[p]!, raster.data[p + 1]!, raster.data[p + 2]!];
      const key = ((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4);
      const bucket = counts.get(key) ?? { n: 0, sum: [0, 0, 0] };
      bucket.n += 1;
      bucket.sum[0] += r;
      bucket.sum[1] += g;
      bucket.sum[2] += b;
      counts.set(key, bucket);
    }
  }
  let best = { n: 0, sum: [0, 0, 0] as [number, number, number] };
  for (const bucket of counts.values()) if (bucket.n > best.n) best = bucket;
  return best.n === 0 ? [0, 0, 0] : [best.sum[0] / best.n, best.sum[1] / best.n, best.sum[2] / best.n];
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
