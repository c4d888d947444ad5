/**
 * An error the runner reports itself, before or around running cells (not a cell's own
 * error): a usage mistake, a notebook it cannot read, a parameter that does not fit. The
 * message starts with the code, as the desk API's errors do, so users can search for it.
 */
export type RunnerErrorCode = "usage" | "bad_notebook" | "bad_parameter" | "kernel_died" | "kernel_failed";

export class RunnerError extends Error {
  override readonly name = "RunnerError";
  constructor(readonly code: RunnerErrorCode, message: string) {
    super(`${code}: ${message}`);
  }
}
