// The executor's half of breaking a spinning cell (src/executor/stop-gate.ts), on a real main thread
// (test/fixtures/stop-gate-child.ts: the real ContextRunner and StopGate) and a stop directory the
// test owns, so the test plays the kernel and picks each interleaving itself. Needs `npm run build`.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, lstatSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { insideMark, SIGNAL_MARK } from "../../src/executor/stop-marks.js";
import { breakCell, recordStop } from "../../src/kernel/stop-signal.js";
import { tempDir } from "../support/temp-dir.js";

const CHILD = fileURLToPath(new URL("../../dist/test/fixtures/stop-gate-child.js", import.meta.url));
/** futex(2)'s number, the call Atomics.wait blocks in (x86_64, arm64). */
const SYS_FUTEX = process.arch === "arm64" ? 98 : 202;

interface Child {
  process: ChildProcess;
  dir: string;
  /** The answers so far, one per cell. */
  answers: string[];
  /** Resolves with the answer to the next cell. */
  run(cellId: number, until: string): Promise<string>;
}

let child: Child;

async function startChild(): Promise<Child> {
  const dir = await tempDir("deskbook-stop-gate-");
  const proc = spawn(process.execPath, [CHILD, dir], { stdio: ["pipe", "pipe", "inherit", "pipe"] });
  const answers: string[] = [];
  const waiters: ((answer: string) => void)[] = [];
  let buffered = "";
  proc.stdout!.on("data", (chunk: Buffer) => {
    buffered += String(chunk);
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      answers.push(line);
      waiters.shift()?.(line);
    }
  });
  await new Promise<string>((resolve) => waiters.push(resolve));
  answers.length = 0;
  return {
    process: proc,
    dir,
    answers,
    run(cellId, until) {
      proc.stdin!.write(`${cellId} ${until}\n`);
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}

beforeEach(async () => {
  child = await startChild();
});

afterEach(() => {
  child.process.kill("SIGKILL");
});

function mark(name: string): string {
  return join(child.dir, name);
}

/** Whether a mark is there; existsSync would follow an inside mark's link, which points at nothing. */
function present(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * Resolves once the child's main thread is seen blocked in futex(2) on one address five times,
 * which only the gate's Atomics.wait does (its user code polls a file; its idle loop is in
 * epoll_wait); rejects if the child answers first, i.e. left the call without waiting.
 */
async function blockedInGate(): Promise<void> {
  const seen = new Map<string, number>();
  const answered = child.answers.length;
  await until("the main thread to wait in the gate", () => {
    if (child.answers.length > answered) throw new Error(`the call ended before the signal arrived: ${child.answers.at(-1)}`);
    const fields = readFileSync(`/proc/${child.process.pid}/syscall`, "utf8").split(" ");
    if (Number(fields[0]) !== SYS_FUTEX) return undefined;
    const count = (seen.get(fields[1]!) ?? 0) + 1;
    seen.set(fields[1]!, count);
    return count >= 5 ? true : undefined;
  });
}

describe("StopGate (an executor's main thread, the test as its kernel)", () => {
  it("leaves a call whose mark is still there at once, and removes the mark", async () => {
    writeFileSync(mark("go"), "");
    expect(await child.run(1, mark("go"))).toBe("returned");
    expect(present(mark(insideMark(1)))).toBe(false);
  });

  it("never starts a cell the kernel stopped before it began", async () => {
    recordStop({ dir: child.dir, pid: child.process.pid!, stillRunning: () => true }, 2);
    writeFileSync(mark("go"), "");
    expect(await child.run(2, mark("go"))).toBe("refused");
  });

  it("is broken by the kernel while it spins, and the next cell runs", async () => {
    const answer = child.run(1, mark("never"));
    await until("cell 1 in user code", () => (present(mark(insideMark(1))) ? true : undefined));
    breakCell({ dir: child.dir, pid: child.process.pid!, stillRunning: () => child.answers.length === 0 }, 1);
    expect(await answer).toBe("interrupted");
    expect(present(mark(SIGNAL_MARK))).toBe(false);
    writeFileSync(mark("go"), "");
    expect(await child.run(2, mark("go"))).toBe("returned");
  });

  it("lets a SIGINT between calls pass without effect: the child lives and the next cell runs", async () => {
    writeFileSync(mark("go"), "");
    expect(await child.run(1, mark("go"))).toBe("returned");
    process.kill(child.process.pid!, "SIGINT");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(child.process.exitCode).toBe(null);
    expect(child.process.signalCode).toBe(null);
    expect(await child.run(2, mark("go"))).toBe("returned");
  });

  it("waits inside the call when the kernel took the mark but its SIGINT has not arrived, until it does", async () => {
    const answer = child.run(1, mark("go"));
    await until("cell 1 in user code", () => (present(mark(insideMark(1))) ? true : undefined));
    // The kernel's half, with the signal held back: it took the mark, its SIGINT is on its way.
    renameSync(mark(insideMark(1)), mark(SIGNAL_MARK));
    // The cell's code now ends by itself and reaches the gate with the mark gone.
    writeFileSync(mark("go"), "");
    await blockedInGate();
    // Had it left, this SIGINT would land outside any guarded call, or in the next cell.
    process.kill(child.process.pid!, "SIGINT");
    expect(await answer).toBe("interrupted");
    expect(present(mark(SIGNAL_MARK))).toBe(false);
    expect(await child.run(2, mark("go"))).toBe("returned");
    expect(child.answers).toEqual(["interrupted", "returned"]);
  });
});
