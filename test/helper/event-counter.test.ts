// EventCounter, the count behind the Linux helper's waitChange (the Swift core's
// EventCounterTests check the same): an event between two calls is not lost, a wait without
// events ends at its timeout unchanged, a bump wakes every waiter, and a dropped count is a change.
import { describe, expect, it } from "vitest";
import { EventCounter } from "../../helper/linux/event-counter.js";

describe("EventCounter", () => {
  it("keeps an event that came between two calls", async () => {
    const counter = new EventCounter<string>();
    const start = await counter.wait(":1.5", undefined, 0);
    counter.bump(":1.5");
    expect(await counter.wait(":1.5", start.seq, 60_000)).toEqual({ seq: start.seq + 1, changed: true });
  });

  it("ends a wait without events at its timeout, unchanged, whatever other apps do", async () => {
    const counter = new EventCounter<string>();
    const waiting = counter.wait(":1.5", undefined, 30);
    counter.bump(":1.9");
    expect(await waiting).toEqual({ seq: 0, changed: false });
  });

  it("wakes every waiter of the app on its next event", async () => {
    const counter = new EventCounter<string>();
    const both = Promise.all([counter.wait(":1.5", 0, 60_000), counter.wait(":1.5", undefined, 60_000)]);
    counter.bump(":1.5");
    expect(await both).toEqual([{ seq: 1, changed: true }, { seq: 1, changed: true }]);
  });

  it("counts a connection that closed as a change, starting again from zero", async () => {
    const counter = new EventCounter<string>();
    counter.bump(":1.5");
    counter.bump(":1.5");
    const waiting = counter.wait(":1.5", 2, 60_000);
    counter.drop(":1.5");
    expect(await waiting).toEqual({ seq: 0, changed: true });
    expect(counter.seq(":1.5")).toBe(0);
  });
});
