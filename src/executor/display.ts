import { randomUUID } from "node:crypto";
import type { MimeBundle } from "./ipc-messages.js";
import { describeImage, toMimeBundle } from "./mime-bundle.js";
import { sniffImage } from "./image-sniff.js";
import { documented } from "../doc.js";
import type { OutputSink } from "./output-sink.js";


export interface DisplayHandle {
  readonly id: string;
  update(value: unknown): void;
}

export type DisplayFunction = ((value: unknown, options?: { id?: string }) => DisplayHandle) & {
  html(html: string): DisplayHandle;
  markdown(markdown: string): DisplayHandle;
  svg(svg: string): DisplayHandle;
  png(bytes: Uint8Array): DisplayHandle;
  jpeg(bytes: Uint8Array): DisplayHandle;
  json(value: unknown): DisplayHandle;
  text(text: string): DisplayHandle;
};

/** Builds `display` and `clearOutput` for the cell globals. */
export function createDisplay(sink: OutputSink): { display: DisplayFunction; clearOutput: (options?: { wait?: boolean }) => void } {
  const show = (bundle: MimeBundle, id: string = randomUUID()): DisplayHandle => {
    sink.display(bundle, {}, id, false);
    const result = handle(id, sink);
    sink.shown(result);
    return result;
  };
  const display = (value: unknown, options?: { id?: string }) => show(toMimeBundle(value), options?.id);
  const typed = {
    html: (html: string) => show({ "text/html": String(html), "text/plain": String(html) }),
    markdown: (md: string) => show({ "text/markdown": String(md), "text/plain": String(md) }),
    svg: (svg: string) => show({ "image/svg+xml": String(svg), "text/plain": "<SVG image>" }),
    png: (bytes: Uint8Array) => show(imageBundle(bytes, "image/png")),
    jpeg: (bytes: Uint8Array) => show(imageBundle(bytes, "image/jpeg")),
    json: (value: unknown) => show({ "application/json": toJson(value), "text/plain": JSON.stringify(value, null, 2) ?? "undefined" }),
    text: (text: string) => show({ "text/plain": String(text) }),
  };
  const clearOutput = (options?: { wait?: boolean }) => sink.clearOutput(Boolean(options?.wait));
  return {
    display: documented(Object.assign(display, typed), DISPLAY_DOC),
    clearOutput: documented(clearOutput, CLEAR_DOC),
  };
}

function handle(id: string, sink: OutputSink): DisplayHandle {
  return {
    id,
    update: (value: unknown) => sink.display(toMimeBundle(value), {}, id, true),
  };
}

function imageBundle(bytes: Uint8Array, mime: "image/png" | "image/jpeg"): MimeBundle {
  if (!(bytes instanceof Uint8Array)) throw new TypeError(`display.${mime.slice(6)} takes a Buffer or Uint8Array of image bytes`);
  const image = sniffImage(bytes);
  if (image?.mime !== mime) throw new TypeError(`These bytes are not a ${mime.slice(6).toUpperCase()} image`);
  return { [mime]: Buffer.from(bytes), "text/plain": describeImage(mime, image.width, image.height, bytes.byteLength) };
}

function toJson(value: unknown): object {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError("display.json takes a value that JSON can represent");
  return JSON.parse(text) as object;
}

const DISPLAY_DOC = {
  signature: "display(value, { id }?) → { id, update(value) }",
  summary: "Shows a value as rich output in the current cell and returns a handle whose `update(value)` replaces it in place.",
  details: [
    "A value can carry its own mime bundle under `Symbol.for(\"Jupyter.display\")` (an object, or a method returning one).",
    "Buffers holding PNG or JPEG bytes are shown as images. Typed helpers: `display.html`, `display.markdown`,",
    "`display.svg`, `display.png`, `display.jpeg`, `display.json`, `display.text`.",
  ].join("\n"),
};

const CLEAR_DOC = {
  signature: "clearOutput({ wait }?)",
  summary: "Clears the current cell's output; with `wait: true` the clearing happens when the next output arrives (no flicker).",
};
