import type { DeskbookConfig } from "../config/config.js";
import type { HelperClient } from "../helper/client.js";
import type { CellControl } from "./cell-control.js";
import type { Locator } from "./locator.js";

/** A rich output: mime type → data (Buffers for images). */
export type Bundle = Record<string, string | Buffer>;

/** Everything the desk API needs from the executor, in one place. */
export interface DeskContext {
  /** The helper connection, connected (and the helper launched) on first use. */
  client(): Promise<HelperClient>;
  /** config.json as it is now (re-read so edits apply at once). */
  config(): DeskbookConfig;
  control: CellControl;
  /**
   * Shows a read in the cell; `value` is what the read returns, so it is not shown twice.
   * `metadata` goes with the output (untrustedMetadata() marks text that came from an app).
   */
  show(bundle: Bundle, value: object, metadata?: Record<string, unknown>): void;
  /** Whether getApp starts apps with fresh profiles by default. */
  freshApps(): boolean;
  /** getApp started this app: the session closes it when it ends. */
  launched(pid: number): void;
  /** A line in the current cell that can be rewritten in place (update_display_data). */
  live(): LiveOutput;
  /** The session's recorder (desk.record), when the session has one. */
  recorder?: ActionRecorder;
  /** desk.secret: the session's binding of that name, else asked for without echo. */
  secret?(name: string, prompt: string): Promise<string>;
}

/** An action named its element by index: the recorder writes the locator in its place. */
export interface IndexUse {
  app: string;
  method: string;
  index: number;
  /** Missing when the element could not be described (it was in no window's read). */
  locator?: Locator;
}

/** The session's recorder as the desk API sees it (src/executor/recorder.ts). */
export interface ActionRecorder {
  recording(): boolean;
  /** An action named its element by index (told before the action). */
  usedIndex(use: IndexUse): void;
  /** Starts recording to a notebook path; returns the full path. */
  start(path: string): string;
  /** Stops recording; returns the path that was recorded to, if any. */
  stop(): string | undefined;
}

/** Output shown once and then replaced: progress, a pending approval. */
export interface LiveOutput {
  /** The first call displays `bundle`; each later call replaces what is shown. */
  show(bundle: Bundle): void;
}
