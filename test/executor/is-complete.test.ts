import { describe, expect, it } from "vitest";
import { isComplete, type IsCompleteResult } from "../../src/executor/is-complete.js";

const complete: IsCompleteResult = { status: "complete" };
const invalid: IsCompleteResult = { status: "invalid" };
const incomplete = (indent: string): IsCompleteResult => ({ status: "incomplete", indent });

describe("isComplete", () => {
  it.each<[string, IsCompleteResult]>([
    ["", complete],
    ["   \n  ", complete],
    ["a = 1", complete],
    ["// just a comment", complete],
    ["const x = await fetchThing()", complete],
    ["import x from 'y'", complete],
    ["{ a: 1 }", complete],
    // Input ended too soon.
    ["foo(", incomplete("  ")],
    ["foo(\n  a,", incomplete("  ")],
    ["if (x) {", incomplete("  ")],
    ["function f() {\n  if (y) {", incomplete("    ")],
    ["function f() {\n  foo();", incomplete("  ")],
    ["function f() {\n  foo();\n\n", incomplete("  ")],
    ["let x = {a: [\n", incomplete("  ")],
    ["\tif (x) {", incomplete("\t  ")],
    ["a +", incomplete("")],
    ["x.", incomplete("")],
    ["if (x)", incomplete("")],
    ["`abc", incomplete("")],
    ["`abc ${", incomplete("  ")],
    ["/* start of a comment", incomplete("")],
    ["foo( // comment", incomplete("  ")],
    ["const s = 'line \\\n", incomplete("")],
    // Broken no matter what follows.
    ["'abc", invalid],
    ["foo bar", invalid],
    ["x = }", invalid],
    ["let let = 1", invalid],
    ["a\n  b c", invalid],
    ["return 1", invalid],
  ])("%j", (code, expected) => {
    expect(isComplete(code)).toEqual(expected);
  });
});
