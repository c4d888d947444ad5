// The names in an executor's stop directory, the one state the kernel and the executor share
// for stopping a cell (see stop-gate.ts and src/kernel/stop-signal.ts). A rename is atomic, so
// taking a file by renaming it is a compare-and-swap between two processes.

/** The kernel asked to stop cell `id`; made before the request is sent, so a cell not started yet sees it. */
export function stopMark(cellId: number): string {
  return `stop-${cellId}`;
}

/**
 * The main thread is inside user code for cell `id` (0: user code that belongs to no running
 * cell): a symbolic link whose target is the count of entries so far (it points at nothing).
 */
export function insideMark(cellId: number): string {
  return `inside-${cellId}`;
}

/** The kernel took an `inside-N` by renaming it to this and sent SIGINT; the main thread waits inside for it. */
export const SIGNAL_MARK = "signal";
