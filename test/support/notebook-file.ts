/** The parts of an .ipynb file (nbformat 4) the notebook tests read, and the reads they share. */
import { expect } from "vitest";
export type Multiline = string | string[];

export interface Output {
  output_type: string;
  name?: string;
  text?: Multiline;
  data?: Record<string, Multiline>;
  ename?: string;
  evalue?: string;
  traceback?: string[];
}

export interface Cell {
  id: string;
  cell_type: string;
  source: Multiline;
  metadata: { tags?: string[] };
  outputs?: Output[];
  execution_count?: number | null;
}

export interface Notebook {
  metadata: { kernelspec?: Record<string, string>; language_info?: Record<string, string> };
  cells: Cell[];
}

/** nbformat stores text either whole or as a list of lines. */
export const text = (value: Multiline | undefined): string => (Array.isArray(value) ? value.join("") : (value ?? ""));

/** The outputs of the cell with `id`; throws when the notebook has no such cell. */
export function cellOutputs(notebook: Notebook, id: string): Output[] {
  const found = notebook.cells.find((c) => c.id === id);
  if (!found) throw new Error(`no cell with id ${id}`);
  return found.outputs ?? [];
}

/** The text/plain of the cell's execute_result, if it has one. */
export function cellResult(notebook: Notebook, id: string): string | undefined {
  const result = cellOutputs(notebook, id).find((o) => o.output_type === "execute_result");
  return result ? text(result.data?.["text/plain"]) : undefined;
}

/** A committed example notebook is for the deskbook kernel, with at least `minCode` code cells and nothing run saved. */
export function expectCommittedClean(notebook: Notebook, minCode: number): void {
  expect(notebook.metadata.kernelspec).toMatchObject({ name: "deskbook", language: "javascript" });
  const code = notebook.cells.filter((c) => c.cell_type === "code");
  expect(code.length).toBeGreaterThanOrEqual(minCode);
  for (const c of code) {
    expect(c.outputs, c.id).toEqual([]);
    expect(c.execution_count, c.id).toBeNull();
  }
}
