// What one marked screenshot may ask a painter to do. The Linux helper paints marks in its one
// shared, single-threaded process, and painting grows with the image (text ink keeps ~11 bytes
// per pixel) and with the text marks' area (each is scanned for ink): without caps one request
// could hold it for minutes or gigabytes. Both caps sit far above what the desk API asks for
// (1.15 megapixels by default, a tree capped well below MAX_MARKS).
import type { Frame, ImageMark } from "../helper/protocol.js";

/** The largest image, in pixels, marks are painted into (4096 × 4096). */
export const MAX_MARKED_PIXELS = 4096 * 4096;
/** Text marks' areas, each clipped to the image, summed: at most this many times the image's area. */
export const MAX_TEXT_AREA_FACTOR = 4;

/** Why painting `marks` into a width × height image is over budget, naming the field; undefined when it is not. */
export function markBudgetProblem(width: number, height: number, marks: readonly ImageMark[]): string | undefined {
  if (marks.length === 0) return undefined;
  const pixels = width * height;
  if (pixels > MAX_MARKED_PIXELS) {
    return `width × height ${width}×${height} is above the ${MAX_MARKED_PIXELS} pixels marks are painted into`;
  }
  let text = 0;
  for (const mark of marks) if (mark.text) text += clippedArea(mark.frame, width, height);
  if (text > MAX_TEXT_AREA_FACTOR * pixels) {
    return `marks: the text marks cover ${text} pixels together, above ${MAX_TEXT_AREA_FACTOR}× the image's ${pixels}`;
  }
  return undefined;
}

function clippedArea([x, y, w, h]: Frame, width: number, height: number): number {
  const cw = Math.min(width, x + w) - Math.max(0, x);
  const ch = Math.min(height, y + h) - Math.max(0, y);
  return cw > 0 && ch > 0 ? cw * ch : 0;
}
