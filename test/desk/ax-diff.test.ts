import { describe, expect, it } from "vitest";
import type { AXNode, WindowInfo } from "../../src/helper/protocol.js";
import { AXHistory, NO_CHANGES, compactRanges, diffTrees, windowKey } from "../../src/desk/ax-diff.js";
import { formatTree } from "../../src/desk/ax-text.js";
import { CALC_WINDOW, calculatorInput, calculatorNodes } from "./fixtures.js";

const HEADER = 'app "Calculator", window "Calculator", image 464×644, 12 elements';

function edited(edit: (nodes: AXNode[]) => void): AXNode[] {
  const nodes = calculatorNodes();
  edit(nodes);
  return nodes;
}

describe("diffTrees", () => {
  it("prints changed and added elements in tree order, then the removed indices", () => {
    const current = edited((n) => {
      n[3]!.value = "1,234÷";
      n[9]!.selected = true;
      n.splice(7, 2);
      n.push({ i: 12, d: 3, role: "AXMenu" }, { i: 13, d: 4, role: "AXMenuItem", title: "Scientific" });
    });
    const diff = diffTrees(calculatorNodes(), current, calculatorInput(current));
    expect(diff.text).toBe(
      [
        'app "Calculator", window "Calculator", image 464×644, 12 elements',
        '~ 3 text "1,234÷" #display',
        '~   9 button "divide" (selected)',
        "+   12 menu",
        '+     13 menu item "Scientific"',
        "- removed: 7-8",
      ].join("\n"),
    );
    expect(diff).toMatchObject({ changed: 2, added: 2, removed: [7, 8], unchanged: false });
  });

  it("says so when nothing changed", () => {
    const diff = diffTrees(calculatorNodes(), calculatorNodes(), calculatorInput());
    expect(diff).toEqual({ text: `${HEADER}\n${NO_CHANGES}`, changed: 0, added: 0, removed: [], unchanged: true });
  });

  it("counts a moved frame only when frames are shown", () => {
    const moved = edited((n) => (n[6]!.frame = [120, 330, 52, 36]));
    expect(diffTrees(calculatorNodes(), moved, calculatorInput(moved, false)).unchanged).toBe(true);
    const shown = diffTrees(calculatorNodes(), moved, calculatorInput(moved, true));
    expect(shown.text.split("\n").slice(1)).toEqual(['~ 6 button "7" @40,260,104,72']);
  });

  it("counts a change of depth as a change", () => {
    const deeper = edited((n) => (n[11]!.d = 3));
    const diff = diffTrees(calculatorNodes(), deeper, calculatorInput(deeper));
    expect(diff.changed).toBe(1);
    expect(diff.text).toContain('~ 11 pop-up button "Basic" [ShowMenu]');
  });

  it("lists only removals when elements went away", () => {
    const current = calculatorNodes().filter((n) => ![1, 5, 6, 7, 10].includes(n.i));
    const diff = diffTrees(calculatorNodes(), current, calculatorInput(current));
    expect(diff.text.split("\n")).toEqual([
      'app "Calculator", window "Calculator", image 464×644, 7 elements',
      "- removed: 1, 5-7, 10",
    ]);
  });

  it("sees a reordered tree with the same elements as unchanged", () => {
    const reversed = calculatorNodes().reverse();
    expect(diffTrees(calculatorNodes(), reversed, calculatorInput(reversed)).unchanged).toBe(true);
  });
});

describe("compactRanges", () => {
  it("joins runs of consecutive indices", () => {
    expect(compactRanges([])).toBe("");
    expect(compactRanges([4])).toBe("4");
    expect(compactRanges([3, 7, 12])).toBe("3, 7, 12");
    expect(compactRanges([1, 2, 3, 5, 7, 8])).toBe("1-3, 5, 7-8");
  });
});

describe("windowKey", () => {
  it("uses the window id when there is one, else the title", () => {
    expect(windowKey(CALC_WINDOW, 501)).toBe("501:id:4242");
    const { windowId: _, ...untitled } = CALC_WINDOW;
    expect(windowKey(untitled as WindowInfo, 501)).toBe("501:title:Calculator");
    expect(windowKey(untitled as WindowInfo)).toBe("?:title:Calculator");
  });
});

describe("AXHistory", () => {
  it("prints the full tree on the first read, then only changes", () => {
    const history = new AXHistory();
    const first = history.read("w", calculatorInput());
    expect(first).toMatchObject({ full: true, unchanged: false, text: formatTree(calculatorInput()) });

    const same = history.read("w", calculatorInput());
    expect(same).toMatchObject({ full: false, unchanged: true, text: `${HEADER}\n${NO_CHANGES}` });

    const changed = edited((n) => (n[3]!.value = "7"));
    const next = history.read("w", calculatorInput(changed));
    expect(next.full).toBe(false);
    expect(next.text).toBe(`${HEADER}\n~ 3 text "7" #display`);
    expect(next.diff?.changed).toBe(1);
  });

  it("diffs against the last read, not the first", () => {
    const history = new AXHistory();
    history.read("w", calculatorInput());
    history.read("w", calculatorInput(edited((n) => (n[3]!.value = "7"))));
    expect(history.read("w", calculatorInput(edited((n) => (n[3]!.value = "7")))).unchanged).toBe(true);
  });

  it("prints the full tree when diffing is off, and diffs against it afterwards", () => {
    const history = new AXHistory();
    history.read("w", calculatorInput());
    const full = history.read("w", calculatorInput(), { disableDiffing: true });
    expect(full.full).toBe(true);
    expect(full.text).toBe(formatTree(calculatorInput()));
    expect(history.read("w", calculatorInput()).unchanged).toBe(true);
  });

  it("prints the full tree when frames are turned on, since a diff would hide unchanged frames", () => {
    const history = new AXHistory();
    history.read("w", calculatorInput(undefined, false));
    expect(history.read("w", calculatorInput(undefined, true)).full).toBe(true);
    expect(history.read("w", calculatorInput(undefined, true)).full).toBe(false);
    expect(history.read("w", calculatorInput(undefined, false)).full).toBe(false);
  });

  it("keeps windows apart and exposes each window's last nodes", () => {
    const history = new AXHistory();
    history.read("a", calculatorInput());
    expect(history.read("b", calculatorInput()).full).toBe(true);
    const nodes = calculatorNodes().slice(0, 3);
    history.read("a", calculatorInput(nodes));
    expect(history.nodes("a")).toBe(nodes);
    expect(history.nodes("b")).toHaveLength(12);
    expect(history.nodes("c")).toBeUndefined();
    history.forget("a");
    expect(history.read("a", calculatorInput()).full).toBe(true);
    history.clear();
    expect(history.nodes("b")).toBeUndefined();
  });

  it("forgets the least recently read window beyond its limit", () => {
    const history = new AXHistory(2);
    history.read("a", calculatorInput());
    history.read("b", calculatorInput());
    history.read("a", calculatorInput());
    history.read("c", calculatorInput());
    expect(history.nodes("a")).toBeDefined();
    expect(history.nodes("b")).toBeUndefined();
    expect(history.nodes("c")).toBeDefined();
  });
});
