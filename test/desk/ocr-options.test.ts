// readText's options are checked before anything is captured: each wrong one is named.
import { describe, expect, it } from "vitest";
import { checkOcrOptions } from "../../src/desk/ocr-options.js";

describe("checkOcrOptions", () => {
  it("passes good options through, and none as none", () => {
    expect(checkOcrOptions(undefined)).toEqual({});
    const options = { scale: 2.5, binarize: true, removeLines: false, layout: "line", chars: "0123456789.-" };
    expect(checkOcrOptions(options)).toEqual(options);
  });

  it.each([
    [[1, 2], /options are an object/],
    ["line", /options are an object/],
    [{ psm: 7 }, /no option "psm" \(it takes scale, binarize, removeLines, layout, chars\)/],
    [{ scale: 0 }, /scale is a number from 1 to 8, not 0/],
    [{ scale: 9 }, /scale is a number from 1 to 8, not 9/],
    [{ scale: Number.NaN }, /scale is a number from 1 to 8/],
    [{ scale: "2" }, /scale is a number from 1 to 8, not "2"/],
    [{ binarize: "yes" }, /binarize is true or false, not "yes"/],
    [{ removeLines: 1 }, /removeLines is true or false, not 1/],
    [{ layout: "column" }, /layout is one of "auto", "block", "line", "word", "sparse", not "column"/],
    [{ chars: "" }, /chars is a string of 1 to 256 printable characters/],
    [{ chars: "12\n3" }, /chars is a string of 1 to 256 printable characters/],
    [{ chars: "x".repeat(257) }, /chars is a string of 1 to 256/],
    [{ chars: 42 }, /chars is a string/],
  ])("refuses %j", (options, message) => {
    expect(() => checkOcrOptions(options)).toThrow(TypeError);
    expect(() => checkOcrOptions(options)).toThrow(message);
  });
});
