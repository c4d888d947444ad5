// A headless kernel's cells see the virtual desktop the helper drives: desk.env() names it, and
// once desk is connected a process a cell starts itself (child_process) lands on it, cookie and
// buses included. Real kernel, real helper, real desktop.
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endHomeProcesses } from "../../src/client/home-processes.js";
import { desktopStatus } from "../../src/desktop/virtual-desktop.js";
import { startHeadlessKernel, streams, type RunningKernel } from "../support/kernel-process.js";

const missing = ["Xvfb", "openbox", "dbus-daemon", "xprop"].filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
if (missing.length > 0) console.warn(`test/linux/desktop-env-e2e.test.ts skipped: ${missing.join(", ")} not installed`);

describe.skipIf(missing.length > 0)("a cell's own processes use the helper's desktop", () => {
  let dir: string;
  let home: string;
  let kernel: RunningKernel | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "deskbook-desktop-env-"));
    home = join(dir, "home");
    await mkdir(home, { recursive: true, mode: 0o700 });
    kernel = await startHeadlessKernel(dir, home);
  }, 60_000);

  afterAll(async () => {
    await kernel?.stop();
    if (!home) return;
    await endHomeProcesses(home);
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it("desk.env() answers the desktop's variables, and process.env carries them to child processes", async () => {
    const cell = [
      "const shown = await desk.env()",
      'const { execFileSync } = await import("node:child_process")',
      // xprop is another X client: it reaches the display only with DISPLAY and the cookie right.
      'const wm = execFileSync("xprop", ["-root", "_NET_SUPPORTING_WM_CHECK"], { encoding: "utf8" })',
      "console.log(JSON.stringify({ shown, inherited: Object.fromEntries(Object.keys(shown).map((k) => [k, process.env[k]])), wm: wm.includes(\"window id\") }))",
    ].join("\n");
    const { reply, iopub } = await kernel!.client.execute(cell, { timeoutMs: 60_000 });
    expect(reply.content, JSON.stringify(reply.content)).toMatchObject({ status: "ok" });
    const state = (await desktopStatus({ home })).state;
    expect(state).toBeDefined();
    const result = JSON.parse(streams(iopub)) as Record<string, unknown>;
    expect(result.shown).toEqual({ ...state!.env });
    expect(result.inherited).toEqual({ ...state!.env });
    expect(result.wm).toBe(true);
  });
});
