import type { ErrorCode } from "./protocol.js";

/**
 * An error with a protocol code. Codes stay the helper's strings all the way up to the
 * notebook, so a user can search the docs for what they see.
 */
export class DeskError extends Error {
  override readonly name = "DeskError";
  readonly code: ErrorCode;
  /** The helper method the error came from, when there was one. */
  readonly method?: string;
  /** The message without the "code: " prefix. */
  readonly detail: string;

  constructor(code: ErrorCode, detail: string, method?: string, options?: { cause?: unknown }) {
    super(`${code}: ${stripCode(code, detail) || `${method ?? "the call"} failed`}`, options);
    this.code = code;
    this.detail = stripCode(code, detail);
    if (method !== undefined) this.method = method;
  }
}

export function isDeskError(value: unknown, code?: ErrorCode): value is DeskError {
  return value instanceof DeskError && (code === undefined || value.code === code);
}

/** A helper may already prefix its message with the code; do not say it twice. */
function stripCode(code: ErrorCode, detail: string): string {
  const prefix = `${code}: `;
  return detail.startsWith(prefix) ? detail.slice(prefix.length) : detail;
}
