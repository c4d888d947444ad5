/**
 * Finds and ends a helper by the socket it serves. A helper the executor launched is not a
 * child of the test, so its command line (`… main.js --socket PATH`) is the handle on it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { signal } from "../process-signals.js";

/** Pids whose command line holds `--socket PATH` (a zombie's is empty, so it never matches). */
export function helperPids(socketPath: string): number[] {
  const wanted = `\0--socket\0${socketPath}\0`;
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return `\0${readFileSync(`/proc/${entry}/cmdline`, "utf8")}`.includes(wanted);
      } catch {
        return false; // gone, or not ours to read
      }
    })
    .map(Number);
}

/** SIGTERM (the helper gives back borrowed keycodes and removes its socket), SIGKILL after 3 s. */
export async function stopHelperAt(socketPath: string): Promise<void> {
  for (const pid of helperPids(socketPath)) signal(pid, "SIGTERM");
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline && helperPids(socketPath).length > 0) await sleep(100);
  for (const pid of helperPids(socketPath)) signal(pid, "SIGKILL");
}
