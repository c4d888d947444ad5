// Action names across toolkits: GTK's and Chromium's presses are AXPress, Chromium's per-node
// boilerplate stays out of reads but is still there to ask for and to press with.
import { describe, expect, it } from "vitest";
import { axActionNames, findActionIndex, listedActionNames } from "../../helper/linux/atspi-actions.js";

describe("AT-SPI action names", () => {
  it("names GTK's and Chromium's presses AXPress", () => {
    expect(axActionNames(["click"])).toEqual(["AXPress"]);
    expect(axActionNames(["check", "showContextMenu"])).toEqual(["AXPress", "showContextMenu"]);
    expect(axActionNames(["jump", "showContextMenu"])).toEqual(["AXPress", "showContextMenu"]);
    expect(axActionNames(["expand or contract", "activate"])).toEqual(["expand or contract", "AXPress"]);
  });

  it("leaves Chromium's boilerplate out of what a read lists", () => {
    expect(listedActionNames(["doDefault", "showContextMenu"])).toEqual([]);
    expect(listedActionNames(["open", "showContextMenu"])).toEqual(["AXPress"]);
    expect(listedActionNames(["select"])).toEqual(["AXPress"]);
  });

  it("presses with doDefault only when there is no other press", () => {
    expect(axActionNames(["doDefault", "showContextMenu"])).toEqual(["doDefault", "showContextMenu", "AXPress"]);
    expect(findActionIndex(["doDefault", "showContextMenu"], "AXPress")).toBe(0);
    expect(findActionIndex(["showContextMenu", "doDefault", "jump"], "AXPress")).toBe(2);
    expect(findActionIndex(["showContextMenu"], "AXPress")).toBe(-1);
    expect(findActionIndex(["showContextMenu", "doDefault"], "showcontextmenu")).toBe(0);
  });
});
