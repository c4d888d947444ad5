// The syntax tree of the macOS helper's Swift (tree-sitter-swift, the grammar of
// `npm run check:swift`), for tests that check where calls sit, since the Swift cannot be
// compiled or run here.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

export interface SyntaxNode {
  type: string;
  text: string;
  parent: SyntaxNode | null;
  namedChildren: SyntaxNode[];
  startIndex: number;
  endIndex: number;
  descendantsOfType(type: string): SyntaxNode[];
}

const require = createRequire(import.meta.url);
const Parser = require("tree-sitter") as new () => { setLanguage(l: unknown): void; parse(s: string): { rootNode: SyntaxNode } };
const parser = new Parser();
parser.setLanguage(require("tree-sitter-swift"));

const SOURCES = new URL("../../helper/macos/Sources/", import.meta.url);

/** A source under helper/macos/Sources/, parsed. */
export const parseSwift = (path: string): SyntaxNode => parser.parse(readFileSync(new URL(path, SOURCES), "utf8")).rootNode;

/** The called expression of a call, as written (`Input.requireForeground`, `foreground`). */
export const callee = (call: SyntaxNode): string => call.namedChildren[0]?.text ?? "";

export const callsTo = (root: SyntaxNode, name: RegExp): SyntaxNode[] =>
  root.descendantsOfType("call_expression").filter((call) => name.test(callee(call)));

/** The function declaration a node sits in. */
export function enclosingFunction(node: SyntaxNode): SyntaxNode | null {
  for (let at = node.parent; at; at = at.parent) if (at.type === "function_declaration") return at;
  return null;
}

export const functionName = (fn: SyntaxNode): string | undefined => fn.namedChildren.find((child) => child.type === "simple_identifier")?.text;

/** The function declarations named `name`. */
export const functionsNamed = (root: SyntaxNode, name: string): SyntaxNode[] =>
  root.descendantsOfType("function_declaration").filter((fn) => functionName(fn) === name);

/** The calls whose closure (trailing or as an argument) holds `node`, nearest first. */
export function enclosingClosureCalls(node: SyntaxNode): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  for (let at = node.parent; at; at = at.parent) {
    if (at.type !== "lambda_literal") continue;
    for (let up = at.parent; up; up = up.parent) {
      if (up.type === "call_expression") {
        found.push(up);
        break;
      }
      if (up.type !== "call_suffix" && up.type !== "value_argument" && up.type !== "value_arguments") break;
    }
  }
  return found;
}

/** The double-quoted literals in a piece of Swift (none of those checked hold escapes). */
export const stringLiterals = (text: string): string[] => [...text.matchAll(/"([^"\\\n]*)"/g)].map((match) => match[1]!);
