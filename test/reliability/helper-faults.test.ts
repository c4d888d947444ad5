// Faults on the helper side, each measured and printed: the helper killed (-9) in the middle of
// a call, the X server killed under it, an app that stops answering D-Bus (SIGSTOP), and
// actions.log on a full disk (/dev/full). Every one gets a coded error or goes on working.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { printTable, round, type Row } from "../../bench/report.js";
import { HelperClient } from "../../src/helper/client.js";
import { DeskError } from "../../src/helper/desk-error.js";
import { launchHelper } from "../../src/helper/launch.js";
import { desktopStatus, stopDesktop } from "../../src/desktop/virtual-desktop.js";
import { HELPER_ENTRY, missingTools, startHelperDesktop, waitFor, type HelperDesktop, type RunningHelper } from "../linux/helper-harness.js";
import { stopHelperAt } from "../../src/helper/helper-process.js";
import { tempDir } from "../support/temp-dir.js";
import { isAlive } from "../../src/process-signals.js";

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "galculator", "mousepad"]);
if (missing.length > 0) console.warn(`test/reliability/helper-faults.test.ts skipped: ${missing.join(", ")} missing`);

const rows: Row[] = [];
const measured = (metric: string, ms: number, target: string, ok: boolean): void =>
  void rows.push({ metric, value: round(ms, 0), unit: "ms", target, verdict: ok ? "ok" : "MISS" });

async function rejection(promise: Promise<unknown>): Promise<DeskError> {
  const error = await promise.then(
    (value) => new Error(`expected a coded error, got ${JSON.stringify(value).slice(0, 200)}`),
    (e: unknown) => e,
  );
  if (!(error instanceof DeskError)) throw error;
  return error;
}

