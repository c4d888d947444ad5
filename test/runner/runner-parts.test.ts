/** The runner's pure parts: cell titles, parameter values and cells, iopub → nbformat outputs. */
import { describe, expect, it } from "vitest";
import { cellTitle } from "../../src/cell-title.js";
import type { JupyterMessage } from "../../src/jupyter/message.js";
import { cellOutputs } from "../../src/runner/cell-outputs.js";
import { parseNotebook, type Notebook } from "../../src/runner/notebook.js";
import { declaredParameters, injectParameters, parseValue } from "../../src/runner/parameters.js";

const msg = (msg_type: string, content: object): JupyterMessage =>
  ({ identities: [], header: { msg_type } as JupyterMessage["header"], parent_header: {}, metadata: {}, content, buffers: [] }) as unknown as JupyterMessage;

describe("cellTitle", () => {
  it("is the first comment line, trimmed; blank comments and code lines are skipped", () => {
    expect(cellTitle("// compute 6 × 7\nawait calc.click(1)")).toBe("compute 6 × 7");
    expect(cellTitle("\n//\n/* open the editor */\nx")).toBe("open the editor");
    expect(cellTitle("const a = 1 // not a title\n// the title")).toBe("the title");
    expect(cellTitle("1 + 1")).toBeUndefined();
    expect(cellTitle(`// ${"x".repeat(100)}`)).toHaveLength(80);
  });
});

describe("parameters", () => {
  const nb = (source: string): Notebook =>
    parseNotebook(JSON.stringify({ nbformat: 4, nbformat_minor: 4, metadata: {}, cells: [{ cell_type: "markdown", source: "# t" }, { cell_type: "code", source, metadata: { tags: ["parameters"] } }, { cell_type: "code", source: "a" }] }), "t.ipynb");

  it("parses values as JSON when they parse, else keeps the string", () => {
    expect(parseValue("6")).toBe(6);
    expect(parseValue("true")).toBe(true);
    expect(parseValue('"6"')).toBe("6");
    expect(parseValue("*")).toBe("*");
    expect(parseValue("[1, 2]")).toEqual([1, 2]);
    expect(parseValue("")).toBe("");
  });

  it("lists the declared names with their default source and kind", () => {
    expect(declaredParameters(nb("const a = 6, b = [1,\n 2]\nlet c\nvar d = f(1)\nconsole.log(a)\nconst { e } = {}"))).toEqual([
      { name: "a", kind: "const", default: "6" },
      { name: "b", kind: "const", default: "[1,\n 2]" },
      { name: "c", kind: "let", default: undefined },
      { name: "d", kind: "var", default: "f(1)" },
    ]);
  });

  it("inserts the injected cell right after the parameters cell, keeping each name's kind", () => {
    const out = injectParameters(nb("let a = 1"), { a: 2, z: "s" });
    expect(out.cells.map((c) => c.metadata.tags ?? [])).toEqual([[], ["parameters"], ["injected-parameters"], []]);
    expect(out.cells[2]!.source).toEqual(["// Parameters injected by deskbook run\n", "let a = 2;\n", 'const z = "s";\n']);
    expect(out.metadata).toMatchObject({ deskbook: { parameters: { a: 2, z: "s" } } });
    expect(out.nbformat_minor).toBe(5);
    expect(new Set(out.cells.map((c) => c.id)).size).toBe(4);
  });
});

describe("cellOutputs", () => {
  it("merges consecutive stream text of one name and splits text into lines", () => {
    const out = cellOutputs([msg("stream", { name: "stdout", text: "a\nb" }), msg("stream", { name: "stdout", text: "c\n" }), msg("stream", { name: "stderr", text: "e\n" })]);
    expect(out).toEqual([
      { output_type: "stream", name: "stdout", text: ["a\n", "bc\n"] },
      { output_type: "stream", name: "stderr", text: ["e\n"] },
    ]);
  });

  it("applies display updates in place and clear_output, with wait at the next output", () => {
    const out = cellOutputs([
      msg("stream", { name: "stdout", text: "gone\n" }),
      msg("clear_output", { wait: true }),
      msg("display_data", { data: { "text/plain": "step 1", "image/png": "iVBOR" }, metadata: {}, transient: { display_id: "d1" } }),
      msg("update_display_data", { data: { "text/plain": "step 2" }, metadata: {}, transient: { display_id: "d1" } }),
      msg("execute_result", { execution_count: 4, data: { "text/plain": "42", "application/json": { a: 1 } }, metadata: {} }),
      msg("error", { ename: "E", evalue: "v", traceback: ["E: v"] }),
    ]);
    expect(out).toEqual([
      { output_type: "display_data", data: { "text/plain": ["step 2"] }, metadata: {} },
      { output_type: "execute_result", execution_count: 4, data: { "text/plain": ["42"], "application/json": { a: 1 } }, metadata: {} },
      { output_type: "error", ename: "E", evalue: "v", traceback: ["E: v"] },
    ]);
  });
});
