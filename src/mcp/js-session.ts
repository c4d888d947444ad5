// What the MCP tools need from a Deskbook session, whichever way it is reached: a kernel the
// server starts (kernel-session.ts) or one a person has open in JupyterLab (attached-session.ts).
import type { OutputMessage } from "./result-content.js";

export interface RunOptions {
  /** The step's title for actions.log. */
  title?: string;
  /** This call's time limit; the kernel stops the cell at it. */
  timeoutMs?: number;
  /** Each output as it arrives, for progress notifications. */
  onOutput?: (message: OutputMessage) => void;
  /** Aborted when the client cancels the call: the cell is interrupted. */
  signal?: AbortSignal;
}

export interface RunResult {
  /** The execution's iopub messages in arrival order (status and execute_input left out). */
  outputs: OutputMessage[];
  /** The execute_reply's status; "not_run" when the code was not sent (notice says why). */
  status: string;
  /** What the agent must hear before the outputs: attach mode's word on a restart of the kernel. */
  notice?: string;
}

export interface JsSession {
  run(code: string, options: RunOptions): Promise<RunResult>;
  /** Drops every binding: the next run starts from a fresh session. Returns what to tell the agent. */
  reset(): Promise<string>;
  close(): Promise<void>;
}

/** Iopub messages that are no output of the cell. */
export function isOutput(type: string): boolean {
  return type !== "status" && type !== "execute_input";
}

/** execute_request metadata for a call: Deskbook's own keys (docs/kernel.md). */
export function callMetadata(options: RunOptions): Record<string, unknown> {
  const own: Record<string, unknown> = {};
  if (options.title !== undefined) own.step = options.title;
  if (options.timeoutMs !== undefined) own.timeLimitMs = options.timeoutMs;
  return Object.keys(own).length > 0 ? { deskbook: own } : {};
}
