// The recorder on its own: what it writes for a cell whose source or step title carries a
// secret's value or a newline. Secrets are blotted wherever they appear in the recipe, also
// in cells written before the secret was given; a step title is one comment line, never code.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { oneLine, Recorder } from "../../src/executor/recorder.js";

let dir: string;
let recorder: Recorder;
let cell = 0;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "deskbook-recorder-"));
  recorder = new Recorder(dir, (text) => {
    throw new Error(text);
  });
  recorder.start("r.ipynb");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function ran(code: string, step?: string, stdout?: string): void {
  cell++;
  recorder.cellStarting(cell, code, step);
  if (stdout !== undefined) recorder.observe({ type: "stream", cell, name: "stdout", text: stdout });
  recorder.cellEnded(code, { status: "ok", userExpressions: {} });
}

function sources(): string[] {
  const nb = JSON.parse(readFileSync(join(dir, "r.ipynb"), "utf8")) as { cells: { source: string[] | string }[] };
  return nb.cells.slice(1).map((c) => (Array.isArray(c.source) ? c.source.join("") : c.source));
}

describe("the recorder's cell source", () => {
  it("blots a secret the cell's source or step title spells out", () => {
    recorder.secret("hunter2");
    ran(`await form.setValue(3, "hunter2")`, "type hunter2 in");
    expect(sources()).toEqual([`// type •••••• in\nawait form.setValue(3, "••••••")`]);
  });

  it("blots a secret given after the cell that held it (a deskbook run -p cell), in source and outputs", () => {
    ran(`// Parameters injected by deskbook run\nlet token = "tok-98765"`, undefined, "tok-98765\n");
    expect(readFileSync(join(dir, "r.ipynb"), "utf8")).toContain("tok-98765");
    recorder.secret("tok-98765");
    ran(`1 + 1`);
    const raw = readFileSync(join(dir, "r.ipynb"), "utf8");
    expect(raw).not.toContain("tok-98765");
    expect(sources()[0]).toBe(`// Parameters injected by deskbook run\nlet token = "••••••"`);
  });

  it("writes a step title as one comment line: a newline in it cannot become code", () => {
    ran(`1 + 1`, "tidy up\nawait desk.getApp('x').quit()\r\u2028//");
    expect(sources()).toEqual([`// tidy up await desk.getApp('x').quit() //\n1 + 1`]);
    expect(oneLine("\ta\u0000b\u007f\u0085c \n")).toBe("a b c");
  });
});
