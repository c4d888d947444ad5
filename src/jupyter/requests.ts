// The requests a Jupyter kernel answers and the content of each reply, as the messaging spec
// (5.3) gives them: one map from request type to its content and its reply, so handlers are
// typed from it the way the helper protocol's methods are. Nothing here knows the language.

/** Every reply that failed says so the same way. */
export interface ErrorReply {
  status: "error";
  ename: string;
  evalue: string;
  traceback: string[];
  /** execute_reply's count, also on failure. */
  execution_count?: number;
}

type Ok<T> = { status: "ok" } & T;

export interface ExecuteRequest {
  code: string;
  silent?: boolean;
  store_history?: boolean;
  user_expressions?: Record<string, string>;
  allow_stdin?: boolean;
  stop_on_error?: boolean;
}

export interface CompleteRequest {
  code: string;
  cursor_pos?: number;
}

export interface InspectRequest {
  code: string;
  cursor_pos?: number;
  detail_level?: 0 | 1;
}

export interface IsCompleteRequest {
  code: string;
}

export interface HistoryRequest {
  output?: boolean;
  raw?: boolean;
  hist_access_type?: "range" | "tail" | "search";
  session?: number;
  start?: number;
  stop?: number | null;
  n?: number | null;
  pattern?: string;
  unique?: boolean;
}

export interface CommInfoRequest {
  target_name?: string;
}

export interface CommOpen {
  comm_id: string;
  target_name: string;
  data?: Record<string, unknown>;
}

export interface CommMessage {
  comm_id: string;
  data?: Record<string, unknown>;
}

export interface ShutdownRequest {
  restart?: boolean;
}

export interface InputReply {
  value: string;
}

export type MimeBundle = Record<string, unknown>;

export type KernelInfoReply = Ok<{
  protocol_version: string;
  implementation: string;
  implementation_version: string;
  language_info: Record<string, string>;
  banner: string;
  help_links: { text: string; url: string }[];
  debugger: boolean;
}>;

export type UserExpressionReply = Ok<{ data: MimeBundle; metadata: Record<string, unknown> }> | ErrorReply;

export type ExecuteReply =
  | Ok<{ execution_count: number; user_expressions: Record<string, UserExpressionReply>; payload: unknown[] }>
  | ErrorReply
  | { status: "aborted" };

export type CompleteReply = Ok<{ matches: string[]; cursor_start: number; cursor_end: number; metadata: Record<string, unknown> }> | ErrorReply;
export type InspectReply = Ok<{ found: boolean; data: MimeBundle; metadata: Record<string, unknown> }> | ErrorReply;
export type IsCompleteReply = { status: "complete" | "incomplete" | "invalid" | "unknown"; indent?: string };
export type HistoryReply = Ok<{ history: unknown[] }> | ErrorReply;
export type CommInfoReply = Ok<{ comms: Record<string, { target_name: string }> }> | ErrorReply;
export type StatusReply = Ok<Record<never, never>> | ErrorReply;
export type ShutdownReply = Ok<{ restart: boolean }> | ErrorReply;

/**
 * Request type → its content and its reply's content. `reply: undefined` marks messages
 * that get none (comm messages).
 */
export interface Requests {
  kernel_info_request: { content: Record<string, unknown>; reply: KernelInfoReply };
  execute_request: { content: ExecuteRequest; reply: ExecuteReply };
  complete_request: { content: CompleteRequest; reply: CompleteReply };
  inspect_request: { content: InspectRequest; reply: InspectReply };
  is_complete_request: { content: IsCompleteRequest; reply: IsCompleteReply };
  history_request: { content: HistoryRequest; reply: HistoryReply };
  comm_info_request: { content: CommInfoRequest; reply: CommInfoReply };
  comm_open: { content: CommOpen; reply: undefined };
  comm_msg: { content: CommMessage; reply: undefined };
  comm_close: { content: CommMessage; reply: undefined };
  interrupt_request: { content: Record<string, unknown>; reply: StatusReply };
  shutdown_request: { content: ShutdownRequest; reply: ShutdownReply };
}

export type RequestType = keyof Requests;

/** Messages a kernel receives on stdin (answers to its own input_request). */
export interface StdinMessages {
  input_reply: InputReply;
}

/** The reply's msg_type: `execute_request` → `execute_reply`. */
export function replyType(requestType: string): string {
  return requestType.endsWith("_request") ? `${requestType.slice(0, -"_request".length)}_reply` : `${requestType}_reply`;
}
