/**
 * papermill (the pinned PyPI peer in .venv/peers) runs a Deskbook notebook without
 * parameters through the installed kernelspec; with -p it refuses, since papermill has no
 * JavaScript parameter translator — docs/recipes.md sends users to `deskbook run -p`.
 *
 * The run goes through papermill's Python API with a KernelManager config that puts the kernel
 * on Unix sockets in the stack's directory (stack.ts says why not on TCP ports: nbclient, under
 * papermill, runs no restarter). The CLI has no flag for that config; the refusal stays on the
 * CLI, since papermill refuses -p before it starts a kernel.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JupyterStack, REPO_ROOT } from "../jupyter-stack/stack.js";
import { text, type Notebook } from "../support/notebook-file.js";
import { nbformatProblems, notebookJson } from "./run-cli.js";

const PAPERMILL = join(REPO_ROOT, ".venv", "peers", "bin", "papermill");
const PEERS_PYTHON = join(REPO_ROOT, ".venv", "peers", "bin", "python");

/** `papermill IN OUT --kernel deskbook`, the kernel on Unix sockets at argv[3]-N. */
const EXECUTE = `
import logging, sys
import papermill
from traitlets.config import Config
# jupyter_client logs to this logger outside an Application: the address of each channel it connects.
channels = logging.getLogger("traitlets")
channels.setLevel(logging.DEBUG)
channels.addHandler(logging.StreamHandler(sys.stderr))
config = Config()
config.KernelManager.transport = "ipc"
config.KernelManager.ip = sys.argv[3]
papermill.execute_notebook(sys.argv[1], sys.argv[2], kernel_name="deskbook", progress_bar=False, config=config)
`;
if (!existsSync(PAPERMILL)) console.warn("test/runner/papermill.test.ts skipped: run scripts/setup-python.sh for .venv/peers");

describe.skipIf(!existsSync(PAPERMILL))("papermill with the Deskbook kernel", () => {
  let stack: JupyterStack;
  let input: string;

  beforeAll(async () => {
    stack = await JupyterStack.create();
    input = join(stack.dir, "sum.ipynb");
    await writeFile(input, notebookJson([{ source: "// defaults\nconst a = 6, b = 7", tags: ["parameters"] }, "// multiply\na * b"]));
  }, 60_000);
  afterAll(() => stack.cleanup());

  it("executes the notebook without parameters", async () => {
    const out = join(stack.dir, "sum.out.ipynb");
    const run = await stack.run(PEERS_PYTHON, ["-c", EXECUTE, input, out, stack.kernelSockets], { timeoutMs: 90_000 });
    expect(run.stderr).not.toMatch(/Traceback/);
    expect(run.code).toBe(0);
    const channels = [...run.stderr.matchAll(/connecting (\w+) channel to (\S+)/g)].map(([, name, address]) => [name, address] as const);
    expect(channels.map(([name]) => name).sort()).toEqual(["control", "heartbeat", "iopub", "shell", "stdin"]);
    for (const [, address] of channels) expect(address).toMatch(new RegExp(`^ipc://${stack.kernelSockets}-\\d+$`));
    expect(nbformatProblems(out)).toBe("");
    const nb = JSON.parse(await readFile(out, "utf8")) as Notebook;
    const last = nb.cells.at(-1)!;
    expect(text(last.outputs?.find((o) => o.output_type === "execute_result")?.data?.["text/plain"])).toBe("42");
  }, 120_000);

  it("refuses -p: it has no translator for JavaScript", async () => {
    const out = join(stack.dir, "sum.p.ipynb");
    const run = await stack.run(PAPERMILL, [input, out, "--kernel", "deskbook", "-p", "a", "5"], { timeoutMs: 90_000 });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/No parameter translator functions specified for kernel 'deskbook' or language 'javascript'/);
  }, 120_000);
});
