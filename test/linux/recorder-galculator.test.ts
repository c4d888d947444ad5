/**
 * The recorder end to end, as the issue asks: a galculator session (6 × 7 =, keys clicked by
 * index) recorded from a live kernel on the real virtual desktop; then galculator quits and
 * the helper restarts, so every index of the session is gone; then the recipe runs headless
 * with `deskbook run` and the display reads 42, exit 0.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKernel, streams, type RunningKernel } from "../support/kernel-process.js";
import { desktopHome, missingDesktopTools, type DesktopHome } from "../support/desktop-home.js";
import { stopHelperAt } from "../support/helper-process.js";
import { text, type Notebook } from "../support/notebook-file.js";
import type { JupyterMessage } from "../../src/jupyter/message.js";
import { deskbookRun } from "../runner/run-cli.js";

const missing = missingDesktopTools();
if (missing.length > 0) console.warn(`test/linux/recorder-galculator.test.ts skipped: ${missing.join(", ")} not installed`);

describe.skipIf(missing.length > 0)("recording a galculator session and running it again", () => {
  let desk: DesktopHome;
  let kernel: RunningKernel | undefined;

  async function cell(code: string): Promise<JupyterMessage[]> {
    const { reply, iopub } = await kernel!.client.execute(code, { timeoutMs: 60_000 });
    const why = `${JSON.stringify(reply.content)}\n${streams(iopub, "stderr")}\n--- kernel ---\n${kernel!.stderr().slice(-3000)}`;
    expect(reply.content.status, why).toBe("ok");
    return iopub;
  }

  beforeAll(async () => {
    for (const name of ["DISPLAY", "WAYLAND_DISPLAY", "AT_SPI_BUS_ADDRESS"]) delete process.env[name];
    desk = await desktopHome({ allow: ["galculator"] });
    kernel = await startKernel({ home: desk.home, cwd: desk.dir, env: desk.env });
  }, 60_000);

  afterAll(async () => {
    await kernel?.stop();
    await desk?.cleanup();
  }, 60_000);

  it("records 6 × 7 = by index, and the recipe presses the same keys by locator in a new session → 42", async () => {
    await cell(`desk.record("recipes/six-times-seven.ipynb")`);
    await cell(`// bind galculator\nconst calc = await desk.getApp("galculator")`);
    const keys = JSON.parse(streams(await cell(`// find the keys\nconst keys = Object.fromEntries((await calc.findAll({ role: "toggle button" })).map((n) => [n.title, n.i]))\nconsole.log(JSON.stringify(keys))`))) as Record<string, number>;
    for (const key of ["AC", "6", "*", "7", "="]) expect(keys[key], key).toBeGreaterThan(0);
    // A session as a person clicks: indices read off the tree, typed as numbers.
    await cell(`// press 6 × 7 =\nawait calc.click(${keys.AC})\nawait calc.click(${keys["6"]})\nawait calc.click(${keys["*"]})\nawait calc.click(${keys["7"]})\nawait calc.click(${keys["="]})`);
    await cell(`// read the display\n(await calc.find({ role: "text area" })).value`);
    await cell(`// what the seven key does\nawait calc.actions(${keys["7"]})`);
    await cell(`// check the display\nawait calc.expect({ role: "text area", value: "42", exact: true })\ndesk.stopRecording()`);
    await cell(`await calc.quit()`); // after the recording: not in the recipe

    const path = join(desk.dir, "recipes", "six-times-seven.ipynb");
    const recipe = JSON.parse(await readFile(path, "utf8")) as Notebook;
    const sources = recipe.cells.map((c) => text(c.source));
    expect(recipe.cells[0]!.cell_type).toBe("markdown");
    expect(sources.slice(1).map((s) => s.split("\n")[0])).toEqual(["// bind galculator", "// find the keys", "// press 6 × 7 =", "// read the display", "// what the seven key does", "// check the display"]);
    const press = sources[3]!;
    expect(press).not.toMatch(/click\(\d+\)/);
    expect(press).toContain(`await calc.click({ role: "toggle button", label: "6", window: "galculator" })`);
    expect(press).toContain(`await calc.click({ role: "toggle button", label: "=", window: "galculator" })`);
    expect(sources[5]).toBe(`// what the seven key does\nawait calc.actions({ role: "toggle button", label: "7", window: "galculator" })`);
    expect(sources[6]).not.toContain("stopRecording");
    expect(text(recipe.cells[4]!.outputs?.find((o) => o.output_type === "execute_result")?.data?.["text/plain"])).toBe("'42'");

    // Nothing of the session survives: the kernel ends, galculator has quit, the helper restarts.
    await kernel!.stop();
    kernel = undefined;
    await stopHelperAt(join(desk.home, "helper.sock"));

    const out = join(desk.dir, "out.ipynb");
    const run = await deskbookRun([path, "--out", out], { env: desk.env, timeoutMs: 180_000 });
    const log = await readFile(join(desk.home, "helper.log"), "utf8").catch(() => "");
    expect(run.code, `${run.stderr}\n--- helper.log ---\n${log.slice(-3000)}`).toBe(0);
    const executed = JSON.parse(await readFile(out, "utf8")) as Notebook;
    const display = executed.cells.find((c) => text(c.source).startsWith("// read the display"));
    expect(text(display?.outputs?.find((o) => o.output_type === "execute_result")?.data?.["text/plain"])).toBe("'42'");
  }, 300_000);
});
