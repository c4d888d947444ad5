// The virtual desktop: one start per home, reuse, status per part, and a stop that leaves no
// process behind. Uses a private DESKBOOK_HOME so a user's desktop is never touched.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDesktop } from "../../src/cli/desktop.js";
import dbus from "dbus-next";
import { REGISTRY_NAME } from "../../src/desktop/atspi-registry.js";
import { pidsWithEnv } from "../../src/desktop/process-env.js";
import { desktopStatus, desktopStatePath, ensureDesktop, startDesktop, stopDesktop } from "../../src/desktop/virtual-desktop.js";
import { createSecondUser, secondUserUnavailable } from "../support/second-user.js";

const hasXvfb = spawnSync("sh", ["-c", "command -v Xvfb"]).status === 0;
if (!hasXvfb) console.warn("test/linux/virtual-desktop.test.ts skipped: Xvfb is not installed");

describe.skipIf(!hasXvfb)("virtual desktop", () => {
  let home: string;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "deskbook-desktop-test-"));
  });

  afterAll(async () => {
    if (!home) return;
    await stopDesktop({ home });
    await rm(home, { recursive: true, force: true });
  });

  it("starts once and reuses the live desktop", async () => {
    const first = await startDesktop({ home });
    const second = await startDesktop({ home });
    expect(first.reused).toBe(false);
    expect(second.reused).toBe(true);
    expect(second.env).toEqual(first.env);
    expect(await ensureDesktop({ home })).toEqual(first.env);
    expect(first.env.DISPLAY).toMatch(/^:\d+$/);
    expect(existsSync(desktopStatePath(home))).toBe(true);
  });

  it("has the AT-SPI registry running on its accessibility bus once start returns", async () => {
    // Apps must never be the ones to activate it: Qt 5 waits on it with its tree unexported.
    const { AT_SPI_BUS_ADDRESS } = await ensureDesktop({ home });
    const bus = dbus.sessionBus({ busAddress: AT_SPI_BUS_ADDRESS });
    bus.on("error", () => undefined);
    try {
      const reply = await bus.call(new dbus.Message({ destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "NameHasOwner", signature: "s", body: [REGISTRY_NAME] }));
      expect(reply?.body[0]).toBe(true);
    } finally {
      bus.disconnect();
    }
  });

  it("runs a 1280x800 X server that clients with its cookie can reach", async () => {
    const { DISPLAY, XAUTHORITY } = await ensureDesktop({ home });
    const info = spawnSync("xdpyinfo", ["-display", DISPLAY], { encoding: "utf8", env: { ...process.env, XAUTHORITY } });
    if (info.error) return; // x11-utils missing: the status test below still covers liveness
    expect(info.stdout).toMatch(/dimensions:\s+1280x800 pixels/);
  });

  it("keeps its cookie in a 0600 file and refuses clients without it", async () => {
    const { DISPLAY, XAUTHORITY } = await ensureDesktop({ home });
    expect(statSync(XAUTHORITY).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(XAUTHORITY)).mode & 0o777).toBe(0o700);
    // An empty authority file: the same user, without the cookie.
    const refused = spawnSync("xdpyinfo", ["-display", DISPLAY], { encoding: "utf8", env: { ...process.env, XAUTHORITY: "/dev/null" } });
    if (refused.error) return;
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/unable to open display/);
  });

  it.skipIf(secondUserUnavailable() !== null)("refuses another local user, who cannot read the cookie either", async () => {
    const { DISPLAY, XAUTHORITY } = await ensureDesktop({ home });
    const other = createSecondUser();
    try {
      const cat = other.run("cat", [XAUTHORITY]);
      expect(cat.status).not.toBe(0);
      const xdpyinfo = other.run("xdpyinfo", ["-display", DISPLAY], { XAUTHORITY });
      expect(xdpyinfo.status).not.toBe(0);
      expect(xdpyinfo.stderr).toMatch(/unable to open display/);
    } finally {
      other.remove();
    }
  });

  it("reports each part alive, also through the CLI", async () => {
    const status = await desktopStatus({ home });
    expect(status.running).toBe(true);
    expect(status.parts.map((p) => [p.name, p.alive])).toEqual([
      ["xvfb", true],
      ["dbus", true],
      ["atspi", true],
      ["openbox", true],
    ]);
    const out: string[] = [];
    const code = await runDesktop(["status", "--json"], { stdout: (t) => out.push(t), stderr: () => undefined, options: { home } });
    expect(code).toBe(0);
    expect(JSON.parse(out.join(""))).toMatchObject({ running: true, state: { display: status.state?.display } });
  });

  it("prints eval-able exports on start", async () => {
    const out: string[] = [];
    const code = await runDesktop(["start"], { stdout: (t) => out.push(t), stderr: () => undefined, options: { home } });
    expect(code).toBe(0);
    expect(out.join("")).toMatch(/^export DISPLAY=:\d+\nexport DBUS_SESSION_BUS_ADDRESS=.+\nexport AT_SPI_BUS_ADDRESS=.+\nexport XAUTHORITY=.+\n$/);
  });

  it("stops every process of the group and forgets it", async () => {
    const before = await desktopStatus({ home });
    const pids = before.parts.map((p) => p.pid);
    expect(await stopDesktop({ home })).toBe(true);
    expect(pids.filter(isRunning)).toEqual([]);
    expect(existsSync(desktopStatePath(home))).toBe(false);
    expect(existsSync(before.state?.runtimeDir ?? "/nonexistent")).toBe(false);
    expect((await desktopStatus({ home })).running).toBe(false);
    expect(await stopDesktop({ home })).toBe(false);
  });

  it("ends a desktop whose launcher was killed before recording it, at the next stop or start", async () => {
    const abandoned = await mkdtemp(join(tmpdir(), "deskbook-desktop-test-abandoned-"));
    try {
      for (const next of ["stop", "start"] as const) {
        const runtimeDir = await killLauncherMidway(abandoned);
        // Killed before desktop.json named the desktop: only the pending launch says it exists.
        expect(existsSync(desktopStatePath(abandoned))).toBe(false);
        expect(pidsWithEnv("DESKBOOK_RUNTIME", runtimeDir).length).toBeGreaterThan(0);
        if (next === "stop") {
          expect(await stopDesktop({ home: abandoned })).toBe(true);
        } else {
          const started = await startDesktop({ home: abandoned });
          expect(started.reused).toBe(false);
          expect(started.state.runtimeDir).not.toBe(runtimeDir);
        }
        expect(pidsWithEnv("DESKBOOK_RUNTIME", runtimeDir)).toEqual([]);
        expect(existsSync(runtimeDir)).toBe(false);
      }
      expect(await stopDesktop({ home: abandoned })).toBe(true);
    } finally {
      await stopDesktop({ home: abandoned });
      await rm(abandoned, { recursive: true, force: true });
    }
  }, 60_000);
});

