// Jupyter complete_request: globals and keywords for a bare identifier,
// property names after `.`/`?.`, quoted keys after `[`. Values are only read,
// never called, so completing cannot run user code (getters aside).

import { codePointToUtf16, utf16ToCodePoint } from "./cursor.js";
import { publicApiOf } from "../doc.js";
import { completionContextAt, propertyNames, resolveChain, type CompletionContext } from "./expression-at.js";

export interface CompletionResult {
  matches: string[];
  cursor_start: number;
  cursor_end: number;
  metadata: Record<string, unknown>;
}

type MatchType = "keyword" | "function" | "class" | "instance" | "property";

interface Candidate {
  text: string;
  type: MatchType;
}

const KEYWORDS: readonly string[] = [
  "async", "await", "break", "case", "catch", "class", "const", "continue", "debugger", "default",
  "delete", "do", "else", "extends", "false", "finally", "for", "function", "if", "import", "in",
  "instanceof", "let", "new", "null", "of", "return", "static", "super", "switch", "this", "throw",
  "true", "try", "typeof", "var", "void", "while", "with", "yield",
];

const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u;
const HIDDEN_PREFIX = "__deskbook";

export function complete(code: string, cursorPos: number, global: object): CompletionResult {
  const cursor = codePointToUtf16(code, cursorPos);
  const context = completionContextAt(code, cursor);
  const matches = dedupeSorted(context ? candidatesFor(context, global) : []);
  const start = utf16ToCodePoint(code, context?.start ?? cursor);
  const end = utf16ToCodePoint(code, context?.end ?? cursor);
  return {
    matches: matches.map((c) => c.text),
    cursor_start: start,
    cursor_end: end,
    // JupyterLab shows these as icons.
    metadata: { _jupyter_types_experimental: matches.map((c) => ({ start, end, text: c.text, type: c.type })) },
  };
}

function candidatesFor(context: CompletionContext, global: object): Candidate[] {
  switch (context.kind) {
    case "global":
      return [...propertyCandidates(ownNames(global), true), ...KEYWORDS.map(keyword)].filter((c) =>
        c.text.startsWith(context.prefix),
      );
    case "member": {
      const target = resolveChain(context.target, global);
      if (!target.found) return [];
      return propertyCandidates(visibleNames(target.value), true).filter((c) => c.text.startsWith(context.prefix));
    }
    case "key": {
      const target = resolveChain(context.target, global);
      if (!target.found) return [];
      const names = publicApiOf(target.value) ? visibleNames(target.value) : ownNames(target.value);
      return propertyCandidates(names, false)
        .filter((c) => c.text.startsWith(context.prefix))
        .map((c) => ({ ...c, text: quote(c.text, context.quote) }));
    }
  }
}

/**
 * Every property name along the prototype chain; for Deskbook's own objects (`desk`, an
 * App), only their documented API and the properties the user added.
 */
function visibleNames(value: unknown): Map<string, PropertyDescriptor | undefined> {
  const all = propertyNames(value);
  const api = publicApiOf(value);
  if (!api) return all;
  const names = new Map<string, PropertyDescriptor | undefined>();
  for (const name of api.members) if (all.has(name)) names.set(name, all.get(name));
  for (const [name, descriptor] of ownNames(value)) if (descriptor?.enumerable) names.set(name, descriptor);
  return names;
}

/**
 * Own string keys: the session's bindings plus builtins for the global object
 * (not Object.prototype's names), and the keys offered after `obj[`.
 */
function ownNames(value: unknown): Map<string, PropertyDescriptor | undefined> {
  const names = new Map<string, PropertyDescriptor | undefined>();
  if (value === null || value === undefined) return names;
  try {
    const object = Object(value) as object;
    for (const name of Object.getOwnPropertyNames(object)) names.set(name, Object.getOwnPropertyDescriptor(object, name));
  } catch {
    // a Proxy trap threw
  }
  return names;
}

function propertyCandidates(names: Map<string, PropertyDescriptor | undefined>, identifiersOnly: boolean): Candidate[] {
  const candidates: Candidate[] = [];
  for (const [name, descriptor] of names) {
    if (name.startsWith(HIDDEN_PREFIX) || (identifiersOnly && !IDENTIFIER.test(name))) continue;
    candidates.push({ text: name, type: typeOf(descriptor) });
  }
  return candidates;
}

/** From the descriptor alone, so accessors are not triggered for every candidate. */
function typeOf(descriptor: PropertyDescriptor | undefined): MatchType {
  if (!descriptor || !("value" in descriptor)) return "property";
  const value: unknown = descriptor.value;
  if (typeof value !== "function") return "instance";
  try {
    return /^class\b/.test(Function.prototype.toString.call(value)) ? "class" : "function";
  } catch {
    return "function"; // a Proxy around a function
  }
}

function keyword(text: string): Candidate {
  return { text, type: "keyword" };
}

function quote(key: string, quoteChar: string): string {
  if (quoteChar !== "'") return JSON.stringify(key);
  const body = JSON.stringify(key).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'");
  return `'${body}'`;
}

/** Sorted, `_`-prefixed (private by convention) last; the first candidate of a name wins. */
function dedupeSorted(candidates: Candidate[]): Candidate[] {
  const byText = new Map<string, Candidate>();
  for (const candidate of candidates) if (!byText.has(candidate.text)) byText.set(candidate.text, candidate);
  const key = (text: string): string => (/^["']?_/.test(text) ? `\uffff${text}` : text);
  return [...byText.values()].sort((a, b) => {
    const [x, y] = [key(a.text), key(b.text)];
    return x < y ? -1 : x > y ? 1 : 0;
  });
}
