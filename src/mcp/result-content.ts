// One `js` call's outputs as MCP content, in the order the cell produced them: stdout and
// stderr text, displays (AX text wrapped as app text, images as ImageContent within the
// byte budget), the result, and the error. A stopped call leads with its `Stopped:` line.
import { untrustedSource } from "../desk/text-read.js";
import { stripAnsi } from "./ansi.js";
import { describeFit, fitImage } from "./image-budget.js";
import type { UntrustedWrapper } from "./untrusted.js";

/** An iopub message as every Jupyter client sees it: its type and its content. */
export interface OutputMessage {
  type: string;
  content: Record<string, unknown>;
}

export type Content =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string };

export interface ToolResult {
  content: Content[];
  isError: boolean;
}

export interface ContentOptions {
  maxImageBytes: number;
  wrapper: UntrustedWrapper;
}

/** One output, or several for a display with an image and a caption; `id` for updates. */
interface Piece {
  displayId?: string;
  /** Set on stream text, so the next chunk of the same stream joins it. */
  stream?: "stdout" | "stderr";
  items: Content[];
}

const IMAGE_TYPES = ["image/png", "image/jpeg"] as const;
/** display.png(…) and Buffers say only this in text/plain: nothing a model needs beside the image. */
const IMAGE_PLACEHOLDER = /^<(?:PNG|JPEG) image \d+×\d+, [^>]*>$/;

export async function toToolResult(messages: readonly OutputMessage[], options: ContentOptions): Promise<ToolResult> {
  let pieces: Piece[] = [];
  let clearPending = false;
  let stopped: string | undefined;
  let failed = false;
  for (const { type, content } of messages) {
    if (clearPending && producesOutput(type)) {
      pieces = [];
      clearPending = false;
    }
    switch (type) {
      case "stream":
        appendStream(pieces, String(content.name), stripAnsi(String(content.text ?? "")));
        break;
      case "display_data":
      case "execute_result": {
        const piece = await bundlePiece(content, options);
        if (piece.items.length > 0) pieces.push(piece);
        break;
      }
      case "update_display_data": {
        const id = displayIdOf(content);
        const at = pieces.findIndex((p) => p.displayId !== undefined && p.displayId === id);
        if (at >= 0) pieces[at] = await bundlePiece(content, options);
        break;
      }
      case "clear_output":
        if (content.wait === true) clearPending = true;
        else pieces = [];
        break;
      case "error": {
        failed = true;
        const text = errorText(content);
        if (content.ename === "Stopped") stopped = text;
        else pieces.push({ items: [{ type: "text", text }] });
        break;
      }
    }
  }
  const items = pieces.flatMap((p) => p.items);
  if (stopped !== undefined) items.unshift({ type: "text", text: stopped });
  return { content: items.length > 0 ? items : [{ type: "text", text: "(no output)" }], isError: failed };
}

/** A call that could not run at all (the kernel died, the server could not start it). */
export function failureResult(message: string): ToolResult {
  return { content: [{ type: "text", text: stripAnsi(message) }], isError: true };
}

function producesOutput(type: string): boolean {
  return type === "stream" || type === "display_data" || type === "execute_result" || type === "error";
}

function appendStream(pieces: Piece[], name: string, text: string): void {
  if (text === "") return;
  const last = pieces.at(-1);
  const tag: "stdout" | "stderr" = name === "stderr" ? "stderr" : "stdout";
  // Consecutive chunks of one stream are one text block; a switch of stream starts a new one.
  if (last?.stream === tag) {
    const item = last.items[0] as { type: "text"; text: string };
    item.text += text;
    return;
  }
  const piece: Piece = { items: [{ type: "text", text: tag === "stderr" ? `stderr:\n${text}` : text }], stream: tag };
  pieces.push(piece);
}

async function bundlePiece(content: Record<string, unknown>, options: ContentOptions): Promise<Piece> {
  const data = (content.data ?? {}) as Record<string, unknown>;
  const source = untrustedSource(content.metadata);
  const items: Content[] = [];
  const plain = typeof data["text/plain"] === "string" ? stripAnsi(data["text/plain"]) : undefined;
  const mime = IMAGE_TYPES.find((m) => typeof data[m] === "string");
  if (mime) {
    const fitted = await fitImage(Buffer.from(data[mime] as string, "base64"), mime, options.maxImageBytes);
    const note = describeFit(fitted, options.maxImageBytes);
    const caption = plain !== undefined && !IMAGE_PLACEHOLDER.test(plain) ? plain : undefined;
    const text = [caption !== undefined && source !== undefined ? options.wrapper.wrap(caption, source) : caption, note].filter((t) => t !== undefined).join("\n");
    items.push({ type: "image", data: fitted.data.toString("base64"), mimeType: fitted.mimeType });
    if (text !== "") items.push({ type: "text", text });
  } else if (plain !== undefined && plain !== "") {
    items.push({ type: "text", text: source !== undefined ? options.wrapper.wrap(plain, source) : plain });
  }
  const displayId = displayIdOf(content);
  return displayId === undefined ? { items } : { displayId, items };
}

function displayIdOf(content: Record<string, unknown>): string | undefined {
  const transient = content.transient as { display_id?: unknown } | undefined;
  return typeof transient?.display_id === "string" ? transient.display_id : undefined;
}

/** A stop says only its reason; an error gives its traceback (which starts with the message). */
function errorText(content: Record<string, unknown>): string {
  const ename = String(content.ename ?? "Error");
  const evalue = String(content.evalue ?? "");
  if (ename === "Stopped") return stripAnsi(evalue.startsWith("Stopped:") ? evalue : `Stopped: ${evalue}`);
  const traceback = Array.isArray(content.traceback) ? content.traceback.map(String) : [];
  const text = traceback.length > 0 ? traceback.join("\n") : `${ename}: ${evalue}`;
  return stripAnsi(text);
}
