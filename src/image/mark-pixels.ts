// Set-of-marks into decoded pixels: labels placed (label-placement.ts), then marks painted
// (marks-raster.ts). Below both its users: the desk API paints a decoded screenshot, and a
// helper that offers it paints its capture before its only encode (docs/design.md).
import type { ImageMark } from "../helper/protocol.js";
import { placeLabels } from "./label-placement.js";
import { labelSize, paintMarks, type Canvas } from "./marks-raster.js";

/** Places the labels and paints the marks into the canvas, in place. */
export function markPixels(canvas: Canvas, marks: readonly ImageMark[]): void {
  const spots = placeLabels(canvas, marks.map((m) => ({ frame: m.frame, text: m.text, size: labelSize(m.index) })));
  paintMarks(canvas, marks.map((m, k) => ({ index: m.index, frame: m.frame, label: spots[k]! })));
}
