/**
 * The .ipynb format (nbformat 4) as the runner reads and writes it: parse and check a file
 * well enough to run it, give every cell an id, and write it back the way Jupyter does
 * (one-space indent, sources as lists of lines, a trailing newline).
 */
import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { RunnerError } from "./runner-error.js";
import { makeDirs } from "../make-dirs.js";

export type Multiline = string | string[];

export interface Output {
  output_type: "stream" | "display_data" | "execute_result" | "error";
  [key: string]: unknown;
}

export interface Cell {
  id?: string;
  cell_type: "code" | "markdown" | "raw";
  source: Multiline;
  metadata: Record<string, unknown> & { tags?: string[] };
  outputs?: Output[];
  execution_count?: number | null;
  attachments?: Record<string, unknown>;
}

export interface Notebook {
  nbformat: number;
  nbformat_minor: number;
  metadata: Record<string, unknown>;
  cells: Cell[];
}

/** nbformat stores text whole or as a list of lines. */
export function joinSource(source: Multiline | undefined): string {
  return Array.isArray(source) ? source.join("") : (source ?? "");
}

/** Text split the way Jupyter writes it: each line keeps its "\n". */
export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

export async function readNotebook(path: string): Promise<Notebook> {
  let raw: string;
  try {
    raw = await readFile(path, "utf8");
  } catch (error) {
    throw new RunnerError("bad_notebook", `cannot read ${path}: ${(error as Error).message}`);
  }
  return parseNotebook(raw, path);
}

export function parseNotebook(raw: string, path: string): Notebook {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new RunnerError("bad_notebook", `${path} is not JSON: ${(error as Error).message}`);
  }
  const nb = value as Partial<Notebook>;
  if (typeof nb !== "object" || nb === null || Array.isArray(nb)) throw new RunnerError("bad_notebook", `${path} is not a notebook (not a JSON object)`);
  if (nb.nbformat !== 4) throw new RunnerError("bad_notebook", `${path} is nbformat ${String(nb.nbformat)}; deskbook run reads nbformat 4`);
  if (!Array.isArray(nb.cells)) throw new RunnerError("bad_notebook", `${path} has no "cells" list`);
  nb.cells.forEach((cell, i) => checkCell(cell, i, path));
  return normalise(nb as Notebook);
}

function checkCell(cell: unknown, i: number, path: string): void {
  const c = cell as Partial<Cell>;
  const where = `${path}: cell ${i + 1}`;
  if (typeof c !== "object" || c === null) throw new RunnerError("bad_notebook", `${where} is not an object`);
  if (c.cell_type !== "code" && c.cell_type !== "markdown" && c.cell_type !== "raw") throw new RunnerError("bad_notebook", `${where} has cell_type ${JSON.stringify(c.cell_type)}`);
  const source = c.source;
  const ok = typeof source === "string" || (Array.isArray(source) && source.every((s) => typeof s === "string"));
  if (!ok) throw new RunnerError("bad_notebook", `${where}: "source" is neither a string nor a list of strings`);
}

/** Fills what nbformat 4.5 requires and older files may lack: metadata objects and cell ids. */
function normalise(nb: Notebook): Notebook {
  const metadata = typeof nb.metadata === "object" && nb.metadata !== null ? nb.metadata : {};
  const minor = Math.max(typeof nb.nbformat_minor === "number" ? nb.nbformat_minor : 0, 5);
  const seen = new Set<string>();
  const cells = nb.cells.map((cell) => {
    const out: Cell = { ...cell, metadata: typeof cell.metadata === "object" && cell.metadata !== null ? cell.metadata : {} };
    if (typeof out.id !== "string" || !/^[a-zA-Z0-9-_]{1,64}$/.test(out.id) || seen.has(out.id)) out.id = newCellId();
    seen.add(out.id);
    if (out.cell_type === "code") {
      out.outputs = Array.isArray(out.outputs) ? out.outputs : [];
      out.execution_count = typeof out.execution_count === "number" ? out.execution_count : null;
    } else {
      delete out.outputs;
      delete out.execution_count;
    }
    return out;
  });
  return { nbformat: 4, nbformat_minor: minor, metadata, cells };
}

export function newCellId(): string {
  return randomBytes(4).toString("hex");
}

/** A code cell as a frontend creates it: no outputs, not run. */
export function codeCell(source: string, tags: string[]): Cell {
  return { id: newCellId(), cell_type: "code", source: splitLines(source), metadata: { tags }, outputs: [], execution_count: null };
}

export function markdownCell(source: string, tags: string[] = []): Cell {
  return { id: newCellId(), cell_type: "markdown", source: splitLines(source), metadata: tags.length ? { tags } : {} };
}

export function hasTag(cell: Cell, tag: string): boolean {
  return Array.isArray(cell.metadata.tags) && cell.metadata.tags.includes(tag);
}

export function serialiseNotebook(nb: Notebook): string {
  const cells = nb.cells.map((cell) => ({ ...cell, source: Array.isArray(cell.source) ? cell.source : splitLines(cell.source) }));
  return `${JSON.stringify({ ...nb, cells }, null, 1)}\n`;
}

export async function writeNotebook(path: string, nb: Notebook): Promise<void> {
  await makeDirs(dirname(path));
  await writeFile(path, serialiseNotebook(nb));
}
