// Which pixels of a screenshot are text, for set-of-marks labels to keep off: pixels inside a
// text-bearing element that stand out from that element's own background. Elements are looked
// at whole, up front, except one larger than all label spots together (an editor's text area
// or a page under a few marks) with no smaller one painted before it, which is looked at only
// where a spot asks, each pixel at most once: passing over all of it was most of a call's time
// on real windows.
import type { Frame } from "../helper/protocol.js";
import type { Placeable, Raster, Rect } from "./label-placement.js";

// Pixels this far inside a frame belong to its content, not its border or the mark's own stroke.
const INSET = 3;
// A pixel is ink when some channel differs this much from the element's background.
const INK_DIFFERENCE = 64;
const UNKNOWN = -2;
const NONE = -1;

interface TextElement {
  /** Its index among the placed items. */
  item: number;
  /** Its frame shrunk by INSET and clipped to the image. */
  inner: Rect;
  /** Per channel, 1 for the values far from its background. */
  far?: [Uint8Array, Uint8Array, Uint8Array];
}

/**
 * Each pixel's owner is the smallest text element around it (the later item among equal
 * areas) for which it is ink; a pixel that is ink for none is no one's. That is what painting
 * every element whole, largest first, each over the last, gave; this gives the same owners.
 * The large elements are those of the longest run of large ones at the start of that order
 * (a frame's area orders painting, the inside's area decides largeness, and the two can
 * disagree once a frame is clipped), so every later one's ink is final at once, and a pixel
 * under a large element that no later one claims is left UNKNOWN until asked.
 */
export class TextInk {
  /** The large elements read only where asked: a prefix of the painting order (largest first). */
  private readonly large: TextElement[];
  private readonly owner: Int32Array;
  /** With no large element: a summed-area table of ink, (width + 1) × (height + 1). */
  private readonly sums: Int32Array | undefined;
  /** Each text item's inner rectangle, where its own ink can be. */
  private readonly inners = new Map<number, Rect>();

  /** `spotArea`: the area of every label spot that may be asked about, together. */
  constructor(
    private readonly raster: Raster,
    items: readonly Placeable[],
    spotArea: number,
  ) {
    const { width, height } = raster;
    const texts = items.flatMap((item, k) => {
      const inner = item.text ? inside(item.frame, INSET, raster) : undefined;
      return inner ? [{ item: k, inner, area: area(item.frame) }] : [];
    });
    texts.sort((a, b) => b.area - a.area); // stable: equal areas keep item order
    const isLarge = (inner: Rect): boolean => inner.w * inner.h > spotArea;
    this.owner = new Int32Array(width * height).fill(NONE);
    this.large = [];
    // Only a prefix of the painting order is left unknown: an element painted before a large
    // one (a larger frame, but a smaller inside once clipped) would have its ink wiped by it.
    let lazy = true;
    for (const { item, inner } of texts) {
      this.inners.set(item, inner);
      lazy &&= isLarge(inner);
      if (lazy) {
        this.large.push({ item, inner });
        for (let y = inner.y; y < inner.y + inner.h; y++) this.owner.fill(UNKNOWN, y * width + inner.x, y * width + inner.x + inner.w);
      } else this.paint({ item, inner });
    }
    this.sums = this.large.length === 0 ? summedArea(this.owner, width, height) : undefined;
  }

  /** The ink pixels in `rect`: all of them, and those of item `own` (-1: none). */
  count(rect: Rect, own: number): { all: number; own: number } {
    const { width, height } = this.raster;
    const [x0, y0, x1, y1] = [Math.max(0, rect.x), Math.max(0, rect.y), Math.min(width, rect.x + rect.w), Math.min(height, rect.y + rect.h)];
    if (x1 <= x0 || y1 <= y0) return { all: 0, own: 0 };
    if (this.sums) {
      const stride = width + 1;
      const all = this.sums[y1 * stride + x1]! - this.sums[y0 * stride + x1]! - this.sums[y1 * stride + x0]! + this.sums[y0 * stride + x0]!;
      const inner = this.inners.get(own);
      return { all, own: all > 0 && inner ? this.owned(own, { x: x0, y: y0, w: x1 - x0, h: y1 - y0 }, inner) : 0 };
    }
    let [all, mine] = [0, 0];
    for (let y = y0; y < y1; y++) {
      for (let i = y * width + x0, end = y * width + x1; i < end; i++) {
        let owner = this.owner[i]!;
        if (owner === UNKNOWN) this.owner[i] = owner = this.largeOwner(i);
        if (owner === NONE) continue;
        all += 1;
        if (owner === own) mine += 1;
      }
    }
    return { all, own: mine };
  }

  /** The pixels of `rect` that are item k's ink, which lies inside its inner rectangle. */
  private owned(k: number, rect: Rect, inner: Rect): number {
    const { width } = this.raster;
    const [x0, y0, x1, y1] = [Math.max(rect.x, inner.x), Math.max(rect.y, inner.y), Math.min(rect.x + rect.w, inner.x + inner.w), Math.min(rect.y + rect.h, inner.y + inner.h)];
    let count = 0;
    for (let y = y0; y < y1; y++) for (let i = y * width + x0, end = y * width + x1; i < end; i++) if (this.owner[i] === k) count += 1;
    return count;
  }

  /** Marks the element's ink over whatever larger elements marked. */
  private paint(element: TextElement): void {
    const { data, channels, width } = this.raster;
    const { inner, item } = element;
    const [r, g, b] = this.farOf(element);
    for (let y = inner.y; y < inner.y + inner.h; y++) {
      for (let i = y * width + inner.x, end = i + inner.w, p = i * channels; i < end; i++, p += channels) {
        if (r[data[p]!]! | g[data[p + 1]!]! | b[data[p + 2]!]!) this.owner[i] = item;
      }
    }
  }

  /** The owner among the large elements: the last in painting order for which the pixel is ink. */
  private largeOwner(pixel: number): number {
    const { width, data, channels } = this.raster;
    const [x, y, p] = [pixel % width, Math.floor(pixel / width), pixel * channels];
    for (let k = this.large.length - 1; k >= 0; k--) {
      const element = this.large[k]!;
      const { inner } = element;
      if (x < inner.x || y < inner.y || x >= inner.x + inner.w || y >= inner.y + inner.h) continue;
      const [r, g, b] = this.farOf(element);
      if (r[data[p]!]! | g[data[p + 1]!]! | b[data[p + 2]!]!) return element.item;
    }
    return NONE;
  }

  private farOf(element: TextElement): [Uint8Array, Uint8Array, Uint8Array] {
    return (element.far ??= farFrom(dominantColour(this.raster, element.inner)));
  }
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

/** Per channel, 1 for each value INK_DIFFERENCE or more from the background's. */
function farFrom(background: [number, number, number]): [Uint8Array, Uint8Array, Uint8Array] {
  const table = (b: number): Uint8Array => {
    const far = new Uint8Array(256);
    for (let v = 0; v < 256; v++) far[v] = Math.abs(v - b) >= INK_DIFFERENCE ? 1 : 0;
    return far;
  };
  return [table(background[0]), table(background[1]), table(background[2])];
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
