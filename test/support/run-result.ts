/** Reading what a cell run through a JsSession (AttachedSession, the MCP sessions) gave back. */
import type { RunResult } from "../../src/mcp/js-session.js";

/** The execute_result's text/plain, or every output as JSON when there is none (for the failure message). */
export function resultOf(result: RunResult): string {
  const output = result.outputs.find((o) => o.type === "execute_result");
  const data = output?.content.data as Record<string, unknown> | undefined;
  return String(data?.["text/plain"] ?? JSON.stringify(result.outputs));
}

/** Everything the cell printed to its streams. */
export function streamOf(result: RunResult): string {
  return result.outputs.filter((o) => o.type === "stream").map((o) => String(o.content.text)).join("");
}

/** The error's value ("Stopped: interrupted.", say), or what came instead. */
export function errorOf(result: RunResult): string {
  const error = result.outputs.find((o) => o.type === "error");
  return error ? String(error.content.evalue) : `no error: ${JSON.stringify(result)}`;
}
