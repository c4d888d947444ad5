// Completion and inspection of Deskbook's own objects: `desk` and an App offer their
// documented API and whatever the user added to them, never the fields and helpers
// they are built from.
import { beforeAll, describe, expect, it } from "vitest";
import { App } from "../../src/desk/app.js";
import type { DeskContext } from "../../src/desk/desk-context.js";
import { Session } from "../../src/executor/session.js";
import { apiMembers } from "../../src/desk/reference.js";
import { complete } from "../../src/executor/complete.js";
import { createDeskGlobals } from "../../src/executor/desk-binding.js";
import { inspect } from "../../src/executor/inspect.js";

let session: Session;
let global: Record<string, unknown>;

const INTERNALS = ["ctx", "call", "acted", "router", "history", "judge", "known", "info", "readTree", "imageSpace", "indexOf", "constructor"];

beforeAll(() => {
  // The executor's own session with the desk globals injected, as main.ts builds it.
  session = new Session(() => undefined, { globals: (host) => createDeskGlobals(host, process.cwd()) });
  global = session.global;
  // An App as getApp makes it; nothing here talks to a helper.
  global["calc"] = new App({ name: "Galculator", bundleId: "galculator", pid: 4242, running: true, active: false }, {} as DeskContext);
});

function members(code: string): string[] {
  return complete(code, [...code].length, global).matches;
}

describe("completion of desk objects", () => {
  it("offers exactly desk's documented API", () => {
    expect(members("desk.")).toEqual([...apiMembers("desk")].sort());
    expect(members("cua.")).toEqual(members("desk."));
  });

  it("offers an App's documented API, getters included, and no internals", () => {
    const offered = members("calc.");
    expect(offered).toEqual([...apiMembers("app")].sort());
    expect(offered).toEqual(expect.arrayContaining(["click", "getAXState", "getScreenshot", "name", "pid", "lastRoute"]));
    for (const name of INTERNALS) expect(offered).not.toContain(name);
    expect(members("calc[\"")).not.toContain('"ctx"');
  });

  it("offers what the user added to an App", async () => {
    await session.evaluate(`calc.note = "mine"; calc.check = () => 1`, 1);
    expect(members("calc.no")).toEqual(["note"]);
    expect(members("calc.ch")).toEqual(["check"]);
    expect(members('calc["no')).toEqual(['"note"']);
  });

  it("leaves ordinary objects as they were: every name on the chain", () => {
    global["plain"] = { ctx: 1 };
    expect(members("plain.")).toEqual(expect.arrayContaining(["ctx", "hasOwnProperty"]));
  });
});

describe("inspection of desk objects", () => {
  const shown = (code: string): string => inspect(code, [...code].length, 0, global).data["text/plain"] ?? "";

  it("describes desk with its members and their docs", () => {
    const text = shown("desk");
    expect(text).toContain("The desktop");
    expect(text).toContain("desk.getApp(query");
    expect(text).toContain("desk.listApps(");
    expect(text).not.toContain("ctx");
  });

  it("describes an App with its members", () => {
    const text = shown("calc");
    expect(text).toMatch(/^calc: object \(App\)/);
    expect(text).toContain("app.click(target");
    expect(text).toContain("app.getScreenshot(");
    for (const name of ["router", "judge", "ctx"]) expect(text).not.toContain(name);
  });

  it("shows each documented method's signature and doc", () => {
    for (const name of apiMembers("app").filter((m) => typeof Object.getOwnPropertyDescriptor(App.prototype, m)?.value === "function")) {
      const text = shown(`calc.${name}`);
      expect(text, name).toContain(`Signature: app.${name}`);
    }
    expect(shown("desk.getApp")).toContain("Signature: desk.getApp(query");
  });
});
