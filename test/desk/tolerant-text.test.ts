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
    ["my_report.txt", "my_report.txt"],
    ["Name:", "name"],
    ["Name :", "name"],
    ["Ｓａｖｅ", "save"],
    ["…", ""],
    ["a...b", "a...b"],
  ])("%j folds to %j", (text, key) => {
    expect(tolerantKey(text)).toBe(key);
  });

  it("drops underscores only as menu mnemonics", () => {
    expect(tolerantKey("_File", { mnemonics: true })).toBe("file");
    expect(tolerantKey("_File")).toBe("_file");
  });

  it("folds one trailing ellipsis or colon, not both, and nothing in the middle", () => {
    expect(tolerantKey("Wait...:")).toBe("wait...");
    expect(tolerantKey("Ratio: 1:2")).toBe("ratio: 1:2");
  });

  it("keeps a locator from naming what it did not write", () => {
    const entries = withAncestors([
      { i: 1, d: 0, role: "AXButton", title: "my_report.txt" },
      { i: 2, d: 0, role: "AXButton" },
    ]);
    expect(matchLocator(entries, { label: "myreport.txt" }, ["exact", "tolerant"]).matches).toEqual([]);
    expect(matchLocator(entries, { label: "..." }).matches).toEqual([]);
    expect(matchLocator(entries, { label: ":" }).matches).toEqual([]);
  });

  it("is what locators and menu titles both tolerate", () => {
    const labels = ["Encoding:", "Save As…"];
    const entries = withAncestors(labels.map((title, k) => ({ i: k + 1, d: 0, role: "AXMenuItem", title })));
    for (const wanted of ["encoding", "SAVE  AS..."]) {
      const menuPick = matchItem(labels, wanted);
      const { tier, matches } = matchLocator(entries, { label: wanted });
      expect(tier).toBe("tolerant");
      expect(matches.map((m) => m.node.i)).toEqual([menuPick + 1]);
    }
  });
});
