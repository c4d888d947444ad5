import { spawn } from "node:child_process";

/** After the kernel's end closed: time for this process's own exit on the IPC disconnect. */
const ORPHAN_GRACE_S = 1;

// Waits for the end of the kernel's life pipe (the kernel never writes to it, so `read`
// returns only when the kernel's end closes), gives the executor its grace, removes the stop
// directory a dead kernel could not, and then, if the executor still runs, ends its process
// group (the executor leads it; what its cells started is in it, and so is this shell).
const WATCH = `read line; sleep ${ORPHAN_GRACE_S}; rm -rf "$2"; kill -0 "$1" 2>/dev/null && kill -KILL 0`;

/**
 * The kernel is gone (it exited, or was killed with SIGKILL): nobody will read this process's
 * results. A main thread that is free exits on the IPC disconnect; one spinning in a cell never
 * sees it, so a small shell outside this process ends the group, as the kernel itself would.
 * `lifeFd`: the executor's end of a pipe only the kernel holds the other end of.
 */
export function watchForOrphaning(lifeFd: number, stopDir: string | undefined): void {
  const watcher = spawn("/bin/sh", ["-c", WATCH, "deskbook-orphan-watch", String(process.pid), stopDir ?? ""], { stdio: [lifeFd, "ignore", "ignore"] });
  watcher.on("error", (error) => process.stderr.write(`[deskbook executor] cannot watch for the kernel's end: ${error.message}\n`));
  watcher.unref();
}
