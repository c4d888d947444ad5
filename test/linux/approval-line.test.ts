/**
 * A first `desk.getApp` in a fresh DESKBOOK_HOME, the way a new user meets the approval
 * gate: the real kernel on the virtual desktop, approval "ask", nothing allowed. The cell
 * must say at once that a dialog waits, where it is, and how else to allow the app; then
 * `deskbook allow galculator` from a terminal lets the cell go on, and the line says so.
 */
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endHomeProcesses } from "../../src/client/home-processes.js";
import type { JupyterMessage } from "../../src/jupyter/message.js";
import { CLI, resultText, startHeadlessKernel, type RunningKernel } from "../support/kernel-process.js";

const missing = ["Xvfb", "openbox", "dbus-daemon", "galculator", "zenity"].filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
if (missing.length > 0) console.warn(`test/linux/approval-line.test.ts skipped: ${missing.join(", ")} not installed`);

const textOf = (m: JupyterMessage): string => String((m.content as { data?: Record<string, unknown> }).data?.["text/plain"] ?? "");
const displayId = (m: JupyterMessage): unknown => (m.content as { transient?: { display_id?: unknown } }).transient?.display_id;

describe.skipIf(missing.length > 0)("a pending approval, seen from the cell", () => {
  let dir: string;
  let home: string;
  let kernel: RunningKernel | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "deskbook-approval-line-"));
    home = join(dir, "home");
    await mkdir(home, { recursive: true, mode: 0o700 });
    await writeFile(join(home, "config.json"), JSON.stringify({ approval: "ask" }));
    kernel = await startHeadlessKernel(dir, home);
  }, 60_000);

  afterAll(async () => {
    await kernel?.stop();
    await endHomeProcesses(home);
    await rm(dir, { recursive: true, force: true });
  }, 30_000);

  it("says where the dialog is and how to allow the app, then goes on after `deskbook allow`", async () => {
    const client = kernel!.client;
    const from = client.iopubLog.length;
    const running = client.execute(`const calc = await desk.getApp("galculator")\ncalc.name`, { timeoutMs: 90_000 });
    const deadline = Date.now() + 45_000;
    let line: JupyterMessage | undefined;
    while (!line && Date.now() < deadline) {
      line = client.iopubLog.slice(from).find((m) => m.header.msg_type === "display_data" && textOf(m).startsWith("Approval needed"));
      if (!line) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(line, "a live line while the dialog is open").toBeDefined();
    const shown = textOf(line!);
    expect(shown).toContain("control Galculator");
    expect(shown).toMatch(/virtual desktop \(:\d+\)/);
    expect(shown).toContain("desk.view()");
    expect(shown).toContain("`deskbook allow galculator`");

    const allowed = spawnSync(process.execPath, [CLI, "allow", "galculator"], { env: { ...process.env, DESKBOOK_HOME: home }, encoding: "utf8" });
    expect(allowed.status, allowed.stderr).toBe(0);
    const { reply, iopub } = await running;
    expect(reply.content.status).toBe("ok");
    expect(resultText(iopub)).toBe("'Galculator'");
    const update = iopub.find((m) => m.header.msg_type === "update_display_data" && displayId(m) === displayId(line!));
    expect(update && textOf(update)).toBe("Approval: Galculator was allowed; going on.");
  }, 120_000);
});
