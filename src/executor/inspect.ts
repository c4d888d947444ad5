// Jupyter inspect_request (Shift-Tab): what the expression at the cursor is.
// Deskbook's own documentation (docOf) wins over anything derived.

import * as acorn from "acorn";
import * as util from "node:util";
import { codePointToUtf16 } from "./cursor.js";
import { docOf, publicApiOf, type Doc } from "../doc.js";
import { expressionAt, resolveChain, type ExpressionChain } from "./expression-at.js";
import { PARSE_OPTIONS } from "./rewrite.js";

export interface InspectResult {
  found: boolean;
  data: Record<string, string>;
  metadata: Record<string, unknown>;
}

/** Everything shown about one value, before formatting. */
interface Description {
  expression: string;
  type: string;
  signature?: string;
  summary?: string;
  details?: string;
  preview?: string;
  source?: string;
}

interface FunctionShape {
  kind: "function" | "async function" | "generator function" | "async generator function" | "class";
  signature: string;
}

const PREVIEW_LIMIT = [500, 2000] as const;
const SOURCE_LIMIT = 2000;
const SIGNATURE_LIMIT = 300;

export function inspect(code: string, cursorPos: number, detailLevel: 0 | 1, global: object): InspectResult {
  const chain = expressionAt(code, codePointToUtf16(code, cursorPos));
  if (!chain) return notFound();
  const resolved = resolveChain(chain, global);
  if (!resolved.found) return notFound();
  const description = describe(chain, resolved.value, detailLevel);
  return { found: true, data: { "text/plain": toPlain(description), "text/markdown": toMarkdown(description) }, metadata: {} };
}

function notFound(): InspectResult {
  return { found: false, data: {}, metadata: {} };
}

function describe(chain: ExpressionChain, value: unknown, detailLevel: 0 | 1): Description {
  const description: Description = { expression: chain.text, type: typeLabel(value) };
  if (typeof value === "function") describeFunction(description, value, fallbackName(chain), detailLevel);
  else description.preview = preview(value, detailLevel);
  const doc = docOf(value);
  if (doc) applyDoc(description, doc, detailLevel);
  else {
    // desk or an App: what it is and its members is the useful part, at every detail level
    const api = publicApiOf(value);
    if (api) applyDoc(description, api.doc, 1);
  }
  return description;
}

function applyDoc(description: Description, doc: Doc, detailLevel: 0 | 1): void {
  description.signature = doc.signature;
  description.summary = doc.summary;
  delete description.source;
  if (detailLevel === 1 && doc.details !== undefined) description.details = doc.details;
}

function describeFunction(description: Description, fn: Function, name: string, detailLevel: 0 | 1): void {
  const source = functionSource(fn);
  const displayName = functionName(fn) || name;
  const shape = source === undefined ? undefined : functionShape(source, displayName);
  if (shape) {
    description.type = shape.kind;
    description.signature = shape.signature;
  } else {
    description.signature = `${displayName}(…) [native code]`;
  }
  if (detailLevel === 1 && shape && source !== undefined) description.source = truncate(source, SOURCE_LIMIT);
}

function fallbackName(chain: ExpressionChain): string {
  const last = chain.accessors.at(-1);
  if (last) return last.kind === "property" ? last.name : String(last.key);
  return chain.root.kind === "identifier" ? chain.root.name : "anonymous";
}

function functionName(fn: Function): string {
  try {
    const name: unknown = fn.name;
    return typeof name === "string" ? name : "";
  } catch {
    return "";
  }
}

function functionSource(fn: Function): string | undefined {
  try {
    return Function.prototype.toString.call(fn);
  } catch {
    return undefined;
  }
}

/** Signature from the function's own source; undefined for native code. */
function functionShape(source: string, name: string): FunctionShape | undefined {
  if (/\{\s*\[native code\]\s*\}\s*$/.test(source)) return undefined;
  const parsed = parseFunctionSource(source);
  if (!parsed) return undefined;
  const { node, text } = parsed;
  if (node.type === "ClassExpression") return classShape(node, text, name);
  const params = node.params.map((p) => squash(text.slice(p.start, p.end)));
  const kind = node.async ? (node.generator ? "async generator function" : "async function") : node.generator ? "generator function" : "function";
  const prefix = `${node.async ? "async " : ""}${node.generator ? "*" : ""}`;
  return { kind, signature: truncate(`${prefix}${name}(${params.join(", ")})`, SIGNATURE_LIMIT) };
}

function classShape(node: acorn.ClassExpression, text: string, name: string): FunctionShape {
  const constructor = node.body.body.find(
    (member): member is acorn.MethodDefinition => member.type === "MethodDefinition" && member.kind === "constructor",
  );
  const params = constructor
    ? constructor.value.params.map((p) => squash(text.slice(p.start, p.end))).join(", ")
    : node.superClass
      ? "…"
      : "";
  return { kind: "class", signature: truncate(`new ${name}(${params})`, SIGNATURE_LIMIT) };
}

