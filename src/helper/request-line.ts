// The helper's side of one request line, shared by every TypeScript helper (the Linux one
// and the scripted one in tests): read it into a request, or into the bad_request reply.
import { DeskError } from "./desk-error.js";
import { ERROR_CODES, type ErrorCode, type HelperErrorBody, type RequestId } from "./protocol.js";
import { validateEnvelope } from "./schema.js";

/** A request as read: its envelope is checked, its method and params not yet. */
export interface IncomingRequest {
  id: RequestId;
  method: string;
  params: unknown;
  step?: string;
}

export type ErrorReply = { id: RequestId | null; error: HelperErrorBody };

/** The request, or the bad_request reply for a line that is not one (id kept when readable). */
export function parseRequestLine(line: string): IncomingRequest | ErrorReply {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch (error) {
    return errorReply(null, new DeskError("bad_request", `the line is not JSON (${(error as Error).message})`));
  }
  const id = (message as { id?: unknown } | null)?.id;
  // Only an id the Reply schema allows is echoed: 1.5 or 1e400 is no RequestId.
  const readableId = Number.isInteger(id) || typeof id === "string" ? (id as RequestId) : null;
  const valid = validateEnvelope("Request", message);
  if (!valid.ok) return errorReply(readableId, new DeskError("bad_request", valid.message));
  const request = message as IncomingRequest;
  return { ...request, params: request.params ?? {} };
}

const CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/** An error carrying a protocol code keeps it (DeskError, or any error with a known `code`); anything else is `failed`. */
export function errorReply(id: RequestId | null, error: unknown): ErrorReply {
  if (error instanceof DeskError) return { id, error: { code: error.code, message: error.detail } };
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code === "string" && CODES.has(code)) return { id, error: { code: code as ErrorCode, message } };
  return { id, error: { code: "failed", message: message || "the call failed" } };
}
