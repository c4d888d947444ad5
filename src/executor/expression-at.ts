// Finds the property-access chain (`a.b?.c["d"][0]`, `this.x`) around a
// cursor and resolves it against the session's global object without ever
// calling user functions (only property reads, whose exceptions are caught).
// Shared by completion and inspection. All positions here are UTF-16 indices.

import * as acorn from "acorn";
import { PARSE_OPTIONS } from "./rewrite.js";

export type Accessor = { kind: "property"; name: string } | { kind: "index"; key: string | number };

/** Where a chain starts: the global object (`this`), a global name, or a primitive literal. */
export type ChainRoot =
  | { kind: "global" }
  | { kind: "identifier"; name: string }
  | { kind: "literal"; value: string | number | boolean };

export interface ExpressionChain {
  root: ChainRoot;
  accessors: Accessor[];
  /** Canonical source text, e.g. `a.b["c"]`. */
  text: string;
}

export type CompletionContext =
  /** A bare identifier (possibly empty) being typed. */
  | { kind: "global"; prefix: string; start: number; end: number }
  /** A property name after `.` or `?.`. */
  | { kind: "member"; target: ExpressionChain; prefix: string; start: number; end: number }
  /** A quoted key after `[`; `prefix` is the raw text typed after the quote. */
  | { kind: "key"; target: ExpressionChain; prefix: string; quote: string; start: number; end: number };

export type Resolution = { found: true; value: unknown } | { found: false };

interface Tok {
  type: acorn.TokenType;
  start: number;
  end: number;
  value: unknown;
}

interface Scan {
  tokens: Tok[];
  /** The text ends inside a comment. */
  inComment: boolean;
  failure?: { message: string; pos: number };
}

const tt = acorn.tokTypes;
const MAX_PROTOTYPE_DEPTH = 64;

/** What is being completed when the cursor sits at `cursor`; null when nothing sensible is. */
export function completionContextAt(code: string, cursor: number): CompletionContext | null {
  const scan = scanTokens(code.slice(0, cursor));
  if (scan.inComment) return null;
  if (scan.failure) return unterminatedKeyContext(code, cursor, scan);
  const { tokens } = scan;
  const last = tokens.at(-1);
  const everything: CompletionContext = { kind: "global", prefix: "", start: cursor, end: cursor };
  // `foo.|` and `foo. |` alike: spacing after the dot or bracket is allowed.
  if (last && isDot(last)) return memberContext(tokens, tokens.length - 2, "", cursor, cursor);
  if (last?.type === tt.bracketL) return keyContext(tokens, tokens.length - 2, "", '"', cursor, afterQuote(code, cursor, '"'));
  if (!last || last.end !== cursor) return everything;
  const word = wordOf(last);
  if (word !== undefined) return wordContext(tokens, word, last, cursor);
  if (last.type === tt.string) return closedKeyContext(code, tokens, cursor);
  return isPunctuation(last) ? everything : null;
}

/**
 * The chain to inspect at `cursor`: the one ending at (or just before) the
 * cursor, else the callee of the innermost open call, as in `fn(a, |`.
 */
export function expressionAt(code: string, cursor: number): ExpressionChain | null {
  const end = cursor + (/^[\p{ID_Continue}$\u200c\u200d]*/u.exec(code.slice(cursor))?.[0].length ?? 0);
  const scan = scanTokens(code.slice(0, end));
  if (scan.inComment) return null;
  const { tokens } = scan;
  // Inside a string argument, `fn("ab|`, only the callee makes sense.
  if (scan.failure && !scan.failure.message.startsWith("Unterminated string")) return null;
  const last = tokens.at(-1);
  if (!last) return null;
  const direct = scan.failure || last.type === tt.parenL ? null : chainEndingAt(tokens, tokens.length - 1);
  if (direct) return direct;
  const open = innermostOpenParen(tokens);
  return open === undefined ? null : chainEndingAt(tokens, open - 1);
}

