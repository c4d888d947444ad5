import { describe, expect, it } from "vitest";
import type { AXNode } from "../../src/helper/protocol.js";
import { axTextToHtml, escapeText, formatNode, formatTree, formatTreeHtml, truncate } from "../../src/desk/ax-text.js";
import { calculatorInput } from "./fixtures.js";

const line = (node: Partial<AXNode>, maxTextLength = 160): string =>
  formatNode({ i: 7, d: 0, role: "AXButton", ...node }, { ...calculatorInput(), maxTextLength });

describe("formatTree", () => {
  it("prints a header and one indented line per element", () => {
    expect(formatTree(calculatorInput())).toBe(
      [
        'app "Calculator", window "Calculator", image 464×644, 12 elements',
        '0 window "Calculator" [Raise]',
        "  1 close button",
        "  2 group",
        '    3 text "1,234" #display',
        '    4 group "keypad"',
        '      5 button "AC"',
        '      6 button "7"',
        '      7 button "8"',
        '      8 button "9"',
        '      9 button "divide"',
        '      10 button "equals"',
        '    11 pop-up button "Basic" [ShowMenu]',
      ].join("\n"),
    );
  });

  it("adds frames in image pixels when asked", () => {
    const lines = formatTree(calculatorInput(undefined, true)).split("\n");
    expect(lines[1]).toBe('0 window "Calculator" [Raise] @0,0,464,644');
    expect(lines[6]).toBe('      5 button "AC" @16,240,104,72');
    expect(lines[12]).toBe('    11 pop-up button "Basic" [ShowMenu] @300,12,140,36');
  });

  it("says when the tree was truncated, and counts one element in the singular", () => {
    const input = { ...calculatorInput(), nodes: [{ i: 0, d: 0, role: "AXWindow" }], truncated: true };
    expect(formatTree(input)).toBe('app "Calculator", window "Calculator", image 464×644, 1 element, truncated\n0 window');
  });

  it("keeps the order the cells' regexes rely on", () => {
    const text = formatTree(calculatorInput());
    expect(text.match(/^\s*(\d+) button "7"/m)?.[1]).toBe("6");
  });
});

describe("formatNode", () => {
  it("takes the label from the title, else the description, else the placeholder", () => {
    expect(line({ title: "OK", desc: "confirm", placeholder: "p" })).toBe('7 button "OK"');
    expect(line({ title: "", desc: "confirm", placeholder: "p" })).toBe('7 button "confirm"');
    expect(line({ role: "AXTextField", placeholder: "Search" })).toBe('7 text field "Search"');
    expect(line({})).toBe("7 button");
  });

  it("shows a value after the label, but not when it repeats it or is empty", () => {
    expect(line({ role: "AXTextField", title: "Name", value: "Ada" })).toBe('7 text field "Name" = "Ada"');
    expect(line({ role: "AXTextField", title: "Name", value: "" })).toBe('7 text field "Name"');
    expect(line({ role: "AXStaticText", value: "Hello" })).toBe('7 text "Hello"');
    expect(line({ role: "AXSlider", value: "0.5" })).toBe('7 slider = "0.5"');
  });

  it("prints id, flags, actions and frame in that order", () => {
    const node: Partial<AXNode> = {
      role: "AXTextField",
      title: "Name",
      value: "Ada",
      id: "name-field",
      focused: true,
      selected: false,
      disabled: true,
      settable: true,
      actions: ["AXConfirm", "AXShowMenu"],
      frame: [108, 240, 100, 20],
    };
    expect(formatNode({ i: 9, d: 2, ...node } as AXNode, calculatorInput(undefined, true))).toBe(
      '9 text field "Name" = "Ada" #name-field (focused, disabled, settable) [Confirm, ShowMenu] @16,80,200,40',
    );
  });

  it("leaves out the action a click already performs, and only for roles where it does", () => {
    expect(line({ actions: ["AXPress"] })).toBe("7 button");
    expect(line({ actions: ["AXPress", "AXShowMenu"] })).toBe("7 button [ShowMenu]");
    expect(line({ role: "AXRow", actions: ["AXPress"] })).toBe("7 row [Press]");
    expect(line({ role: "AXSlider", actions: ["AXIncrement", "AXDecrement"] })).toBe("7 slider [Increment, Decrement]");
  });

  it("shortens macOS custom actions to their name", () => {
    expect(line({ role: "AXCell", actions: ["Name:Copy Link\nTarget:0x0\nSelector:(null)"] })).toBe("7 cell [Copy Link]");
  });

  it("escapes quotes, backslashes and line breaks so an element stays on one line", () => {
    const text = line({ title: 'Say "hi"\nthen\\go', value: "a\tb\r\u0001\u2028" });
    expect(text).toBe('7 button "Say \\"hi\\"\\nthen\\\\go" = "a\\tb\\r\\u0001\\u2028"');
    expect(text).not.toMatch(/[\n\r]/);
  });

  it("quotes an id that is not a plain token", () => {
    expect(line({ id: "save button" })).toBe('7 button #"save button"');
    expect(line({ id: "_NS:12" })).toBe("7 button #_NS:12");
  });

  it("truncates labels and values to maxTextLength with an ellipsis", () => {
    expect(line({ title: "abcdefghij", value: "0123456789" }, 5)).toBe('7 button "abcd…" = "0123…"');
    expect(line({ title: "abcde" }, 5)).toBe('7 button "abcde"');
  });
});

describe("truncate / escapeText", () => {
  it("never splits a surrogate pair", () => {
    expect(truncate("ab😀cd", 4)).toBe("ab…");
    expect(truncate("ab😀cd", 5)).toBe("ab😀…");
  });

  it("leaves plain text untouched", () => {
    const plain = "Plain text, with ünïcode — and ≠ symbols";
    expect(escapeText(plain)).toBe(plain);
  });
});

describe("formatTreeHtml", () => {
  it("is the same text in a <pre>, header in bold", () => {
    const html = formatTreeHtml(calculatorInput());
    expect(html.startsWith('<pre class="deskbook-ax"><strong>app &quot;Calculator&quot;')).toBe(true);
    expect(html).toContain("</strong>\n0 window &quot;Calculator&quot; [Raise]\n");
    expect(html.endsWith("</pre>")).toBe(true);
  });

  it("escapes everything that HTML would interpret", () => {
    const input = calculatorInput([{ i: 0, d: 0, role: "AXButton", title: `<img src=x onerror='alert(1)'> & "more"` }]);
    const html = formatTreeHtml(input);
    expect(html).toContain("&lt;img src=x onerror=&#39;alert(1)&#39;&gt; &amp; \\&quot;more\\&quot;");
    expect(html.replace(/<\/?(pre|strong)[^>]*>/g, "")).not.toMatch(/[<>]/);
  });

  it("renders a text with no body", () => {
    expect(axTextToHtml("just a header")).toBe('<pre class="deskbook-ax"><strong>just a header</strong></pre>');
  });
});
