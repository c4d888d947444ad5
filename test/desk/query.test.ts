import { describe, expect, it } from "vitest";
import { matches, validateQuery } from "../../src/desk/query.js";
import type { AXNode } from "../../src/helper/protocol.js";

const toggle: AXNode = { i: 7, d: 2, role: "AXButton", subrole: "AXToggle", title: "7", id: "key-7" };
const display: AXNode = { i: 1, d: 1, role: "AXStaticText", desc: "display", value: "42" };

describe("queries", () => {
  it("matches a role by AX name, plain words, or the words of its subrole", () => {
    expect(matches(toggle, { role: "AXButton" })).toBe(true);
    expect(matches(toggle, { role: "button" })).toBe(true);
    expect(matches(toggle, { role: "toggle button" })).toBe(true);
    expect(matches(toggle, { role: "checkbox" })).toBe(false);
  });

  it("matches text case-insensitively, or exactly when asked", () => {
    expect(matches(display, "DISPLAY")).toBe(true);
    expect(matches(display, { value: "4" })).toBe(true);
    expect(matches(display, { value: "4", exact: true })).toBe(false);
    expect(matches(toggle, { label: "7", exact: true, role: "button" })).toBe(true);
    expect(matches(toggle, { text: "key-7" })).toBe(true);
  });

  it("refuses an unknown field or an empty query", () => {
    expect(() => validateQuery({ rol: "button" })).toThrow(/unknown query field "rol"/);
    expect(() => validateQuery("")).toThrow(/must not be empty/);
    expect(() => validateQuery(3)).toThrow(/a query is a string or an object/);
  });
});
