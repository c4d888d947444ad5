// Set-of-marks: a box around each element and its index in a small label, drawn onto the
// window image so a model can name elements by number. The image is decoded once, the labels
// placed (label-placement.ts), the marks painted into its pixels (marks-raster.ts), and it is
// encoded once. Digits are pixel glyphs, not text, so labels look the same with or without
// fonts installed (fontconfig is not a given on every machine sharp runs on).
import { loadSharp } from "../image/sharp-loader.js";
import type { ScreenshotFormat } from "../config/config.js";
import type { Frame } from "../helper/protocol.js";
import { withFormat } from "../image/encode.js";
import { placeLabels } from "./label-placement.js";
import { labelSize, paintMarks, type Canvas } from "./marks-raster.js";

export { COLOURS } from "./marks-raster.js";

export interface Mark {
  index: number;
  /** In image pixels. */
  frame: Frame;
  /** The element bears text: its label keeps off that text where it can. */
  text?: boolean;
}

/** Draws the marks and re-encodes in the same format at the same size. */
export async function drawMarks(
  image: Buffer,
  format: ScreenshotFormat,
  quality: number,
  marks: readonly Mark[],
): Promise<Buffer> {
  const sharp = await loadSharp();
  // R G B A: the painter writes whole 32-bit pixels. Screenshots are RGB already; a grey image
  // is converted (always converting costs ~6 ms at 1568×980).
  let decoded = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  if (decoded.info.channels !== 4) decoded = await sharp(image).toColourspace("srgb").ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height, channels } = decoded.info;
  if (!width || !height || channels !== 4) throw new Error("drawMarks: the image has no size or is not RGB; is it a PNG or JPEG?");
  // Painted as 32-bit words, which need an aligned start (sharp's buffers have one).
  const data = decoded.data.byteOffset % 4 === 0 ? decoded.data : Buffer.from(decoded.data);
  markPixels({ data, width, height, channels: 4 }, marks);
  const painted = sharp(data, { raw: { width, height, channels } });
  // Most screenshots are opaque, and their alpha band was only room for whole-word painting;
  // an image with alpha of its own (a window's rounded corners) keeps it.
  if ((await sharp(image).metadata()).hasAlpha) return withFormat(painted, format, quality).toBuffer();
  return withFormat(painted.removeAlpha(), format, quality, true).toBuffer();
}

/** Places the labels and paints the marks into decoded pixels (drawMarks without the decode and encode). */
export function markPixels(canvas: Canvas, marks: readonly Mark[]): void {
  const spots = placeLabels(canvas, marks.map((m) => ({ frame: m.frame, text: m.text, size: labelSize(m.index) })));
  paintMarks(canvas, marks.map((m, k) => ({ index: m.index, frame: m.frame, label: spots[k]! })));
}
