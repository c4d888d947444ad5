// Parses every .swift file under helper/macos/ with a real Swift grammar (tree-sitter-swift)
// and fails on any syntax error, listing file:line:col of each ERROR or MISSING node. There is
// no Swift compiler on the machines that run CI, so this is the check that the macOS helper's
// sources are at least well-formed Swift; it proves nothing about types or behaviour.
//
//   node scripts/check-swift.mjs [DIR]     (default: helper/macos)
//
// Prints "N Swift files parsed, 0 errors" and exits 0, or lists the errors and exits 1.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL("../", import.meta.url));
export const DEFAULT_DIR = join(ROOT, "helper", "macos");

let parser = null;

/** One parser for the process: tree-sitter's native binding and the Swift grammar. */
function swiftParser() {
  if (parser) return parser;
  const Parser = require("tree-sitter");
  const Swift = require("tree-sitter-swift");
  parser = new Parser();
  parser.setLanguage(Swift);
  return parser;
}

/**
 * The syntax errors in one Swift source: every ERROR node (text the grammar could not place)
 * and every MISSING node (a token the parser had to invent, such as a closing brace).
 * Lines and columns count from 1.
 */
export function swiftSyntaxErrors(source) {
  const tree = swiftParser().parse(source);
  const errors = [];
  const visit = (node) => {
    if (node.isMissing) {
      errors.push({ line: node.startPosition.row + 1, column: node.startPosition.column + 1, kind: "MISSING", text: node.type });
      return;
    }
    if (node.type === "ERROR") {
      errors.push({ line: node.startPosition.row + 1, column: node.startPosition.column + 1, kind: "ERROR", text: snippet(node.text) });
    }
    // Only subtrees that hold an error are worth walking.
    for (const child of node.children) if (child.hasError || child.isMissing) visit(child);
  };
  if (tree.rootNode.hasError) visit(tree.rootNode);
  return errors;
}

/** Every .swift file under `dir`, sorted, skipping SwiftPM's build output. */
export function swiftFiles(dir) {
  const found = [];
  const walk = (at) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.name === ".build" || entry.name === ".swiftpm" || entry.name === "node_modules") continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith(".swift")) found.push(path);
    }
  };
  walk(dir);
  return found.sort();
}

/** Parses every Swift file under `dir`: `{files, errors: [{file, line, column, kind, text}]}`. */
export function checkSwiftTree(dir = DEFAULT_DIR) {
  const files = swiftFiles(dir);
  const errors = [];
  for (const file of files) {
    for (const error of swiftSyntaxErrors(readFileSync(file, "utf8"))) errors.push({ file, ...error });
  }
  return { files, errors };
}

function snippet(text) {
  const line = text.split("\n")[0];
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

function main(argv) {
  const dir = argv[0] ? resolve(argv[0]) : DEFAULT_DIR;
  const { files, errors } = checkSwiftTree(dir);
  if (files.length === 0) {
    console.error(`no .swift files under ${relative(process.cwd(), dir) || dir}`);
    return 1;
  }
  for (const error of errors) {
    console.error(`${relative(process.cwd(), error.file)}:${error.line}:${error.column}: ${error.kind} ${JSON.stringify(error.text)}`);
  }
  console.log(`${files.length} Swift files parsed, ${errors.length} error${errors.length === 1 ? "" : "s"}`);
  return errors.length === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
