// Signalling processes that may already be gone, and telling whether one still runs: for
// everything that ends what it started (desktops, helpers, a home's processes, the tests).
import { readFileSync } from "node:fs";

/** kill(pid, 0) says yes for zombies too, so on Linux the state letter in /proc decides. */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 1) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true; // no /proc (macOS), or gone this instant: kill(pid, 0) just said it was there
  }
}

/** Sends `name` to `pid` (a negative pid: its process group); one already gone is no error. */
export function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}
