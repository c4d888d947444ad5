import { readFileSync } from "node:fs";

/** The stop directory the kernel gave executor `pid` (its `--stop-dir=` argument). */
export function stopDirOf(pid: number): string {
  const arg = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").find((a) => a.startsWith("--stop-dir="));
  if (!arg) throw new Error(`process ${pid} has no --stop-dir argument`);
  return arg.slice("--stop-dir=".length);
}
