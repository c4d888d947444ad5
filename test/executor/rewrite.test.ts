import * as path from "node:path";
import * as vm from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rewriteCell } from "../../src/executor/rewrite.js";
import { createFixture, createSession, type Fixture } from "./fixtures.js";

/** One cell of a scenario and what it must produce. */
type Step =
  | { cell: string; value: unknown }
  | { cell: string; error: RegExp }
  | { cell: string; check: (value: unknown) => void };

const ok = (cell: string, value?: unknown): Step => ({ cell, value });
const fails = (cell: string, error: RegExp): Step => ({ cell, error });

interface Scenario {
  name: string;
  steps: Step[];
  /** Session bindings expected afterwards (read from the context's global object). */
  bindings?: Record<string, unknown>;
}

const SCENARIOS: Scenario[] = [
  // Declarations become session bindings.
  {
    name: "const/let/var persist across cells",
    steps: [ok("const a = 1; let b = 2; var c = 3"), ok("a + b + c", 6)],
    bindings: { a: 1, b: 2, c: 3 },
  },
  { name: "a declaration as last statement gives undefined", steps: [ok("const a = 1", undefined)] },
  { name: "class persists", steps: [ok("class A { m() { return 7; } }"), ok("new A().m()", 7)] },
  {
    name: "re-running the same cell works",
    steps: [ok("const a = 1; class K {}; function f() {}\na", 1), ok("const a = 1; class K {}; function f() {}\na", 1)],
  },
  {
    name: "a name can be redeclared in later cells with any keyword",
    steps: [ok("const a = 1"), ok("let a = 'two'"), ok("var a = 3"), ok("class a {}"), ok("function a() {}"), ok("typeof a", "function")],
  },
  {
    name: "destructuring declarations",
    steps: [
      ok("const { p, q: [r, ...s], t = 9, ...u } = { p: 1, q: [2, 3, 4], v: 5 }"),
      ok("[p, r, s, t, u]", [1, 2, [3, 4], 9, { v: 5 }]),
    ],
  },
  {
    name: "multiple declarators, an object pattern not first",
    steps: [ok("let m = 1, { n } = { n: 2 }, [o] = [3]"), ok("m + n + o", 6)],
  },
  {
    name: "let x; resets x to undefined",
    steps: [ok("let x = 5"), ok("let x;"), ok("x", undefined)],
    bindings: { x: undefined },
  },
  { name: "var y; keeps y, as in JS", steps: [ok("var y = 5"), ok("var y;"), ok("y", 5)] },
  { name: "a declaration without semicolon before a parenthesized line", steps: [ok("let w\n(1 + 1)", 2), ok("w", undefined)] },
  // Functions.
  {
    name: "function declarations are hoisted and persist",
    steps: [ok("const r = f();\nfunction f() { return 'hoisted'; }\nr", "hoisted"), ok("f()", "hoisted")],
  },
  {
    name: "async and generator functions persist",
    steps: [ok("async function af() { return 1; }\nfunction* gen() { yield 2; }"), ok("[await af(), ...gen()]", [1, 2])],
  },
  {
    name: "functions see session bindings of later cells",
    steps: [ok("function total() { return price * qty; }"), ok("const price = 3, qty = 4"), ok("total()", 12)],
  },
  {
    name: "a closure from one cell sees later cells reassign and redeclare",
    steps: [ok("let c = 1; const getC = () => c;"), ok("c = 2; getC()", 2), ok("let c = 'three'; getC()", "three"), ok("var c = 4; getC()", 4)],
  },
  {
    name: "a function from one cell writes a binding later cells read",
    steps: [ok("let hits = 0; function hit() { hits++; }"), ok("for (let i = 0; i < 5; i++) hit(); hits", 5)],
  },
  {
    name: "a declaration takes over a global the user assigned earlier",
    steps: [ok("implicitGlobal = 1", 1), ok("let implicitGlobal = 2"), ok("[implicitGlobal, globalThis.implicitGlobal]", [2, 2])],
  },
  {
    name: "hot functions see a later cell's declaration of a name they read",
    steps: [
      ok("laterBound = 'first'; function readLater() { return laterBound; }\nfor (let i = 0; i < 1e5; i++) readLater();\nreadLater()", "first"),
      ok("function kindOf() { return typeof notYet; }\nfor (let i = 0; i < 1e5; i++) kindOf();\nkindOf()", "undefined"),
      ok("let laterBound = 'second'; let notYet = 1; [readLater(), kindOf()]", ["second", "number"]),
    ],
  },
  {
    name: "declaring a read-only global changes nothing and fails nothing",
    steps: [ok("var undefined = 5; let NaN = 1; typeof undefined", "undefined"), ok("Number.isNaN(NaN)", true)],
  },
  {
    name: "a class or function named like a global builtin replaces it for later cells",
    steps: [ok("class Intl { static x = 1; }\nfunction escape() { return 'mine'; }"), ok("[Intl.x, escape()]", [1, "mine"])],
  },
  {
    name: "top-level bindings are properties of the global object",
    steps: [ok("let onGlobal = 1; var alsoOnGlobal = 2; function fnOnGlobal() {}"), ok("[globalThis.onGlobal, this.alsoOnGlobal, typeof globalThis.fnOnGlobal]", [1, 2, "function"])],
  },
  {
    name: "a cell without await still adopts a returned promise and rejects on a throw",
    steps: [ok("Promise.resolve(5)", 5), ok("new Promise((r) => setTimeout(() => r(6), 5))", 6), fails("let z = 1;\nthrow new RangeError('sync')", /sync/)],
  },
  {
    name: "for await and an await inside a block make the body async",
    steps: [ok("const got = [];\nfor await (const x of [Promise.resolve(1), 2]) got.push(x);\ngot", [1, 2]), ok("if (true) { var late = await Promise.resolve(7); }\nlate", 7)],
  },
  {
    name: "an await inside a nested function does not make the body async",
    steps: [ok("const later = async () => await Promise.resolve(8);\nawait later()", 8), ok("const job = async () => await 9; job()", 9)],
  },
  // Scoping.
  { name: "for (let i…) stays block-scoped", steps: [ok("for (let i = 0; i < 2; i++) {}"), ok("typeof i", "undefined")] },
  { name: "a nested let stays local", steps: [ok("{ let inner = 1; }"), ok("typeof inner", "undefined")] },
  {
    name: "var in a loop or block outside functions is a session binding",
    steps: [ok("for (var j = 0; j < 3; j++) {}\nif (j) var k = j * 2;"), ok("[j, k]", [3, 6])],
  },
  {
    name: "var in for-in, switch and try persists",
    steps: [
      ok("for (var key in { only: 1 });\nswitch (key) { case 'only': var picked = key; }\ntry { var tried = 1; } catch { }"),
      ok("[key, picked, tried]", ["only", "only", 1]),
    ],
  },
  { name: "a comment-only cell gives undefined", steps: [ok("// nothing here\n/* really */", undefined), ok("   ", undefined)] },
  { name: "an empty object literal cell", steps: [ok("{}", {})] },
  { name: "labels and break at top level", steps: [ok("let n = 0;\nouter: for (;;) { for (;;) { n++; break outer; } }\nn", 1)] },
  { name: "var inside a function stays local", steps: [ok("function g() { var local = 1; return local; }\ng()", 1), ok("typeof local", "undefined")] },
  { name: "this is the global object", steps: [ok("this === globalThis", true)] },
  // Values.
  { name: "value of the last expression statement", steps: [ok("1 + 1\n'x'", "x")] },
  { name: "trailing empty statements are ignored", steps: [ok("40 + 2;;", 42)] },
  { name: "a last statement that is not an expression gives undefined", steps: [ok("if (true) { 1; }", undefined)] },
  { name: "an object literal cell is an object", steps: [ok("{ a: 1, b: 2 }", { a: 1, b: 2 })] },
  { name: "a multi-line object literal cell", steps: [ok("{\n  a: [1, 2],\n  'b': { c: 3 },\n}", { a: [1, 2], b: { c: 3 } })] },
  { name: "a block that is not an object stays a block", steps: [ok("{ let z = 1; z + 1; }", undefined), ok("typeof z", "undefined")] },
  { name: "comments and a hashbang survive", steps: [ok("#!/usr/bin/env node\n// note\n42 // the answer", 42)] },
  { name: "'use strict' applies to the cell", steps: [ok("'use strict';\n(function () { return this; })()", undefined)] },
  // Async.
  {
    name: "top-level await",
    steps: [ok("const v = await new Promise((r) => setTimeout(() => r(41), 5));\nv + 1", 42), ok("v", 41)],
  },
  { name: "for await at top level", steps: [ok("let sum = 0;\nfor await (const n of [Promise.resolve(1), 2]) sum += n;\nsum", 3)] },
  { name: "a rejected await fails the cell", steps: [fails("await Promise.reject(new Error('nope'))", /nope/)] },
  { name: "a rejection after a host timer fails the cell", steps: [fails("await new Promise((_, no) => setTimeout(() => no(new Error('late')), 5))", /late/)] },
  { name: "a thrown error fails the cell", steps: [fails("throw new TypeError('bad')", /bad/)] },
  {
    name: "declarations made before an error persist",
    steps: [fails("const before = 1;\nthrow new Error('stop');\nconst after = 2;", /stop/), ok("[before, typeof after]", [1, "undefined"])],
  },
  // Static imports.
  {
    name: "default and named imports of node:path",
    steps: [ok("import path, { join, sep as s } from 'node:path'\npath.join === join && s === path.sep", true)],
  },
  { name: "namespace import of a bare builtin", steps: [ok("import * as p from 'path'\ntypeof p.basename", "function")] },
  { name: "default plus namespace import", steps: [ok("import d, * as ns from './lib.mjs'\n[d, ns.answer]", ["lib-default", 42])] },
  { name: "imports are hoisted", steps: [ok("const b = basename('/a/b.txt');\nimport { basename } from 'node:path';\nb", "b.txt")] },
  { name: "a removed import does not join its neighbours", steps: [ok("const f = () => 1;\nf()\nimport { answer } from './lib.mjs'\n(answer)\n'done'", "done")] },
  { name: "imports persist as session bindings", steps: [ok("import { answer } from './lib.mjs'"), ok("answer", 42)] },
  {
    name: "a multi-line import keeps line numbers",
    steps: [ok("import {\n  answer,\n} from './lib.mjs'\nnew Error('x').stack.split('\\n')[1]", expect.stringMatching(/cell-\d+:4:1\)?$/))],
  },
  { name: "a relative CommonJS file", steps: [ok("import legacy from './legacy.cjs'\nlegacy.kind", "cjs")] },
  { name: "a JSON file", steps: [ok("import data from './data.json'\ndata.x", 1)] },
  {
    name: "a CommonJS package from node_modules",
    steps: [ok("import pkg, { pick } from 'cjs-pkg'\n[pkg.name, pick({ k: 'v' }, 'k')]", ["cjs-pkg", "v"])],
  },
  {
    name: "an ESM-only package (import condition only)",
    steps: [ok("import esm, { kind } from 'esm-only'\nimport { hello } from 'esm-only/sub'\n[esm, kind, hello()]", ["esm-default", "esm", "hello from sub"])],
  },
  { name: "string import names", steps: [ok("import { 'answer' as a2 } from './lib.mjs'\na2", 42)] },
  { name: "a side-effect import", steps: [ok("import './side-effect.mjs'")] },
  { name: "a missing module fails the cell", steps: [fails("import x from 'no-such-package'", /no-such-package/)] },
  // Dynamic imports.
  { name: "dynamic import", steps: [ok("const m = await import('node:path');\nm.sep", path.sep)] },
  {
    name: "dynamic import inside a function called from a later cell",
    steps: [ok("async function load(name) { return (await import(name)).answer; }"), ok("await load('./lib.mjs')", 42)],
  },
  { name: "dynamic import of a computed specifier", steps: [ok("const name = 'esm-only/features/' + 'fast';\n(await import(name)).feature", "fast")] },
  // Refused.
  { name: "export is refused", steps: [fails("const a = 1;\nexport { a }", /export is not supported in a notebook cell \(line 2, column 1\)/)] },
  { name: "export default is refused", steps: [fails("export default 1", /export is not supported/)] },
  { name: "import.meta is refused", steps: [fails("const u =\n  import.meta.url", /import\.meta.*\(line 2, column 3\)/)] },
  { name: "a nested import declaration is refused", steps: [fails("if (true) {\n  import x from 'y'\n}", /top level.*line 2/)] },
  { name: "a syntax error names the cell position", steps: [fails("const a = 1;\nlet = = 2;", /^Unexpected token \(line 2, column 7\)$/)] },
  { name: "return at top level is a syntax error", steps: [fails("return 1", /'return' outside of function/)] },
];

