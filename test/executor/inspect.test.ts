import { beforeAll, describe, expect, it } from "vitest";
import { DOC, docOf, documented } from "../../src/doc.js";
import { inspect, type InspectResult } from "../../src/executor/inspect.js";
import { createSession, type CellRunner } from "./fixtures.js";

let session: CellRunner;

beforeAll(async () => {
  session = createSession(process.cwd());
  await session.run(`
    function add(a, b = 1, ...rest) { return a + b; }
    const arrow = async ({ x, y }, [z] = []) => x;
    function* counter(start) { yield start; }
    class Point {
      constructor(x, y = 0) { this.x = x; this.y = y; }
      norm() { return Math.hypot(this.x, this.y); }
    }
    class Point3 extends Point {}
    const p = new Point(3, 4);
    const tools = { async fetchAll(urls, { retries = 3 } = {}) {}, get size() { return 1; } };
    const m = new Map([["a", 1]]);
    const list = [1, 2, 3];
    const text = "hello";
    const big = { data: "x".repeat(5000) };
    const nothing = null;
  `);
  session.global["click"] = documented(function click(_target: unknown): void {}, {
    signature: "click(target, options?)",
    summary: "Clicks the center of an element.",
    details: "Waits for the element to be **enabled** first.",
  });
});

/** Inspects at the `|` marker (removed from the code). */
function at(marked: string, detailLevel: 0 | 1 = 0): InspectResult & { plain: string; markdown: string } {
  const index = marked.indexOf("|");
  const code = marked.slice(0, index) + marked.slice(index + 1);
  const result = inspect(code, [...code.slice(0, index)].length, detailLevel, session.global);
  return { ...result, plain: result.data["text/plain"] ?? "", markdown: result.data["text/markdown"] ?? "" };
}

describe("inspect: functions", () => {
  it("derives a signature from the source", () => {
    const result = at("add|");
    expect(result.found).toBe(true);
    expect(result.plain).toBe("add: function\nSignature: add(a, b = 1, ...rest)");
    expect(result.markdown).toContain("```js\nadd(a, b = 1, ...rest)\n```");
  });

  it("handles arrows, generators and methods", () => {
    expect(at("arrow|").plain).toContain("Signature: async arrow({ x, y }, [z] = [])");
    expect(at("arrow|").plain).toMatch(/^arrow: async function/);
    expect(at("counter|").plain).toContain("Signature: *counter(start)");
    expect(at("tools.fetchAll|").plain).toContain("Signature: async fetchAll(urls, { retries = 3 } = {})");
    expect(at("p.norm|").plain).toContain("Signature: norm()");
  });

  it("shows native functions as such", () => {
    expect(at("Math.max|").plain).toBe("Math.max: function\nSignature: max(…) [native code]");
  });

  it("adds the source at detail level 1", () => {
    const result = at("add|", 1);
    expect(result.plain).toContain("Source:\nfunction add(a, b = 1, ...rest) { return a + b; }");
    expect(result.markdown).toContain("```js\nfunction add(a, b = 1, ...rest) { return a + b; }\n```");
  });

  it("inspects the callee when the cursor is inside a call", () => {
    expect(at("add(1, |").plain).toContain("Signature: add(a, b = 1, ...rest)");
    expect(at("add(|)").plain).toContain("Signature: add(a, b = 1, ...rest)");
    expect(at('add("x|y")').plain).toContain("Signature: add(a, b = 1, ...rest)");
  });

  it("takes the whole identifier around the cursor", () => {
    expect(at("const r = a|dd(2);").plain).toContain("Signature: add(");
    expect(at("const r = add|(2);").plain).toContain("Signature: add(");
  });
});

describe("inspect: classes and objects", () => {
  it("shows a class with its constructor parameters", () => {
    expect(at("Point|").plain).toBe("Point: class\nSignature: new Point(x, y = 0)");
    expect(at("Point3|").plain).toBe("Point3: class\nSignature: new Point3(…)");
  });

  it("shows the constructor name and a preview of instances", () => {
    expect(at("p|").plain).toBe("p: object (Point)\nValue: Point { x: 3, y: 4 }");
    expect(at("m|").plain).toBe("m: object (Map)\nValue: Map(1) { 'a' => 1 }");
    expect(at("list|").plain).toBe("list: object (Array(3))\nValue: [ 1, 2, 3 ]");
  });

  it("shows primitives", () => {
    expect(at("text|").plain).toBe("text: string\nValue: 'hello'");
    expect(at("p.x|").plain).toBe("p.x: number\nValue: 3");
    expect(at("nothing|").plain).toBe("nothing: null\nValue: null");
  });

  it("truncates long previews", () => {
    expect(at("big|").plain.length).toBeLessThan(600);
    expect(at("big|").plain).toContain("…");
  });

  it("reads getters without letting them throw", () => {
    expect(at("tools.size|").plain).toBe("tools.size: number\nValue: 1");
  });
});

describe("inspect: documented values", () => {
  it("prefers the attached documentation", () => {
    const result = at("click|");
    expect(result.plain).toBe("click: function\nSignature: click(target, options?)\nClicks the center of an element.");
    expect(result.markdown).toContain("Clicks the center of an element.");
  });

  it("adds the details at detail level 1, not the source", () => {
    const result = at("click|", 1);
    expect(result.markdown).toContain("Waits for the element to be **enabled** first.");
    expect(result.plain).not.toContain("Source:");
  });
});

describe("inspect: not found", () => {
  it.each(["nope|", "p.nope|", "1 + |", "// add|", "'add|'", "|"])("%j", (marked) => {
    expect(at(marked)).toMatchObject({ found: false, data: {}, metadata: {} });
  });
});

describe("doc registry", () => {
  it("attaches a non-enumerable doc under a registered symbol", () => {
    const target = documented({ a: 1 }, { signature: "thing", summary: "A thing." });
    expect(Object.keys(target)).toEqual(["a"]);
    expect(DOC).toBe(Symbol.for("deskbook.doc"));
    expect(docOf(target)).toEqual({ signature: "thing", summary: "A thing." });
  });

  it("ignores inherited, malformed and primitive cases", () => {
    const parent = documented({}, { signature: "parent", summary: "Parent." });
    expect(docOf(Object.create(parent))).toBeUndefined();
    expect(docOf({ [DOC]: { signature: 1 } })).toBeUndefined();
    expect(docOf("text")).toBeUndefined();
    expect(docOf(null)).toBeUndefined();
  });
});
