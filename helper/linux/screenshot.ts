// Screenshots of a window's area, read from the root window: what is on screen there,
// including anything overlapping the window. Scaled to exactly the size asked for.

import { DeskError } from "../../src/helper/desk-error.js";
import { markBudgetProblem } from "../../src/image/mark-budget.js";
import type { Frame, ImageFormat, ImageMark } from "../../src/helper/protocol.js";
import { encodeCapture, type CapturePixels } from "./capture-encode.js";
import { windowFrame } from "./windows.js";
import { sharedX11, type ImageData } from "./x11-client.js";

export interface Capture {
  data: Buffer;
  width: number;
  height: number;
  mimeType: "image/png" | "image/jpeg";
  /** The screen area the image shows, in screen points. */
  frame: Frame;
  /** Part of the area is off-screen; that part is black in the image. */
  clipped: boolean;
}

const MAX_SIDE = 16_384;
const DEFAULT_JPEG_QUALITY = 80;

/**
 * Captures a window (by X window id) or a screen area, resized to exactly width × height,
 * with `marks` (in the image's pixels) painted in before the one encode. Fails with
 * no_window when the window is gone, unmapped or entirely off-screen.
 */
export async function captureWindow(
  target: number | Frame,
  width: number,
  height: number,
  format: ImageFormat = "png",
  quality: number = DEFAULT_JPEG_QUALITY,
  marks: readonly ImageMark[] = [],
): Promise<Capture> {
  checkSize(width, height);
  // Checked before any capture: the helper is shared and paints on its only thread.
  const overBudget = markBudgetProblem(width, height, marks);
  if (overBudget) throw new DeskError("bad_request", overBudget);
  const frame = typeof target === "number" ? await visibleWindowFrame(target) : wholeFrame(target);
  const x = await sharedX11();
  const visible = intersect(frame, [0, 0, x.screenWidth, x.screenHeight]);
  if (!visible) throw new DeskError("no_window", `the area ${JSON.stringify(frame)} is entirely off-screen`);
  const data = await x.withRootImage(...visible, (image) => {
    const pixels = sameFrame(visible, frame) ? screenPixels(image) : { data: toRgbCanvas(image, visible, frame), channels: 3 as const };
    return encodeCapture(pixels, { width: frame[2], height: frame[3] }, { width, height, format, quality, marks });
  });
  return {
    data,
    width,
    height,
    mimeType: format === "png" ? "image/png" : "image/jpeg",
    frame,
    clipped: !sameFrame(visible, frame),
  };
}

async function visibleWindowFrame(windowId: number): Promise<Frame> {
  const x = await sharedX11();
  const viewable = await x.isViewable(windowId).catch(() => false);
  if (!viewable) throw new DeskError("no_window", `window ${windowId} does not exist or is not shown`);
  return windowFrame(windowId).catch(() => {
    throw new DeskError("no_window", `window ${windowId} went away`);
  });
}

/**
 * A 32-bit ZPixmap as R G B X bands, in place, without a per-pixel loop: swap32 turns BGRX
 * (LSBFirst) into XRGB natively (~1 ms for 1280×800; a JavaScript byte loop took 15–50 ms),
 * and XRGB read from its second byte is RGBX, the last pixel's pad band being the spare byte
 * after the pixels.
 */
function screenPixels(image: ImageData): CapturePixels {
  checkFormat(image);
  if (image.byteOrder === 0) image.data.swap32(); // MSBFirst is XRGB already
  return { data: image.padded.subarray(1), channels: 4 };
}

function checkFormat(image: ImageData): void {
  if (image.bitsPerPixel !== 32 || image.depth < 24) {
    throw new DeskError("failed", `unsupported screen format: depth ${image.depth}, ${image.bitsPerPixel} bits per pixel`);
  }
}

/**
 * 32-bit ZPixmap (BGRX when LSBFirst, XRGB when MSBFirst) → packed RGB of the whole frame,
 * with the visible part at its place and the off-screen rest black. Keeping the frame's
 * geometry means image coordinates map linearly onto the window even when clipped.
 */
function toRgbCanvas(image: ImageData, visible: Frame, frame: Frame): Buffer {
  checkFormat(image);
  const [r, g, b] = image.byteOrder === 0 ? [2, 1, 0] : [1, 2, 3];
  const [vx, vy, vw, vh] = visible;
  const fw = frame[2];
  const out = Buffer.alloc(fw * frame[3] * 3);
  const src = image.data;
  for (let row = 0; row < vh; row++) {
    let s = row * vw * 4;
    let d = ((vy - frame[1] + row) * fw + (vx - frame[0])) * 3;
    for (let col = 0; col < vw; col++, s += 4, d += 3) {
      out[d] = src[s + r];
      out[d + 1] = src[s + g];
      out[d + 2] = src[s + b];
    }
  }
  return out;
}

/** Rounds a caller's area to whole pixels; an empty one is a bad request. */
function wholeFrame(frame: Frame): Frame {
  const [x, y, w, h] = frame.map((v) => Math.round(v));
  if (!(w > 0 && h > 0)) throw new DeskError("bad_request", `empty area ${JSON.stringify(frame)}`);
  return [x, y, w, h];
}

function intersect(a: Frame, b: Frame): Frame | null {
  const x = Math.max(a[0], b[0]);
  const y = Math.max(a[1], b[1]);
  const right = Math.min(a[0] + a[2], b[0] + b[2]);
  const bottom = Math.min(a[1] + a[3], b[1] + b[3]);
  return right > x && bottom > y ? [x, y, right - x, bottom - y] : null;
}

function sameFrame(a: Frame, b: Frame): boolean {
  return a.every((v, i) => v === b[i]);
}

function checkSize(width: number, height: number): void {
  const ok = (n: number): boolean => Number.isInteger(n) && n > 0 && n <= MAX_SIDE;
  if (!ok(width) || !ok(height)) throw new DeskError("bad_request", `bad screenshot size ${width}×${height}`);
}

