// A wait's progress line belongs to the cell that started the wait. An agent stops cell A under a
// second into a wait and starts cell B at once; A's wait is still outstanding and its line must
// not open in B, nor its closing sentence land there. A real Session runs the cells (its output
// sink tags each message with a cell); the line is the desk API's (cellLiveLine), on fake time.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { StoppedError } from "../../src/desk/cell-control.js";
import { withProgressLine } from "../../src/desk/progress-line.js";
import type { FromExecutor } from "../../src/executor/ipc-messages.js";
import { cellLiveLine } from "../../src/executor/live-line.js";
import { Session } from "../../src/executor/session.js";
import type { SessionHost } from "../../src/executor/session-host.js";

const wait = { waiting: 'for {"label":"Save"} to appear in Mousepad', done: () => "found." };

describe("a progress line after its cell was stopped", () => {
  let sent: FromExecutor[];
  let host!: SessionHost;
  let session: Session;
  const start = (cellId: number): void => {
    const request = { type: "execute", reqId: `r${cellId}`, cellId, executionCount: cellId, code: "await new Promise(() => {})", userExpressions: {}, allowStdin: false, timeLimitMs: 0 } as const;
    void session.execute(request);
  };
  const displays = () => sent.flatMap((m) => (m.type === "display" ? [{ cell: m.cell, text: String(m.data["text/plain"]) }] : []));
  /** A wait in the running cell that the stop ends `endsAfterMs` later, as a waitChange call does. */
  const stoppableWait = (endsAfterMs: number): Promise<unknown> =>
    withProgressLine(() => cellLiveLine(host), wait, () => new Promise((_resolve, reject) => setTimeout(() => reject(new StoppedError("stopped")), endsAfterMs))).catch(() => undefined);

  beforeEach(() => {
    vi.useFakeTimers({ now: 0, toFake: ["setTimeout", "clearTimeout", "Date"] });
    sent = [];
    session = new Session((message) => void sent.push(message), { globals: (h) => ((host = h), { values: {} }) });
  });
  afterEach(() => {
    session.stopCell(2);
    vi.useRealTimers();
  });

  it("never opens in the next cell when the stop came before the line showed", async () => {
    start(1);
    const waited = stoppableWait(1500);
    await vi.advanceTimersByTimeAsync(500);
    session.stopCell(1);
    start(2);
    await vi.advanceTimersByTimeAsync(2000);
    await waited;
    expect(displays()).toEqual([]);
  });

  it("keeps an open line, closing sentence included, in its own cell", async () => {
    start(1);
    const waited = stoppableWait(2500);
    await vi.advanceTimersByTimeAsync(1500);
    session.stopCell(1);
    start(2);
    await vi.advanceTimersByTimeAsync(2000);
    await waited;
    expect(displays()).toEqual([
      { cell: 1, text: 'Waiting for {"label":"Save"} to appear in Mousepad…' },
      { cell: 1, text: 'Waiting for {"label":"Save"} to appear in Mousepad… 2 s' },
      { cell: 1, text: 'Stopped waiting for {"label":"Save"} to appear in Mousepad after 2.5 s.' },
    ]);
  });
});
