/**
 * Executes the demo recipe, notebooks/calculator-and-editor.ipynb, the way a new user's
 * headless run does: Debian's `jupyter nbconvert --execute`, no DISPLAY, so the kernel
 * starts the virtual desktop and the Linux helper by itself. The only preparation is the
 * one the demo script makes: a config.json that pre-approves galculator and mousepad.
 */
import { spawnSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JUPYTER, JupyterStack, REPO_ROOT, type RunResult } from "../jupyter-stack/stack.js";
import { cellOutputs, cellResult, expectCommittedClean, text, type Notebook, type Output } from "../support/notebook-file.js";

const NOTEBOOK = join(REPO_ROOT, "notebooks", "calculator-and-editor.ipynb");
const NOTE = "Hello from Deskbook! galculator says 6 × 7 = 42";

const missing = ["Xvfb", "openbox", "dbus-daemon", "galculator", "mousepad", JUPYTER].filter(
  (tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0,
);
if (missing.length > 0) console.warn(`test/linux/recipe-notebook.test.ts skipped: ${missing.join(", ")} not installed`);


describe.skipIf(missing.length > 0)("notebooks/calculator-and-editor.ipynb", () => {
  let stack: JupyterStack | undefined;
  let run: RunResult;
  let executed: Notebook;
  let committed: Notebook;

  const outputs = (id: string): Output[] => cellOutputs(executed, id);
  const resultOf = (id: string): string | undefined => cellResult(executed, id);
  /** The `image W×H` of the AX read a cell showed. */
  const readImageSize = (id: string): [number, number] => {
    const shown = outputs(id).find((o) => o.output_type === "display_data");
    const match = /^app .*, image (\d+)×(\d+), \d+ elements?/.exec(text(shown?.data?.["text/plain"]));
    if (!match) throw new Error(`cell ${id} showed no AX read: ${JSON.stringify(outputs(id))}`);
    return [Number(match[1]), Number(match[2])];
  };
  /** A screenshot cell's PNG, decoded, with the size its caption claims. */
  const screenshotOf = async (id: string) => {
    const shown = outputs(id).find((o) => o.output_type === "display_data" && o.data?.["image/png"]);
    expect(shown, `${id} shows a PNG`).toBeDefined();
    const png = Buffer.from(text(shown?.data?.["image/png"]), "base64");
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    const caption = /: (\d+)×(\d+) image pixels;/.exec(text(shown?.data?.["text/plain"]));
    return { info, data, caption: caption ? [Number(caption[1]), Number(caption[2])] : undefined };
  };

  beforeAll(async () => {
    committed = JSON.parse(await readFile(NOTEBOOK, "utf8")) as Notebook;
    stack = await JupyterStack.create();
    // What the demo script does for a headless run: nobody can answer an approval dialog.
    await mkdir(stack.home, { recursive: true, mode: 0o700 });
    await writeFile(join(stack.home, "config.json"), JSON.stringify({ allow: ["galculator", "mousepad"] }));
    // A machine with no screen: the kernel must start the virtual desktop itself.
    for (const name of ["DISPLAY", "WAYLAND_DISPLAY", "AT_SPI_BUS_ADDRESS"]) delete stack.env[name];
    // The apps inherit this: fresh settings (no saved galculator mode), nothing written to
    // the user's config, recent files or dconf.
    Object.assign(stack.env, {
      XDG_CONFIG_HOME: join(stack.dir, "xdg-config"),
      XDG_CACHE_HOME: join(stack.dir, "xdg-cache"),
      XDG_DATA_HOME: join(stack.dir, "xdg-data"),
      GSETTINGS_BACKEND: "memory",
    });
    const home = stack.home;
    const result = await stack.executeNotebook(NOTEBOOK, {
      cellTimeoutS: 120,
      timeoutMs: 300_000,
      diagnose: async () => `--- helper.log ---\n${await readFile(join(home, "helper.log"), "utf8").catch(() => "(no helper.log)")}`,
    });
    run = result.run;
    executed = JSON.parse(result.executed) as Notebook;
  }, 330_000);

  afterAll(() => stack?.cleanup(), 60_000);

  it("is committed clean, for the deskbook kernel", () => {
    expectCommittedClean(committed, 10);
    expect(committed.cells[0]).toMatchObject({ cell_type: "markdown" });
  });

  it("ran every code cell without an error or a warning", () => {
    const counts = executed.cells.filter((c) => c.cell_type === "code").map((c) => c.execution_count);
    expect(counts).toEqual(counts.map((_, i) => i + 1));
    const errors = executed.cells.flatMap((c) => (c.outputs ?? []).filter((o) => o.output_type === "error").map((o) => `${c.id}: ${o.evalue}`));
    expect(errors).toEqual([]);
    const stderr = executed.cells.flatMap((c) => (c.outputs ?? []).filter((o) => o.name === "stderr").map((o) => `${c.id}: ${text(o.text)}`));
    expect(stderr).toEqual([]);
    expect(resultOf("preflight")).toContain("pre-approved");
  });

  it("computes 6 × 7 in galculator and shows 42 as the cell's result", () => {
    expect(["'42'", "42"]).toContain(resultOf("calc-result"));
    // The presses went to the buttons found by label, multiply included.
    expect(resultOf("calc-press")).toMatch(/^'\d+ "AC", \d+ "6", \d+ "[×*]", \d+ "7", \d+ "="'$/);
  });

  it("shows galculator's screenshot as a PNG of the window's image size", async () => {
    const [width, height] = readImageSize("calc-read");
    const shot = await screenshotOf("calc-shot");
    expect([shot.info.width, shot.info.height]).toEqual([width, height]);
    expect(shot.caption).toEqual([width, height]);
    // A real capture, not a blank: the window has many distinct colours.
    expect(distinctPixels(shot.data, shot.info.channels)).toBeGreaterThan(10);
    // The cell's value is the screenshot, shown once, not repeated as a result.
    expect(resultOf("calc-shot")).toBeUndefined();
  });

  it("types into mousepad (in the foreground on Linux) and reads the text back", () => {
    expect(resultOf("editor-type")).toBe("'foreground'");
    expect(resultOf("editor-readback")).toBe(`'${NOTE}'`);
  });

  it("replaces mousepad's text with setValue and reads it back", () => {
    expect(resultOf("editor-set")).toBe("'Replaced in one step by setValue.'");
  });

  it("shows mousepad with marks, at the window's image size", async () => {
    const [width, height] = readImageSize("editor-read");
    const shot = await screenshotOf("editor-marks");
    expect([shot.info.width, shot.info.height]).toEqual([width, height]);
    expect(shot.caption).toEqual([width, height]);
    expect(distinctPixels(shot.data, shot.info.channels)).toBeGreaterThan(10);
  });

  it("closes both apps at the end", () => {
    expect(resultOf("close")).toBe("'galculator and mousepad are closed'");
  });
});

function distinctPixels(data: Buffer, channels: number): number {
  const seen = new Set<string>();
  for (let offset = 0; offset < data.length && seen.size <= 1000; offset += channels * 7) {
    seen.add(data.subarray(offset, offset + channels).toString("hex"));
  }
  return seen.size;
}