/** Reads the chain's value from `global`; never calls functions other than getters. */
export function resolveChain(chain: ExpressionChain, global: object): Resolution {
  const { root } = chain;
  let value: unknown = root.kind === "literal" ? root.value : global;
  const steps: Array<string | number> = root.kind === "identifier" ? [root.name] : [];
  for (const accessor of chain.accessors) steps.push(accessor.kind === "property" ? accessor.name : accessor.key);
  for (const key of steps) {
    if (value === null || value === undefined) return { found: false };
    try {
      const holder = Object(value) as Record<PropertyKey, unknown>;
      if (!(key in holder)) return { found: false };
      value = holder[key];
    } catch {
      return { found: false };
    }
  }
  return { found: true, value };
}

/** Own and inherited string keys of `value` (primitives use their wrapper's prototype), nearest first. */
export function propertyNames(value: unknown): Map<string, PropertyDescriptor | undefined> {
  const names = new Map<string, PropertyDescriptor | undefined>();
  if (value === null || value === undefined) return names;
  let current: object | null = Object(value) as object;
  for (let depth = 0; current !== null && depth < MAX_PROTOTYPE_DEPTH; depth++) {
    try {
      for (const name of Object.getOwnPropertyNames(current)) {
        if (!names.has(name)) names.set(name, Object.getOwnPropertyDescriptor(current, name));
      }
      current = Object.getPrototypeOf(current) as object | null;
    } catch {
      break; // a Proxy trap threw: keep what was found
    }
  }
  return names;
}

/**
 * Tokens of `text`. Stray characters (an emoji outside a string, a `#`) only
 * restart the scan after them, since completion needs the last few tokens;
 * an unterminated string, template, comment or regex ends it as a failure.
 */
function scanTokens(text: string): Scan {
  let tokens: Tok[] = [];
  let inComment = false;
  for (let offset = 0; ; ) {
    // A line comment running to the end of the text contains the cursor.
    const onComment = (block: boolean, _text: string, _start: number, end: number): void => {
      inComment = !block && offset + end >= text.length;
    };
    try {
      for (const token of acorn.tokenizer(text.slice(offset), { ...PARSE_OPTIONS, onComment })) {
        const value = (token as acorn.Token & { value?: unknown }).value;
        tokens.push({ type: token.type, start: offset + token.start, end: offset + token.end, value });
      }
      return { tokens, inComment };
    } catch (error) {
      const raw = (error as { pos?: unknown }).pos;
      const pos = offset + (typeof raw === "number" ? raw : text.length - offset);
      const message = error instanceof Error ? error.message : String(error);
      if (message.startsWith("Unterminated") || pos >= text.length) return { tokens, inComment, failure: { message, pos } };
      tokens = [];
      inComment = false;
      offset = pos + (text.codePointAt(pos)! > 0xffff ? 2 : 1);
    }
  }
}

function wordContext(tokens: Tok[], word: string, last: Tok, cursor: number): CompletionContext | null {
  const previous = tokens.at(-2);
  if (previous && isDot(previous)) return memberContext(tokens, tokens.length - 3, word, last.start, cursor);
  return { kind: "global", prefix: word, start: last.start, end: cursor };
}

function memberContext(tokens: Tok[], chainEnd: number, prefix: string, start: number, end: number): CompletionContext | null {
  const target = chainEndingAt(tokens, chainEnd);
  return target ? { kind: "member", target, prefix, start, end } : null;
}

function keyContext(tokens: Tok[], chainEnd: number, prefix: string, quote: string, start: number, end: number): CompletionContext | null {
  const beforeBracket = tokens[chainEnd]?.type === tt.questionDot ? chainEnd - 1 : chainEnd;
  const target = chainEndingAt(tokens, beforeBracket);
  return target ? { kind: "key", target, prefix, quote, start, end } : null;
}

/** `obj["fo|`: the tokenizer stopped at the open string. */
function unterminatedKeyContext(code: string, cursor: number, scan: Scan): CompletionContext | null {
  const { failure, tokens } = scan;
  if (!failure?.message.startsWith("Unterminated string constant")) return null;
  const quote = code[failure.pos] ?? "";
  const prefix = code.slice(failure.pos + 1, cursor);
  if (/[\r\n\u2028\u2029]/.test(prefix) || tokens.at(-1)?.type !== tt.bracketL) return null;
  return keyContext(tokens, tokens.length - 2, prefix, quote, failure.pos, afterQuote(code, cursor, quote));
}

