import { spawn } from "node:child_process";

/** After the kernel's end closed: time for this process's own exit on the IPC disconnect. */
const ORPHAN_GRACE_S = 1;

/** Removals of the stop directory tried before giving up (each fails only to a mark written meanwhile). */
const REMOVE_TRIES = 50;

// Waits for the end of the kernel's life pipe (the kernel never writes to it, so `read`
// returns only when the kernel's end closes), removes the stop directory at once (with the
// kernel gone nobody needs the marks, and a dead kernel could not remove them), gives the
// executor its grace to exit on the disconnect, and then ends its process group whether or
// not the executor still runs: the executor leads it, what its cells started is in it (and
// outlives an executor that exited), and so is this shell. It ignores HUP, INT and TERM, so a
// clean-up that signals everything carrying DESKBOOK_HOME cannot stop it halfway.
// The executor still runs while the directory goes, and a cell entering a call writes a mark:
// one written between rm's listing and its rmdir fails the rmdir, so rm is tried again. Once
// the directory is gone no mark can be made in it (the executor never creates the directory).
const WATCH = [
  "trap '' HUP INT TERM",
  "read line",
  `n=0; until rm -rf "$1" 2>/dev/null || [ $n -ge ${REMOVE_TRIES} ]; do n=$((n + 1)); done`,
  `sleep ${ORPHAN_GRACE_S}`,
  "kill -KILL 0",
].join("; ");

/**
 * The kernel is gone (it exited, or was killed with SIGKILL): nobody will read this process's
 * results. A main thread that is free exits on the IPC disconnect; one spinning in a cell never
 * sees it, and neither exit ends what the cells started, so a small shell outside this process
 * ends the group, as the kernel itself would.
 * `lifeFd`: the executor's end of a pipe only the kernel holds the other end of.
 */
export function watchForOrphaning(lifeFd: number, stopDir: string | undefined): void {
  const watcher = spawn("/bin/sh", ["-c", WATCH, "deskbook-orphan-watch", stopDir ?? ""], { stdio: [lifeFd, "ignore", "ignore"] });
  watcher.on("error", (error) => process.stderr.write(`[deskbook executor] cannot watch for the kernel's end: ${error.message}\n`));
  watcher.unref();
}
