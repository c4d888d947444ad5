import { createReadStream, existsSync, symlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { insideMark, SIGNAL_MARK, stopMark } from "./stop-marks.js";

const SIGNAL_POLL_MS = 2;

/** Where the kernel reaches this executor to stop cells; none when run without a kernel. */
export interface StopChannel {
  /** The pipe the kernel writes the id of each cell to stop to. */
  fd: number;
  /** The directory of marks shared with the kernel (stop-marks.ts). */
  dir: string;
}

/**
 * The executor's end of the one stop path. The kernel writes the id of a cell to stop to a
 * pipe, which ends a cell that waits (an `await`) once the main thread reads it; a cell that
 * spins never reads it, so the kernel also breaks it with SIGINT, but only while the main
 * thread is inside user code for that cell.
 *
 * That "only while" is a mark in the stop directory: the main thread creates `inside-N` as
 * the first thing inside each breakOnSigint call and removes it as the last. The kernel
 * signals only after renaming `inside-N` away, which succeeds only while the mark is there;
 * the main thread, finding its mark gone as it leaves, waits inside the call until the
 * signal breaks it. So a SIGINT always lands inside a breakOnSigint call, where Node's
 * watchdog catches it; it never stops a later cell, and it can never meet Node's default
 * handler (which ends the process) in the gap Node leaves around each such call while a
 * cell's own SIGINT listener has the executor let go of the watchdog (sigint-watchdog.ts).
 */
export class StopGate {
  private readonly dir: string | undefined;
  /** Only for Atomics.wait: the main thread sleeps on it while a signal is on its way. */
  private readonly sleeper = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  private running = 0;
  private entries = 0;
  /** The mark of the user code the main thread is in, if it is. */
  private inside: string | undefined;
  private warned = false;

  constructor(onStop: (cellId: number) => void, channel?: StopChannel) {
    this.dir = channel?.dir;
    if (channel) readStopRequests(channel.fd, onStop);
  }

  /** Cell `id` starts; false when the kernel already asked to stop it. */
  cellStarting(id: number): boolean {
    this.running = id;
    return !this.dir || !existsSync(join(this.dir, stopMark(id)));
  }

  /** Cell `id` is over (finished or stopped); idempotent. */
  cellEnded(id: number): void {
    if (this.running === id) this.running = 0;
  }

  /** Called as the first thing inside a breakOnSigint call, where a SIGINT is caught. */
  enterUserCode(): void {
    if (!this.dir) return;
    this.entries++;
    const mark = join(this.dir, insideMark(this.running));
    try {
      // The entry count lets the kernel tell one long call for no cell from many short ones.
      placeMark(mark, String(this.entries));
      this.inside = mark;
    } catch (error) {
      // Without its mark this code cannot be broken by a signal; a waiting cell still stops,
      // and the kernel replaces an executor whose cell does not.
      if (!this.warned) process.stderr.write(`[deskbook executor] cannot write stop marks: ${(error as Error).message}\n`);
      this.warned = true;
    }
  }

  /**
   * Called as the last thing inside that call. If the kernel took the mark, its SIGINT is on
   * the way: wait here, still inside the call, for it to break us (Node's watchdog wakes
   * Atomics.wait).
   */
  leaveUserCode(): void {
    const mark = this.inside;
    if (!mark) return;
    this.inside = undefined;
    if (removed(mark)) return;
    // No deadline: leaving with the signal still on its way would let it stop the next cell.
    // The wait is bounded all the same: the kernel replaces an executor whose cell has not
    // stopped within 5 s, and the orphan watch ends the group if the kernel died meanwhile.
    // Short waits in a loop: a termination requested just before Atomics.wait begins is
    // only acted on at V8's next interrupt check, which the loop's back edge provides.
    for (;;) Atomics.wait(this.sleeper, 0, 0, SIGNAL_POLL_MS);
  }

  /** SIGINT broke user code: the signal has arrived, so the kernel may send another later. */
  interrupted(): void {
    if (this.inside) removed(this.inside);
    this.inside = undefined;
    if (this.dir) removed(join(this.dir, SIGNAL_MARK));
  }
}

/**
 * Creates the mark as a symbolic link whose target is `entries`: one system call that makes
 * the name and its content at once (~10 µs on /dev/shm here, against ~20 µs to write a file),
 * read back with readlink. A mark left by a call that a signal broke before it was noted is
 * replaced.
 */
function placeMark(path: string, entries: string): void {
  try {
    symlinkSync(entries, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    removed(path);
    symlinkSync(entries, path);
  }
}

/** Unlinks `path`; false when it was not there. */
function removed(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The main thread reads the stop pipe whenever it is free: that is what ends a waiting cell. */
function readStopRequests(fd: number, onStop: (cellId: number) => void): void {
  let buffered = "";
  const stream = createReadStream("", { fd, encoding: "utf8" });
  stream.on("data", (chunk: string | Buffer) => {
    buffered += String(chunk);
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const id = Number(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      if (Number.isSafeInteger(id) && id > 0) onStop(id);
    }
  });
  // The kernel is gone: the IPC disconnect ends this process (src/executor/main.ts).
  stream.on("error", () => undefined);
}
