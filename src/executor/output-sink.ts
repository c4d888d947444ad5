import type { MimeBundle } from "./ipc-messages.js";

/**
 * The one way output leaves a cell: console, display(), help() and the desk API's reads all
 * write here, and the session tags each message with the cell it belongs to.
 */
export interface OutputSink {
  stream(name: "stdout" | "stderr", text: string): void;
  display(data: MimeBundle, metadata: Record<string, unknown>, displayId: string, update: boolean): void;
  clearOutput(wait: boolean): void;
  /** `value` is on screen already (a display handle, a read): a cell returning it does not show it again. */
  shown(value: object): void;
}
