// The approval policy (helper/linux/policy.ts) against the shared vectors that every helper
// must pass (test/fixtures/policy-vectors.json), plus the pieces around it: what Always allow
// writes, and how actions.log shapes a line.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { actionLine, writeAction } from "../../helper/linux/action-log.js";
import { addToAllow } from "../../src/config/config-edit.js";
import { decide, type PolicyApp, type SessionChoice } from "../../helper/linux/policy.js";

interface Vector {
  name: string;
  config: { approval?: "ask" | "allowlist" | "allow-all"; allow?: string[]; deny?: string[] };
  app: PolicyApp;
  session?: Record<string, SessionChoice>;
  expect: "allowed" | "ask" | "blocked" | "denied" | "not_allowed";
}

const vectors = (
  JSON.parse(readFileSync(new URL("../fixtures/policy-vectors.json", import.meta.url), "utf8")) as { vectors: Vector[] }
).vectors;

function outcome(vector: Vector): string {
  const config = { approval: vector.config.approval ?? "ask", allow: vector.config.allow ?? [], deny: vector.config.deny ?? [] };
  const decision = decide(config, vector.app, new Map(Object.entries(vector.session ?? {})));
  if ("allowed" in decision) return "allowed";
  if ("ask" in decision) return "ask";
  return decision.code;
}

describe("decide() against the shared policy vectors", () => {
  it("has vectors for every outcome", () => {
    expect(new Set(vectors.map((v) => v.expect))).toEqual(new Set(["allowed", "ask", "blocked", "denied", "not_allowed"]));
  });

  it.each(vectors.map((v) => [v.name, v] as const))("%s", (_name, vector) => {
    expect(outcome(vector)).toBe(vector.expect);
  });

  it("tells how to unlock a refused app", () => {
    const decision = decide({ approval: "allowlist", allow: [], deny: [] }, { name: "Galculator", bundleId: "galculator" }, new Map());
    expect(decision).toEqual({ code: "not_allowed", message: expect.stringContaining('add "galculator" to "allow"') });
  });
});

describe("Always allow", () => {
  let home: string;
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("appends to allow, keeps every other key, and leaves the file 0600", () => {
    home = mkdtempSync(join(tmpdir(), "deskbook-allow-"));
    const path = join(home, "config.json");
    writeFileSync(path, JSON.stringify({ approval: "ask", allow: ["mousepad"], log: { text: true }, settleMs: 50 }), { mode: 0o644 });
    addToAllow(home, "galculator");
    addToAllow(home, "Galculator"); // already there, in another case
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ approval: "ask", allow: ["mousepad", "galculator"], log: { text: true }, settleMs: 50 });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(loadConfig(home).allow).toEqual(["mousepad", "galculator"]);
  });

  it("creates config.json when there is none", () => {
    home = mkdtempSync(join(tmpdir(), "deskbook-allow-"));
    addToAllow(home, "galculator");
    expect(JSON.parse(readFileSync(join(home, "config.json"), "utf8"))).toEqual({ allow: ["galculator"] });
  });
});

describe("actions.log lines", () => {
  const at = new Date("2025-01-05T10:20:30.123Z");
  const base = { client: "deskbook", step: "compute 6 × 7", app: "Galculator", pid: 4242 };

  it("logs typed text as its length unless log.text is on", () => {
    const record = { ...base, action: "type" as const, params: { pid: 4242, text: "6*7\n" }, route: "foreground" as const };
    expect(actionLine(record, { enabled: true, text: false }, at)).toEqual({
      ts: "2025-01-05T10:20:30.123Z", client: "deskbook", step: "compute 6 × 7", app: "Galculator", pid: 4242,
      action: "type", length: 4, route: "foreground",
    });
    expect(actionLine(record, { enabled: true, text: true }, at)).toMatchObject({ text: "6*7\n" });
  });

  it("keeps the method in action and performAction's own action as axAction", () => {
    const record = { ...base, action: "performAction" as const, params: { pid: 4242, index: 12, action: "AXPress" } };
    expect(actionLine(record, { enabled: true, text: false }, at)).toMatchObject({ action: "performAction", axAction: "AXPress", index: 12 });
  });

  it("records a refusal", () => {
    const record = { ...base, action: "click" as const, params: { pid: 4242, x: 1, y: 2 }, refused: "blocked" };
    expect(actionLine(record, { enabled: true, text: false }, at)).toMatchObject({ action: "click", x: 1, y: 2, refused: "blocked" });
  });

  it("appends to actions.log with mode 0600, and writes nothing when log.enabled is false", () => {
    const home = mkdtempSync(join(tmpdir(), "deskbook-log-"));
    try {
      const path = join(home, "actions.log");
      writeFileSync(path, "", { mode: 0o644 });
      const record = { ...base, action: "click" as const, params: { pid: 4242, x: 1, y: 2 } };
      writeAction(home, { enabled: true, text: false }, record);
      writeAction(home, { enabled: true, text: false }, record);
      expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(2);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const quiet = join(home, "quiet");
      writeAction(quiet, { enabled: false, text: false }, record);
      expect(existsSync(join(quiet, "actions.log"))).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