describe("rewriteCell executed in a vm context", () => {
  let fixture: Fixture;
  beforeAll(() => {
    fixture = createFixture();
  });
  afterAll(() => fixture.remove());

  it.each(SCENARIOS)("$name", async ({ steps, bindings }) => {
    const session = createSession(fixture.notebookDir);
    for (const step of steps) {
      const outcome = session.run(step.cell);
      if ("error" in step) await expect(outcome).rejects.toThrow(step.error);
      else if ("check" in step) step.check(await outcome);
      else expect(await outcome, step.cell).toEqual(step.value);
    }
    for (const [name, value] of Object.entries(bindings ?? {})) {
      expect(Object.keys(session.global)).toContain(name);
      expect(session.global[name]).toEqual(value);
    }
  });

  it("runs a side-effect import once per module", async () => {
    const session = createSession(fixture.notebookDir);
    const host = globalThis as { __fixtureSideEffects?: number };
    const before = host.__fixtureSideEffects ?? 0;
    await session.run("import './side-effect.mjs'");
    expect(host.__fixtureSideEffects).toBeGreaterThanOrEqual(Math.max(before, 1));
  });

  it("reports a missing module with ERR_MODULE_NOT_FOUND", async () => {
    const session = createSession(fixture.notebookDir);
    await expect(session.run("await import('./missing.mjs')")).rejects.toMatchObject({ code: "ERR_MODULE_NOT_FOUND" });
  });

  it("adds no enumerable bindings besides the user's", async () => {
    const session = createSession(fixture.notebookDir);
    await session.run("import { answer } from './lib.mjs'\nconst { a } = { a: 1 };\nclass C {}\nfunction f() {}\nawait import('node:path')");
    // The session's own globals (console, timers, display, desk …) are hidden, as a cell sees them.
    expect(Object.keys(session.global).sort()).toEqual(["C", "a", "answer", "f"]);
  });
});

