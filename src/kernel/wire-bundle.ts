import type { MimeBundle } from "../executor/ipc-messages.js";

/** Jupyter carries binary mime data (images) as base64 strings in JSON. */
export function toWireBundle(bundle: MimeBundle): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  for (const [mime, value] of Object.entries(bundle)) {
    wire[mime] = Buffer.isBuffer(value) || value instanceof Uint8Array ? Buffer.from(value).toString("base64") : value;
  }
  return wire;
}