type FunctionLike = acorn.FunctionExpression | acorn.ArrowFunctionExpression | acorn.ClassExpression;

/**
 * Function.prototype.toString gives a function expression, an arrow, a
 * class, or a method (`m(a) {}`, `get x() {}`, `#p() {}`); each needs its own
 * wrapping to parse.
 */
function parseFunctionSource(source: string): { node: FunctionLike; text: string } | undefined {
  const attempts: Array<[string, (program: acorn.Program) => acorn.Node | undefined]> = [
    [`(${source}\n)`, (p) => expressionOf(p)],
    [`({${source}\n})`, (p) => firstProperty(expressionOf(p))],
    [`(class {${source}\n})`, (p) => firstMethod(expressionOf(p))],
  ];
  for (const [text, pick] of attempts) {
    try {
      const node = pick(acorn.parse(text, PARSE_OPTIONS));
      if (node && isFunctionLike(node)) return { node, text };
    } catch {
      // try the next wrapping
    }
  }
  return undefined;
}

function expressionOf(program: acorn.Program): acorn.Node | undefined {
  const statement = program.body.length === 1 ? program.body[0] : undefined;
  return statement?.type === "ExpressionStatement" ? statement.expression : undefined;
}

function firstProperty(node: acorn.Node | undefined): acorn.Node | undefined {
  const object = node as acorn.AnyNode | undefined;
  if (object?.type !== "ObjectExpression" || object.properties.length !== 1) return undefined;
  const property = object.properties[0]!;
  return property.type === "Property" ? property.value : undefined;
}

function firstMethod(node: acorn.Node | undefined): acorn.Node | undefined {
  const klass = node as acorn.AnyNode | undefined;
  if (klass?.type !== "ClassExpression" || klass.body.body.length !== 1) return undefined;
  const member = klass.body.body[0]!;
  return member.type === "MethodDefinition" ? member.value : undefined;
}

function isFunctionLike(node: acorn.Node): node is FunctionLike {
  return node.type === "FunctionExpression" || node.type === "ArrowFunctionExpression" || node.type === "ClassExpression";
}

/** typeof, plus the constructor for objects: `object (Map)`, `object (Array(3))`. */
function typeLabel(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value;
  return `object (${objectKind(value)})`;
}

function objectKind(value: object): string {
  try {
    if (Array.isArray(value)) return `Array(${value.length})`;
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto === null) return "null prototype";
    const ctor: unknown = (proto as { constructor?: unknown }).constructor;
    const name = typeof ctor === "function" ? functionName(ctor) : "";
    return name || Object.prototype.toString.call(value).slice(8, -1);
  } catch {
    return "Object";
  }
}

/** util.inspect without colors or custom inspectors (no user code runs). */
function preview(value: unknown, detailLevel: 0 | 1): string {
  try {
    const text = util.inspect(value, {
      depth: detailLevel === 1 ? 2 : 1,
      colors: false,
      customInspect: false,
      maxArrayLength: detailLevel === 1 ? 100 : 20,
      maxStringLength: PREVIEW_LIMIT[detailLevel],
      breakLength: 80,
    });
    return truncate(text, PREVIEW_LIMIT[detailLevel]);
  } catch (error) {
    return `<preview failed: ${error instanceof Error ? error.message : String(error)}>`;
  }
}

function toPlain(d: Description): string {
  const lines = [`${d.expression}: ${d.type}`];
  if (d.signature !== undefined) lines.push(`Signature: ${d.signature}`);
  if (d.summary !== undefined) lines.push(d.summary);
  if (d.preview !== undefined) lines.push(`Value: ${d.preview}`);
  if (d.details !== undefined) lines.push("", d.details);
  if (d.source !== undefined) lines.push("", "Source:", d.source);
  return lines.join("\n");
}

function toMarkdown(d: Description): string {
  const blocks = [`${codeSpan(d.expression)}: *${d.type}*`];
  if (d.signature !== undefined) blocks.push(fence(d.signature, "js"));
  if (d.summary !== undefined) blocks.push(d.summary);
  if (d.preview !== undefined) blocks.push(fence(d.preview, ""));
  if (d.details !== undefined) blocks.push(d.details);
  if (d.source !== undefined) blocks.push(fence(d.source, "js"));
  return blocks.join("\n\n");
}

function fence(text: string, language: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const marker = "`".repeat(longest + 1);
  return `${marker}${language}\n${text}\n${marker}`;
}

function codeSpan(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const marker = "`".repeat(longest + 1);
  return longest > 0 ? `${marker} ${text} ${marker}` : `${marker}${text}${marker}`;
}

function squash(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function truncate(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
