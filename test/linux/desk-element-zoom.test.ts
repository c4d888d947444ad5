// app.elementAt and app.zoom on galculator: a point in image pixels finds the button drawn
// there, and a zoom is a larger capture of exactly the region asked for.
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/desk/app.js";
import type { AXNode } from "../../src/helper/protocol.js";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools } from "./helper-harness.js";

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "galculator"]);
if (missing.length > 0) console.warn(`test/linux/desk-element-zoom.test.ts skipped: ${missing.join(", ")} missing`);

describe.skipIf(missing.length > 0)("elementAt and zoom on galculator", () => {
  let run: DeskOnHelper;
  let calc: App;
  let seven: AXNode;

  beforeAll(async () => {
    run = await startDeskOnHelper();
    calc = await run.desk.getApp("galculator");
    run.machine.trackPid(calc.pid);
    const state = await calc.getAXState({ frames: true, emit: false });
    seven = state.nodes.find((n) => n.role === "AXButton" && n.title === "7")!;
  });
  afterAll(async () => run?.stop());

  const centre = (node: AXNode): [number, number] => {
    const [x, y, w, h] = node.frame!;
    return [x + w / 2, y + h / 2];
  };

  it("finds the button at an image point, with the last read's label and an image frame", async () => {
    const found = await calc.elementAt(centre(seven));
    expect(found).toMatchObject({ i: seven.i, role: "AXButton", title: "7" });
    for (const [k, v] of found!.frame.entries()) expect(Math.abs(v - seven.frame![k]!)).toBeLessThanOrEqual(1);
  });

  it("refuses a point outside the window image before asking the helper", async () => {
    await expect(calc.elementAt([-5, 10])).rejects.toThrow(/outside/);
    await expect(calc.elementAt([1, 2, 3] as unknown as [number, number])).rejects.toThrow(TypeError);
  });

  it("zooms a region three times larger, showing it with the note about click coordinates", async () => {
    const [x, y, w, h] = seven.frame!.map(Math.round) as [number, number, number, number];
    run.shown.length = 0;
    const zoom = await calc.zoom([x, y, w, h], { scale: 3 });
    expect(zoom).toMatchObject({ width: w * 3, height: h * 3, mimeType: "image/png", region: [x, y, w, h], scale: 3 });
    const meta = await sharp(zoom.data).metadata();
    expect([meta.width, meta.height]).toEqual([w * 3, h * 3]);
    // A button is not one flat colour: the zoom holds its face and its label.
    const { channels } = await sharp(zoom.data).stats();
    expect(channels[0]!.max - channels[0]!.min).toBeGreaterThan(50);
    expect(String(run.shown[0]?.["text/plain"])).toMatch(/not click coordinates/);
  });

  it("refuses a region outside the image and a scale out of range", async () => {
    await expect(calc.zoom([0, 0, 100_000, 10])).rejects.toThrow(RangeError);
    await expect(calc.zoom([0, 0, 10, 10], { scale: 9 })).rejects.toThrow(RangeError);
    await expect(calc.zoom([0, 0, 0, 10])).rejects.toThrow(TypeError);
  });
});
