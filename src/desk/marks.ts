// Set-of-marks: a box around each element and its index in a small label, drawn onto the
// window image so a model can name elements by number. Here for a helper that does not paint
// them itself (ping's `marks`): the image is decoded once, the labels placed and the marks
// painted into its pixels (src/image/mark-pixels.ts), and it is encoded once. Digits are pixel glyphs, not text, so labels look the same with or without
// fonts installed (fontconfig is not a given on every machine sharp runs on).
import { loadSharp } from "../image/sharp-loader.js";
import type { ScreenshotFormat } from "../config/config.js";
import type { ImageMark } from "../helper/protocol.js";
import { withFormat } from "../image/encode.js";
import { markPixels } from "../image/mark-pixels.js";

/** A mark as the desk API makes it: the helper protocol's, frame in image pixels. */
export type Mark = ImageMark;

/** Draws the marks and re-encodes in the same format at the same size. */
export async function drawMarks(
  image: Buffer,
  format: ScreenshotFormat,
  quality: number,
  marks: readonly Mark[],
): Promise<Buffer> {
  const sharp = await loadSharp();
  // Decoded in the image's own bands: R G B for a screenshot, R G B A for an image with alpha
  // of its own (a window's rounded corners), which it keeps. Grey, palette or CMYK images come
  // out as sRGB too, so marks are in colour.
  const { data, info } = await sharp(image).toColourspace("srgb").raw().toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  if (!width || !height || (channels !== 3 && channels !== 4)) throw new Error("drawMarks: the image has no size or is not RGB; is it a PNG or JPEG?");
  markPixels({ data, width, height, channels }, marks);
  const painted = sharp(data, { raw: { width, height, channels } });
  return withFormat(painted, format, quality, channels === 3).toBuffer();
}
