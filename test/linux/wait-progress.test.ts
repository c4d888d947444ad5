/**
 * Long waits show live progress in the cell, seen by the repo's zeromq client on a real kernel
 * that starts its own virtual desktop, with galculator: a launch that takes seconds, a waitFor
 * that a change made meanwhile ends, one that times out, and a quick one that shows nothing.
 * Each long wait sends one display_data and then update_display_data with the same display_id,
 * throttled, ending with a sentence of its own; every message has the shape the Jupyter
 * messaging spec gives. Then nbconvert (nbclient, as papermill uses it) runs the same waits
 * and the saved notebook keeps one output per wait: its closing sentence.
 */
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JupyterMessage } from "../../src/jupyter/message.js";
import { resultText, startKernel, streams, type RunningKernel } from "../support/kernel-process.js";
import { desktopHome, missingDesktopTools, type DesktopHome } from "../support/desktop-home.js";
import { JupyterStack } from "../jupyter-stack/stack.js";
import { text, type Notebook, type Output } from "../support/notebook-file.js";

const missing = missingDesktopTools();
if (missing.length > 0) console.warn(`test/linux/wait-progress.test.ts skipped: ${missing.join(", ")} not installed`);

/** A galculator that takes a while to show its window, as a heavy app does. */
async function slowLauncher(dir: string): Promise<string> {
  const path = join(dir, "slow-galculator");
  await writeFile(path, '#!/bin/sh\nsleep 2\nexec galculator "$@"\n');
  await chmod(path, 0o755);
  return path;
}

/** The cells both clients run: `SLOW` is the launcher's path. */
const LAUNCH = (slow: string) => `const calc = await desk.launch(${JSON.stringify(slow)});\ncalc.name`;
const LONG_WAIT = [
  'await calc.pressKey("Escape");',
  "// the answer appears 2.5 s into the wait",
  'setTimeout(() => calc.typeText("6*7=").catch((e) => console.error(e)), 2500);',
  'const shown = await calc.waitFor({ role: "text area", value: "42" }, { timeout: 15000 });',
  "shown.value.trim()",
].join("\n");
const QUICK_WAIT = 'const area = await calc.waitFor({ role: "text area" });\narea.role';
const TIMED_OUT = 'await calc.waitFor({ role: "button", label: "No such button" }, { timeout: 2500 })';

const plain = (m: JupyterMessage): string => String((m.content as { data?: Record<string, unknown> }).data?.["text/plain"] ?? "");
const idOf = (m: JupyterMessage): unknown => (m.content as { transient?: { display_id?: unknown } }).transient?.display_id;
const displays = (iopub: JupyterMessage[]) => iopub.filter((m) => m.header.msg_type === "display_data" || m.header.msg_type === "update_display_data");

/** display_data / update_display_data as the messaging spec (5.x) has them, in reply to `request`. */
function expectSpecShape(m: JupyterMessage, request: string): void {
  expect(m.header).toMatchObject({ msg_type: expect.stringMatching(/^(update_)?display_data$/), msg_id: expect.any(String), session: expect.any(String), username: expect.any(String), version: expect.stringMatching(/^5\./) });
  expect(Number.isNaN(Date.parse(m.header.date))).toBe(false);
  expect(m.parent_header).toMatchObject({ msg_id: request, msg_type: "execute_request" });
  expect(Object.keys(m.content).sort()).toEqual(["data", "metadata", "transient"]);
  const content = m.content as { data: Record<string, unknown>; metadata: unknown; transient: { display_id?: unknown } };
  expect(typeof content.data["text/plain"]).toBe("string");
  expect(content.metadata).toBeTypeOf("object");
  expect(content.transient.display_id).toBeTypeOf("string");
}

/** The one progress line of an execution: its messages, in order, after checking they are one display and its updates. */
function progressLine(iopub: JupyterMessage[], request: string): JupyterMessage[] {
  const line = displays(iopub);
  expect(line.length, JSON.stringify(line.map(plain))).toBeGreaterThanOrEqual(2);
  expect(line[0]!.header.msg_type).toBe("display_data");
  for (const m of line.slice(1)) expect(m.header.msg_type).toBe("update_display_data");
  expect(new Set(line.map(idOf)).size).toBe(1);
  for (const m of line) expectSpecShape(m, request);
  return line;
}

