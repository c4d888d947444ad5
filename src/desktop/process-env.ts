// Finding processes by a variable in their environment: what a desktop, a helper or an app
// started for one home or one runtime directory carries, even when no pid was recorded.
import { readdirSync, readFileSync } from "node:fs";

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
