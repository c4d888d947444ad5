import { describe, expect, it } from "vitest";
import { locatorFor, matchLocator, pickOne, tiersFor, withAncestors } from "../../src/desk/locate.js";
import { locatorSource, validateLocator } from "../../src/desk/locator.js";
import type { AXNode } from "../../src/helper/protocol.js";
import { isDeskError } from "../../src/helper/desk-error.js";

// Two dialogs with an "OK" each, and a panel of unlabelled text fields.
const NODES: AXNode[] = [
  { i: 1, d: 0, role: "AXWindow", title: "Editor" },
  { i: 2, d: 1, role: "AXSheet", title: "Save As…" },
  { i: 3, d: 2, role: "AXGroup" },
  { i: 4, d: 3, role: "AXButton", title: "OK" },
  { i: 5, d: 3, role: "AXTextField", placeholder: "Name:", value: "notes.txt" },
  { i: 6, d: 1, role: "AXSheet", title: "Print" },
  { i: 7, d: 2, role: "AXButton", title: "OK" },
  { i: 8, d: 1, role: "AXGroup", desc: "fields" },
  { i: 9, d: 2, role: "AXTextField" },
  { i: 10, d: 2, role: "AXTextField", id: "zip" },
  { i: 11, d: 2, role: "AXTextField" },
];
const entries = withAncestors(NODES);

describe("locators over a tree read", () => {
  it("pairs every element with its ancestors, outermost first", () => {
    expect(entries.find((e) => e.node.i === 4)!.ancestors.map((a) => a.i)).toEqual([1, 2, 3]);
    expect(entries.find((e) => e.node.i === 7)!.ancestors.map((a) => a.i)).toEqual([1, 6]);
    expect(entries.find((e) => e.node.i === 1)!.ancestors).toEqual([]);
  });

  it("describes an element with its labelled ancestors only when it takes them to be unique", () => {
    expect(locatorFor(entries, 4, "Editor")).toEqual({ role: "button", label: "OK", within: [{ role: "sheet", label: "Save As…" }], window: "Editor" });
    expect(locatorFor(entries, 10)).toEqual({ role: "text field", id: "zip" });
    expect(locatorFor(entries, 11)).toEqual({ role: "text field", within: [{ role: "group", label: "fields" }], nth: 2 });
    expect(locatorFor(entries, 99)).toBeUndefined();
    for (const e of entries) {
      const locator = locatorFor(entries, e.node.i)!;
      expect(pickOne(entries, locator, "the test").node.i, locatorSource(locator)).toBe(e.node.i);
    }
  });

  it("matches exactly first, then folded, then by containment", () => {
    expect(matchLocator(entries, { label: "Save As…" }).tier).toBe("exact");
    expect(matchLocator(entries, { label: "save as..." })).toMatchObject({ tier: "tolerant", matches: [{ node: { i: 2 } }] });
    expect(matchLocator(entries, { role: "text field", label: "name" })).toMatchObject({ tier: "tolerant", matches: [{ node: { i: 5 } }] });
    expect(matchLocator(entries, { label: "save" })).toMatchObject({ tier: "contains", matches: [{ node: { i: 2 } }] });
  });

  it("lets an action take a contains-only match only when the locator opts in", () => {
    // The dialog's "Save" button is gone; only "Don't Save" holds the word.
    const dialog = withAncestors([
      { i: 1, d: 0, role: "AXWindow", title: "Editor" },
      { i: 2, d: 1, role: "AXButton", title: "Don't Save" },
      { i: 3, d: 1, role: "AXButton", title: "Cancel" },
    ]);
    const save = { role: "button", label: "Save" };
    expect(pickOne(dialog, save, "the dialog").node.i).toBe(2); // locate reports every tier
    expect(() => pickOne(dialog, save, "the dialog", false, tiersFor(save, true))).toThrow(
      'not_found: nothing in the dialog matches { role: "button", label: "Save" } exactly or tolerantly; only containing it: [2] button "Don\'t Save"; name one of them, or add match: "contains" to accept a containing match',
    );
    expect(pickOne(dialog, { ...save, match: "contains" }, "d", false, tiersFor({ ...save, match: "contains" }, true)).node.i).toBe(2);
    expect(pickOne(dialog, { label: "cancel" }, "d", false, tiersFor({ label: "cancel" }, true)).node.i).toBe(3); // tolerant still does
    expect(() => pickOne(dialog, { label: "Print" }, "d", false, tiersFor({ label: "Print" }, true))).toThrow(/^not_found: nothing in d matches \{ label: "Print" \}$/);
    expect(() => validateLocator({ label: "Save", match: "fuzzy" })).toThrow(/a locator's match is "contains"/);
  });

  it("takes ancestors in order with gaps, and refuses them out of order", () => {
    expect(pickOne(entries, { role: "button", label: "OK", within: [{ label: "Print" }] }, "t").node.i).toBe(7);
    expect(pickOne(entries, { role: "button", within: [{ role: "window" }, { role: "group" }] }, "t").node.i).toBe(4);
    expect(() => pickOne(entries, { role: "button", within: [{ role: "group" }, { role: "sheet" }] }, "t")).toThrow(/nothing in t matches/);
  });

  it("says ambiguous with each match's nth, and not_found with the nearest", () => {
    try {
      pickOne(entries, { role: "button", label: "OK" }, "the editor");
      throw new Error("no error");
    } catch (error) {
      expect(isDeskError(error, "ambiguous")).toBe(true);
      expect((error as Error).message).toBe('ambiguous: 2 elements in the editor match { role: "button", label: "OK" } (exact): nth 0: [4] button "OK" in sheet "Save As…"; nth 1: [7] button "OK" in sheet "Print"; add within, window or nth to pick one');
    }
    expect(() => pickOne(entries, { role: "button", label: "Okay" }, "e")).toThrow(/not_found: nothing in e matches .*; nearest: \[4\] button "OK"/);
  });

  it("writes a locator as the source a person would type", () => {
    expect(locatorSource({ role: "push button", label: 'Say "hi"', within: [{ role: "sheet", label: "Print" }], nth: 1 })).toBe('{ role: "push button", label: "Say \\"hi\\"", within: [{ role: "sheet", label: "Print" }], nth: 1 }');
    expect(() => validateLocator({ role: "" })).toThrow(/non-empty string/);
    expect(() => validateLocator([1])).toThrow(/a locator is an object/);
    expect(() => validateLocator({ role: "button", within: [{ name: "x" }] })).toThrow(/unknown field "name" in within\[0\]/);
  });
});
