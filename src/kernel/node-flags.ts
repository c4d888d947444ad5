/**
 * Node flags of the kernel process: every launcher puts them on node's command line (the
 * kernelspec's argv, Deskbook's own launcher, the bench), since V8 sizes its heap and its
 * worker pool when the process starts and ignores later changes.
 *
 * The kernel runs no user code: it moves a few KiB of messages per cell and keeps history.
 * Measured over 1000 cells (issue 12, docs/design.md): its young generation doubled under
 * V8's default sizing, and each of V8's four worker threads (concurrent compiling and
 * marking) left a malloc arena of its own; its RSS grew ~12-15 MB, with these flags ~4 MB,
 * and the round trip the same within noise (a scavenge of a 1 MB semi-space takes a fraction of a ms).
 */
export const KERNEL_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=1", "--v8-pool-size=1"];

/**
 * The executor's flags: the kernel's own (a profiler's, an inspector's) without the kernel's
 * heap sizing, since cells allocate as they please and a 1 MB semi-space makes
 * allocation-heavy code several times slower. (The executor turns V8's compilation cache off
 * itself, once it has started: src/executor/main.ts.)
 */
export function executorNodeFlags(kernelFlags: readonly string[] = process.execArgv): string[] {
  return kernelFlags.filter((flag) => !KERNEL_NODE_FLAGS.includes(flag));
}
