import { afterEach, describe, expect, it } from "vitest";
import { ContextRunner } from "../../src/executor/context-runner.js";
import { HostActivity } from "../../src/executor/host-activity.js";

// The pump that drains a session's context while no cell runs: it keeps going while host work
// a cell started is in flight and stops once nothing is, so an idle executor sleeps.

const marks = { enterUserCode: () => undefined, leaveUserCode: () => undefined, interrupted: () => undefined };
const OWN = ["PipeWrap", "FSReqCallback"];

let runner: ContextRunner | undefined;
afterEach(() => runner?.close());

function setup(resources: { list: string[] }): ContextRunner {
  runner = new ContextRunner(() => undefined, marks, new HostActivity(() => resources.list));
  return runner;
}

describe("the idle pump", () => {
  it("stops once the host holds only the executor's own resources, and starts again on a wake", async () => {
    const resources = { list: [...OWN] };
    const r = setup(resources);
    r.settleHost();
    await expect.poll(() => r.pumping, { timeout: 5_000, interval: 20 }).toBe(false);
    r.wake();
    expect(r.pumping).toBe(true);
    await expect.poll(() => r.pumping, { timeout: 5_000, interval: 20 }).toBe(false);
  });

  it("pumps before the executor's own resources are known: a session used without the executor's main", async () => {
    const r = setup({ list: [] });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(r.pumping).toBe(true);
  });

  it("keeps pumping while a cell's host work is in flight, and drains what it settles", async () => {
    const resources = { list: [...OWN] };
    const r = setup(resources);
    r.settleHost();
    r.setBusy(true);
    // A cell that awaits a host promise in the background and ends before it settles.
    let settleHost!: (value: string) => void;
    const host = new Promise<string>((resolve) => (settleHost = resolve));
    const seen: string[] = [];
    r.defineGlobals({ host, seen });
    r.call(() => (r.global as { eval(code: string): unknown }).eval("host.then((v) => seen.push(v))"));
    resources.list = [...OWN, "Timeout"];
    r.setBusy(false);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(r.pumping).toBe(true);
    settleHost("settled");
    resources.list = [...OWN];
    await expect.poll(() => seen, { timeout: 5_000, interval: 20 }).toEqual(["settled"]);
    await expect.poll(() => r.pumping, { timeout: 5_000, interval: 20 }).toBe(false);
  });
});

describe("HostActivity", () => {
  it("counts by type against the baseline and lowers the baseline to fewer seen", () => {
    const resources = { list: ["PipeWrap", "WriteWrap"] };
    const activity = new HostActivity(() => resources.list);
    expect(activity.pending()).toBe(true);
    activity.settle();
    expect(activity.pending()).toBe(false);
    resources.list = ["PipeWrap", "PipeWrap"];
    expect(activity.pending()).toBe(true);
    // The write in flight at the baseline is done: a later one is a cell's.
    resources.list = ["PipeWrap"];
    expect(activity.pending()).toBe(false);
    resources.list = ["PipeWrap", "WriteWrap"];
    expect(activity.pending()).toBe(true);
  });
});
