// Ends everything that was started for one DESKBOOK_HOME: its live view, its helper (which outlives
// kernels on purpose), the apps that helper launched (they inherit DESKBOOK_HOME), and its virtual
// desktop, and the same for every per-kernel desktop under it. For whoever owns a home and is
// done with it: a kernel started with a private home, a test.
import { readdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { stopLiveView } from "../desktop/live-view.js";
import { pidsWithEnv } from "../desktop/process-env.js";
import { stopDesktop } from "../desktop/virtual-desktop.js";
import { stopHelperAt } from "../helper/helper-process.js";
import { KERNEL_DESKTOPS } from "../desktop/kernel-desktop.js";
import { isAlive, signal } from "../process-signals.js";

export { pidsWithEnv };

const GRACE_MS = 3_000;

export async function endHomeProcesses(home: string): Promise<void> {
  await endLiveView(home);
  for (const entry of subdirectories(join(home, KERNEL_DESKTOPS))) await endDesktopDirProcesses(join(home, KERNEL_DESKTOPS, entry));
  await stopHelperAt(join(home, "helper.sock"));
  await endPids(pidsWithEnv("DESKBOOK_HOME", home));
  await stopDesktop({ home });
}

/**
 * Ends one per-kernel desktop and removes its directory: the live view, the helper, whatever
 * was started with DESKBOOK_DESKTOP_DIR pointing there (apps, processes a cell spawned), then
 * Xvfb, D-Bus, AT-SPI and openbox.
 */
export async function endDesktopDirProcesses(dir: string): Promise<void> {
  await endLiveView(dir);
  await stopHelperAt(join(dir, "helper.sock"));
  await endPids(pidsWithEnv("DESKBOOK_DESKTOP_DIR", dir));
  await stopDesktop({ home: dir });
  await rm(dir, { recursive: true, force: true });
}

/** Stops the live view of the desktop in `home` and waits until its x11vnc and websockify are gone. */
async function endLiveView(home: string): Promise<void> {
  await endPids(stopLiveView(home));
}

function subdirectories(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** SIGTERM, then SIGKILL for whatever is still alive after the grace time. */
export async function endPids(pids: number[]): Promise<void> {
  for (const pid of pids) signal(pid, "SIGTERM");
  const deadline = Date.now() + GRACE_MS;
  while (Date.now() < deadline && pids.some(isAlive)) await sleep(100);
  for (const pid of pids.filter(isAlive)) signal(pid, "SIGKILL");
}
