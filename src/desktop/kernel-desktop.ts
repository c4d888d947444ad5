// A desktop per kernel (`"desktop": "per-kernel"` in config.json, or DESKBOOK_DESKTOP=per-kernel,
// which the kernelspec of `deskbook install --per-kernel-desktop` sets). The kernel gets its own
// directory, $DESKBOOK_HOME/desktops/<id>/, and its executor finds its desktop and helper there
// through DESKBOOK_DESKTOP_DIR: Xvfb, D-Bus, AT-SPI and openbox start on the first desk call, as
// the shared desktop does, and the helper listens on that directory's helper.sock. Everything
// ends with the kernel: the kernel ends it on shutdown (and on the shutdown of a restart), and a
// reaper waiting on the kernel's pid ends it when the kernel dies without one (SIGKILL, a crash).
import { spawn } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig, type DesktopMode } from "../config/config.js";
import { desktopModeFromEnv } from "./desktop-mode-env.js";
import { isAlive } from "../process-signals.js";
import { makeDirs } from "../make-dirs.js";

/** Written first into a kernel's desktop directory: whose desktop it is (for the reaper and `deskbook desktop list`). */
export interface DesktopOwner {
  version: 1;
  /** The Jupyter kernel id, from the connection file's name (kernel-<id>.json); null when it does not follow that form. */
  kernelId: string | null;
  /** The kernel process. */
  pid: number;
  connectionFile: string;
  startedAt: string;
}

export interface KernelDesktop {
  /** The directory's name: also the `desktop` field of this desktop's actions.log lines. */
  id: string;
  dir: string;
  /** The executor's environment: its helper, its apps and whatever a cell spawns land on this desktop, never on the user's display. */
  env: NodeJS.ProcessEnv;
  /** Ends the desktop and everything on it, and removes the directory. */
  end(): Promise<void>;
}

export const OWNER_FILE = "owner.json";
/** The display and buses the kernel was started with: a per-kernel desktop's executor must not reach them. */
const OUTSIDE_DESKTOP = ["DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS"] as const;
const REAPER_MAIN = fileURLToPath(new URL("./reaper-main.js", import.meta.url));
/** Per-kernel desktops live in $DESKBOOK_HOME/desktops/<id>/. */
export const KERNEL_DESKTOPS = "desktops";

/**
 * Ends a desktop directory's processes. The desktop stack it needs (Xvfb, the helper, the live
 * view) is loaded here, on use: every kernel imports this file for desktopMode, and most never
 * have a desktop of their own, so their start does not pay for it.
 */
async function endDesktopDir(dir: string): Promise<void> {
  const { endDesktopDirProcesses } = await import("../client/home-processes.js");
  await endDesktopDirProcesses(dir);
}

/**
 * DESKBOOK_DESKTOP (the kernelspec's) wins over config.json's `desktop`, and a bad value throws
 * its DesktopModeError; an invalid config.json leaves the default, "shared", and its error to the cells.
 */
export function desktopMode(home: string, env: NodeJS.ProcessEnv = process.env): DesktopMode {
  const fromEnv = desktopModeFromEnv(env);
  if (fromEnv instanceof Error) throw fromEnv;
  if (fromEnv) return fromEnv;
  try {
    return loadConfig(home).desktop;
  } catch {
    return "shared";
  }
}

export function kernelDesktopsDir(home: string): string {
  return join(home, KERNEL_DESKTOPS);
}

/** The kernel id in a connection file's name, as Jupyter's kernel managers name them (kernel-<id>.json). */
export function kernelIdFrom(connectionFile: string): string | null {
  return /^kernel-(.+)\.json$/.exec(basename(connectionFile))?.[1] ?? null;
}

/**
 * Prepares this kernel's desktop directory and its reaper. Nothing runs on the desktop until the
 * first desk call. Desktops left by kernels that died while no reaper watched (a reboot) go first.
 */
export async function openKernelDesktop(home: string, connectionFile: string, env: NodeJS.ProcessEnv = process.env): Promise<KernelDesktop> {
  await endOrphanedDesktops(home);
  const kernelId = kernelIdFrom(connectionFile);
  // Short: the helper's socket path inside it must stay under the 104 bytes sockets allow.
  const id = `${(kernelId ?? "kernel").replace(/[^A-Za-z0-9]/g, "").slice(0, 8) || "kernel"}-${process.pid}`;
  const dir = join(kernelDesktopsDir(home), id);
  await makeDirs(dir, 0o700);
  const owner: DesktopOwner = { version: 1, kernelId, pid: process.pid, connectionFile, startedAt: new Date().toISOString() };
  await writeFile(join(dir, OWNER_FILE), `${JSON.stringify(owner, null, 2)}\n`, { mode: 0o600 });
  spawnReaper(process.pid, dir);
  const executorEnv: NodeJS.ProcessEnv = { ...env, DESKBOOK_DESKTOP_DIR: dir };
  for (const name of OUTSIDE_DESKTOP) delete executorEnv[name];
  // A DESKBOOK_SOCKET the user set names one helper for every kernel; this kernel's is in its directory.
  delete executorEnv.DESKBOOK_SOCKET;
  let ending: Promise<void> | undefined;
  return { id, dir, env: executorEnv, end: () => (ending ??= endDesktopDir(dir)) };
}

/** Every per-kernel desktop directory under `home` with its owner (null when owner.json is unreadable). */
export async function kernelDesktopDirs(home: string): Promise<{ dir: string; owner: DesktopOwner | null }[]> {
  const root = kernelDesktopsDir(home);
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  return Promise.all(
    entries.filter((entry) => entry.isDirectory()).map(async (entry) => ({ dir: join(root, entry.name), owner: await readOwner(join(root, entry.name)) })),
  );
}

async function readOwner(dir: string): Promise<DesktopOwner | null> {
  try {
    const parsed = JSON.parse(await readFile(join(dir, OWNER_FILE), "utf8")) as Partial<DesktopOwner>;
    return parsed.version === 1 && typeof parsed.pid === "number" ? (parsed as DesktopOwner) : null;
  } catch {
    return null;
  }
}

async function endOrphanedDesktops(home: string): Promise<void> {
  for (const { dir, owner } of await kernelDesktopDirs(home)) {
    // No owner yet may be a kernel writing it right now: only a dead owner's desktop is ended.
    if (owner && !isAlive(owner.pid)) await endDesktopDir(dir);
  }
}

/**
 * A detached shell that waits for the kernel's pid (tail --pid polls it) and then, if the
 * directory is still there (the kernel did not end it itself), ends the desktop. Its own
 * environment is bare, so that it never matches the DESKBOOK_DESKTOP_DIR it ends.
 */
function spawnReaper(kernelPid: number, dir: string): void {
  const script = 'tail --pid="$1" -s 0.5 -f /dev/null 2>/dev/null; [ -d "$2" ] && exec "$3" "$4" "$2"';
  const child = spawn("/bin/sh", ["-c", script, "deskbook-reaper", String(kernelPid), dir, process.execPath, REAPER_MAIN], {
    detached: true,
    stdio: "ignore",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/" },
  });
  child.unref();
}
