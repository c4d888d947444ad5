// Ends everything that was started for one DESKBOOK_HOME: its helper (which outlives kernels on
// purpose), the apps that helper launched (they inherit DESKBOOK_HOME), and its virtual
// desktop. For whoever owns a home and is done with it: a kernel started with a private home,
// a test.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { stopDesktop } from "../desktop/virtual-desktop.js";
import { stopHelperAt } from "../helper/helper-process.js";

const GRACE_MS = 3_000;

export async function endHomeProcesses(home: string): Promise<void> {
  await stopHelperAt(join(home, "helper.sock"));
  await endPids(pidsWithEnv("DESKBOOK_HOME", home));
  await stopDesktop({ home });
}

/** Processes (not this one) whose environment holds NAME=value exactly. */
export function pidsWithEnv(name: string, value: string): number[] {
  const wanted = `\0${name}=${value}\0`;
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .map(Number)
    .filter((pid) => {
      try {
        return `\0${readFileSync(`/proc/${pid}/environ`, "utf8")}\0`.includes(wanted);
      } catch {
        return false; // gone, or not ours to read
      }
    });
}

/** SIGTERM, then SIGKILL for whatever is still alive after the grace time. */
export async function endPids(pids: number[]): Promise<void> {
  for (const pid of pids) signal(pid, "SIGTERM");
  const deadline = Date.now() + GRACE_MS;
  while (Date.now() < deadline && pids.some(isAlive)) await sleep(100);
  for (const pid of pids.filter(isAlive)) signal(pid, "SIGKILL");
}

function isAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}
