// readText's options, checked before anything is captured: how the image is prepared for OCR
// and what the reader is told about the text (docs/api.md, app.readText).
import { OCR_LAYOUTS, type OcrLayout } from "../helper/protocol.js";

export interface ReadTextOptions {
  /** Enlargement before reading, 1 to 8 (default 3). */
  scale?: number;
  /** Black text on white first. */
  binarize?: boolean;
  /** Wipe button borders, grid and box edges first (implies binarize). */
  removeLines?: boolean;
  /** "auto" (default for a whole window), "block" (default for a region), "line", "word", "sparse". */
  layout?: OcrLayout;
  /** Read only these characters, e.g. "0123456789.-". */
  chars?: string;
}

const KEYS = new Set(["scale", "binarize", "removeLines", "layout", "chars"]);

/** The options as sent, or a TypeError that says what is wrong. */
export function checkOcrOptions(options: unknown): ReadTextOptions {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new TypeError("readText's options are an object like { layout: \"line\", chars: \"0123456789\" }");
  const given = options as Record<string, unknown>;
  const unknown = Object.keys(given).filter((key) => !KEYS.has(key));
  if (unknown.length > 0) throw new TypeError(`readText has no option ${unknown.map((k) => JSON.stringify(k)).join(", ")} (it takes scale, binarize, removeLines, layout, chars)`);
  const { scale, binarize, removeLines, layout, chars } = given;
  if (scale !== undefined && (typeof scale !== "number" || !(scale >= 1 && scale <= 8))) throw new TypeError(`readText's scale is a number from 1 to 8, not ${JSON.stringify(scale)}`);
  for (const [name, flag] of [["binarize", binarize], ["removeLines", removeLines]] as const) {
    if (flag !== undefined && typeof flag !== "boolean") throw new TypeError(`readText's ${name} is true or false, not ${JSON.stringify(flag)}`);
  }
  if (layout !== undefined && !OCR_LAYOUTS.includes(layout as OcrLayout)) throw new TypeError(`readText's layout is one of ${OCR_LAYOUTS.map((l) => `"${l}"`).join(", ")}, not ${JSON.stringify(layout)}`);
  if (chars !== undefined && (typeof chars !== "string" || chars.length < 1 || chars.length > 256 || /[\u0000-\u001f\u007f]/.test(chars))) {
    throw new TypeError(`readText's chars is a string of 1 to 256 printable characters to read, like "0123456789.-", not ${JSON.stringify(chars)}`);
  }
  return given as ReadTextOptions;
}
