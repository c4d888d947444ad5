import type { MimeBundle } from "./ipc-messages.js";

/**
 * The one way output leaves a cell: console, display(), help() and the desk API's reads all
 * write here, and the session tags each message with the cell it belongs to.
 */
export interface OutputSink {
  stream(name: "stdout" | "stderr", text: string): void;
  /** `cell` names the cell it belongs to when that is not the current one (a live line of a stopped cell). */
  display(data: MimeBundle, metadata: Record<string, unknown>, displayId: string, update: boolean, cell?: number): void;
  clearOutput(wait: boolean): void;
  /** `value` is on screen already (a display handle, a read): a cell returning it does not show it again. */
  shown(value: object): void;
}
