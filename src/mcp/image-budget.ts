// Images sized for model clients: an image over the byte budget is re-encoded as JPEG, then
// made smaller until it fits, and the caller is told the scale so that clicks, which use the
// screenshot's own pixels, still land.
import sharp from "sharp";
import { JPEG_OPTIONS } from "../image/encode.js";

export interface BudgetedImage {
  data: Buffer;
  mimeType: "image/png" | "image/jpeg";
  width: number;
  height: number;
  /** Set when the image was re-encoded: its size before, in the screenshot's pixels. */
  original?: { width: number; height: number; bytes: number; mimeType: string };
}

const QUALITIES = [80, 70, 60, 50];
const MAX_ROUNDS = 8;
const MIN_SIDE = 16;

export async function fitImage(data: Buffer, mimeType: "image/png" | "image/jpeg", maxBytes: number): Promise<BudgetedImage> {
  const meta = await sharp(data).metadata();
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (data.byteLength <= maxBytes) return { data, mimeType, width, height };
  const original = { width, height, bytes: data.byteLength, mimeType };
  let scale = 1;
  let best: BudgetedImage | undefined;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const w = Math.max(MIN_SIDE, Math.round(width * scale));
    const h = Math.max(MIN_SIDE, Math.round(height * scale));
    for (const quality of QUALITIES) {
      const jpeg = await sharp(data).resize(w, h, { fit: "fill" }).flatten({ background: "#ffffff" }).jpeg({ ...JPEG_OPTIONS, quality }).toBuffer();
      best = { data: jpeg, mimeType: "image/jpeg", width: w, height: h, original };
      if (jpeg.byteLength <= maxBytes) return best;
    }
    if (w === MIN_SIDE && h === MIN_SIDE) break;
    // Bytes grow roughly with the pixel count: shrink both sides by the square root, with a margin.
    scale *= Math.min(0.9, Math.sqrt(maxBytes / best!.data.byteLength) * 0.95);
  }
  return best!;
}

/** What the model must know about a re-encoded image, or undefined when it was sent as it was. */
export function describeFit(image: BudgetedImage, maxBytes: number): string | undefined {
  const o = image.original;
  if (!o) return undefined;
  const kib = (n: number) => `${Math.round(n / 1024)} KiB`;
  const head = `(Image re-encoded to fit the ${kib(maxBytes)} image budget: ${o.mimeType === "image/png" ? "PNG" : "JPEG"} ${o.width}×${o.height}, ${kib(o.bytes)} → JPEG ${image.width}×${image.height}, ${kib(image.data.byteLength)}.`;
  if (image.width === o.width && image.height === o.height) return `${head} Same pixels: points read off it are screenshot pixels.)`;
  const factor = o.width / image.width;
  const tail = image.data.byteLength > maxBytes ? " It is still over the budget at the smallest size tried." : "";
  return `${head} Clicks and frames use the screenshot's ${o.width}×${o.height} pixels: multiply x and y read off this image by ${factor.toFixed(3)}.${tail})`;
}
