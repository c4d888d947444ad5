// The contract's element tree and element actions, on the calculator: axTree, performAction,
// hitTest, actionNames, elementFrame, stable indices; and window screenshots.
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import type { AXNode } from "../../src/helper/protocol.js";
import type { CalcKey } from "./apps.js";
import { announceSkip, centre, profile, useHelper, waitFor, type RunningApp } from "./harness.js";

const skip = announceSkip("test/contract/calculator.test.ts");
const { calculator } = profile;

describe.skipIf(skip)("helper contract: the calculator's tree", () => {
  const session = useHelper();
  let calc: RunningApp;

  const tree = async (): Promise<AXNode[]> => (await session.call("axTree", { pid: calc.pid })).nodes;
  const button = (nodes: AXNode[], key: CalcKey): AXNode => {
    const found = calculator.button(nodes, key);
    if (!found) throw new Error(`no "${key}" button in the calculator's tree`);
    return found;
  };

  beforeAll(async () => {
    calc = await session.launch(calculator);
    await session.treeWhen(calc.pid, (nodes) => calculator.button(nodes, "7") !== undefined, "the calculator's 7 key");
  }, 60_000);

  it("reads one window's elements depth-first, the window first, each index once", async () => {
    const result = await session.call("axTree", { pid: calc.pid });
    expect(result.truncated).toBe(false);
    expect(result.window.windowId).toBe(calc.window.windowId);
    const [first, ...rest] = result.nodes;
    expect(first).toMatchObject({ d: 0, role: "AXWindow" });
    let depth = 0;
    for (const node of rest) {
      expect(node.d, JSON.stringify(node)).toBeGreaterThanOrEqual(1);
      expect(node.d, JSON.stringify(node)).toBeLessThanOrEqual(depth + 1);
      depth = node.d;
    }
    const indices = result.nodes.map((n) => n.i);
    expect(new Set(indices).size).toBe(indices.length);
  });

  it("has every digit and operator as an AXButton with a frame, and a display", async () => {
    const nodes = await tree();
    for (const key of ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "times", "equals", "clear"] as const) {
      expect(button(nodes, key)).toMatchObject({ role: "AXButton", frame: expect.any(Array) });
    }
    expect(calculator.display(nodes), "the display").toBeDefined();
  });

  it("presses 6 × 7 = by element index and reads 42 from the display", async () => {
    const nodes = await tree();
    for (const key of ["clear", "6", "times", "7", "equals"] as const) {
      expect(await session.call("performAction", { pid: calc.pid, index: button(nodes, key).i, action: "AXPress" })).toEqual({});
    }
    const display = calculator.display(nodes)!;
    const value = await waitFor(async () => {
      const shown = (await tree()).find((n) => n.i === display.i)?.value?.trim();
      return shown === "42" && shown;
    }, "the display to show 42");
    expect(value).toBe("42");
  });

  it("hit-tests a button's frame centre to that button, with its frame and actions", async () => {
    const nodes = await tree();
    for (const key of ["7", "equals"] as const) {
      const target = button(nodes, key);
      const [x, y] = centre(target.frame!);
      const hit = await session.call("hitTest", { pid: calc.pid, x, y });
      expect(hit, `hitTest at the centre of ${key}`).toMatchObject({ index: target.i, role: "AXButton", frame: target.frame });
      expect(hit.index !== undefined && hit.actions).toContain("AXPress");
    }
  });

  it("answers hitTest away from the app's windows with {}", async () => {
    const [x, y, width, height] = calc.window.frame;
    // Left of the window when there is room, else right of it.
    const point = x > 40 ? { x: x - 20, y: y + height / 2 } : { x: x + width + 20, y: y + height / 2 };
    expect(await session.call("hitTest", { pid: calc.pid, ...point })).toEqual({});
  });

  it("lists AXPress among a button's actionNames", async () => {
    const { actions } = await session.call("actionNames", { pid: calc.pid, index: button(await tree(), "7").i });
    expect(actions).toContain("AXPress");
  });

  it("keeps every element's index across two reads", async () => {
    const first = await tree();
    const second = await tree();
    expect(second.map((n) => [n.i, n.role, n.title])).toEqual(first.map((n) => [n.i, n.role, n.title]));
    expect(button(second, "7").i).toBe(button(first, "7").i);
  });

  it("answers elementFrame with the frame the tree gave", async () => {
    const nodes = await tree();
    for (const key of ["7", "equals"] as const) {
      const target = button(nodes, key);
      expect(await session.call("elementFrame", { pid: calc.pid, index: target.i })).toEqual({ frame: target.frame });
    }
  });

  it("answers stale_index for an index it never handed out", async () => {
    const unknown = Math.max(...(await tree()).map((n) => n.i)) + 100_000;
    await expect(session.call("elementFrame", { pid: calc.pid, index: unknown })).rejects.toMatchObject({ code: "stale_index" });
    await expect(session.call("actionNames", { pid: calc.pid, index: unknown })).rejects.toMatchObject({ code: "stale_index" });
    await expect(session.call("performAction", { pid: calc.pid, index: unknown, action: "AXPress" })).rejects.toMatchObject({
      code: "stale_index",
    });
  });

  it("answers action_failed for an action the element does not have", async () => {
    const index = button(await tree(), "7").i;
    await expect(session.call("performAction", { pid: calc.pid, index, action: "AXFrobnicate" })).rejects.toMatchObject({
      code: "action_failed",
    });
  });

  it("cuts the tree at maxNodes and maxDepth and says it did", async () => {
    const few = await session.call("axTree", { pid: calc.pid, maxNodes: 5 });
    expect(few.nodes).toHaveLength(5);
    expect(few.truncated).toBe(true);
    const shallow = await session.call("axTree", { pid: calc.pid, maxDepth: 1 });
    expect(Math.max(...shallow.nodes.map((n) => n.d))).toBe(1);
    expect(shallow.truncated).toBe(true);
  });

  it("answers no_window for a window index the app does not have", async () => {
    await expect(session.call("axTree", { pid: calc.pid, window: 99 })).rejects.toMatchObject({ code: "no_window" });
  });

  describe("screenshots", () => {
    /** The image's largest channel standard deviation: about 0 for a blank image. */
    const spread = async (image: Buffer): Promise<number> => Math.max(...(await sharp(image).stats()).channels.map((c) => c.stdev));

    it("captures the window as PNG at exactly half its size, not blank", async () => {
      const [, , w, h] = calc.window.frame;
      const width = Math.round(w / 2);
      const height = Math.round(h / 2);
      const shot = await session.call("screenshot", { pid: calc.pid, windowId: calc.window.windowId!, width, height });
      expect(shot).toMatchObject({ width, height, mimeType: "image/png" });
      const image = Buffer.from(shot.data, "base64");
      expect(image.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
      expect(await sharp(image).metadata()).toMatchObject({ format: "png", width, height });
      expect(await spread(image)).toBeGreaterThan(10);
    });

    it("captures JPEG at a size of another aspect ratio, exactly", async () => {
      const [width, height] = [301, 97];
      const shot = await session.call("screenshot", {
        pid: calc.pid,
        windowId: calc.window.windowId!,
        width,
        height,
        format: "jpeg",
        quality: 70,
      });
      expect(shot).toMatchObject({ width, height, mimeType: "image/jpeg" });
      const image = Buffer.from(shot.data, "base64");
      expect(image.subarray(0, 3).toString("hex")).toBe("ffd8ff");
      expect(await sharp(image).metadata()).toMatchObject({ format: "jpeg", width, height });
      expect(await spread(image)).toBeGreaterThan(10);
    });

    it("answers no_window for a window that does not exist", async () => {
      await expect(
        session.call("screenshot", { pid: calc.pid, windowId: 2 ** 31 - 7, width: 100, height: 100 }),
      ).rejects.toMatchObject({ code: "no_window" });
    });
  });
});
