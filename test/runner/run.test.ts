/**
 * `deskbook run` end to end, without a desktop: the real CLI starts a real kernel, runs
 * cells, and writes a notebook that Debian's nbformat accepts. Parameters, exit statuses,
 * failure naming, progress lines and the time limit.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRun } from "../../src/cli/run.js";
import { text } from "../support/notebook-file.js";
import { deskbookRun, nbformatProblems, Scratch } from "./run-cli.js";

let scratch: Scratch;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  scratch = await Scratch.create();
  env = { DESKBOOK_HOME: join(scratch.dir, "home") };
});
afterAll(() => scratch.cleanup());

const CALC = [
  "# A parameterised sum",
  { source: "// defaults\nconst a = 6\nconst b = 7, op = \"*\"\nlet label = 'result'", tags: ["parameters"] },
  "// compute\nconsole.log(label)\nconst value = eval(`${a} ${op} ${b}`)\nvalue",
  "// report\ndisplay.html(`<b>${value}</b>`); ({ a, b, op, value })",
];

describe("deskbook run", () => {
  it("runs every cell, exits 0 and writes valid nbformat beside the input under out/", async () => {
    const input = await scratch.notebook("calc.ipynb", CALC);
    const run = await deskbookRun([input], { env });
    expect(run.stderr).toMatch(/^\[1\/3\] ok +\d+\.\d s {2}defaults$/m);
    expect(run.stderr).toMatch(/^\[2\/3\] ok +\d+\.\d s {2}compute$/m);
    expect(run.stderr).toMatch(/3 cells ran in \d+\.\d s; wrote .*out\/calc\.ipynb/);
    expect(run.code).toBe(0);
    const out = join(scratch.dir, "out", "calc.ipynb");
    expect(nbformatProblems(out)).toBe("");
    const nb = await scratch.read(out);
    const code = nb.cells.filter((c) => c.cell_type === "code");
    expect(code.map((c) => c.execution_count)).toEqual([1, 2, 3]);
    expect(text(code[1]!.outputs![0]!.text)).toBe("result\n");
    expect(text(code[1]!.outputs![1]!.data!["text/plain"])).toBe("42");
    expect(text(code[2]!.outputs![0]!.data!["text/html"])).toBe("<b>42</b>");
    expect(nb.metadata.language_info).toMatchObject({ name: "javascript" });
    expect(nb.metadata.deskbook).toMatchObject({ parameters: {}, run: { status: "ok", exitStatus: 0, ran: 3, total: 3 } });
  }, 120_000);

  it("injects -p and -f parameters after the parameters cell; a redeclared const works", async () => {
    const input = await scratch.notebook("params.ipynb", CALC);
    const file = await scratch.file("params.json", JSON.stringify({ a: 40, b: 2, label: "from file" }));
    const out = join(scratch.dir, "params-out.ipynb");
    const run = await deskbookRun([input, "-f", file, "-p", "op", "+", "-p", "b", "2", "--out", out, "--quiet"], { env });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(nbformatProblems(out)).toBe("");
    const nb = await scratch.read(out);
    const code = nb.cells.filter((c) => c.cell_type === "code");
    expect(code[0]!.metadata.tags).toEqual(["parameters"]);
    expect(code[1]!.metadata.tags).toEqual(["injected-parameters"]);
    expect(text(code[1]!.source)).toBe('// Parameters injected by deskbook run\nconst a = 40;\nconst b = 2;\nlet label = "from file";\nconst op = "+";\n');
    expect(text(code[2]!.outputs![0]!.text)).toBe("from file\n");
    expect(text(code[2]!.outputs![1]!.data!["text/plain"])).toBe("42");
    expect(nb.metadata.deskbook).toMatchObject({ parameters: { a: 40, b: 2, label: "from file", op: "+" } });
  }, 120_000);

  it("reads -p values as JSON when they parse, else as strings; an executed notebook runs again with one injected cell", async () => {
    const input = await scratch.notebook("types.ipynb", [{ source: "const x = 0", tags: ["parameters"] }, "JSON.stringify(x)"]);
    const once = join(scratch.dir, "types-once.ipynb");
    expect((await deskbookRun([input, "-p", "x", '{"k":[1,true,null]}', "--out", once, "-q"], { env })).code).toBe(0);
    const twice = join(scratch.dir, "types-twice.ipynb");
    expect((await deskbookRun([once, "-p", "x", "not json", "--out", twice, "-q"], { env })).code).toBe(0);
    const nb = await scratch.read(twice);
    expect(nb.cells.filter((c) => c.metadata.tags?.includes("injected-parameters"))).toHaveLength(1);
    expect(text(nb.cells[2]!.outputs![0]!.data!["text/plain"])).toBe(`'"not json"'`);
  }, 120_000);

  it("--param-help lists names and defaults and runs nothing", async () => {
    const input = await scratch.notebook("help.ipynb", CALC);
    const run = await deskbookRun([input, "--param-help"], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("  a      6\n  b      7\n  op     \"*\"\n  label  'result'\n");
    const none = await scratch.notebook("none.ipynb", ["1"]);
    expect((await deskbookRun([none, "--param-help"], { env })).stdout).toMatch(/no cell tagged "parameters"/);
  }, 120_000);

  it("exits 1 naming the failing cell's number, title and error, and marks it in the output", async () => {
    const input = await scratch.notebook("fails.ipynb", ["// fine\n1", "// open the door\nconst door = null\ndoor.open()", "// never runs\n2"]);
    const run = await deskbookRun([input], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^\[2\/3\] FAILED .* {2}open the door$/m);
    expect(run.stderr).toMatch(/deskbook run: cell 2 \("open the door"\) failed: TypeError: Cannot read properties of null \(reading 'open'\)/);
    const out = join(scratch.dir, "out", "fails.ipynb");
    expect(nbformatProblems(out)).toBe("");
    const nb = await scratch.read(out);
    const failed = nb.cells.find((c) => c.metadata.tags?.includes("failed"))!;
    expect(text(failed.source)).toContain("open the door");
    expect(failed.outputs![0]).toMatchObject({ output_type: "error", ename: "TypeError" });
    const banner = nb.cells[nb.cells.indexOf(failed) - 1]!;
    expect(banner.cell_type).toBe("markdown");
    expect(text(banner.source)).toContain("cell 2");
    expect(nb.cells.at(-1)).toMatchObject({ execution_count: null, outputs: [] });
    expect(nb.metadata.deskbook).toMatchObject({ run: { status: "failed", exitStatus: 1, failedCell: { n: 2, title: "open the door", ename: "TypeError" } } });
  }, 120_000);

  it("--timeout stops a runaway cell through the kernel's stop path: exit 1, Stopped", async () => {
    const input = await scratch.notebook("spin.ipynb", ["// spin forever\nwhile (true) {}"]);
    const run = await deskbookRun([input, "--timeout", "700"], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/STOPPED .* spin forever/);
    expect(run.stderr).toContain('cell 1 ("spin forever") failed: Stopped: the cell ran longer than 700 ms.');
  }, 120_000);

  it("exits 3 when the kernel dies", async () => {
    const input = await scratch.notebook("die.ipynb", ["// kill the kernel\nprocess.kill(process.ppid, 'SIGKILL'); await new Promise(r => setTimeout(r, 5000))"]);
    const run = await deskbookRun([input], { env });
    expect(run.stderr).toMatch(/kernel_died: the kernel was killed by SIGKILL while cell 1 \("kill the kernel"\) ran/);
    expect(run.code).toBe(3);
    expect(nbformatProblems(join(scratch.dir, "out", "die.ipynb"))).toBe("");
  }, 120_000);

  it("exits 2 with a coded message for usage errors and unreadable notebooks", async () => {
    const cases: [string[], RegExp][] = [
      [[], /usage: which notebook\?/],
      [["a.ipynb", "b.ipynb"], /usage: one notebook at a time/],
      [["x.ipynb", "--bogus"], /usage: unknown option --bogus/],
      [["x.ipynb", "-p", "a"], /usage: -p needs a value after the name/],
      [["x.ipynb", "--timeout", "soon"], /usage: --timeout takes a whole number/],
      [["x.ipynb", "-p", "not-a-name", "1"], /bad_parameter: "not-a-name" is not a JavaScript identifier/],
      [[join(scratch.dir, "missing.ipynb")], /bad_notebook: cannot read .*missing\.ipynb/],
      [[await scratch.file("junk.ipynb", "{ not json")], /bad_notebook: .*junk\.ipynb is not JSON/],
      [[await scratch.file("v3.ipynb", JSON.stringify({ nbformat: 3, worksheets: [] }))], /bad_notebook: .* is nbformat 3/],
      [[await scratch.file("badcell.ipynb", JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [{ cell_type: "code", source: 5 }] }))], /bad_notebook: .*cell 1: "source"/],
      [[await scratch.notebook("ok.ipynb", ["1"]), "-f", join(scratch.dir, "nope.json")], /bad_parameter: cannot read parameter file/],
      [[await scratch.notebook("ok2.ipynb", ["1"]), "-f", await scratch.file("list.json", "[1]")], /bad_parameter: .*one JSON object/],
    ];
    // In process: none of these gets as far as starting a kernel.
    for (const [args, message] of cases) {
      let stderr = "";
      const code = await runRun(args, { stdout: () => undefined, stderr: (t) => (stderr += t), isTTY: false, env });
      expect(stderr, args.join(" ")).toMatch(message);
      expect(code, args.join(" ")).toBe(2);
    }
    const cli = await deskbookRun(["--bogus"], { env });
    expect([cli.code, cli.stderr.split("\n")[0]]).toEqual([2, "deskbook run: usage: unknown option --bogus"]);
  }, 120_000);
});
