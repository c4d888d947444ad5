// A private desktop for one X11 test file: the team's virtual desktop (Xvfb, session bus,
// AT-SPI bus, openbox) started under a temporary DESKBOOK_HOME so parallel test files never
// share a screen, plus apps started with a private HOME. stop() ends everything it started.

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDesktop, stopDesktop } from "../../src/desktop/virtual-desktop.js";
import type { WindowInfo } from "../../src/helper/protocol.js";
import { windowsOfPid } from "../../helper/linux/windows.js";
import { restoreKeymap } from "../../helper/linux/input.js";
import { closeSharedX11 } from "../../helper/linux/x11-client.js";

export interface TestDesktop {
  display: string;
  /** Scratch directory, also the apps' HOME. */
  dir: string;
  /** Environment for apps and tools (xdotool) on this desktop. */
  env: NodeJS.ProcessEnv;
  /** Starts an app; it is killed by stop(). */
  launch(command: string, args?: string[]): ChildProcess;
  stop(): Promise<void>;
}

/** True when the binaries the desktop needs are installed (tests skip otherwise). */
export function hasX11Tools(): boolean {
  return ["Xvfb", "openbox", "dbus-daemon", "xdotool"].every(
    (bin) => spawnSync("sh", ["-c", `command -v ${bin}`]).status === 0,
  );
}

/** Starts a private desktop and points this process's X connection (DISPLAY, XAUTHORITY) at it. */
export async function startTestDesktop(): Promise<TestDesktop> {
  const dir = mkdtempSync(join(tmpdir(), "deskbook-x11-test-"));
  const home = join(dir, "deskbook");
  const { env: desktopEnv } = await startDesktop({ home }).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true }); // a failed start must not leave the directory behind
    throw error;
  });
  process.env.DISPLAY = desktopEnv.DISPLAY;
  process.env.XAUTHORITY = desktopEnv.XAUTHORITY;
  writeGtkSettings(dir);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...desktopEnv,
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, ".config"),
    XDG_CACHE_HOME: join(dir, ".cache"),
    XDG_DATA_HOME: join(dir, ".local/share"),
    // No accessibility needed here, and no dconf writes.
    NO_AT_BRIDGE: "1",
    GSETTINGS_BACKEND: "memory",
    // Classic scrollbars: overlay ones fade in and out and make screenshots differ.
    GTK_OVERLAY_SCROLLING: "0",
  };
  const apps: ChildProcess[] = [];
  return {
    display: desktopEnv.DISPLAY,
    dir,
    env,
    launch(command, args = []) {
      const child = spawn(command, args, { env, stdio: "ignore" });
      apps.push(child);
      return child;
    },
    async stop() {
      await restoreKeymap().catch(() => undefined);
      await closeSharedX11();
      await Promise.all(apps.map(killChild));
      await stopDesktop({ home });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls until `probe` gives a truthy value. */
export async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The app's main window, once the window manager lists it. */
export function mainWindow(pid: number): Promise<WindowInfo> {
  return waitFor(async () => (await windowsOfPid(pid)).find((w) => w.main), `a window of pid ${pid}`);
}

/** Runs a command on the desktop (xdotool, xwininfo); returns stdout. */
export function run(desktop: TestDesktop, command: string, args: string[]): string {
  const result = spawnSync(command, args, { env: desktop.env, encoding: "utf8", timeout: 10_000 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** No blinking cursor or animations, so two screenshots of an idle app are identical. */
function writeGtkSettings(home: string): void {
  const gtk = join(home, ".config", "gtk-3.0");
  mkdirSync(gtk, { recursive: true });
  writeFileSync(join(gtk, "settings.ini"), "[Settings]\ngtk-cursor-blink=false\ngtk-enable-animations=false\n");
}

async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 2000);
  await exited;
  clearTimeout(timer);
}

/** The pid of the openbox managing `display` (each test desktop runs its own). */
export function openboxOf(display: string): number {
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "openbox") continue;
      if (readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`DISPLAY=${display}`)) return pid;
    } catch {
      // The process ended meanwhile.
    }
  }
  throw new Error(`no openbox on display ${display}`);
}