describe.skipIf(missing.length > 0)("progress of long waits", () => {
  describe("seen by a zeromq client", () => {
    let desk: DesktopHome;
    let kernel: RunningKernel;
    let slow: string;

    const run = async (code: string) => {
      const started = Date.now();
      const { reply, iopub } = await kernel.client.execute(code, { timeoutMs: 60_000 });
      return { reply, iopub, request: reply.parent_header.msg_id as string, ms: Date.now() - started };
    };

    beforeAll(async () => {
      desk = await desktopHome({ approval: "allow-all" });
      slow = await slowLauncher(desk.dir);
      kernel = await startKernel({ home: desk.home, cwd: desk.dir, env: desk.env });
      // The desktop and helper first, so their start-up is not part of the launch measured below.
      const { reply } = await kernel.client.execute("await desk.listApps()", { timeoutMs: 60_000 });
      expect(reply.content.status).toBe("ok");
    }, 90_000);

    afterAll(async () => {
      await kernel?.stop();
      await desk?.cleanup();
    }, 60_000);

    it("a launch that takes seconds says what it waits for, then that the app started", async () => {
      const { reply, iopub, request } = await run(LAUNCH(slow));
      expect(reply.content.status, streams(iopub, "stderr")).toBe("ok");
      expect(resultText(iopub)).toBe("'Galculator'");
      const line = progressLine(iopub, request);
      expect(plain(line[0]!)).toBe("Waiting for slow-galculator to start and show its window…");
      expect(plain(line.at(-1)!)).toMatch(/^Galculator started \(pid \d+\) in ([2-9]\.\d|\d{2,}) s\.$/);
    }, 60_000);

    it("a waitFor that lasts shows one line, rewritten about once a second, and ends with what came true", async () => {
      const { reply, iopub, request, ms } = await run(LONG_WAIT);
      expect(reply.content.status, streams(iopub, "stderr")).toBe("ok");
      expect(resultText(iopub)).toBe("'42'");
      const line = progressLine(iopub, request);
      expect(plain(line[0]!)).toBe('Waiting up to 15 s for {"role":"text area","value":"42"} to appear in Galculator…');
      for (const m of line.slice(1, -1)) expect(plain(m)).toMatch(/^Waiting up to 15 s for \{"role":"text area","value":"42"\} to appear in Galculator… \d s$/);
      expect(plain(line.at(-1)!)).toMatch(/^\{"role":"text area","value":"42"\} appeared in Galculator after (2\.[5-9]|[3-9]\.\d|\d{2,}) s\.$/);
      // Throttled: the first display at 1 s, then at most one rewrite a second, and the closing one.
      expect(line.length).toBeLessThanOrEqual(Math.ceil(ms / 1000) + 1);
      // The line comes before the cell's result, in the cell's own output.
      expect(iopub.indexOf(line.at(-1)!)).toBeLessThan(iopub.findIndex((m) => m.header.msg_type === "execute_result"));
    }, 60_000);

    it("a waitFor that ends at once shows nothing", async () => {
      const { reply, iopub } = await run(QUICK_WAIT);
      expect(reply.content.status).toBe("ok");
      expect(resultText(iopub)).toBe("'AXTextArea'");
      expect(displays(iopub)).toEqual([]);
    }, 30_000);

    it("a waitFor that times out ends its line with the timeout, and the cell fails with it", async () => {
      const { reply, iopub, request } = await run(TIMED_OUT);
      expect(reply.content).toMatchObject({ status: "error", ename: "WaitTimeout" });
      const line = progressLine(iopub, request);
      expect(plain(line[0]!)).toBe('Waiting up to 2.5 s for {"role":"button","label":"No such button"} to appear in Galculator…');
      expect(plain(line.at(-1)!)).toMatch(/^Gave up waiting for \{"role":"button","label":"No such button"\} to appear in Galculator after (2\.[5-9]|[3-9]\.\d|\d{2,}) s: WaitTimeout \(wait_timeout\): waited 2500 ms for /);
    }, 30_000);

    it("an action that takes seconds (a key held down) says what it does, then what it did", async () => {
      const { reply, iopub, request } = await run('await calc.pressKey("Shift_L", { duration: 2500 }); "held"');
      expect(reply.content.status, streams(iopub, "stderr")).toBe("ok");
      const line = progressLine(iopub, request);
      expect(plain(line[0]!)).toBe('Pressing "Shift_L" in Galculator, each held 2500 ms…');
      expect(plain(line.at(-1)!)).toMatch(/^Pressed "Shift_L" in Galculator, each held 2500 ms; it took (2\.[5-9]|[3-9]\.\d|\d{2,}) s\.$/);
    }, 30_000);

    it("an interrupted wait ends its line saying it was stopped, and the bindings stay", async () => {
      const from = kernel.client.iopubLog.length;
      const running = kernel.client.execute('await calc.waitFor({ label: "Never there" }, { timeout: 60000 })', { timeoutMs: 60_000 });
      const first = await kernel.client.waitForIopub((m) => kernel.client.iopubLog.indexOf(m) >= from && m.header.msg_type === "display_data", 20_000);
      expect(plain(first)).toBe('Waiting up to 60 s for {"label":"Never there"} to appear in Galculator…');
      await kernel.client.request("control", "interrupt_request", {});
      const { reply } = await running;
      expect(reply.content).toMatchObject({ status: "error", ename: "Stopped" });
      // The wait notices the stop at its next read (within a second) and closes the line.
      const closed = await kernel.client.waitForIopub((m) => m.header.msg_type === "update_display_data" && idOf(m) === idOf(first) && plain(m).startsWith("Stopped"), 10_000);
      expect(plain(closed)).toMatch(/^Stopped waiting for \{"label":"Never there"\} to appear in Galculator after (\d\.\d|\d{2,}) s\.$/);
      expect((await run("calc.name")).reply.content.status).toBe("ok");
    }, 60_000);
  });

  describe("saved by nbconvert --execute", () => {
    let stack: JupyterStack;
    let executed: Notebook;
    const outputs = (id: string): Output[] => executed.cells.find((c) => c.id === id)?.outputs ?? [];
    const shown = (id: string): string[] => outputs(id).filter((o) => o.output_type === "display_data").map((o) => text(o.data?.["text/plain"]));

    beforeAll(async () => {
      stack = await JupyterStack.create();
      await mkdir(stack.home, { recursive: true, mode: 0o700 });
      await writeFile(join(stack.home, "config.json"), JSON.stringify({ approval: "allow-all" }));
      for (const name of ["DISPLAY", "WAYLAND_DISPLAY", "AT_SPI_BUS_ADDRESS"]) delete stack.env[name];
      Object.assign(stack.env, { XDG_CONFIG_HOME: join(stack.dir, "xdg-config"), XDG_CACHE_HOME: join(stack.dir, "xdg-cache"), XDG_DATA_HOME: join(stack.dir, "xdg-data"), GSETTINGS_BACKEND: "memory" });
      const slow = await slowLauncher(stack.dir);
      const cells: [string, string][] = [
        ["start", "await desk.listApps(); 'desktop up'"],
        ["launch", LAUNCH(slow)],
        ["long", LONG_WAIT],
        ["quick", QUICK_WAIT],
        ["timeout", `try { ${TIMED_OUT} } catch (error) { error.name }`],
        ["quit", "await calc.quit({ force: true })"],
      ];
      const notebook = {
        nbformat: 4,
        nbformat_minor: 5,
        metadata: { kernelspec: { name: "deskbook", display_name: "Deskbook", language: "javascript" } },
        cells: cells.map(([id, source]) => ({ id, cell_type: "code", metadata: {}, source, outputs: [], execution_count: null })),
      };
      const path = join(stack.dir, "waits.ipynb");
      await writeFile(path, JSON.stringify(notebook));
      const result = await stack.executeNotebook(path, { cellTimeoutS: 90, timeoutMs: 240_000 });
      executed = JSON.parse(result.executed) as Notebook;
    }, 270_000);

    afterAll(() => stack?.cleanup(), 60_000);

    it("keeps one output per long wait, its closing sentence, and none for a quick wait", () => {
      expect(shown("launch")).toHaveLength(1);
      expect(shown("launch")[0]).toMatch(/^Galculator started \(pid \d+\) in ([2-9]\.\d|\d{2,}) s\.$/);
      expect(shown("long")).toEqual([expect.stringMatching(/^\{"role":"text area","value":"42"\} appeared in Galculator after (2\.[5-9]|[3-9]\.\d|\d{2,}) s\.$/)]);
      expect(outputs("quick").map((o) => o.output_type)).toEqual(["execute_result"]);
      expect(shown("timeout")).toEqual([expect.stringMatching(/^Gave up waiting for \{"role":"button","label":"No such button"\} to appear in Galculator after (2\.[5-9]|[3-9]\.\d|\d{2,}) s: WaitTimeout/)]);
      // The saved outputs carry no display ids: the notebook reads the same in any viewer.
      for (const cell of executed.cells) for (const o of cell.outputs ?? []) expect(JSON.stringify(o)).not.toContain("display_id");
    });
  });
});
