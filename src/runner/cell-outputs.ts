/**
 * One cell's iopub messages (in arrival order) as nbformat outputs, the way Jupyter
 * frontends store them: consecutive stream text of the same name merged, display updates
 * applied in place, clear_output (with `wait`, at the next output) honoured.
 */
import type { JupyterMessage } from "../jupyter/message.js";
import { splitLines, type Output } from "./notebook.js";

type Bundle = Record<string, unknown>;

/** What outputs are made of: an iopub message's type and content (a JupyterMessage is one). */
export type OutputMessage = { header: Pick<JupyterMessage["header"], "msg_type">; content: JupyterMessage["content"] };

export function cellOutputs(messages: readonly OutputMessage[]): Output[] {
  const outputs: Output[] = [];
  let clearPending = false;
  const add = (output: Output): void => {
    if (clearPending) outputs.length = 0;
    clearPending = false;
    const last = outputs[outputs.length - 1];
    if (output.output_type === "stream" && last?.output_type === "stream" && last.name === output.name) {
      last.text = splitLines(joined(last.text) + joined(output.text));
      return;
    }
    outputs.push(output);
  };
  for (const msg of messages) {
    const c = msg.content as Record<string, unknown>;
    switch (msg.header.msg_type) {
      case "stream":
        add({ output_type: "stream", name: c.name === "stderr" ? "stderr" : "stdout", text: splitLines(String(c.text ?? "")) });
        break;
      case "display_data":
        add(withDisplayId({ output_type: "display_data", data: nbData(c.data), metadata: objectOr(c.metadata) }, c.transient));
        break;
      case "update_display_data":
        updateDisplay(outputs, c);
        break;
      case "execute_result":
        add({ output_type: "execute_result", execution_count: typeof c.execution_count === "number" ? c.execution_count : null, data: nbData(c.data), metadata: objectOr(c.metadata) });
        break;
      case "error":
        add({ output_type: "error", ename: String(c.ename ?? "Error"), evalue: String(c.evalue ?? ""), traceback: Array.isArray(c.traceback) ? c.traceback.map(String) : [] });
        break;
      case "clear_output":
        if (c.wait === true) clearPending = true;
        else outputs.length = 0;
        break;
    }
  }
  return outputs.map(withoutDisplayId);
}

const DISPLAY_ID = Symbol("display_id");
type Tracked = Output & { [DISPLAY_ID]?: string };

function withDisplayId(output: Output, transient: unknown): Output {
  const id = (transient as { display_id?: unknown } | undefined)?.display_id;
  if (typeof id === "string") (output as Tracked)[DISPLAY_ID] = id;
  return output;
}

function updateDisplay(outputs: Output[], c: Record<string, unknown>): void {
  const id = (c.transient as { display_id?: unknown } | undefined)?.display_id;
  for (const output of outputs as Tracked[]) {
    if (output[DISPLAY_ID] !== id) continue;
    output.data = nbData(c.data);
    output.metadata = objectOr(c.metadata);
  }
}

function withoutDisplayId(output: Output): Output {
  const { [DISPLAY_ID]: _id, ...rest } = output as Tracked;
  return rest as Output;
}

/** Text mime types become lists of lines; JSON stays an object; images stay base64 strings. */
function nbData(data: unknown): Bundle {
  const out: Bundle = {};
  for (const [mime, value] of Object.entries(objectOr(data))) {
    out[mime] = typeof value === "string" && isText(mime) ? splitLines(value) : value;
  }
  return out;
}

function isText(mime: string): boolean {
  return mime.startsWith("text/") || mime === "image/svg+xml";
}

function joined(text: unknown): string {
  return Array.isArray(text) ? text.join("") : String(text ?? "");
}

function objectOr(value: unknown): Bundle {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Bundle) : {};
}
