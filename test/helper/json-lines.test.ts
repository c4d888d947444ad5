import { describe, expect, it } from "vitest";
import { encodeLine, LineSplitter, LineTooLongError } from "../../src/helper/json-lines.js";

describe("LineSplitter", () => {
  it("returns whole lines and keeps the rest for the next chunk", () => {
    const splitter = new LineSplitter(100);
    expect(splitter.push(Buffer.from('{"a":1}\n{"b"'))).toEqual(['{"a":1}']);
    expect(splitter.pendingBytes).toBe(4);
    expect(splitter.push(Buffer.from(':2}\n\n{"c":3}\n'))).toEqual(['{"b":2}', '{"c":3}']);
    expect(splitter.pendingBytes).toBe(0);
  });

  it("decodes a UTF-8 character cut across chunks", () => {
    const bytes = Buffer.from(encodeLine({ text: "6 × 7 = 42 ✓" }));
    const splitter = new LineSplitter(100);
    const lines = [...bytes].flatMap((byte) => splitter.push(Buffer.from([byte])));
    expect(lines.map((line) => JSON.parse(line))).toEqual([{ text: "6 × 7 = 42 ✓" }]);
  });

  it("accepts a line of exactly the limit and refuses one byte more, even before its newline", () => {
    const splitter = new LineSplitter(10);
    expect(splitter.push(Buffer.from("0123456789\n"))).toEqual(["0123456789"]);
    splitter.push(Buffer.from("01234"));
    expect(() => splitter.push(Buffer.from("567890"))).toThrow(LineTooLongError);
  });

  it("starts clean after an over-long line", () => {
    const splitter = new LineSplitter(4);
    expect(() => splitter.push(Buffer.from("123456"))).toThrow(LineTooLongError);
    expect(splitter.push(Buffer.from("ok\n"))).toEqual(["ok"]);
  });

  it("does not keep a reference to the caller's buffer", () => {
    const splitter = new LineSplitter(100);
    const chunk = Buffer.from("abc");
    splitter.push(chunk);
    chunk.fill(0x21);
    expect(splitter.push(Buffer.from("\n"))).toEqual(["abc"]);
  });
});
