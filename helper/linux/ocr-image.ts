// The image tesseract is given: the region cut out, enlarged (tesseract reads text around 30
// pixels high best, and screen text is often 10 to 15), and on request made black on white
// with the UI's ruled lines wiped. Small UI text (a calculator's keys, a status bar, a canvas
// app's labels) sits in boxes whose borders tesseract takes for letters ("[7", "|e"), and a
// grey ground or a light-on-dark theme blurs its strokes; both are undone here.
import sharp from "sharp";
import { DeskError } from "../../src/helper/desk-error.js";
import type { Frame } from "../../src/helper/protocol.js";

export const DEFAULT_SCALE = 3;
/** The enlarged image stays within this many pixels a side (as zoom's capture does). */
const MAX_SIDE = 8192;
/** A dark run this many window pixels long, straight across or down, is a line, not a letter's stroke. */
export const LINE_MIN_PX = 20;
/**
 * The most enlarged pixels binarize and removeLines pass over (2048²). They run in JS on the
 * helper's one thread, about 50 ns a pixel with removeLines: this keeps a read under ~0.2 s of
 * the helper answering no one (its Escape watcher included), where a 1920×1080 window at scale 3
 * took 0.9 s. (Done on the image before enlarging instead, they read small UI text worse.)
 */
export const MAX_CLEAN_PIXELS = 2048 * 2048;

export interface PrepareOptions {
  scale?: number;
  binarize?: boolean;
  removeLines?: boolean;
}

export interface Prepared {
  png: Buffer;
  /** The enlargement actually used (lower than asked when the image would be too large). */
  scale: number;
}

/** `png` (or `region` of it) ready for tesseract. */
export async function prepareImage(png: Buffer, region: Frame | undefined, options: PrepareOptions = {}): Promise<Prepared> {
  const meta = await sharp(png).metadata();
  const [width, height] = region ? [region[2], region[3]] : [meta.width ?? 1, meta.height ?? 1];
  const scale = Math.max(1, Math.min(options.scale ?? DEFAULT_SCALE, MAX_SIDE / width, MAX_SIDE / height));
  checkCleanSize(width, height, scale, options);
  let image = sharp(png);
  if (region) image = image.extract({ left: region[0], top: region[1], width: region[2], height: region[3] });
  const grey = await image
    .resize({ width: Math.round(width * scale), height: Math.round(height * scale), kernel: "lanczos3", fit: "fill" })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { data, info } = grey;
  if (options.binarize || options.removeLines) blackOnWhite(data);
  if (options.removeLines) wipeLines(data, info.width, info.height, Math.round(LINE_MIN_PX * scale));
  return { png: await sharp(data, { raw: { width: info.width, height: info.height, channels: 1 } }).png().toBuffer(), scale };
}

function checkCleanSize(width: number, height: number, scale: number, options: PrepareOptions): void {
  const option = options.removeLines ? "removeLines" : options.binarize ? "binarize" : null;
  const pixels = Math.round(width * scale) * Math.round(height * scale);
  if (option === null || pixels <= MAX_CLEAN_PIXELS) return;
  const most = Math.floor(Math.sqrt(MAX_CLEAN_PIXELS / (width * height)) * 100) / 100;
  const lower = most >= 1 ? `a scale of at most ${most}, or ` : "";
  throw new DeskError("bad_request", `readText's ${option} takes at most ${MAX_CLEAN_PIXELS} pixels enlarged; ${width}×${height} at scale ${scale} is ${pixels}: ask ${lower}a smaller region`);
}

/** Thresholds at Otsu's level in place, dark text on a light ground (a dark ground is inverted). */
export function blackOnWhite(pixels: Uint8Array): void {
  const level = otsuLevel(pixels);
  let dark = 0;
  for (let i = 0; i < pixels.length; i++) {
    const ink = pixels[i]! <= level;
    pixels[i] = ink ? 0 : 255;
    if (ink) dark++;
  }
  // Text covers less of a window than its ground does: a mostly dark image is light text on dark.
  if (dark * 2 > pixels.length) for (let i = 0; i < pixels.length; i++) pixels[i] = 255 - pixels[i]!;
}

/** The grey level that best splits the histogram in two (Otsu's method). */
export function otsuLevel(pixels: Uint8Array): number {
  const histogram = new Array<number>(256).fill(0);
  for (const value of pixels) histogram[value]!++;
  const total = pixels.length;
  let sum = 0;
  for (let v = 0; v < 256; v++) sum += v * histogram[v]!;
  let below = 0;
  let belowSum = 0;
  let best = 127;
  let bestSpread = -1;
  for (let v = 0; v < 256; v++) {
    below += histogram[v]!;
    if (below === 0) continue;
    const above = total - below;
    if (above === 0) break;
    belowSum += v * histogram[v]!;
    const spread = below * above * (belowSum / below - (sum - belowSum) / above) ** 2;
    if (spread > bestSpread) {
      bestSpread = spread;
      best = v;
    }
  }
  return best;
}

/** Whitens every black run at least `minRun` long across a row or down a column (black-on-white pixels). */
export function wipeLines(pixels: Uint8Array, width: number, height: number, minRun: number): void {
  const wiped = new Uint8Array(pixels.length);
  markRuns(pixels, wiped, height, width, (line, at) => line * width + at, minRun);
  markRuns(pixels, wiped, width, height, (line, at) => at * width + line, minRun);
  for (let i = 0; i < pixels.length; i++) if (wiped[i]) pixels[i] = 255;
}

function markRuns(pixels: Uint8Array, wiped: Uint8Array, lines: number, length: number, index: (line: number, at: number) => number, minRun: number): void {
  for (let line = 0; line < lines; line++) {
    let start = -1;
    for (let at = 0; at <= length; at++) {
      const ink = at < length && pixels[index(line, at)] === 0;
      if (ink && start < 0) start = at;
      if (!ink && start >= 0) {
        if (at - start >= minRun) for (let k = start; k < at; k++) wiped[index(line, k)] = 1;
        start = -1;
      }
    }
  }
}
