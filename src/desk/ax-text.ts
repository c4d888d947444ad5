// The accessibility tree as text: one line per element, indented by depth, e.g.
//   14 button "7"
//   9 text field "Name" = "Ada" #name (focused, settable) [ShowMenu] @12,80,200,22
// Cells find elements with regexes like /^\s*(\d+) button "7"/m, so the order of the parts
// is part of the interface.
import type { AXNode, WindowInfo } from "../helper/protocol.js";
import type { ImageSize, ImageSpace } from "./image-space.js";
import { obviousAction, plainRole } from "./roles.js";

export interface FormatInput {
  app: string;
  window: WindowInfo;
  /** The window image's size (the same as `space`'s). */
  image: ImageSize;
  nodes: readonly AXNode[];
  truncated: boolean;
  /** Print `@x,y,w,h` in image pixels. Off by default in reads: most steps do not need them. */
  frames: boolean;
  space: ImageSpace;
  maxTextLength: number;
}

/** Everything but the nodes; shared by the full format and the diff. */
export type FormatOptions = Omit<FormatInput, "nodes">;

const INDENT = "  ";
const FLAGS = ["focused", "selected", "disabled", "settable"] as const;

/** The whole tree: a header line, then one line per element. */
export function formatTree(input: FormatInput): string {
  const lines = [formatHeader(input, input.nodes.length)];
  for (const node of input.nodes) lines.push(indent(node.d) + formatNode(node, input));
  return lines.join("\n");
}

/** The same text as HTML, for frontends that render `text/html`. */
export function formatTreeHtml(input: FormatInput): string {
  return axTextToHtml(formatTree(input));
}

/** Any AX text (full tree or diff) as an HTML `<pre>`: the header in bold, everything escaped. */
export function axTextToHtml(text: string): string {
  const newline = text.indexOf("\n");
  const header = newline < 0 ? text : text.slice(0, newline);
  const body = newline < 0 ? "" : text.slice(newline);
  return `<pre class="deskbook-ax"><strong>${escapeHtml(header)}</strong>${escapeHtml(body)}</pre>`;
}

/** `app "Calculator", window "Calculator", image 464×736, 23 elements[, truncated]`. */
export function formatHeader(options: FormatOptions, count: number): string {
  const parts = [
    `app ${quote(options.app, options.maxTextLength)}`,
    `window ${quote(options.window.title, options.maxTextLength)}`,
    `image ${options.image.width}×${options.image.height}`,
    `${count} ${count === 1 ? "element" : "elements"}`,
  ];
  if (options.truncated) parts.push("truncated");
  return parts.join(", ");
}

/** One element's line without its indentation. */
export function formatNode(node: AXNode, options: FormatOptions): string {
  const max = options.maxTextLength;
  let line = `${node.i} ${plainRole(node.role, node.subrole)}`;
  const label = labelOf(node);
  if (label !== undefined) line += ` ${quote(label, max)}`;
  if (node.value && node.value !== label) line += ` = ${quote(node.value, max)}`;
  if (node.id) line += ` #${identifier(node.id, max)}`;
  const flags = FLAGS.filter((flag) => node[flag] === true);
  if (flags.length > 0) line += ` (${flags.join(", ")})`;
  const actions = visibleActions(node);
  if (actions.length > 0) line += ` [${actions.join(", ")}]`;
  if (options.frames && node.frame) line += ` @${options.space.frameToImage(node.frame).join(",")}`;
  return line;
}

export function indent(depth: number): string {
  return depth > 0 ? INDENT.repeat(depth) : "";
}

/** Title, else description, else placeholder; static text carries its words in the value. */
function labelOf(node: AXNode): string | undefined {
  const label = node.title || node.desc || node.placeholder;
  if (label) return label;
  return node.role === "AXStaticText" && node.value ? node.value : undefined;
}

function visibleActions(node: AXNode): string[] {
  if (!node.actions || node.actions.length === 0) return [];
  const obvious = obviousAction(node.role);
  const names: string[] = [];
  for (const action of node.actions) {
    if (action === obvious) continue;
    names.push(escapeText(actionName(action)));
  }
  return names;
}

/** AXShowMenu → ShowMenu; a macOS custom action "Name:Copy\nTarget:…" → Copy. */
function actionName(action: string): string {
  if (action.startsWith("Name:")) {
    const end = action.indexOf("\n");
    return action.slice(5, end < 0 ? undefined : end);
  }
  return action.startsWith("AX") ? action.slice(2) : action;
}

/** Ids are usually plain tokens; anything with spaces or quotes is quoted so the line still parses. */
function identifier(id: string, max: number): string {
  return /^[^\s"\\]+$/.test(id) ? truncate(id, max) : quote(id, max);
}

/** Truncates (to at most `max` characters, … included), then escapes and double-quotes. */
export function quote(text: string, max: number): string {
  return `"${escapeText(truncate(text, max))}"`;
}

export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  // Never split a surrogate pair: half an emoji would be an invalid string.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

// Line breaks would split an element over lines and quotes would end the label early.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u007f\u2028\u2029]/;
const ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

export function escapeText(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(/["\\\u0000-\u001f\u007f\u2028\u2029]/g, (ch) => {
    return ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] ?? ch);
}
