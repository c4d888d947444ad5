import { loadSharp } from "../image/sharp-loader.js";
import type { ImageFormat } from "../helper/protocol.js";

/** The largest capture a zoom asks for, per side (the helper's own limit is 16384). */
export const MAX_ZOOM_SIDE = 8192;
export const MAX_ZOOM_SCALE = 8;

export type Region = [number, number, number, number];

/** A region of the window image, checked against the image's size: whole pixels, inside, not empty. */
export function checkRegion(region: unknown, width: number, height: number): Region {
  if (!Array.isArray(region) || region.length !== 4 || !region.every((n) => typeof n === "number" && Number.isFinite(n))) {
    throw new TypeError("a region is [x, y, width, height] in image pixels");
  }
  const [x, y, w, h] = region.map(Math.round) as Region;
  if (w < 1 || h < 1) throw new TypeError(`the region ${JSON.stringify(region)} is empty`);
  if (x < 0 || y < 0 || x + w > width || y + h > height) {
    throw new RangeError(`the region ${JSON.stringify(region)} is not inside the ${width}×${height} window image`);
  }
  return [x, y, w, h];
}

/** The capture size for `scale`, limited so that no side passes MAX_ZOOM_SIDE; the scale it really gives. */
export function zoomCapture(width: number, height: number, scale: number): { width: number; height: number; scale: number } {
  if (typeof scale !== "number" || !Number.isFinite(scale) || scale < 1 || scale > MAX_ZOOM_SCALE) {
    throw new RangeError(`zoom's scale is a number from 1 to ${MAX_ZOOM_SCALE}, not ${String(scale)}`);
  }
  const s = Math.min(scale, MAX_ZOOM_SIDE / Math.max(width, height));
  return { width: Math.round(width * s), height: Math.round(height * s), scale: s };
}

/** Cuts `region` (in image pixels) out of a capture made `scale` times larger than the image. */
export async function cropZoomed(capture: Buffer, region: Region, scale: number, format: ImageFormat, quality: number): Promise<{ data: Buffer; width: number; height: number }> {
  const sharp = await loadSharp();
  const image = sharp(capture);
  const meta = await image.metadata();
  const left = Math.min(Math.round(region[0] * scale), (meta.width ?? 1) - 1);
  const top = Math.min(Math.round(region[1] * scale), (meta.height ?? 1) - 1);
  const width = Math.max(1, Math.min(Math.round(region[2] * scale), (meta.width ?? 1) - left));
  const height = Math.max(1, Math.min(Math.round(region[3] * scale), (meta.height ?? 1) - top));
  const cut = image.extract({ left, top, width, height });
  const data = format === "jpeg" ? await cut.jpeg({ quality }).toBuffer() : await cut.png().toBuffer();
  return { data, width, height };
}
