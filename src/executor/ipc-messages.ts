// The messages between the kernel process and its executor child (Node IPC with
// "advanced" serialization, so image bytes travel as Buffers, not base64).

/** A mime bundle as the executor produces it; the kernel base64-encodes Buffers. */
export type MimeBundle = Record<string, string | Buffer | object>;

export interface ExecuteRequest {
  type: "execute";
  reqId: string;
  /** A unique number per execution (silent ones included): output and timers are tagged with it. */
  cellId: number;
  /** The number the user sees; names the cell in tracebacks (`cell-3:2:5`). */
  executionCount: number;
  code: string;
  userExpressions: Record<string, string>;
  allowStdin: boolean;
  /** The time limit the kernel enforces on this cell, so a cell can read it. */
  timeLimitMs: number;
  /** The step's title (execute_request metadata `deskbook.step`): helper requests carry it to actions.log. */
  step?: string;
}

export interface CompleteRequest {
  type: "complete";
  reqId: string;
  code: string;
  cursorPos: number;
}

export interface InspectRequest {
  type: "inspect";
  reqId: string;
  code: string;
  cursorPos: number;
  detailLevel: 0 | 1;
}

/** The frontend's line, or why no frontend could be asked (the cell's input() then fails). */
export type InputReply =
  | { type: "input_reply"; reqId: string; value: string }
  | { type: "input_reply"; reqId: string; error: string };

// Stop requests do not travel here: the executor's main thread may be spinning and not
// reading. The kernel writes them to a pipe of their own (see stop-gate.ts).

/** The session ends: close the apps it started (gracefully), then answer. */
export interface ShutdownRequest {
  type: "shutdown";
  reqId: string;
}

export type ToExecutor = ExecuteRequest | CompleteRequest | InspectRequest | InputReply | ShutdownRequest;

export interface ErrorContent {
  ename: string;
  evalue: string;
  traceback: string[];
}

export type UserExpressionResult =
  | { status: "ok"; data: MimeBundle; metadata: Record<string, unknown> }
  | ({ status: "error" } & ErrorContent);

export type ExecuteOutcome =
  | { status: "ok"; result?: { data: MimeBundle; metadata: Record<string, unknown> }; userExpressions: Record<string, UserExpressionResult> }
  | ({ status: "error" } & ErrorContent)
  | { status: "stopped" };

/** Output is tagged with the cellId of the cell that was current when it was produced. */
export type FromExecutor =
  | { type: "ready"; pid: number }
  | { type: "stream"; cell: number; name: "stdout" | "stderr"; text: string }
  | { type: "display"; cell: number; data: MimeBundle; metadata: Record<string, unknown>; displayId: string; update: boolean }
  | { type: "clear_output"; cell: number; wait: boolean }
  | { type: "input_request"; cell: number; reqId: string; prompt: string; password: boolean }
  | { type: "set_time_limit"; ms: number }
  /** The desk API found a reason to stop the running cell (the user switched apps). */
  | { type: "stop_request"; reason: string }
  /** The desk API connected to a helper: the kernel listens there for Escape. */
  | { type: "helper_connected"; socketPath: string }
  | { type: "execute_done"; reqId: string; outcome: ExecuteOutcome }
  /** A request failed inside the executor (a bug, not the user's code): the kernel answers with an error. */
  | { type: "request_failed"; reqId: string; message: string }
  | { type: "complete_done"; reqId: string; matches: string[]; cursorStart: number; cursorEnd: number; metadata: Record<string, unknown> }
  | { type: "inspect_done"; reqId: string; found: boolean; data: Record<string, string>; metadata: Record<string, unknown> }
  | { type: "shutdown_done"; reqId: string };