const DESKTOP_JS = fileURLToPath(new URL("../../dist/src/desktop/virtual-desktop.js", import.meta.url));

/**
 * Starts the desktop of `home` in another process and SIGKILLs that process once the desktop's
 * processes run but before it recorded them (as when a kernel ends during the first desk call).
 * Returns the abandoned launch's runtime directory.
 */
async function killLauncherMidway(home: string): Promise<string> {
  const code = `const m = await import(${JSON.stringify(DESKTOP_JS)}); await m.startDesktop({ home: ${JSON.stringify(home)} });`;
  const launcher = spawn(process.execPath, ["--input-type=module", "-e", code], { stdio: "ignore" });
  const exited = new Promise((resolve) => launcher.once("exit", resolve));
  const deadline = Date.now() + 20_000;
  for (;;) {
    const pending = await readFile(join(home, "desktop-launch.json"), "utf8").catch(() => "");
    // Half written, or not yet there: look again.
    const runtimeDir = /^\{.*\}\s*$/s.test(pending) ? (JSON.parse(pending) as { runtimeDir: string }).runtimeDir : "";
    if (runtimeDir && pidsWithEnv("DESKBOOK_RUNTIME", runtimeDir).length > 0) {
      launcher.kill("SIGKILL");
      await exited;
      return runtimeDir;
    }
    if (launcher.exitCode !== null || Date.now() > deadline) {
      launcher.kill("SIGKILL");
      throw new Error("the launcher never started a desktop");
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = spawnSync("cat", [`/proc/${pid}/stat`], { encoding: "utf8" }).stdout;
  return !/^\d+ \(.*\) Z/s.test(stat);
}
