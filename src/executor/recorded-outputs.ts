// One recorded cell's outputs, the way a frontend would have stored them, with every secret
// the session was given blotted out. The executor's own output messages are turned into the
// iopub messages the kernel would send, and cellOutputs (the runner's) does the rest.
import { cellOutputs, type OutputMessage } from "../runner/cell-outputs.js";
import type { Output } from "../runner/notebook.js";
import { toWireBundle } from "../kernel/wire-bundle.js";
import type { FromExecutor, MimeBundle } from "./ipc-messages.js";

export const BLOT = "••••••";

/** `messages`: the cell's stream, display and clear_output messages in order; `result`: its value. */
export function recordedOutputs(messages: readonly FromExecutor[], result: { data: MimeBundle; metadata: Record<string, unknown> } | undefined, executionCount: number, secrets: ReadonlySet<string>): Output[] {
  const iopub: OutputMessage[] = [];
  for (const m of messages) {
    if (m.type === "stream") iopub.push(message("stream", { name: m.name, text: m.text }));
    if (m.type === "display") iopub.push(message(m.update ? "update_display_data" : "display_data", { data: toWireBundle(m.data), metadata: m.metadata, transient: { display_id: m.displayId } }));
    if (m.type === "clear_output") iopub.push(message("clear_output", { wait: m.wait }));
  }
  if (result) iopub.push(message("execute_result", { execution_count: executionCount, data: toWireBundle(result.data), metadata: result.metadata }));
  // Before cellOutputs splits text into lines, so a secret is found whole.
  return cellOutputs(iopub.map((m) => ({ ...m, content: blot(m.content, secrets) as Record<string, unknown> })));
}

function message(msgType: string, content: Record<string, unknown>): OutputMessage {
  return { header: { msg_type: msgType }, content };
}

/** Every string in the output with each secret replaced; images (base64) are left alone. */
export function blot(value: unknown, secrets: ReadonlySet<string>, key = ""): unknown {
  if (secrets.size === 0) return value;
  if (typeof value === "string") return key.startsWith("image/") && key !== "image/svg+xml" ? value : blotText(value, secrets);
  if (Array.isArray(value)) return value.map((v) => blot(v, secrets, key));
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, blot(v, secrets, k)]));
  return value;
}

export function blotText(text: string, secrets: ReadonlySet<string>): string {
  let out = text;
  for (const secret of secrets) if (secret !== "") out = out.split(secret).join(BLOT);
  return out;
}
