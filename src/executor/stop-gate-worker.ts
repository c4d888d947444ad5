// The stop gate's worker thread (see stop-gate.ts): reads the ids of cells to stop from the
// kernel's pipe, tells the main thread, and sends SIGINT only while the main thread is
// inside user code for that cell.
import { createReadStream } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { IDLE, SIGNALING, Word } from "./stop-gate.js";

const words = (workerData as { words: Int32Array }).words;
const fd = (workerData as { fd: number }).fd;

const RETRY_MS = 5;
/** A call into user code with no cell running that lasts this long blocks the next cell: break it. */
const STUCK_IDLE_MS = 50;
/** The kernel replaces an executor that has not stopped after 5 s; stop trying a little later. */
const GIVE_UP_MS = 10_000;
/** After the kernel's end of the pipe closed: time for the main thread's own exit on disconnect. */
const ORPHAN_GRACE_MS = 1_000;

let buffered = "";
createReadStream("", { fd, encoding: "utf8" }).on("data", (chunk: string | Buffer) => {
  buffered += String(chunk);
  let newline: number;
  while ((newline = buffered.indexOf("\n")) >= 0) {
    const id = Number(buffered.slice(0, newline));
    buffered = buffered.slice(newline + 1);
    if (Number.isSafeInteger(id) && id > 0) requestStop(id);
  }
}).on("end", endIfOrphaned).on("error", endIfOrphaned);

/**
 * The kernel is gone (it exited, or was killed with SIGKILL): nobody will read this process's
 * results. A main thread that is free exits on the IPC disconnect; one spinning in a cell never
 * sees it, so after a grace this thread ends the process group (the executor leads it, and what
 * its cells started is in it), as the kernel itself would.
 */
function endIfOrphaned(): void {
  setTimeout(() => {
    try {
      process.kill(-process.pid, "SIGKILL");
    } catch {
      process.kill(process.pid, "SIGKILL");
    }
  }, ORPHAN_GRACE_MS);
}

function requestStop(id: number): void {
  if (Atomics.load(words, Word.Stop) < id) Atomics.store(words, Word.Stop, id);
  // A cell that waits ends on this message; one that spins never reads it, hence the signal.
  parentPort?.postMessage(id);
  attempt(id, Date.now(), undefined);
}

/** One try at breaking cell `id`; retries until the cell is over. */
function attempt(id: number, since: number, idleSeen: { entries: number; at: number } | undefined): void {
  if (Atomics.load(words, Word.Done) >= id || Date.now() - since > GIVE_UP_MS) return;
  const region = Atomics.load(words, Word.Region);
  if (region === id) {
    signalIfStill(id);
  } else if (region === IDLE && Atomics.load(words, Word.Running) === 0) {
    // The cell has not started: the main thread runs older code (a timer, a continuation).
    // Only if that one call goes on and on does it block the cell, and then it is broken.
    const entries = Atomics.load(words, Word.Entries);
    if (idleSeen?.entries !== entries) idleSeen = { entries, at: Date.now() };
    else if (Date.now() - idleSeen.at >= STUCK_IDLE_MS) signalIfStill(IDLE);
  }
  setTimeout(() => attempt(id, since, idleSeen), RETRY_MS);
}

function signalIfStill(region: number): void {
  if (Atomics.compareExchange(words, Word.Region, region, SIGNALING) === region) process.kill(process.pid, "SIGINT");
}
