import * as vm from "node:vm";
import { beforeAll, describe, expect, it } from "vitest";
import { complete, type CompletionResult } from "../../src/executor/complete.js";
import { codePointToUtf16, utf16ToCodePoint } from "../../src/executor/cursor.js";

let global: object;

beforeAll(() => {
  const context = vm.createContext({}, { microtaskMode: "afterEvaluate" });
  vm.runInContext(
    `var foo = { bar: 1, baz: { qux: [1, 2] }, "a-b": 2, "it's": 3 };
     var fooBar = 2;
     var obj = { get explodes() { throw new Error("getter ran"); }, fine: { deep: 1 } };
     var called = 0;
     var fn = Object.assign(function () { called++; return { leaked: 1 }; }, { prop: 1 });
     Object.defineProperty(globalThis, "__deskbook__", { value: {}, enumerable: false });
     var __deskbookSecret = 1;
     var café = { crème: 1 };
     var Shape = class Shape { area() { return 0; } };
     var square = new (class Square extends Shape { side = 2; })();`,
    context,
  );
  global = vm.runInContext("globalThis", context) as object;
});

/** Completes at the `|` marker (removed from the code). */
function at(marked: string): CompletionResult & { code: string } {
  const index = marked.indexOf("|");
  const code = marked.slice(0, index) + marked.slice(index + 1);
  return { ...complete(code, utf16ToCodePoint(code, index), global), code };
}

/** The text a client would replace, read back in code points. */
function replaced(result: CompletionResult & { code: string }): string {
  const { code, cursor_start, cursor_end } = result;
  return code.slice(codePointToUtf16(code, cursor_start), codePointToUtf16(code, cursor_end));
}

describe("complete: bare identifiers", () => {
  it("offers matching session bindings, builtins and keywords, sorted", () => {
    const result = at("fo|");
    expect(result.matches).toEqual(["foo", "fooBar", "for"]);
    expect(replaced(result)).toBe("fo");
  });

  it("offers builtins and keywords", () => {
    expect(at("Pro|").matches).toEqual(expect.arrayContaining(["Promise", "Proxy"]));
    expect(at("aw|").matches).toEqual(["await"]);
    expect(at("cons|").matches).toEqual(["console", "const"]);
  });

  it("hides Deskbook's internal names", () => {
    expect(at("__desk|").matches).toEqual([]);
    expect(at("|").matches).not.toContain("__deskbook__");
  });

  it("works inside nested expressions and mid-cell", () => {
    const result = at("const x = 1;\nconsole.log(fooB|);\nmore();");
    expect(result.matches).toEqual(["fooBar"]);
    expect(replaced(result)).toBe("fooB");
  });

  it("offers nothing inside strings or comments", () => {
    expect(at("'fo|").matches).toEqual([]);
    expect(at("// fo|").matches).toEqual([]);
    expect(at("/* fo|").matches).toEqual([]);
    expect(at("`fo|").matches).toEqual([]);
  });

  it("completes inside template substitutions", () => {
    expect(at("`x ${fooB|").matches).toEqual(["fooBar"]);
  });

  it("handles non-ASCII identifiers", () => {
    expect(at("caf|").matches).toEqual(["café"]);
    expect(at("café.cr|").matches).toEqual(["crème"]);
  });
});

