// Jupyter's is_complete: decides whether a console should execute the code or
// ask for another line, and how to indent that line.

import * as acorn from "acorn";
import { PARSE_OPTIONS } from "./rewrite.js";

export type IsCompleteResult = { status: "complete" } | { status: "incomplete"; indent: string } | { status: "invalid" };

const INDENT_STEP = "  ";

export function isComplete(code: string): IsCompleteResult {
  if (code.trim() === "") return { status: "complete" };
  try {
    acorn.parse(code, PARSE_OPTIONS);
    return { status: "complete" };
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return endedTooSoon(code, error) ? { status: "incomplete", indent: nextIndent(code) } : { status: "invalid" };
  }
}

/** True when more input could still fix the error. */
function endedTooSoon(code: string, error: SyntaxError): boolean {
  const message = error.message;
  if (message.startsWith("Unterminated template") || message.startsWith("Unterminated comment")) return true;
  // A quoted string cannot span lines unless the line ends with a backslash.
  if (message.startsWith("Unterminated string constant")) return /\\\r?\n?$/.test(code);
  const pos = (error as SyntaxError & { pos?: number }).pos;
  return pos !== undefined && pos >= code.length;
}

/** The last non-empty line's indentation, one step deeper if that line opened a bracket still open. */
function nextIndent(code: string): string {
  let lastLine = { start: 0, text: "" };
  for (const match of code.matchAll(/[^\r\n\u2028\u2029]+/g)) {
    if (match[0].trim() !== "") lastLine = { start: match.index ?? 0, text: match[0] };
  }
  const indent = /^[ \t]*/.exec(lastLine.text)?.[0] ?? "";
  const innermost = openBrackets(code).at(-1);
  return innermost !== undefined && innermost >= lastLine.start ? indent + INDENT_STEP : indent;
}

/** Positions of the brackets still open at the end of the code (best effort). */
function openBrackets(code: string): number[] {
  const tt = acorn.tokTypes;
  const opening = new Set([tt.parenL, tt.bracketL, tt.braceL, tt.dollarBraceL]);
  const closing = new Set([tt.parenR, tt.bracketR, tt.braceR]);
  const stack: number[] = [];
  try {
    for (const token of acorn.tokenizer(code, PARSE_OPTIONS)) {
      if (opening.has(token.type)) stack.push(token.start);
      else if (closing.has(token.type)) stack.pop();
    }
  } catch {
    // An unterminated template or comment ends the scan; what was seen stands.
  }
  return stack;
}
