// Prints an executed notebook for a terminal: each code cell, then its text outputs, with
// images and HTML named rather than dumped.
import { readFileSync } from "node:fs";

const notebook = JSON.parse(readFileSync(process.argv[2], "utf8"));
for (const cell of notebook.cells) {
  if (cell.cell_type !== "code") continue;
  const source = [].concat(cell.source).join("");
  console.log(`\n[${cell.execution_count ?? " "}] ${source.split("\n").join("\n    ")}`);
  for (const output of cell.outputs ?? []) console.log(indent(describe(output)));
}

function describe(output) {
  if (output.output_type === "stream") return [].concat(output.text).join("").trimEnd();
  if (output.output_type === "error") return `${output.ename}: ${output.evalue}`;
  const data = output.data ?? {};
  const image = Object.keys(data).find((mime) => mime.startsWith("image/"));
  const text = [].concat(data["text/plain"] ?? []).join("").trimEnd();
  return image ? `(${image}) ${text}` : text;
}

function indent(text) {
  return text.split("\n").map((line) => `  → ${line}`).join("\n");
}
