// Per-window image space: (0, 0) is the window's top-left corner and the image size
// depends only on the window's size and backing scale, so screenshots, frames and pixel
// clicks agree even when no screenshot was taken (docs: "Coordinates and images").
import type { Frame } from "../helper/protocol.js";

/** The parts of a WindowInfo the image space depends on. */
export interface ImageWindow {
  frame: Frame;
  /** Backing scale (device pixels per point). */
  scale: number;
}

/** Screenshot limits, as in DeskbookConfig.screenshot. */
export interface ImageLimits {
  maxLongSide: number;
  maxPixels: number;
}

export interface ImageSize {
  width: number;
  height: number;
}

export type Point = [number, number];

/** Image pixels per screen point: `min(backing scale, maxLongSide / long side, sqrt(maxPixels / area))`. */
export function imageScale(window: ImageWindow, limits: ImageLimits): number {
  const [w, h] = checkedSize(window);
  checkLimits(limits);
  return Math.min(window.scale, limits.maxLongSide / Math.max(w, h), Math.sqrt(limits.maxPixels / (w * h)));
}

/** The window image's size: rounded, at least 1×1, never above either limit. */
export function imageSize(window: ImageWindow, limits: ImageLimits): ImageSize {
  const s = imageScale(window, limits);
  const [w, h] = checkedSize(window);
  const exact = { width: w * s, height: h * s };
  // Rounding both sides up can cross maxPixels by a row or column; take the largest
  // combination of rounded and floored sides that fits (both floored always does).
  let best: ImageSize = { width: 1, height: 1 };
  for (const width of sides(exact.width, limits)) {
    for (const height of sides(exact.height, limits)) {
      if (width * height <= limits.maxPixels && width * height > best.width * best.height) best = { width, height };
    }
  }
  return fitSliver(best, exact, limits);
}

/** Rounded and floored, each clamped to [1, maxLongSide]. */
function sides(exact: number, limits: ImageLimits): number[] {
  const clamp = (n: number): number => Math.min(Math.max(1, n), Math.floor(limits.maxLongSide));
  return [clamp(Math.round(exact)), clamp(Math.floor(exact))];
}

/**
 * When no rounded size fits, the window is a sliver raised to 1 pixel across, and the long
 * side must shrink to keep `1 × long ≤ maxPixels`.
 */
function fitSliver(size: ImageSize, exact: ImageSize, limits: ImageLimits): ImageSize {
  if (size.width > 1 || size.height > 1) return size;
  const cap = Math.min(Math.floor(limits.maxLongSide), Math.floor(limits.maxPixels));
  const long = (n: number): number => Math.max(1, Math.min(Math.round(n), cap));
  return exact.width >= exact.height ? { width: long(exact.width), height: 1 } : { width: 1, height: long(exact.height) };
}

/** Converts between a window's image pixels and global screen points. */
export class ImageSpace {
  readonly width: number;
  readonly height: number;
  /** Image pixels per screen point, before rounding the size. */
  readonly scale: number;
  readonly window: Readonly<Frame>;
  // Screen points per image pixel, per axis from the rounded size, so the image's edges map
  // exactly onto the window's edges (off from 1/scale by less than a pixel across).
  private readonly pointsPerPixelX: number;
  private readonly pointsPerPixelY: number;

  constructor(window: ImageWindow, limits: ImageLimits) {
    const size = imageSize(window, limits);
    this.width = size.width;
    this.height = size.height;
    this.scale = imageScale(window, limits);
    this.window = [...window.frame];
    this.pointsPerPixelX = window.frame[2] / size.width;
    this.pointsPerPixelY = window.frame[3] / size.height;
  }

  /** Image pixel → global screen point (unrounded). */
  toScreen([x, y]: Point): Point {
    return [this.window[0] + x * this.pointsPerPixelX, this.window[1] + y * this.pointsPerPixelY];
  }

  /** Global screen point → image pixel (unrounded). */
  toImage([sx, sy]: Point): Point {
    return [(sx - this.window[0]) / this.pointsPerPixelX, (sy - this.window[1]) / this.pointsPerPixelY];
  }

  /** A screen frame in image pixels. Edges are rounded, not the size, so neighbours still touch. */
  frameToImage(frame: Frame): Frame {
    const [x0, y0] = this.toImage([frame[0], frame[1]]);
    const [x1, y1] = this.toImage([frame[0] + frame[2], frame[1] + frame[3]]);
    const left = Math.round(x0);
    const top = Math.round(y0);
    return [left, top, Math.round(x1) - left, Math.round(y1) - top];
  }

  /** Whether an image point lies on the window image; the right and bottom edges are outside. */
  contains([x, y]: Point): boolean {
    return x >= 0 && y >= 0 && x < this.width && y < this.height;
  }

  /** Refuses a point off the window image, so a click never lands in another app. */
  assertInside(point: Point): void {
    if (this.contains(point)) return;
    throw new RangeError(
      `point [${point[0]}, ${point[1]}] is outside the window image (${this.width}×${this.height})`,
    );
  }
}

function checkedSize(window: ImageWindow): [number, number] {
  const [, , w, h] = window.frame;
  if (!(w > 0 && h > 0 && Number.isFinite(w) && Number.isFinite(h))) {
    throw new RangeError(`the window has no area (${w}×${h} points), so it has no image`);
  }
  if (!(window.scale > 0 && Number.isFinite(window.scale))) {
    throw new RangeError(`the window's backing scale must be a positive number, got ${window.scale}`);
  }
  return [w, h];
}

function checkLimits(limits: ImageLimits): void {
  if (!(limits.maxLongSide >= 1 && limits.maxPixels >= 1)) {
    throw new RangeError(
      `screenshot limits must be at least 1 (maxLongSide ${limits.maxLongSide}, maxPixels ${limits.maxPixels})`,
    );
  }
}
