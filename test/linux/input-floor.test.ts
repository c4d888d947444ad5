// The dialog-and-input rule against the cases every Deskbook helper must pass (the Swift core's
// InputFloorTests.swift reads the same file), then the waiting floor itself, and the input
// methods taking it before they look at the active window.
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { ESCAPE_GRACE_MS, FloorState, INPUT_WAIT_MS, InputFloor } from "../../helper/linux/input-floor.js";
import { inputMethods } from "../../helper/linux/input-methods.js";
import type { CallContext } from "../../helper/linux/method-types.js";
import { Services } from "../../helper/linux/services.js";

interface Step {
  at: number;
  op: "input" | "dialog" | "inputDone" | "dialogDone" | "giveUp" | "escape";
  id?: string;
  expect?: string;
  granted?: string[];
}
interface Table {
  escapeGraceMs: number;
  inputWaitMs: number;
  cases: { name: string; steps: Step[] }[];
}

const table = JSON.parse(readFileSync(new URL("../fixtures/input-dialog-rule.json", import.meta.url), "utf8")) as Table;

/** Settles to "pending" if the promise has not settled within `ms`. */
async function stateAfter(promise: Promise<unknown>, ms: number): Promise<string> {
  const settled = promise.then(
    () => "resolved",
    () => "rejected",
  );
  return Promise.race([settled, new Promise<string>((resolve) => setTimeout(() => resolve("pending"), ms))]);
}

function held(): { promise: Promise<void>; release: () => void } {
  let release = (): void => undefined;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

describe("the dialog-and-input rule (test/fixtures/input-dialog-rule.json)", () => {
  it("has the constants the Linux helper uses", () => {
    expect(table.escapeGraceMs).toBe(ESCAPE_GRACE_MS);
    expect(table.inputWaitMs).toBe(INPUT_WAIT_MS);
    expect(table.cases.length).toBeGreaterThan(10);
  });

  for (const entry of table.cases) {
    it(entry.name, () => {
      const state = new FloorState();
      const ids = new Map<string, number>();
      const names = new Map<number, string>();
      const id = (name = ""): number => {
        if (!ids.has(name)) {
          ids.set(name, ids.size + 1);
          names.set(ids.size, name);
        }
        return ids.get(name)!;
      };
      const spelled = (granted: number[]): string[] => granted.map((n) => names.get(n) ?? "?");
      entry.steps.forEach((step, k) => {
        const label = `step ${k + 1} (${step.op})`;
        switch (step.op) {
          case "input":
            return expect(state.requestInput(id(step.id)), label).toBe(step.expect);
          case "dialog":
            return expect(state.requestDialog(id(step.id)), label).toBe(step.expect);
          case "inputDone":
            return expect(spelled(state.inputDone(id(step.id))), label).toEqual(step.granted);
          case "dialogDone":
            return expect(spelled(state.dialogDone(id(step.id), step.at)), label).toEqual(step.granted);
          case "giveUp":
            return expect(spelled(state.giveUp(id(step.id))), label).toEqual(step.granted);
          case "escape":
            return expect(state.escapeIsSwallowed(step.at) ? "swallowed" : "broadcast", label).toBe(step.expect);
        }
      });
    });
  }
});

describe("InputFloor", () => {
  it("holds input while a dialog is shown and runs it when the dialog closes", async () => {
    const floor = new InputFloor();
    const dialog = held();
    const order: string[] = [];
    const shown = floor.holdDialog(async () => {
      await dialog.promise;
      order.push("dialog closes");
    });
    const input = floor.holdInput(async () => void order.push("input"));
    expect(await stateAfter(input, 50)).toBe("pending");
    expect(floor.dialogShown).toBe(true);
    dialog.release();
    await Promise.all([shown, input]);
    expect(order).toEqual(["dialog closes", "input"]);
  });

  it("lets a dialog wait for the input sequence running, then go before the input that waits", async () => {
    const floor = new InputFloor();
    const first = held();
    const order: string[] = [];
    const running = floor.holdInput(async () => {
      await first.promise;
      order.push("first input");
    });
    const dialog = floor.holdDialog(async () => void order.push("dialog"));
    const second = floor.holdInput(async () => void order.push("second input"));
    expect(await stateAfter(dialog, 20)).toBe("pending");
    first.release();
    await Promise.all([running, dialog, second]);
    expect(order).toEqual(["first input", "dialog", "second input"]);
  });

  it("fails waiting input with `failed` once the dialog outlasts the wait, and leaves the floor usable", async () => {
    const floor = new InputFloor(30);
    const dialog = held();
    const shown = floor.holdDialog(() => dialog.promise);
    await expect(floor.holdInput(async () => "ran")).rejects.toMatchObject({ code: "failed", message: expect.stringContaining("approval dialog") });
    dialog.release();
    await shown;
    await expect(floor.holdInput(async () => "ran")).resolves.toBe("ran");
  });

  it("swallows Escape while a dialog is shown and for the grace after it", async () => {
    let now = 0;
    const floor = new InputFloor(INPUT_WAIT_MS, () => now);
    expect(floor.escapeIsSwallowed()).toBe(false);
    await floor.holdDialog(async () => {
      expect(floor.escapeIsSwallowed()).toBe(true);
      now = 1000;
    });
    now = 1000 + ESCAPE_GRACE_MS - 1;
    expect(floor.escapeIsSwallowed()).toBe(true);
    now = 1000 + ESCAPE_GRACE_MS;
    expect(floor.escapeIsSwallowed()).toBe(false);
  });

  it("releases the floor when the body throws", async () => {
    const floor = new InputFloor();
    await expect(floor.holdInput(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(floor.holdInput(async () => 1)).resolves.toBe(1);
  });
});

describe("the Linux input methods", () => {
  // No display is needed: what is checked is that nothing, not even the active-window check,
  // happens before the floor is free. Without DISPLAY the events reach no desktop this
  // machine may have, and the check fails at once once it runs.
  beforeAll(() => {
    delete process.env.DISPLAY;
  });

  it("take the floor before they look at the active window", async () => {
    const services = new Services("/nonexistent-deskbook-home");
    const ctx = { services, catalog: {} } as unknown as CallContext;
    const dialog = held();
    const shown = services.floor.holdDialog(() => dialog.promise);
    const click = inputMethods.click({ pid: 4242, x: 1, y: 1 }, ctx);
    const move = inputMethods.move({ pid: 4242, x: 1, y: 1 }, ctx);
    expect(await stateAfter(click, 200)).toBe("pending");
    expect(await stateAfter(move, 10)).toBe("pending");
    dialog.release();
    await shown;
    // Now the check runs and fails: there is no such display, and pid 4242 is not active.
    await expect(click).rejects.toBeDefined();
    await move.catch(() => undefined);
  });

  it("refuse the background route at once, before waiting for the floor", async () => {
    const services = new Services("/nonexistent-deskbook-home");
    const ctx = { services, catalog: {} } as unknown as CallContext;
    const dialog = held();
    const shown = services.floor.holdDialog(() => dialog.promise);
    const click = inputMethods.click({ pid: 4242, x: 1, y: 1, mode: "background", windowId: 7 }, ctx);
    await expect(click).rejects.toMatchObject({ code: "background_unavailable" });
    dialog.release();
    await shown;
  });
});
