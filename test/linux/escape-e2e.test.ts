/**
 * Escape, end to end, on a real (virtual) desktop: the real kernel, started with no DISPLAY,
 * binds galculator, so it starts the virtual desktop and the Linux helper itself. Then the
 * user presses Escape — `xdotool key Escape`, another X client, like a person at the
 * keyboard — while a cell spins and while a cell awaits: both must stop. An Escape the
 * helper sends on the cell's behalf (`calc.pressKey("Escape")`) must not stop anything.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { desktopStatus, type DesktopEnv } from "../../src/desktop/virtual-desktop.js";
import { resultText, startHeadlessKernel, type RunningKernel } from "../support/kernel-process.js";
import { endHomeProcesses } from "../../src/client/home-processes.js";

const execFileAsync = promisify(execFile);
const ESCAPED = "Stopped: the user pressed Escape.";
/** Shorter than the 30 s await below, so a missed Escape fails the test with a clear reason, soon. */
const CELL_LIMIT_MS = 20_000;
/** Time for a sent cell to be running before Escape is pressed; an idle kernel starts one in a few ms. */
const RUNNING_AFTER_MS = 1_000;

const missing = ["Xvfb", "openbox", "dbus-daemon", "xdotool", "galculator"].filter(
  (tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0,
);
if (missing.length > 0) console.warn(`test/linux/escape-e2e.test.ts skipped: ${missing.join(", ")} not installed`);

describe.skipIf(missing.length > 0)("Escape stops a cell (kernel + Linux helper + virtual desktop)", () => {
  let dir: string;
  let home: string;
  let kernel: RunningKernel | undefined;
  let desktopEnv: DesktopEnv;

  /** The user presses Escape on the desktop the kernel started. */
  const pressEscapeAsUser = () => execFileAsync("xdotool", ["key", "Escape"], { env: { ...process.env, ...desktopEnv }, timeout: 10_000 });

  /** Runs `code`, presses Escape once it runs, and returns the reply's content. */
  async function stopWithEscape(code: string): Promise<Record<string, unknown>> {
    const running = kernel!.client.execute(code, { timeoutMs: CELL_LIMIT_MS + 10_000 });
    await new Promise((resolve) => setTimeout(resolve, RUNNING_AFTER_MS));
    const started = Date.now();
    await pressEscapeAsUser();
    const { reply } = await running;
    return { ...reply.content, stoppedAfterMs: Date.now() - started };
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "deskbook-escape-e2e-"));
    home = join(dir, "home");
    await mkdir(home, { recursive: true, mode: 0o700 });
    // No one can answer an approval dialog on the virtual desktop.
    await writeFile(join(home, "config.json"), JSON.stringify({ allow: ["galculator"], timeoutMs: CELL_LIMIT_MS }));
    kernel = await startHeadlessKernel(dir, home);
    const bind = await kernel.client.execute(
      'const calc = await desk.getApp("galculator"); (await calc.find({ role: "AXButton", label: "7", exact: true })).role',
      { timeoutMs: 60_000 },
    );
    if (bind.reply.content.status !== "ok") {
      const log = await readFile(join(home, "helper.log"), "utf8").catch(() => "(no helper.log)");
      throw new Error(`binding galculator failed: ${JSON.stringify(bind.reply.content)}\n--- kernel ---\n${kernel.stderr()}\n--- helper.log ---\n${log}`);
    }
    expect(resultText(bind.iopub)).toBe("'AXButton'");
    const status = await desktopStatus({ home });
    if (!status.running || !status.state) throw new Error(`the kernel started no virtual desktop under ${home}`);
    desktopEnv = status.state.env;
    // The kernel attaches its Escape listener when the executor reports the helper; a cell start re-checks it.
    expect((await kernel.client.execute("1 + 1")).reply.content.status).toBe("ok");
  }, 90_000);

  afterAll(async () => {
    await kernel?.stop();
    if (!home) return;
    // The helper, its apps and the desktop outlive the kernel on purpose; this test started them, so it ends them.
    await endHomeProcesses(home);
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it("stops a spinning cell when the user presses Escape", async () => {
    const content = await stopWithEscape("while (true) {}");
    expect(content).toMatchObject({ status: "error", ename: "Stopped", evalue: ESCAPED });
    expect(content.stoppedAfterMs).toBeLessThan(5_000);
  });

  it("stops a cell waiting on a promise when the user presses Escape", async () => {
    const content = await stopWithEscape("await new Promise((r) => setTimeout(r, 30000))");
    expect(content).toMatchObject({ status: "error", ename: "Stopped", evalue: ESCAPED });
    expect(content.stoppedAfterMs).toBeLessThan(5_000);
  });

  it("keeps the session's bindings after the stops", async () => {
    const { reply, iopub } = await kernel!.client.execute("calc.name.toLowerCase()");
    expect(reply.content.status).toBe("ok");
    expect(resultText(iopub)).toBe("'galculator'");
  });

  it("lets a cell send Escape through the helper without stopping itself", async () => {
    const { reply, iopub } = await kernel!.client.execute('await calc.pressKey("Escape"); calc.lastRoute', { timeoutMs: 30_000 });
    expect(reply.content).toMatchObject({ status: "ok" });
    expect(resultText(iopub)).toBe("'foreground'");
    // Nor a moment later: a late Escape event would stop this waiting cell.
    const after = await kernel!.client.execute("await new Promise((r) => setTimeout(r, 1500)); 'not stopped'", { timeoutMs: 30_000 });
    expect(after.reply.content).toMatchObject({ status: "ok" });
    expect(resultText(after.iopub)).toBe("'not stopped'");
  });
});