describe.skipIf(missing.length > 0)("helper faults", () => {
  afterAll(() => {
    if (rows.length > 0) printTable(rows);
  });

  describe("on a helper desktop with galculator and mousepad", () => {
    let desk: HelperDesktop;
    let helper: RunningHelper;
    let client: HelperClient;
    let calc = 0;
    let editor = 0;

    beforeAll(async () => {
      desk = await startHelperDesktop();
      desk.writeConfig({ approval: "allowlist", allow: ["galculator", "mousepad"] });
      helper = await desk.startHelper();
      client = await HelperClient.connect({
        socketPath: helper.socket,
        clientName: "faults",
        requestTimeoutMs: 30_000,
        // The client relaunches the helper itself, as the kernel's does.
        launch: async () => void (helper = await desk.startHelper({ waitForListening: false })),
      });
      calc = (await client.request("launch", { name: "galculator", activate: true })).pid!;
      editor = (await client.request("launch", { name: "mousepad" })).pid!;
      desk.trackPid(calc);
      desk.trackPid(editor);
      await waitFor(async () => (await client.request("axTree", { pid: editor, maxNodes: 5 })).nodes.length > 0, "mousepad's tree");
    }, 120_000);

    afterAll(async () => {
      await client?.close();
      for (const pid of [calc, editor]) if (pid) spawnSync("kill", ["-CONT", String(pid)]);
      await desk?.stop();
    });

    it("fails a call in flight at once when the helper is killed (-9), and relaunches it on the next call", async () => {
      const before = (await client.request("ping", {})).pid;
      const [fx, fy, w, h] = (await client.request("windows", { pid: calc }))[0]!.frame;
      await client.request("activate", { pid: calc });
      // A drag through 300 points takes the helper well over a second.
      const path = Array.from({ length: 300 }, (_, k): [number, number] => [fx + w * 0.3 + (k % 2) * w * 0.4, fy + h * 0.6]);
      const call = client.request("drag", { pid: calc, path });
      await new Promise((resolve) => setTimeout(resolve, 150));
      const killedAt = performance.now();
      process.kill(before, "SIGKILL");
      const error = await rejection(call);
      const failedAfter = performance.now() - killedAt;
      expect(error.code).toBe("failed");
      expect(error.message).toMatch(/closed the connection during drag/);
      measured("helper kill -9 mid-call: coded error after", failedAfter, "<= 1000", failedAfter <= 1_000);
      expect(failedAfter).toBeLessThanOrEqual(1_000);
      const relaunchAt = performance.now();
      const after = (await client.request("ping", {})).pid;
      const relaunch = performance.now() - relaunchAt;
      measured("helper kill -9: next call relaunches, in", relaunch, "-", true);
      expect(after).not.toBe(before);
      expect(isAlive(after)).toBe(true);
    });

    it("answers a call to an app stopped with SIGSTOP with a coded timeout, while other apps keep working", async () => {
      process.kill(calc, "SIGSTOP");
      try {
        const started = performance.now();
        const stuck = rejection(client.request("axTree", { pid: calc, maxNodes: 50 }));
        // Meanwhile mousepad answers as usual.
        const otherAt = performance.now();
        expect((await client.request("axTree", { pid: editor, maxNodes: 5 })).nodes.length).toBeGreaterThan(0);
        const other = performance.now() - otherAt;
        const error = await stuck;
        const timedOut = performance.now() - started;
        expect(error.code).toBe("failed");
        expect(error.message).toMatch(/no answer within \d+ ms/);
        measured("SIGSTOPped app: coded timeout after", timedOut, "-", true);
        measured("SIGSTOPped app: another app's tree meanwhile", other, "-", true);
      } finally {
        process.kill(calc, "SIGCONT");
      }
      await waitFor(async () => (await client.request("axTree", { pid: calc, maxNodes: 5 })).nodes.length > 0, "galculator answering again");
    });

    it("still acts when actions.log is on a full disk, and warns once", async () => {
      const log = join(desk.home, "actions.log");
      if (existsSync(log)) unlinkSync(log);
      symlinkSync("/dev/full", log);
      try {
        for (let k = 0; k < 3; k++) expect(await client.request("activate", { pid: calc })).toEqual({});
        await waitFor(async () => helper.output().includes("actions.log cannot be written"), "the warning", 5_000);
        const warnings = helper.output().split("actions.log cannot be written").length - 1;
        expect(warnings).toBe(1);
        expect(helper.output()).toMatch(/no space left on device/i);
      } finally {
        unlinkSync(log);
      }
      // Once the disk has room again the log is written, and the helper says so.
      await client.request("activate", { pid: calc });
      await waitFor(async () => helper.output().includes("actions.log is written again"), "the all-clear", 5_000);
      expect(readFileSync(log, "utf8")).toContain('"action":"activate"');
    });
  });

  describe("the X server killed under the helper", () => {
    let home: string;
    let socket: string;
    let client: HelperClient | undefined;

    beforeAll(async () => {
      const dir = await tempDir("dbf-");
      home = join(dir, "home");
      mkdirSync(home, { recursive: true, mode: 0o700 });
      socket = join(dir, "s", "helper.sock");
    });

    afterAll(async () => {
      await client?.close();
      await stopHelperAt(socket);
      await stopDesktop({ home });
      rmSync(home, { recursive: true, force: true });
    });

    it("lets the helper exit cleanly, and the next call brings a desktop and a helper back", async () => {
      // No DISPLAY: the launcher starts the virtual desktop of this DESKBOOK_HOME, as on a server.
      const { DISPLAY: _d, WAYLAND_DISPLAY: _w, XAUTHORITY: _x, ...rest } = process.env;
      const env: NodeJS.ProcessEnv = { ...rest, DESKBOOK_HOME: home, DESKBOOK_HELPER: HELPER_ENTRY, GSETTINGS_BACKEND: "memory" };
      client = await HelperClient.connect({ socketPath: socket, clientName: "x-fault", launch: () => launchHelper(socket, env), connectTimeoutMs: 30_000 });
      const first = await client.request("ping", {});
      const desktop = (await desktopStatus({ home })).state!;
      process.kill(desktop.pids.xvfb, "SIGKILL");
      const killedAt = performance.now();
      await waitFor(async () => !isAlive(first.pid), "the helper to exit", 10_000);
      measured("X server killed: helper gone after", performance.now() - killedAt, "-", true);
      expect(readFileSync(join(home, "..", "s", "helper.log"), "utf8")).toContain("the X display went away; the helper exits");
      expect(existsSync(socket)).toBe(false);
      const backAt = performance.now();
      const second = await client.request("listApps", {});
      measured("X server killed: next call brings a desktop back, in", performance.now() - backAt, "-", true);
      expect(second.length).toBeGreaterThan(0);
      const again = (await desktopStatus({ home })).state!;
      expect(again.pids.xvfb).not.toBe(desktop.pids.xvfb);
      expect((await desktopStatus({ home })).running).toBe(true);
    }, 90_000);
  });
});
