// The menu title match both helpers share (test/fixtures/menu-match-vectors.json), and the path
// walk over a tree with the menu bar.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { findMenuItem, matchItem } from "../../helper/linux/menu-path.js";
import type { AXNode } from "../../src/helper/protocol.js";

interface Vector {
  name: string;
  labels: string[];
  wanted: string;
  expect: number | string;
}

const { vectors } = JSON.parse(readFileSync(new URL("../fixtures/menu-match-vectors.json", import.meta.url), "utf8")) as { vectors: Vector[] };

describe("menu title matching", () => {
  it.each(vectors)("$name", ({ labels, wanted, expect: outcome }) => {
    if (typeof outcome === "number") expect(matchItem(labels, wanted)).toBe(outcome);
    else expect(() => matchItem(labels, wanted)).toThrow(expect.objectContaining({ code: outcome }));
  });
});

describe("findMenuItem", () => {
  // GTK's shape (submenus are items) and macOS's (an AXMenu between an item and its items) in one bar.
  const nodes: AXNode[] = [
    { i: 1, d: 0, role: "AXWindow" },
    { i: 2, d: 1, role: "AXMenuBar" },
    { i: 3, d: 2, role: "AXMenuBarItem", title: "File" },
    { i: 4, d: 3, role: "AXMenuItem", title: "Open Recent      " },
    { i: 5, d: 4, role: "AXMenuItem", title: "notes.txt" },
    { i: 6, d: 3, role: "AXMenuItem", title: "" },
    { i: 7, d: 3, role: "AXMenuItem", title: "Quit", disabled: true },
    { i: 8, d: 2, role: "AXMenuBarItem", title: "Edit" },
    { i: 9, d: 3, role: "AXMenu", title: "Edit" },
    { i: 10, d: 4, role: "AXMenuItem", title: "Copy" },
    { i: 11, d: 1, role: "AXButton", title: "Copy" },
  ];

  it("walks GTK submenus and looks through macOS AXMenu containers", () => {
    expect(findMenuItem(nodes, ["File", "Open Recent", "notes.txt"])).toMatchObject({ node: { i: 5 }, path: ["File", "Open Recent", "notes.txt"] });
    expect(findMenuItem(nodes, ["edit", "copy"])).toMatchObject({ node: { i: 10 }, path: ["Edit", "Copy"] });
  });

  it("lists the items of the level that failed, without separators", () => {
    expect(() => findMenuItem(nodes, ["File", "Close"])).toThrow('no menu item "Close" in "File"; it has: "Open Recent", "Quit"');
  });

  it("refuses a disabled item and a window without a menu bar", () => {
    expect(() => findMenuItem(nodes, ["File", "Quit"])).toThrow(expect.objectContaining({ code: "action_failed" }));
    expect(() => findMenuItem(nodes.slice(0, 1), ["File"])).toThrow(expect.objectContaining({ code: "not_found" }));
  });
});
