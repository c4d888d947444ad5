/** The parts of an .ipynb file (nbformat 4) the notebook tests read. */
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
