// The kernel's half of breaking a spinning cell (src/kernel/stop-signal.ts), driven through every
// interleaving it handles with the marks in a test stop directory. Time is vitest's fake clock,
// so "50 ms of the same entry count" is exact, not a sleep that hopes; the SIGINTs go to a real
// child process that reports each one.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, lstatSync, readdirSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { insideMark, SIGNAL_MARK, stopMark } from "../../../src/executor/stop-marks.js";
import { breakCell, recordStop, type StopTarget } from "../../../src/kernel/stop-signal.js";
import { tempDir } from "../../support/temp-dir.js";

let dir: string;
let target: ChildProcess;
let signals = 0;
let running = true;

/** Resolves once the target has reported `count` SIGINTs in all. */
function signalsReach(count: number): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (signals < count) return;
      target.stdout!.off("data", check);
      resolve();
    };
    target.stdout!.on("data", check);
    check();
  });
}

beforeAll(async () => {
  dir = await tempDir("deskbook-stop-signal-");
  target = spawn(process.execPath, ["-e", "process.on('SIGINT', () => process.stdout.write('I')); process.stdout.write('R'); setInterval(() => {}, 1e6);"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve) => target.stdout!.once("data", () => resolve()));
  target.stdout!.on("data", (chunk: Buffer) => (signals += String(chunk).split("I").length - 1));
});

afterAll(() => {
  target?.kill("SIGKILL");
});

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  for (const name of readdirSync(dir)) rmSync(join(dir, name));
  running = true;
});

afterEach(() => {
  running = false;
  vi.runOnlyPendingTimers();
  vi.useRealTimers();
});

function stopTarget(): StopTarget {
  return { dir, pid: target.pid!, stillRunning: () => running };
}

/** The executor's main thread entered user code (`entries` calls so far) for cell `cellId`. */
function enter(cellId: number, entries: number): void {
  // As the executor makes it (stop-gate.ts): a symbolic link whose target is the count.
  rmSync(join(dir, insideMark(cellId)), { force: true });
  symlinkSync(String(entries), join(dir, insideMark(cellId)));
}

/** Whether a mark is there; existsSync would follow an inside mark's link, which points at nothing. */
function present(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

function signalTaken(): boolean {
  return present(join(dir, SIGNAL_MARK));
}

describe("recordStop", () => {
  it("leaves the stop mark a cell not started yet checks", () => {
    recordStop(stopTarget(), 7);
    expect(existsSync(join(dir, stopMark(7)))).toBe(true);
  });

  it("is quiet when the executor's directory is already gone", () => {
    expect(() => recordStop({ ...stopTarget(), dir: join(dir, "gone") }, 7)).not.toThrow();
  });
});

describe("breakCell", () => {
  it("takes the cell's inside mark at once and sends SIGINT", async () => {
    const before = signals;
    enter(3, 1);
    breakCell(stopTarget(), 3);
    expect(signalTaken()).toBe(true);
    expect(present(join(dir, insideMark(3)))).toBe(false);
    await signalsReach(before + 1);
  });

  it("waits for the cell to enter user code, and signals as soon as it does", async () => {
    const before = signals;
    breakCell(stopTarget(), 3);
    vi.advanceTimersByTime(40);
    expect(signalTaken()).toBe(false);
    enter(3, 1);
    vi.advanceTimersByTime(5);
    expect(signalTaken()).toBe(true);
    await signalsReach(before + 1);
  });

  it("never signals a call for another cell", () => {
    enter(2, 1);
    breakCell(stopTarget(), 3);
    vi.advanceTimersByTime(500);
    expect(signalTaken()).toBe(false);
    expect(present(join(dir, insideMark(2)))).toBe(true);
  });

  it("breaks one call for no cell that lasts 50 ms, and not before", async () => {
    const before = signals;
    enter(0, 7);
    breakCell(stopTarget(), 3);
    vi.advanceTimersByTime(45);
    expect(signalTaken()).toBe(false);
    vi.advanceTimersByTime(10);
    expect(signalTaken()).toBe(true);
    expect(present(join(dir, insideMark(0)))).toBe(false);
    await signalsReach(before + 1);
  });

  it("leaves many short calls for no cell alone: only one call that goes on blocks the cell", () => {
    breakCell(stopTarget(), 3);
    // A new entry count every 20 ms: the main thread keeps leaving and re-entering (timers of old cells).
    for (let entries = 1; entries <= 25; entries++) {
      enter(0, entries);
      vi.advanceTimersByTime(20);
      expect(signalTaken()).toBe(false);
    }
    // Then one of those calls stays: 50 ms later it is broken.
    vi.advanceTimersByTime(40);
    expect(signalTaken()).toBe(true);
  });

  it("starts the 50 ms over when the main thread left user code in between, even with the same count", () => {
    breakCell(stopTarget(), 3);
    enter(0, 4);
    vi.advanceTimersByTime(30);
    rmSync(join(dir, insideMark(0)));
    vi.advanceTimersByTime(5);
    enter(0, 4);
    vi.advanceTimersByTime(30);
    expect(signalTaken()).toBe(false);
    vi.advanceTimersByTime(25);
    expect(signalTaken()).toBe(true);
  });

  it("signals the cell itself once it enters, while a call for no cell was being timed", () => {
    breakCell(stopTarget(), 3);
    enter(0, 9);
    vi.advanceTimersByTime(20);
    rmSync(join(dir, insideMark(0)));
    enter(3, 10);
    vi.advanceTimersByTime(5);
    expect(signalTaken()).toBe(true);
    expect(present(join(dir, insideMark(3)))).toBe(false);
  });

  it("gives up 10 s after the stop (the kernel has replaced the executor by then)", () => {
    breakCell(stopTarget(), 3);
    vi.advanceTimersByTime(10_010);
    enter(3, 1);
    vi.advanceTimersByTime(50);
    expect(signalTaken()).toBe(false);
  });

  it("stops trying once the cell is over", () => {
    breakCell(stopTarget(), 3);
    vi.advanceTimersByTime(20);
    running = false;
    vi.advanceTimersByTime(5);
    enter(3, 1);
    vi.advanceTimersByTime(500);
    expect(signalTaken()).toBe(false);
  });
});
