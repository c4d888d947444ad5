/**
 * Parameters, papermill's way: the cell tagged `parameters` holds defaults as top-level
 * declarations; a run inserts a cell tagged `injected-parameters` right after it (or first)
 * that declares the given values again. The rewrite turns top-level `const` into session
 * bindings, so redeclaring a `const` there works.
 */
import { readFile } from "node:fs/promises";
import * as acorn from "acorn";
import { PARSE_OPTIONS } from "../executor/rewrite.js";
import { codeCell, hasTag, joinSource, type Cell, type Notebook } from "./notebook.js";
import { RunnerError } from "./runner-error.js";

export const PARAMETERS_TAG = "parameters";
export const INJECTED_TAG = "injected-parameters";

export type ParameterValue = string | number | boolean | null | ParameterValue[] | { [key: string]: ParameterValue };
export type Parameters = Record<string, ParameterValue>;

/** A name the parameters cell declares, with its default as written. */
export interface DeclaredParameter {
  name: string;
  kind: "const" | "let" | "var";
  /** The initialiser's source text, or undefined for `let x;`. */
  default: string | undefined;
}

/** `-p name value`: JSON when the value parses as JSON, else the string itself. */
export function parseValue(text: string): ParameterValue {
  try {
    return JSON.parse(text) as ParameterValue;
  } catch {
    return text;
  }
}

/** `-f params.json`: one JSON object of name → value. */
export async function readParameterFile(path: string): Promise<Parameters> {
  let raw: string;
  try {
    raw = await readFile(path, "utf8");
  } catch (error) {
    throw new RunnerError("bad_parameter", `cannot read parameter file ${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new RunnerError("bad_parameter", `${path} is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new RunnerError("bad_parameter", `${path} must hold one JSON object of name → value`);
  for (const name of Object.keys(value)) checkName(name);
  return value as Parameters;
}

export function checkName(name: string): void {
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) throw new RunnerError("bad_parameter", `${JSON.stringify(name)} is not a JavaScript identifier, so it cannot be a parameter`);
}

export function parametersCell(nb: Notebook): Cell | undefined {
  return nb.cells.find((c) => c.cell_type === "code" && hasTag(c, PARAMETERS_TAG) && !hasTag(c, INJECTED_TAG));
}

/** The names and defaults the parameters cell declares, in order. */
export function declaredParameters(nb: Notebook): DeclaredParameter[] {
  const cell = parametersCell(nb);
  if (!cell) return [];
  const source = joinSource(cell.source);
  let program: acorn.Program;
  try {
    program = acorn.parse(source, PARSE_OPTIONS);
  } catch (error) {
    throw new RunnerError("bad_notebook", `the parameters cell does not parse: ${(error as Error).message}`);
  }
  const out: DeclaredParameter[] = [];
  for (const statement of program.body) {
    if (statement.type !== "VariableDeclaration") continue;
    const kind = statement.kind === "using" || statement.kind === "await using" ? "const" : statement.kind;
    for (const d of statement.declarations) {
      if (d.id.type !== "Identifier") continue;
      out.push({ name: d.id.name, kind, default: d.init ? source.slice(d.init.start, d.init.end) : undefined });
    }
  }
  return out;
}

/**
 * The notebook with `values` injected: an earlier injected cell (from running an executed
 * notebook again) is replaced; the values go to the notebook's metadata too.
 */
export function injectParameters(nb: Notebook, values: Parameters): Notebook {
  const cells = nb.cells.filter((c) => !hasTag(c, INJECTED_TAG));
  const metadata = { ...nb.metadata, deskbook: { ...(nb.metadata.deskbook as object | undefined), parameters: values } };
  const names = Object.keys(values);
  if (names.length === 0) return { ...nb, cells, metadata };
  const kinds = new Map(declaredParameters(nb).map((p) => [p.name, p.kind]));
  const lines = ["// Parameters injected by deskbook run"];
  for (const name of names) lines.push(`${kinds.get(name) ?? "const"} ${name} = ${JSON.stringify(values[name])};`);
  const injected = codeCell(`${lines.join("\n")}\n`, [INJECTED_TAG]);
  const at = cells.findIndex((c) => c.cell_type === "code" && hasTag(c, PARAMETERS_TAG));
  cells.splice(at + 1, 0, injected);
  return { ...nb, cells, metadata };
}

/** Names given that the parameters cell does not declare (papermill warns about these too). */
export function undeclared(nb: Notebook, values: Parameters): string[] {
  const declared = new Set(declaredParameters(nb).map((p) => p.name));
  return Object.keys(values).filter((name) => !declared.has(name));
}

/** `--param-help`: one line per declared parameter. */
export function parameterHelp(nb: Notebook, path: string): string {
  const declared = declaredParameters(nb);
  if (!parametersCell(nb)) return `${path} has no cell tagged "parameters": it takes no parameters.\n`;
  if (declared.length === 0) return `${path}: the parameters cell declares nothing.\n`;
  const width = Math.max(...declared.map((p) => p.name.length));
  const lines = declared.map((p) => `  ${p.name.padEnd(width)}  ${p.default ?? "(no default)"}`);
  return `Parameters of ${path} (defaults as written in its parameters cell):\n${lines.join("\n")}\n`;
}
