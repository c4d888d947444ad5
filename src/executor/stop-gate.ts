import { Worker } from "node:worker_threads";

/**
 * Shared words between the executor's main thread and its stop-gate worker
 * (src/executor/stop-gate-worker.ts). The main thread writes where it is; the worker
 * reads stop requests from the kernel and decides how to deliver each.
 */
export const Word = {
  /** 0 outside user code; the running cell's id, or IDLE, while inside a breakOnSigint call; SIGNALING once the worker sent SIGINT. */
  Region: 0,
  /** The id of the cell the session is running, 0 when none. */
  Running: 1,
  /** The id of the last cell that ended (finished or stopped). */
  Done: 2,
  /** The highest cell id the kernel asked to stop. */
  Stop: 3,
  /** Counts the main thread's entries into user code, so the worker can tell one long call from many short ones. */
  Entries: 4,
} as const;
export const WORDS = 5;
export const IDLE = -1;
export const SIGNALING = -2;

/** How long the main thread waits, inside user code, for a SIGINT already sent to break it. */
const SIGNAL_WAIT_MS = 5_000;
const SIGNAL_POLL_MS = 2;

/**
 * The executor's end of the one stop path. The kernel never signals the executor: it
 * writes the id of the cell to stop to a pipe, a worker thread reads it (even while the
 * main thread spins) and either tells the main thread (a waiting cell ends on that) or,
 * when the main thread is inside user code for that cell, sends SIGINT to this process.
 *
 * The worker signals only after swapping Region from the cell's id to SIGNALING, and the
 * main thread cannot leave user code while Region is SIGNALING: it waits there until the
 * signal breaks it. So a SIGINT always lands inside a breakOnSigint call, where Node's
 * watchdog catches it; it can never meet Node's default handler (which ends the process)
 * in the gap Node leaves around each such call, and never stops a later cell.
 */
export class StopGate {
  private readonly words = new Int32Array(new SharedArrayBuffer(WORDS * Int32Array.BYTES_PER_ELEMENT));
  private worker: Worker | undefined;

  /** `stopFd`: the pipe the kernel writes stop requests to; none when run without a kernel. */
  constructor(onStop: (cellId: number) => void, stopFd?: number) {
    if (stopFd === undefined) return;
    this.worker = new Worker(new URL("./stop-gate-worker.js", import.meta.url), { workerData: { words: this.words, fd: stopFd } });
    this.worker.on("message", (cellId: number) => onStop(cellId));
    this.worker.on("error", (error) => process.stderr.write(`[deskbook executor] stop gate failed: ${String(error)}\n`));
    this.worker.unref();
  }

  /** Resolves once the worker reads the pipe; a cell that runs before that still sees stops, which the pipe keeps. */
  whenReady(): Promise<void> {
    const worker = this.worker;
    if (!worker) return Promise.resolve();
    return new Promise((resolve) => worker.once("online", () => resolve()));
  }

  /** Cell `id` starts; false when the kernel already asked to stop it. */
  cellStarting(id: number): boolean {
    Atomics.store(this.words, Word.Running, id);
    return Atomics.load(this.words, Word.Stop) < id;
  }

  /** Cell `id` is over (finished or stopped); idempotent. */
  cellEnded(id: number): void {
    Atomics.compareExchange(this.words, Word.Running, id, 0);
    if (Atomics.load(this.words, Word.Done) < id) Atomics.store(this.words, Word.Done, id);
  }

  /** Called as the first thing inside a breakOnSigint call, where a SIGINT is caught. */
  enterUserCode(): void {
    const running = Atomics.load(this.words, Word.Running);
    Atomics.add(this.words, Word.Entries, 1);
    Atomics.store(this.words, Word.Region, running > 0 ? running : IDLE);
  }

  /**
   * Called as the last thing inside that call. If the worker has sent SIGINT, wait here,
   * still inside the call, for the signal to break us (Node's watchdog wakes Atomics.wait).
   */
  leaveUserCode(): void {
    const region = Atomics.load(this.words, Word.Region);
    if (region !== SIGNALING && Atomics.compareExchange(this.words, Word.Region, region, 0) === region) return;
    // Short waits in a loop: a termination requested just before Atomics.wait begins is
    // only acted on at V8's next interrupt check, which the loop's back edge provides.
    const deadline = Date.now() + SIGNAL_WAIT_MS;
    while (Atomics.load(this.words, Word.Region) === SIGNALING && Date.now() < deadline) {
      Atomics.wait(this.words, Word.Region, SIGNALING, SIGNAL_POLL_MS);
    }
    if (Atomics.load(this.words, Word.Region) === SIGNALING) {
      process.stderr.write(`[deskbook executor] a stop signal did not arrive within ${SIGNAL_WAIT_MS} ms\n`);
    }
    Atomics.store(this.words, Word.Region, 0);
  }

  /** SIGINT broke user code: the signal has arrived, so the worker may send another later. */
  interrupted(): void {
    Atomics.store(this.words, Word.Region, 0);
  }
}
