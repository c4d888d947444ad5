// Image encoding, below both the desk API and the Linux helper: the helper encodes
// screenshots, set-of-marks re-encodes them, and the bench measures these same settings, so
// what is measured is what ships.
import type { JpegOptions, PngOptions, Sharp } from "sharp";
import { loadSharp } from "./sharp-loader.js";
import type { ScreenshotFormat } from "../config/config.js";

export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

/**
 * zlib level 2: measured on the desk bench's 1568×980 image, plain and with 800 marks, and on
 * a real JupyterLab capture (CPU time, interleaved, docs/design.md), level 2 takes 12-23% less
 * CPU than level 4 for 2%, 17% and 9% more bytes. Level 1 (zlib-ng's quick mode, static
 * Huffman codes only) takes a third off again for 24-31% more bytes than level 2; sharp's
 * default 6 is ~1.6× slower than 4. PNG is lossless at every level: only the size changes.
 * Adaptive filtering takes 2-4× the time. Palette quantisation (and so `effort`) is off: it
 * is lossy and takes over 100 ms.
 */
export const PNG_OPTIONS: Readonly<PngOptions> = Object.freeze({
  compressionLevel: 2,
  adaptiveFiltering: false,
  palette: false,
});

/**
 * No chroma subsampling: 4:2:0 smears small coloured text (links, selected rows), which is
 * what agents read off screenshots; it costs ~5% bytes. mozjpeg is 10× slower. Huffman
 * table optimisation (sharp's default) is a second pass over the coefficients: off, a
 * 1280×800 screenshot encodes in ~12 ms instead of ~20 ms for ~10% more bytes.
 */
export const JPEG_OPTIONS: Readonly<JpegOptions> = Object.freeze({
  chromaSubsampling: "4:4:4",
  mozjpeg: false,
  optimiseCoding: false,
  trellisQuantisation: false,
  overshootDeringing: false,
  optimiseScans: false,
});

/** Encodes raw pixels (RGB or RGBA, row-major, no padding) as PNG or JPEG. */
export async function encodeImage(raw: RawImage, format: ScreenshotFormat, quality: number): Promise<Buffer> {
  const expected = raw.width * raw.height * raw.channels;
  if (raw.data.length !== expected) {
    throw new RangeError(
      `raw image is ${raw.data.length} bytes, expected ${expected} for ${raw.width}×${raw.height}×${raw.channels}`,
    );
  }
  const sharp = await loadSharp();
  const input = sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: raw.channels } });
  return withFormat(input, format, quality).toBuffer();
}

/**
 * Applies the shipped encoder settings to any sharp pipeline. `opaque` says the pipeline
 * has no real alpha, for example a screen read whose fourth band is X11's pad byte that the
 * pipeline drops with removeAlpha: sharp flattens before it removes bands, so flattening
 * would read the pad (0) as fully transparent and paint the whole image white.
 */
export function withFormat(pipeline: Sharp, format: ScreenshotFormat, quality: number, opaque = false): Sharp {
  if (format === "png") return pipeline.png(PNG_OPTIONS);
  // JPEG has no alpha; flatten onto white like a window background instead of black.
  return (opaque ? pipeline : pipeline.flatten({ background: "#ffffff" })).jpeg({ ...JPEG_OPTIONS, quality });
}