describe("complete: members after . and ?.", () => {
  it("completes own properties by prefix", () => {
    const result = at("foo.ba|");
    expect(result.matches).toEqual(["bar", "baz"]);
    expect(replaced(result)).toBe("ba");
  });

  it("completes after ?.", () => {
    const result = at("foo?.b|");
    expect(result.matches).toEqual(["bar", "baz"]);
    expect(replaced(result)).toBe("b");
  });

  it("walks the prototype chain, non-enumerable names included", () => {
    const matches = at("square.|").matches;
    expect(matches).toEqual(expect.arrayContaining(["side", "area", "constructor", "hasOwnProperty"]));
    expect(matches.indexOf("side")).toBeLessThan(matches.indexOf("__proto__"));
  });

  it("follows chains with index accessors and this", () => {
    expect(at("foo.baz.qux.fil|").matches).toEqual(["fill", "filter"]);
    expect(at('foo["baz"].q|').matches).toEqual(["qux"]);
    expect(at("foo.baz.qux[0].toF|").matches).toEqual(["toFixed"]);
    expect(at("this.fooB|").matches).toEqual(["fooBar"]);
  });

  it("leaves out names that are not identifiers", () => {
    expect(at("foo.|").matches).not.toContain("a-b");
  });

  it("uses wrapper prototypes for primitives", () => {
    expect(at('"abc".toU|').matches).toEqual(["toUpperCase"]);
    expect(at("foo.bar.toF|").matches).toEqual(["toFixed"]);
  });

  it("works in a multi-line cell with the cursor in the middle", () => {
    const result = at("const a = 1;\nfoo\n  .baz\n  .q|\nconsole.log(a);");
    expect(result.matches).toEqual(["qux"]);
    expect(replaced(result)).toBe("q");
  });

  it("works inside call arguments", () => {
    const result = at("console.log(foo.ba|, 2)");
    expect(result.matches).toEqual(["bar", "baz"]);
    expect(replaced(result)).toBe("ba");
  });

  it("never calls functions or lets getter exceptions escape", () => {
    expect(at("fn().lea|").matches).toEqual([]);
    expect(at("fn.pr|").matches).toEqual(["prop", "propertyIsEnumerable", "prototype"]);
    expect((global as { called: number }).called).toBe(0);
    expect(at("obj.explodes.|").matches).toEqual([]);
    expect(at("obj.f|").matches).toEqual(["fine"]);
  });

  it("offers nothing for unknown names", () => {
    expect(at("nope.|").matches).toEqual([]);
    expect(at("foo.nope.|").matches).toEqual([]);
  });
});

describe("complete: keys after [", () => {
  it("quotes the keys, starting at the quote", () => {
    const result = at('foo["|');
    expect(result.matches).toEqual(['"a-b"', '"bar"', '"baz"', '"it\'s"']);
    expect(replaced(result)).toBe('"');
  });

  it("filters by the typed text", () => {
    const result = at('foo["b|');
    expect(result.matches).toEqual(['"bar"', '"baz"']);
    expect(replaced(result)).toBe('"b');
  });

  it("keeps single quotes and escapes them", () => {
    expect(at("foo['it|").matches).toEqual(["'it\\'s'"]);
  });

  it("offers all keys right after the bracket", () => {
    const result = at("foo[|");
    expect(result.matches).toContain('"a-b"');
    expect(replaced(result)).toBe("");
  });

  it("replaces an auto-closed quote too", () => {
    const result = at('foo["a|"]');
    expect(result.matches).toEqual(['"a-b"']);
    expect(replaced(result)).toBe('"a"');
  });

  it("works after ?.[", () => {
    expect(at('foo?.["ba|').matches).toEqual(['"bar"', '"baz"']);
  });
});

describe("complete: code points versus UTF-16", () => {
  it("converts cursor positions in and out around astral characters", () => {
    const code = 'const s = "😀👍";\nfoo.ba';
    const result = complete(code, [...code].length, global);
    expect(result.matches).toEqual(["bar", "baz"]);
    expect(result.cursor_start).toBe([...code].length - 2);
    expect(result.cursor_end).toBe([...code].length);
  });

  it("ignores a stray astral character outside strings", () => {
    const code = "😀 foo.ba";
    expect(complete(code, [...code].length, global)).toMatchObject({ matches: ["bar", "baz"], cursor_start: 6, cursor_end: 8 });
  });

  it("maps positions both ways", () => {
    const text = "a😀b";
    expect(codePointToUtf16(text, 2)).toBe(3);
    expect(codePointToUtf16(text, 99)).toBe(4);
    expect(utf16ToCodePoint(text, 3)).toBe(2);
    expect(utf16ToCodePoint(text, 4)).toBe(3);
    expect(utf16ToCodePoint(text, 2)).toBe(2);
  });
});

describe("complete: metadata", () => {
  it("types each match for JupyterLab", () => {
    const types = at("Shap|").metadata["_jupyter_types_experimental"];
    expect(types).toEqual([{ start: 0, end: 4, text: "Shape", type: "class" }]);
    expect(at("fooB|").metadata["_jupyter_types_experimental"]).toEqual([{ start: 0, end: 4, text: "fooBar", type: "instance" }]);
    expect(at("whi|").metadata["_jupyter_types_experimental"]).toEqual([{ start: 0, end: 3, text: "while", type: "keyword" }]);
  });
});
