// Key names → keysyms and chord parsing. Pure: no X server needed.
import { describe, expect, it } from "vitest";
import { keysymOf, keysymsOfChar, modifierKeysym, parseChord } from "../../helper/linux/keysyms.js";

describe("keysymOf", () => {
  it.each([
    ["Return", 0xff0d],
    ["Tab", 0xff09],
    ["Escape", 0xff1b],
    ["BackSpace", 0xff08],
    ["Delete", 0xffff],
    ["Home", 0xff50],
    ["End", 0xff57],
    ["Page_Up", 0xff55],
    ["Page_Down", 0xff56],
    ["Left", 0xff51],
    ["Up", 0xff52],
    ["Right", 0xff53],
    ["Down", 0xff54],
    ["F1", 0xffbe],
    ["F12", 0xffc9],
    ["F24", 0xffd5],
    ["space", 0x20],
    ["plus", 0x2b],
    ["minus", 0x2d],
    ["comma", 0x2c],
    ["slash", 0x2f],
    ["udiaeresis", 0xfc],
    ["a", 0x61],
    ["A", 0x41],
    ["+", 0x2b],
    ["ü", 0xfc],
    ["€", 0x20ac],
    ["✓", 0xaf3],
    ["😀", 0x101f600],
  ])("%s", (name, keysym) => {
    expect(keysymOf(name)).toBe(keysym);
  });

  it("accepts friendly aliases and other capitalisations", () => {
    expect(keysymOf("enter")).toBe(0xff0d);
    expect(keysymOf("esc")).toBe(0xff1b);
    expect(keysymOf("return")).toBe(0xff0d);
    expect(keysymOf("page_down")).toBe(0xff56);
    expect(keysymOf("pagedown")).toBe(0xff56);
    expect(keysymOf("ctrl")).toBe(0xffe3);
    expect(keysymOf("super")).toBe(0xffeb);
  });

  it("accepts Unicode and numeric forms", () => {
    expect(keysymOf("U+2713")).toBe(0x1002713);
    expect(keysymOf("U00e9")).toBe(0xe9);
    expect(keysymOf("0xff0d")).toBe(0xff0d);
  });

  it("rejects unknown names with code bad_key", () => {
    for (const name of ["NoSuchKey", "", "constructor", "toString", "__proto__"]) {
      expect(() => keysymOf(name), name).toThrow(expect.objectContaining({ code: "bad_key" }));
    }
  });
});

describe("keysymsOfChar", () => {
  it("types control characters as their keys", () => {
    expect(keysymsOfChar("\n")).toEqual([0xff0d]);
    expect(keysymsOfChar("\t")).toEqual([0xff09]);
    expect(() => keysymsOfChar("\u0001")).toThrow(expect.objectContaining({ code: "bad_key" }));
  });

  it("offers the legacy keysym before the Unicode one", () => {
    expect(keysymsOfChar("é")).toEqual([0xe9]);
    expect(keysymsOfChar("€")).toEqual([0x20ac, 0x10020ac]);
    expect(keysymsOfChar("ŋ")).toEqual([0x3bf, 0x100014b]);
    expect(keysymsOfChar("😀")).toEqual([0x101f600]);
  });
});

describe("parseChord", () => {
  it.each([
    ["ctrl+shift+s", { key: "s", mods: ["ctrl", "shift"] }],
    ["Return", { key: "Return", mods: [] }],
    ["alt+F4", { key: "F4", mods: ["alt"] }],
    ["cmd+c", { key: "c", mods: ["super"] }],
    ["Control+Page_Down", { key: "Page_Down", mods: ["ctrl"] }],
    ["ctrl+ctrl+a", { key: "a", mods: ["ctrl"] }],
    ["ctrl++", { key: "+", mods: ["ctrl"] }],
    ["+", { key: "+", mods: [] }],
    ["fn+F1", { key: "F1", mods: ["fn"] }],
  ])("%s", (text, chord) => {
    expect(parseChord(text)).toEqual(chord);
  });

  it.each(["", "ctrl+", "ctrl+NoSuchKey"])("rejects %j with code bad_key", (text) => {
    expect(() => parseChord(text)).toThrow(expect.objectContaining({ code: "bad_key" }));
  });

  it("rejects an unknown modifier with code bad_request, as the protocol does", () => {
    expect(() => parseChord("hyper+a")).toThrow(expect.objectContaining({ code: "bad_request" }));
    expect(() => parseChord("constructor+a")).toThrow(expect.objectContaining({ code: "bad_request" }));
    expect(() => modifierKeysym("hyper" as never)).toThrow(expect.objectContaining({ code: "bad_request" }));
    expect(() => modifierKeysym("constructor" as never)).toThrow(expect.objectContaining({ code: "bad_request" }));
  });

  it("has no X keysym for fn", () => {
    expect(modifierKeysym("fn")).toBeNull();
    expect(modifierKeysym("alt")).toBe(0xffe9);
  });
});
