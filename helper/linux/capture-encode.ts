// The Linux helper's one encode of a capture: scaled to the size asked for, set-of-marks
// painted in, then PNG or JPEG. Its own module so the desk bench times the very code a
// marked screenshot runs, without an X server.
import sharp from "sharp";
import { withFormat } from "../../src/image/encode.js";
import { markPixels } from "../../src/image/mark-pixels.js";
import type { ImageFormat, ImageMark } from "../../src/helper/protocol.js";

export interface CapturePixels {
  data: Buffer;
  /** 4: R G B and a pad band the encoder drops. */
  channels: 3 | 4;
}

export interface CaptureOutput {
  width: number;
  height: number;
  format: ImageFormat;
  quality: number;
  marks: readonly ImageMark[];
}

/** Scales to width × height (stretching: the caller keeps the aspect), paints the marks, encodes with the shipped settings. */
export async function encodeCapture(pixels: CapturePixels, source: { width: number; height: number }, out: CaptureOutput): Promise<Buffer> {
  const raw = { ...source, channels: pixels.channels };
  const q = clampQuality(out.quality);
  if (source.width === out.width && source.height === out.height) {
    // Painted in place, into the lent shared segment's R G B X view: the next read waits for
    // this encode, and a copy (a fresh 4-6 MB per call) would bring back the collections.
    if (out.marks.length) markPixels({ data: pixels.data, ...raw }, out.marks);
    return withFormat(sharp(pixels.data, { raw }).removeAlpha(), out.format, q, true).toBuffer();
  }
  // sharp resizes a 4-band image as premultiplied RGBA whatever the call order, and the pad
  // band is not an alpha: drop it in a pipeline of its own first.
  const rgb = pixels.channels === 3 ? pixels.data : await sharp(pixels.data, { raw }).removeAlpha().raw().toBuffer();
  const resized = sharp(rgb, { raw: { ...source, channels: 3 } }).resize(out.width, out.height, { fit: "fill" });
  if (!out.marks.length) return withFormat(resized, out.format, q, true).toBuffer();
  const scaled = await resized.raw().toBuffer();
  markPixels({ data: scaled, width: out.width, height: out.height, channels: 3 }, out.marks);
  return withFormat(sharp(scaled, { raw: { width: out.width, height: out.height, channels: 3 } }), out.format, q, true).toBuffer();
}

function clampQuality(quality: number): number {
  return Math.min(100, Math.max(1, Math.round(quality)));
}
