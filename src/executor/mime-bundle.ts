import util from "node:util";
import type { MimeBundle } from "./ipc-messages.js";
import { sniffImage } from "./image-sniff.js";

import { JUPYTER_DISPLAY, OUTPUT_METADATA } from "../output-symbols.js";

/** The representation of a value as a result or a display: always with text/plain. */
export function toMimeBundle(value: unknown): MimeBundle {
  const own = ownBundle(value);
  if (own) return own;
  if (value instanceof Uint8Array) {
    const image = sniffImage(value);
    if (image) return { [image.mime]: Buffer.from(value), "text/plain": describeImage(image.mime, image.width, image.height, value.byteLength) };
  }
  return { "text/plain": util.inspect(value, { colors: false, depth: 4 }) };
}

export function describeImage(mime: string, width: number, height: number, bytes: number): string {
  const kind = mime === "image/png" ? "PNG" : "JPEG";
  return `<${kind} image ${width}×${height}, ${formatBytes(bytes)}>`;
}

/** The metadata a value asks its result to carry (`OUTPUT_METADATA`); none for most values. */
export function ownMetadata(value: unknown): Record<string, unknown> {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return {};
  const member = (value as Record<symbol, unknown>)[OUTPUT_METADATA];
  const metadata = typeof member === "function" ? (member as () => unknown).call(value) : member;
  return typeof metadata === "object" && metadata !== null ? (metadata as Record<string, unknown>) : {};
}

function ownBundle(value: unknown): MimeBundle | undefined {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return undefined;
  const member = (value as Record<symbol, unknown>)[JUPYTER_DISPLAY];
  if (member === undefined) return undefined;
  const bundle = typeof member === "function" ? (member as () => unknown).call(value) : member;
  if (typeof bundle !== "object" || bundle === null) {
    throw new TypeError("Symbol.for(\"Jupyter.display\") must be (or return) an object of mime type → data");
  }
  const result: MimeBundle = { ...(bundle as MimeBundle) };
  if (!("text/plain" in result)) result["text/plain"] = util.inspect(value, { colors: false, depth: 2 });
  return result;
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
