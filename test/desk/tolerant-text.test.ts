// The one tolerant fold that locators and menu titles share: each rule on its own, and that
// both callers take it (a locator and a menu title tolerate the same differences).
import { describe, expect, it } from "vitest";
import { matchItem } from "../../helper/linux/menu-path.js";
import { matchLocator, withAncestors } from "../../src/desk/locate.js";
import { tolerantKey } from "../../src/text/tolerant-text.js";

describe("tolerantKey", () => {
  it.each([
    ["Save As…", "save as"],
    ["Save As...", "save as"],
    ["  Find   and\tReplace ", "find and replace"],
    ["_File", "file"],
    ["Name:", "name"],
    ["Name :", "name"],
    ["Ｓａｖｅ", "save"],
    ["…", ""],
    ["a...b", "a...b"],
  ])("%j folds to %j", (text, key) => {
    expect(tolerantKey(text)).toBe(key);
  });

  it("folds one trailing ellipsis or colon, not both, and nothing in the middle", () => {
    expect(tolerantKey("Wait...:")).toBe("wait...");
    expect(tolerantKey("Ratio: 1:2")).toBe("ratio: 1:2");
  });

  it("is what locators and menu titles both tolerate", () => {
    const labels = ["_Encoding:", "Save As…"];
    const entries = withAncestors(labels.map((title, k) => ({ i: k + 1, d: 0, role: "AXMenuItem", title })));
    for (const wanted of ["encoding", "SAVE  AS..."]) {
      const menuPick = matchItem(labels, wanted);
      const { tier, matches } = matchLocator(entries, { label: wanted });
      expect(tier).toBe("tolerant");
      expect(matches.map((m) => m.node.i)).toEqual([menuPick + 1]);
    }
  });
});
