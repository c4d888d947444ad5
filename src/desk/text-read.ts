// A read whose natural form is text (the AX tree, and any later read like it) is a String
// object: `.match`, `.includes`, `.split`, template literals, `+` and JSON.stringify all see
// the text, as scripts written for other computer-use tools expect, while the read's details
// stay properties of the same value. util.inspect and Jupyter show the text, not a String box.
import { inspect } from "node:util";
import type { Bundle } from "./desk-context.js";
import { JUPYTER_DISPLAY, OUTPUT_METADATA } from "../output-symbols.js";

/** The key front doors read in an output's metadata to tell text that came from an app. */
export const UNTRUSTED_METADATA_KEY = "deskbook";

/** Output metadata saying the output's text came from `app` (labels, values, window titles). */
export function untrustedMetadata(app: string): Record<string, unknown> {
  return { [UNTRUSTED_METADATA_KEY]: { untrusted: app } };
}

/** The app an output's metadata names as the source of its text, if any. */
export function untrustedSource(metadata: unknown): string | undefined {
  if (typeof metadata !== "object" || metadata === null) return undefined;
  const own = (metadata as Record<string, unknown>)[UNTRUSTED_METADATA_KEY];
  if (typeof own !== "object" || own === null) return undefined;
  const app = (own as Record<string, unknown>).untrusted;
  return typeof app === "string" ? app : undefined;
}

export class TextRead extends String {
  /**
   * @param text what the read shows
   * @param source the app the text came from, when it is app content (not Deskbook's own words)
   */
  constructor(
    readonly text: string,
    readonly source?: string,
  ) {
    super(text);
  }

  toJSON(): string {
    return this.text;
  }

  [inspect.custom](): string {
    return this.text;
  }

  /** What Jupyter shows when the read is a cell's result. */
  bundle(): Bundle {
    return { "text/plain": this.text };
  }

  /** The metadata of the read's output. */
  metadata(): Record<string, unknown> {
    return this.source === undefined ? {} : untrustedMetadata(this.source);
  }

  [JUPYTER_DISPLAY](): Bundle {
    return this.bundle();
  }

  /** A read returned as a cell's result still says its text came from an app. */
  [OUTPUT_METADATA](): Record<string, unknown> {
    return this.metadata();
  }
}