/** `obj["foo"|`: replace the whole literal. */
function closedKeyContext(code: string, tokens: Tok[], cursor: number): CompletionContext | null {
  const literal = tokens.at(-1)!;
  if (tokens.at(-2)?.type !== tt.bracketL) return null;
  const quote = code[literal.start] ?? '"';
  return keyContext(tokens, tokens.length - 3, String(literal.value), quote, literal.start, cursor);
}

/** Swallow an editor's auto-inserted closing quote so the match replaces it. */
function afterQuote(code: string, cursor: number, quote: string): number {
  return code[cursor] === quote ? cursor + 1 : cursor;
}

/** Walks back from `index` over `.name`, `?.name`, `["k"]`, `[0]` to an identifier, `this` or a literal. */
function chainEndingAt(tokens: Tok[], index: number): ExpressionChain | null {
  const accessors: Accessor[] = [];
  let i = index;
  while (i >= 0) {
    const token = tokens[i]!;
    if (token.type === tt.bracketR) {
      const key = literalKey(tokens[i - 1]);
      if (key === undefined || tokens[i - 2]?.type !== tt.bracketL) return null;
      accessors.unshift({ kind: "index", key });
      i -= tokens[i - 3]?.type === tt.questionDot ? 4 : 3;
      continue;
    }
    const word = wordOf(token);
    const previous = tokens[i - 1];
    if (word !== undefined && previous && isDot(previous)) {
      accessors.unshift({ kind: "property", name: word });
      i -= 2;
      continue;
    }
    const root = rootOf(token);
    return root ? { root, accessors, text: chainText(rootText(root), accessors) } : null;
  }
  return null;
}

function rootOf(token: Tok): ChainRoot | undefined {
  const t = token.type;
  if (t === tt.name) return { kind: "identifier", name: String(token.value) };
  if (t === tt._this) return { kind: "global" };
  if (t === tt._true || t === tt._false) return { kind: "literal", value: t === tt._true };
  if (t === tt.string || (t === tt.num && typeof token.value === "number")) {
    return { kind: "literal", value: token.value as string | number };
  }
  return undefined;
}

function rootText(root: ChainRoot): string {
  if (root.kind === "global") return "this";
  if (root.kind === "identifier") return root.name;
  return typeof root.value === "string" ? JSON.stringify(root.value) : String(root.value);
}

function innermostOpenParen(tokens: Tok[]): number | undefined {
  let depth = 0;
  for (let i = tokens.length - 1; i >= 0; i--) {
    const type = tokens[i]!.type;
    if (type === tt.parenR || type === tt.bracketR || type === tt.braceR) depth++;
    else if (type === tt.parenL || type === tt.bracketL || type === tt.braceL || type === tt.dollarBraceL) {
      if (depth === 0) return type === tt.parenL ? i : undefined;
      depth--;
    }
  }
  return undefined;
}

function chainText(root: string, accessors: Accessor[]): string {
  return accessors.reduce(
    (text, a) => (a.kind === "property" ? `${text}.${a.name}` : `${text}[${JSON.stringify(a.key)}]`),
    root,
  );
}

/** Identifier-like token text: names and keywords (keywords are valid property names). */
function wordOf(token: Tok): string | undefined {
  if (token.type === tt.name) return String(token.value);
  return token.type.keyword !== undefined ? token.type.keyword : undefined;
}

function literalKey(token: Tok | undefined): string | number | undefined {
  if (token?.type === tt.string) return String(token.value);
  if (token?.type === tt.num && typeof token.value === "number") return token.value;
  return undefined;
}

function isDot(token: Tok): boolean {
  return token.type === tt.dot || token.type === tt.questionDot;
}

/** Tokens after which a fresh identifier can start: operators, separators, opening brackets. */
function isPunctuation(token: Tok): boolean {
  const t = token.type;
  const value = t === tt.num || t === tt.string || t === tt.regexp || t === tt.template || t === tt.privateId || t === tt.name;
  const closer = t === tt.parenR || t === tt.bracketR || t === tt.braceR;
  return !value && !closer && t.keyword === undefined;
}
