/**
 * The kernel serves a shell request once someone listens on iopub (src/kernel/iopub-listeners.ts),
 * from the subscription frames its XPUB socket passes on (src/jupyter/iopub-subscriptions.ts).
 * The kernel-level proof with a real late subscriber is test/jupyter-stack/console-late-sockets.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { IopubSubscriptions } from "../../../src/jupyter/iopub-subscriptions.js";
import { IopubListeners } from "../../../src/kernel/iopub-listeners.js";

const WAIT_MS = 5_000;
const subscribe = (topic = "") => Buffer.concat([Buffer.from([1]), Buffer.from(topic)]);
const unsubscribe = (topic = "") => Buffer.concat([Buffer.from([0]), Buffer.from(topic)]);

/** Whether the promise has settled by now (after the microtasks queued so far). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe("IopubSubscriptions", () => {
  it("counts topics: a subscribe adds one, an unsubscribe (its last subscriber gone) removes it", () => {
    const subs = new IopubSubscriptions();
    expect(subs.any).toBe(false);
    expect(subs.note(subscribe("kernel."))).toBe("kernel.");
    expect(subs.note(subscribe(""))).toBe("");
    expect(subs.note(unsubscribe("kernel."))).toBeUndefined();
    expect(subs.any).toBe(true);
    subs.note(unsubscribe(""));
    expect(subs.any).toBe(false);
    expect(subs.subscribes).toBe(2);
  });

  it("ignores frames that are not subscription frames", () => {
    const subs = new IopubSubscriptions();
    expect(subs.note(undefined)).toBeUndefined();
    expect(subs.note(Buffer.from([7, 65]))).toBeUndefined();
    expect(subs.note(Buffer.alloc(0))).toBeUndefined();
    expect(subs.any).toBe(false);
  });
});

describe("IopubListeners", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("serves at once while someone listens", () => {
    const subs = new IopubSubscriptions();
    subs.note(subscribe());
    expect(new IopubListeners(subs, () => undefined, WAIT_MS).ready()).toBeUndefined();
  });

  it("holds a request until the first subscriber comes", async () => {
    const subs = new IopubSubscriptions();
    const listeners = new IopubListeners(subs, () => undefined, WAIT_MS);
    const ready = listeners.ready()!;
    expect(ready).toBeInstanceOf(Promise);
    await vi.advanceTimersByTimeAsync(WAIT_MS - 1);
    expect(await settled(ready)).toBe(false);
    subs.note(subscribe());
    expect(await settled(ready)).toBe(true);
    expect(listeners.ready()).toBeUndefined();
  });

  it("waits once for a client that never subscribes, with a log line, then serves it at once", async () => {
    const subs = new IopubSubscriptions();
    const logs: string[] = [];
    const listeners = new IopubListeners(subs, (line) => logs.push(line), WAIT_MS);
    const ready = listeners.ready()!;
    await vi.advanceTimersByTimeAsync(WAIT_MS);
    expect(await settled(ready)).toBe(true);
    expect(logs).toEqual([`no one subscribed to iopub within ${WAIT_MS} ms: serving shell requests without it`]);
    expect(listeners.ready()).toBeUndefined();
    expect(listeners.ready()).toBeUndefined();
  });

  it("waits again once a subscriber came and everyone left", async () => {
    const subs = new IopubSubscriptions();
    const listeners = new IopubListeners(subs, () => undefined, WAIT_MS);
    const first = listeners.ready()!;
    await vi.advanceTimersByTimeAsync(WAIT_MS);
    expect(await settled(first)).toBe(true);
    // No shell request while the subscriber was there.
    subs.note(subscribe());
    subs.note(unsubscribe());
    const again = listeners.ready();
    expect(again).toBeInstanceOf(Promise);
    subs.note(subscribe());
    expect(await settled(again!)).toBe(true);
  });
});