describe("line and column numbers", () => {
  const CELL_FRAME = /cell-\d+:(\d+:-?\d+)/;

  /** `line:column` of the first cell frame of the error the rewritten cell fails with. */
  const rewrittenFrame = async (source: string): Promise<string> => {
    const error = await createSession(process.cwd())
      .run(source)
      .then(() => new Error("the cell did not fail"), (e: unknown) => e as Error);
    return CELL_FRAME.exec(error.stack ?? "")?.[1] ?? String(error.stack);
  };

  const shiftColumn = (frame: string, by: number): string => frame.replace(/:(\d+)$/, (_m, c: string) => `:${Number(c) + by}`);

  /** The same for the untouched source run as a plain script: the reference. */
  const nativeFrame = (source: string): string => {
    try {
      new vm.Script(source, { filename: "cell-0" }).runInContext(vm.createContext({}));
      return "the script did not fail";
    } catch (error) {
      return CELL_FRAME.exec((error as Error).stack ?? "")?.[1] ?? String(error);
    }
  };

  it.each([
    ["an error thrown on line 3", "const a = 1;\nlet b = 2;\n  throw new Error('boom');"],
    ["line 1, after the generated prefix", "const x = 1; throw new Error('one');"],
    ["after edited declarations on the same line", "let q = 1, { r } = { r: 2 }; var s; throw new Error('x');"],
    ["after a class declaration", "class A {}\n  class B extends A { constructor() { super(); null.x; } }\nnew B();"],
    ["inside a function declared in the cell", "function f() {\n    return undefinedName;\n}\nf();"],
    ["a last expression on its own line", "let v = 1;\n  v.missing.deeper"],
    ["an object literal cell", "{ a: 1, b: undefinedName }"],
    ["CRLF line ends", "let a = 1;\r\nlet b;\r\n   b.c;\r\n"],
    ["a failing global read as last line", "let a = 1;\n  undefinedName"],
    ["a failing call as last line", "let a = 1;\n  undefinedName(a)"],
    ["a method throwing as last line", "const o = { m() { throw new Error('m'); } };\n  o.m()"],
    ["a failing property read in an initializer", "const a = 1;\n  const b = a.x.y;"],
    ["a failing destructuring", "const a = 1;\n  let { b } = null;"],
  ])("match a plain script exactly: %s", async (_name, source) => {
    const reference = source.startsWith("{") ? shiftColumn(nativeFrame(`(${source})`), -1) : nativeFrame(source);
    expect(reference).toMatch(/^\d+:\d+$/);
    expect(await rewrittenFrame(source)).toBe(reference);
  });

  // V8 attributes a failing leading read to the enclosing statement; once the
  // statement is an assignment or a `return`, the column moves to another
  // token of the same statement, but the line stays right.
  it.each([
    ["a failing read under an operator, last line", "let a = 1;\n  undefinedName + 1", "2:17"],
    ["a failing read under a property access, line 1", "undefinedName.x", "1:15"],
    ["a failing global read in an initializer", "let a = 1;\n  var b = undefinedName;", "2:7"],
    ["a failing var in a block", "if (true) {\n  var a = undefinedName.x;\n}", "2:7"],
  ])("stay on the right line: %s", async (_name, source, expected) => {
    expect(nativeFrame(source).split(":")[0]).toBe(expected.split(":")[0]);
    expect(await rewrittenFrame(source)).toBe(expected);
  });

  it("reports an awaited failure on its line", async () => {
    expect(await rewrittenFrame("let a = 1;\n\nawait undefinedName")).toMatch(/^3:/);
  });

  it("reports line 3 with its column for a throw on line 3", async () => {
    expect(await rewrittenFrame("const a = 1;\nlet b = 2;\n  throw new Error('boom');")).toBe("3:9");
  });

  // Known gap: when the imports' await resumes the cell on line 1, V8 has been seen to report
  // the column of the hoisted await instead of the throw (1:9 instead of 1:71). The line is
  // right, which is what tracebacks promise; the column on line 1 is best effort.
  it("keeps the line after a static import and a dynamic import", async () => {
    expect(await rewrittenFrame("import { sep } from 'node:path'; const p = import('node:path'); throw new Error(sep);")).toMatch(/^1:\d+$/);
    expect(await rewrittenFrame("import { sep } from 'node:path';\nconst p = import('node:path');\n  throw new Error(sep);")).toBe("3:9");
  });

  it("keeps positions inside functions called from later cells", async () => {
    const session = createSession(process.cwd());
    await session.run("import { sep } from 'node:path';\nfunction fail() {\n    return null.x;\n}");
    const error = (await session.run("fail()").catch((e: unknown) => e)) as Error;
    expect(error.stack).toMatch(/at fail \(cell-1:3:17\)/);
  });

  it("never adds or removes user newlines", () => {
    const source = "import {\n a } from 'm'\nconst {\n b } = {}\nlet c\r\nclass D {}\n{ e: 1 }";
    const { code } = rewriteCell(source);
    expect(code.split(/\r\n|\n/).length).toBe(source.split(/\r\n|\n/).length + 1);
  });
});
