/**
 * Executes notebooks/kernel-tour.ipynb with Debian's `jupyter nbconvert --execute`
 * (nbclient underneath) against the installed kernelspec, and checks the outputs
 * the executed notebook really contains.
 *
 * nbclient's KernelManager runs the kernel on Unix sockets in the stack's directory
 * (`--KernelManager.transport=ipc`, stack.ts), not on TCP ports: jupyter_client picks free ports
 * by binding and closing them, another process can be given one before the kernel binds it, the
 * kernel then exits with code 3 (docs/kernel.md) and nbclient, which runs no restarter, fails the run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import sharp from "sharp";
import { JupyterStack, TOUR_NOTEBOOK, type RunResult } from "./stack.js";
import { cellOutputs, cellResult, expectCommittedClean, text, type Notebook, type Output } from "../support/notebook-file.js";


let stack: JupyterStack | undefined;
let run: RunResult;
let executed: Notebook;
let committed: Notebook;

/** The outputs of an executed cell. */
const outputs = (id: string): Output[] => cellOutputs(executed, id);
const resultOf = (id: string): string | undefined => cellResult(executed, id);

beforeAll(async () => {
  committed = JSON.parse(await readFile(TOUR_NOTEBOOK, "utf8")) as Notebook;
  stack = await JupyterStack.create();
  const result = await stack.executeNotebook(TOUR_NOTEBOOK, { cellTimeoutS: 60, timeoutMs: 150_000, debugLog: true });
  run = result.run;
  executed = JSON.parse(result.executed) as Notebook;
}, 180_000);

afterAll(async () => {
  await stack?.cleanup();
}, 30_000);

describe("notebooks/kernel-tour.ipynb as committed", () => {
  it("names the deskbook kernel and has no outputs saved", () => {
    expectCommittedClean(committed, 10);
  });

  it("tags only the stopped cell raises-exception", () => {
    const tagged = committed.cells.filter((c) => c.metadata.tags?.includes("raises-exception")).map((c) => c.id);
    expect(tagged).toEqual(["limit-stop"]);
  });
});

describe("jupyter nbconvert --execute kernel-tour.ipynb", () => {
  it("runs the kernel on Unix sockets in the stack's directory (no TCP port to lose)", () => {
    const channels = [...run.stderr.matchAll(/connecting (\w+) channel to (\S+)/g)].map(([, name, address]) => [name, address] as const);
    expect(channels.map(([name]) => name).sort()).toEqual(["control", "heartbeat", "iopub", "shell", "stdin"]);
    for (const [, address] of channels) expect(address).toMatch(new RegExp(`^ipc://${stack!.kernelSockets}-\\d+$`));
  });

  it("ran every code cell in order and recorded the kernel's language", () => {
    const counts = executed.cells.filter((c) => c.cell_type === "code").map((c) => c.execution_count);
    expect(counts).toEqual(counts.map((_, i) => i + 1));
    expect(executed.metadata.language_info).toMatchObject({ name: "javascript", file_extension: ".js" });
    // Declarations show nothing.
    expect(outputs("persist-define")).toEqual([]);
  });

  it("keeps const and let bindings across cells", () => {
    expect(resultOf("persist-use")).toBe("'Hello from Deskbook, visit number 2'");
  });

  it("lets a const be declared again", () => {
    expect(resultOf("rerun-first")).toBe("3");
    expect(outputs("rerun-again").map((o) => o.output_type)).toEqual(["execute_result"]);
    expect(resultOf("rerun-again")).toBe("4");
  });

  it("turns console.log into one stdout stream, in order", () => {
    const streams = outputs("log");
    expect(streams.every((o) => o.output_type === "stream" && o.name === "stdout")).toBe(true);
    expect(streams.map((o) => text(o.text)).join("")).toBe("teal  ####\ncoral #####\ngold  ####\nplum  ####\n");
  });

  it("shows display.html and display.markdown as rich outputs and no result", () => {
    const [html, markdown, ...rest] = outputs("rich");
    expect(rest).toEqual([]);
    expect(html?.output_type).toBe("display_data");
    expect(text(html?.data?.["text/html"])).toContain('<tr><td style="color:plum">plum</td><td>4</td></tr>');
    expect(markdown?.output_type).toBe("display_data");
    expect(text(markdown?.data?.["text/markdown"])).toBe("**4 colors**, the longest is *coral*.");
  });

  it("imports sharp from the repo's node_modules and displays a real 240x120 PNG", async () => {
    const image = outputs("image").find((o) => o.output_type === "display_data");
    const base64 = text(image?.data?.["image/png"]);
    expect(base64.length).toBeGreaterThan(100);
    const png = Buffer.from(base64, "base64");
    // PNG signature, then the IHDR chunk's width and height.
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.subarray(12, 16).toString("latin1")).toBe("IHDR");
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([240, 120]);
    expect(text(image?.data?.["text/plain"])).toMatch(/^<PNG image 240×120, [\d.]+ KiB>$/);
    // The drawing really is in there: the coral circle's centre, and transparency outside the rounded corner.
    const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4)];
    expect(pixel(60, 60)).toEqual([255, 127, 80, 255]);
    expect(pixel(0, 0)[3]).toBe(0);
    expect(resultOf("image")).toBe("'png 240x120'");
  });

  it("awaits at top level", () => {
    expect(resultOf("await")).toBe("[ 'TEAL', 'CORAL', 'GOLD', 'PLUM' ]");
  });

  it("updates a display handle in place: one output holding the last value", () => {
    const shown = outputs("handle");
    expect(shown).toHaveLength(1);
    expect(shown[0]?.output_type).toBe("display_data");
    expect(text(shown[0]?.data?.["text/plain"])).toBe("progress: 5 of 5");
    expect(text(shown[0]?.data?.["text/html"])).toBe('<progress value="5" max="5"></progress> 5 of 5');
  });

  it("stops the spinning cell at its 500 ms limit and carries on", () => {
    expect(resultOf("limit-save")).toBe("120000");
    const stopped = outputs("limit-stop");
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toMatchObject({
      output_type: "error",
      ename: "Stopped",
      evalue: "Stopped: the cell ran longer than 500 ms.",
    });
    expect(resultOf("limit-restore")).toBe("'time limit back to 120000 ms; still 4 colors'");
  });

  it("reported no error other than the intended stop", () => {
    const errors = executed.cells.flatMap((c) => (c.outputs ?? []).filter((o) => o.output_type === "error").map(() => c.id));
    expect(errors).toEqual(["limit-stop"]);
    const stderr = executed.cells.flatMap((c) => (c.outputs ?? []).filter((o) => o.name === "stderr").map((o) => text(o.text)));
    expect(stderr).toEqual([]);
  });
});
