/**
 * desk.record without a desktop: a real kernel records cells into a recipe (outputs kept,
 * failed cells and the recording's own controls left out, secrets turned into parameters and
 * blotted out of every output), and `deskbook run` runs the recipe with the secrets given as
 * parameters — or fails naming the one that is missing.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKernel, streams, type RunningKernel } from "../support/kernel-process.js";
import { text, type Notebook } from "../support/notebook-file.js";
import type { ExecuteOptions } from "../../src/client/kernel-client.js";
import { deskbookRun, nbformatProblems, Scratch } from "./run-cli.js";

let scratch: Scratch;
let kernel: RunningKernel;

beforeAll(async () => {
  scratch = await Scratch.create();
  kernel = await startKernel({ cwd: scratch.dir });
}, 60_000);
afterAll(async () => {
  await kernel?.stop();
  await scratch?.cleanup();
});

async function run(code: string, options: ExecuteOptions = {}) {
  const { reply, iopub } = await kernel.client.execute(code, { timeoutMs: 20_000, ...options });
  return { status: String(reply.content.status), evalue: String(reply.content.evalue ?? ""), stdout: streams(iopub), stderr: streams(iopub, "stderr") };
}

const SECRETS: Record<string, string> = { "Password:": "hunter2", "token: ": "tok-123456" };
const answer: ExecuteOptions["onInput"] = (req) => SECRETS[String(req.content.prompt)];

describe("desk.record", () => {
  it("writes what ran after it, with outputs, secrets as parameters and never their values", async () => {
    const started = await run(`desk.record("recorded/login.ipynb")`);
    expect(started.status).toBe("ok");
    expect((await run(`// log in\nconst pw = await input.password("Password:")\nconsole.log("typed", pw, "of length", pw.length)`, { onInput: answer })).stdout).toBe("typed hunter2 of length 7\n");
    const tokenCell = await run(`// the API token\nconst token = await desk.secret("token");\n\`token \${token}\``, { onInput: answer });
    expect(tokenCell.status, tokenCell.evalue).toBe("ok");
    expect((await run(`// a mistake\nundefinedThing()`)).status).toBe("error");
    expect((await run(`desk.stopRecording()`)).status).toBe("ok");
    expect((await run(`// after the recording\n1 + 1`)).status).toBe("ok");

    const path = join(scratch.dir, "recorded", "login.ipynb");
    const raw = await readFile(path, "utf8");
    expect(raw).not.toContain("hunter2");
    expect(raw).not.toContain("tok-123456");
    expect(nbformatProblems(path)).toBe("");
    const nb = JSON.parse(raw) as Notebook;
    const sources = nb.cells.map((c) => text(c.source));
    expect(nb.cells.map((c) => c.cell_type)).toEqual(["markdown", "code", "code", "code"]);
    expect(nb.cells[1]!.metadata.tags).toEqual(["parameters"]);
    expect(sources[1]).toMatch(/^\/\/ parameters\n.*\nlet password = undefined\nlet token = undefined\n$/);
    expect(sources[2]).toBe(`// log in\nconst pw = await desk.secret("password", "Password:")\nconsole.log("typed", pw, "of length", pw.length)`);
    expect(text(nb.cells[2]!.outputs?.[0]?.text)).toBe("typed •••••• of length 7\n");
    expect(text(nb.cells[3]!.outputs?.find((o) => o.output_type === "execute_result")?.data?.["text/plain"])).toBe("'token ••••••'");
    expect(nb.cells.slice(2).map((c) => c.execution_count)).toEqual([1, 2]);
  });

  it("runs again headless with the secrets as parameters, and names a missing one", async () => {
    const path = join(scratch.dir, "recorded", "login.ipynb");
    const env = { DESKBOOK_HOME: join(scratch.dir, "run-home") };
    const ok = await deskbookRun([path, "-p", "password", "s3cret!", "-p", "token", "t0k", "--out", join(scratch.dir, "ok.ipynb")], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(await readFile(join(scratch.dir, "ok.ipynb"), "utf8")).toContain("typed s3cret! of length 7");
    const missing = await deskbookRun([path, "-p", "token", "t0k", "--out", join(scratch.dir, "missing.ipynb")], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cell \d+ \("log in"\) failed: Error: desk\.secret\("password"\) has no value: give it as a parameter \(deskbook run -p password VALUE\)/);
  }, 120_000);

  it("appends to a recipe it recorded before, and refuses a second recording, a bad path and a file that is not a notebook", async () => {
    expect((await run(`desk.record("recorded/login.ipynb")`)).status).toBe("ok");
    expect((await run(`desk.record("other.ipynb")`)).evalue).toMatch(/already recording to .*login\.ipynb; desk\.stopRecording\(\) first/);
    expect((await run(`// more\nconst more = 3\nmore`)).status).toBe("ok");
    expect((await run(`desk.stopRecording()`)).status).toBe("ok");
    const nb = JSON.parse(await readFile(join(scratch.dir, "recorded", "login.ipynb"), "utf8")) as Notebook;
    expect(nb.cells.map((c) => text(c.source).split("\n")[0])).toEqual(["# Recorded recipe", "// parameters", "// log in", "// the API token", "// more"]);
    expect(nb.cells[4]!.execution_count).toBe(3);

    // An app bound before a recording starts is bound again at the top of the new recipe.
    expect((await run(`// bind an app (never, here: no desktop)\nconst viewer = false ? await desk.getApp("galculator") : "no app"`)).status).toBe("ok");
    expect((await run(`desk.record("late.ipynb")`)).status).toBe("ok");
    expect((await run(`// use it\nviewer`)).status).toBe("ok");
    expect((await run(`desk.stopRecording()`)).status).toBe("ok");
    const late = JSON.parse(await readFile(join(scratch.dir, "late.ipynb"), "utf8")) as Notebook;
    expect(late.cells.slice(1).map((c) => text(c.source))).toEqual([
      `// bind the apps (as the session bound them before the recording)\nconst viewer = false ? await desk.getApp("galculator") : "no app";`,
      "// use it\nviewer",
    ]);

    expect((await run(`desk.record("notes.txt")`)).evalue).toMatch(/ending in \.ipynb/);
    await writeFile(join(scratch.dir, "junk.ipynb"), "not json");
    expect((await run(`desk.record("junk.ipynb")`)).evalue).toMatch(/appends to .*junk\.ipynb, which is not a notebook it can read/);
    expect(await readFile(join(scratch.dir, "junk.ipynb"), "utf8")).toBe("not json");
    expect((await run(`desk.stopRecording()`)).status).toBe("ok"); // nothing to stop: fine
    expect((await run(`desk.secret("not a name")`)).evalue).toMatch(/a JavaScript identifier/);
  });
});
