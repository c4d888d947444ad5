// The progress line of a long wait, on fake time: silent under a second, one display then
// throttled rewrites of it (also when its timers fire early by Date.now()), and a closing
// sentence for success, failure and a stop.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Bundle, LiveOutput } from "../../src/desk/desk-context.js";
import { StoppedError } from "../../src/desk/cell-control.js";
import { nextTickIn, took, withProgressLine } from "../../src/desk/progress-line.js";

interface Shown {
  line: number;
  at: number;
  text: string;
}

function recorder(): { live: () => LiveOutput; shown: Shown[] } {
  const shown: Shown[] = [];
  let lines = 0;
  const live = (): LiveOutput => {
    const line = ++lines;
    return { show: (bundle: Bundle) => void shown.push({ line, at: Date.now(), text: String(bundle["text/plain"]) }) };
  };
  return { live, shown };
}

const after = (ms: number, value = "found") => new Promise<string>((resolve) => setTimeout(() => resolve(value), ms));
const wait = { waiting: 'for {"label":"Save"} to appear in Mousepad', limitMs: 10_000, done: (r: string, t: string) => `Save ${r} after ${t}.` };

describe("withProgressLine", () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it("shows nothing for a wait that ends within a second", async () => {
    const { live, shown } = recorder();
    const done = withProgressLine(live, wait, () => after(900));
    await vi.advanceTimersByTimeAsync(900);
    expect(await done).toBe("found");
    await vi.advanceTimersByTimeAsync(5000);
    expect(shown).toEqual([]);
  });

  it("shows one line after a second, rewrites it once a second, and closes it with how it ended", async () => {
    const { live, shown } = recorder();
    const done = withProgressLine(live, wait, () => after(4500));
    await vi.advanceTimersByTimeAsync(4500);
    expect(await done).toBe("found");
    expect(shown.every((s) => s.line === 1)).toBe(true);
    expect(shown.map((s) => [s.at, s.text])).toEqual([
      [1000, 'Waiting up to 10 s for {"label":"Save"} to appear in Mousepad…'],
      [2000, 'Waiting up to 10 s for {"label":"Save"} to appear in Mousepad… 2 s'],
      [3000, 'Waiting up to 10 s for {"label":"Save"} to appear in Mousepad… 3 s'],
      [4000, 'Waiting up to 10 s for {"label":"Save"} to appear in Mousepad… 4 s'],
      [4500, "Save found after 4.5 s."],
    ]);
  });

  it("rewrites a long wait more and more rarely", async () => {
    const { live, shown } = recorder();
    const done = withProgressLine(live, { ...wait, limitMs: undefined }, () => after(180_000));
    await vi.advanceTimersByTimeAsync(180_000);
    await done;
    // 1 display at 1 s, 8 updates to 9 s, every 5 s to 55 s, every 15 s to 165 s, and the closing line.
    expect(shown).toHaveLength(1 + 8 + 10 + 8 + 1);
    expect(shown[0]!.text).toBe('Waiting for {"label":"Save"} to appear in Mousepad…');
    expect(shown.at(-2)!.text).toBe('Waiting for {"label":"Save"} to appear in Mousepad… 2 min 45 s');
    expect(shown.at(-1)!.text).toBe("Save found after 3 min.");
  });

  it("closes a failed wait with the error, and a stopped one with the stop", async () => {
    const { live, shown } = recorder();
    const timedOut = withProgressLine(live, wait, async () => {
      await after(2500);
      throw Object.assign(new Error('waited 2500 ms for {"label":"Save"} to appear in Mousepad'), { name: "WaitTimeout", code: "wait_timeout" });
    });
    const caught = timedOut.catch((error: Error) => error);
    const stopped = withProgressLine(live, wait, async () => {
      await after(1500);
      throw new StoppedError("the user pressed Escape");
    }).catch((error: Error) => error);
    await vi.advanceTimersByTimeAsync(2500);
    expect((await caught as Error).name).toBe("WaitTimeout");
    expect((await stopped as Error).name).toBe("Stopped");
    const last = (line: number) => shown.filter((s) => s.line === line).at(-1)!.text;
    const lineOf = (prefix: string) => shown.find((s) => s.text.startsWith(prefix))!.line;
    expect(last(lineOf("Gave up"))).toBe('Gave up waiting for {"label":"Save"} to appear in Mousepad after 2.5 s: WaitTimeout (wait_timeout): waited 2500 ms for {"label":"Save"} to appear in Mousepad');
    expect(last(lineOf("Stopped"))).toBe('Stopped waiting for {"label":"Save"} to appear in Mousepad after 1.5 s.');
  });
});

describe("withProgressLine when its timer fires a moment early", () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it("still shows nothing before its second, and rewrites at most once a second", async () => {
    const { live, shown } = recorder();
    const started = Date.now();
    const done = withProgressLine(live, wait, () => after(2500));
    // Timers run on the loop's monotonic clock, the line on Date.now(), each whole milliseconds:
    // a timer can fire when Date.now() says a millisecond less has passed. Here it always does.
    vi.setSystemTime(started - 1);
    await vi.advanceTimersByTimeAsync(2500);
    await done;
    expect(shown.map((s) => [s.at - started, s.text])).toEqual([
      [1000, 'Waiting up to 10 s for {"label":"Save"} to appear in Mousepad…'],
      [2000, 'Waiting up to 10 s for {"label":"Save"} to appear in Mousepad… 2 s'],
      [2499, "Save found after 2.5 s."],
    ]);
  });
});

describe("an action that takes its time", () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it("says what it does, then what it did, or how it failed", async () => {
    const { live, shown } = recorder();
    const typing = { doing: "typing 5000 characters into Mousepad", done: (_r: string, t: string) => `Typed 5000 characters into Mousepad; it took ${t}.` };
    const typed = withProgressLine(live, typing, () => after(2200));
    const failed = withProgressLine(live, typing, async () => {
      await after(1200);
      throw Object.assign(new Error("not_running: Mousepad is gone"), { name: "DeskError", code: "not_running" });
    }).catch((error: Error) => error);
    await vi.advanceTimersByTimeAsync(2200);
    await typed;
    await failed;
    const texts = (line: number) => shown.filter((s) => s.line === line).map((s) => s.text);
    expect(texts(1)).toEqual(["Typing 5000 characters into Mousepad…", "Typing 5000 characters into Mousepad… 2 s", "Typed 5000 characters into Mousepad; it took 2.2 s."]);
    expect(texts(2)).toEqual(["Typing 5000 characters into Mousepad…", "Typing 5000 characters into Mousepad failed after 1.2 s: DeskError: not_running: Mousepad is gone"]);
  });
});

describe("its wording of time", () => {
  it("reads as a person would say it", () => {
    expect([took(400), took(3210), took(42_400), took(125_000), took(180_000)]).toEqual(["0.4 s", "3.2 s", "42 s", "2 min 5 s", "3 min"]);
  });

  it("ticks on whole steps", () => {
    expect([nextTickIn(1003), nextTickIn(9999), nextTickIn(10_000), nextTickIn(61_000)]).toEqual([997, 1, 5000, 14_000]);
  });
});
