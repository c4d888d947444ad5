import { readlinkSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { insideMark, SIGNAL_MARK, stopMark } from "../executor/stop-marks.js";

const RETRY_MS = 5;
/** A call into user code with no cell running that lasts this long blocks the next cell: break it. */
const STUCK_IDLE_MS = 50;
/** The kernel replaces an executor that has not stopped after 5 s; stop trying a little later. */
const GIVE_UP_MS = 10_000;

/** The executor a stop is for: its stop directory, and whether it still runs the cell. */
export interface StopTarget {
  dir: string;
  pid: number;
  /** False once the cell is over or the executor is gone. */
  stillRunning(): boolean;
}

/**
 * The kernel's half of breaking a cell that spins (src/executor/stop-gate.ts has the other
 * half and the reasoning). It records the stop, so a cell that has not started yet never
 * runs, then takes the executor's `inside-N` mark by renaming it and sends SIGINT only if
 * that rename succeeded: the executor's main thread is then inside user code for that cell
 * and cannot leave it before the signal arrives. Retries every 5 ms until the cell is over.
 */
export function recordStop(target: StopTarget, cellId: number): void {
  try {
    writeFileSync(join(target.dir, stopMark(cellId)), "");
  } catch {
    // The executor ended meanwhile and its directory went with it: there is nothing to stop.
  }
}

export function breakCell(target: StopTarget, cellId: number): void {
  attempt(target, cellId, Date.now(), undefined);
}

function attempt(target: StopTarget, cellId: number, since: number, idleSeen: { entries: string; at: number } | undefined): void {
  if (!target.stillRunning() || Date.now() - since > GIVE_UP_MS) return;
  if (!signalIfInside(target, cellId)) {
    // The cell has not started: the main thread runs older code (a timer, a continuation).
    // Only if that one call goes on and on does it block the cell, and then it is broken.
    const entries = readEntries(target.dir);
    if (entries === undefined) idleSeen = undefined;
    else if (idleSeen?.entries !== entries) idleSeen = { entries, at: Date.now() };
    else if (Date.now() - idleSeen.at >= STUCK_IDLE_MS) signalIfInside(target, 0);
  }
  setTimeout(() => attempt(target, cellId, since, idleSeen), RETRY_MS).unref();
}

/** Takes `inside-<cellId>` and sends SIGINT; false when the main thread was not inside for it. */
function signalIfInside(target: StopTarget, cellId: number): boolean {
  try {
    renameSync(join(target.dir, insideMark(cellId)), join(target.dir, SIGNAL_MARK));
  } catch {
    return false;
  }
  try {
    process.kill(target.pid, "SIGINT");
  } catch {
    // It died meanwhile: the kernel's exit handling takes over.
  }
  return true;
}

/** The entry count in `inside-0`, undefined when the main thread is not in user code for no cell. */
function readEntries(dir: string): string | undefined {
  try {
    return readlinkSync(join(dir, insideMark(0)));
  } catch {
    return undefined;
  }
}
