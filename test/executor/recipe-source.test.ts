import { describe, expect, it } from "vitest";
import { appBindings, recipeSource } from "../../src/executor/recipe-source.js";
import type { Locator } from "../../src/desk/locator.js";

const SEVEN: Locator = { role: "toggle button", label: "7", window: "galculator" };
const FIELD: Locator = { role: "text field", within: [{ role: "dialog", label: "Log in" }], nth: 1 };
const locators = new Map<number, Locator>([
  [39, SEVEN],
  [12, FIELD],
]);
const names = () => {
  let n = 0;
  return () => (++n === 1 ? "password" : `password${n}`);
};

describe("a recorded cell's source", () => {
  it("writes the locator in place of each index literal an element verb used, keeping the rest", () => {
    const source = "// keys\nawait calc.click(39, { count: 2 }) // twice\nawait form.setValue(12, 'x'); await calc.click([10, 20]); calc.focus(5)\nawait calc.actions(39)";
    const out = recipeSource(source, locators, names());
    expect(out.source).toBe(
      '// keys\nawait calc.click({ role: "toggle button", label: "7", window: "galculator" }, { count: 2 }) // twice\nawait form.setValue({ role: "text field", within: [{ role: "dialog", label: "Log in" }], nth: 1 }, \'x\'); await calc.click([10, 20]); calc.focus(5)\nawait calc.actions({ role: "toggle button", label: "7", window: "galculator" })',
    );
    expect(out.located).toBe(3);
  });

  it("leaves indices computed at run time and other calls with numbers alone", () => {
    const source = "await calc.click(node.i)\nMath.max(39)\nclick(39)\nsetTimeout(f, 39)";
    expect(recipeSource(source, locators, names()).source).toBe(source);
  });

  it("turns input.password into a named desk.secret and reports the secrets a cell asks for", () => {
    const out = recipeSource('const a = await input.password("PIN:")\nconst b = await input.password()\nconst c = await desk.secret("token")', locators, names());
    expect(out.source).toBe('const a = await desk.secret("password", "PIN:")\nconst b = await desk.secret("password2")\nconst c = await desk.secret("token")');
    expect(out.secrets).toEqual(["password", "password2", "token"]);
  });

  it("drops the recording's own statements, even with an index inside them", () => {
    const out = recipeSource("await calc.click(39)\ndesk.stopRecording()\nawait cua.record(`x.ipynb`)", locators, names());
    expect(out.source).toBe('await calc.click({ role: "toggle button", label: "7", window: "galculator" })\n\n');
  });

  it("keeps a cell it cannot parse as it ran", () => {
    expect(recipeSource("{ a: 1 }", locators, names()).source).toBe("{ a: 1 }");
  });

  it("finds the top-level declarations that bind apps", () => {
    expect(appBindings('const calc = await desk.getApp("galculator")\nlet x = 1\nvar ed = await cua.launch("mousepad", { args: ["a.txt"] })')).toEqual([
      { name: "calc", text: 'const calc = await desk.getApp("galculator");' },
      { name: "ed", text: 'var ed = await cua.launch("mousepad", { args: ["a.txt"] });' },
    ]);
    expect(appBindings("function f() { return desk.getApp('x') }")).toEqual([]);
  });
});
