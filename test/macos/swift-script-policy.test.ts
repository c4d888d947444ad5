// What the macOS helper's runScript refuses, checked here because the Swift cannot run: the
// phrase list, the terminal list and the two app-name patterns are read out of
// ScriptPolicy.swift and applied, the way its `check` and `namedApps` apply them, to the cases
// of test/fixtures/script-policy-vectors.json, which the Swift ScriptPolicyTests run as well.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

interface Vector {
  name: string;
  language: "applescript" | "jxa";
  source: string;
  expect: "allowed" | "blocked";
  apps?: string[];
}

const SWIFT = readFileSync(new URL("../../helper/macos/Sources/DeskbookHelperCore/ScriptPolicy.swift", import.meta.url), "utf8");
const { vectors } = JSON.parse(readFileSync(new URL("../fixtures/script-policy-vectors.json", import.meta.url), "utf8")) as { vectors: Vector[] };

/** The Swift declaration's text from `head` to the end of its bracketed value. */
function declaration(head: string): string {
  const start = SWIFT.indexOf(head);
  if (start < 0) throw new Error(`ScriptPolicy.swift has no "${head}"`);
  return SWIFT.slice(start, SWIFT.indexOf("]\n", start) + 1);
}

const phrases = [...declaration("static let refusedPhrases").matchAll(/\("([^"]+)", "/g)].map((m) => m[1]!);
const terminals = [...declaration("static let terminalApps").matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
const patterns = [...declaration("let patterns = [").matchAll(/#"(.+?)"#/g)].map((m) => new RegExp(m[1]!, "gi"));

/** ScriptPolicy.namedApps: every match of the first pattern, then of the second, each name once. */
function namedApps(source: string): string[] {
  const names: string[] = [];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) if (!names.includes(match[1]!)) names.push(match[1]!);
  return names;
}

/** ScriptPolicy.check: a refused phrase in the folded source, or a terminal among the named apps. */
function outcome(source: string): "allowed" | "blocked" {
  const folded = source.toLowerCase().split(/\s+/).filter(Boolean).join(" ");
  if (phrases.some((phrase) => folded.includes(phrase))) return "blocked";
  return namedApps(source).some((app) => terminals.includes(app.toLowerCase().replace(".app", ""))) ? "blocked" : "allowed";
}

describe("runScript's refusals (ScriptPolicy.swift)", () => {
  it("reads the lists and patterns out of the Swift source", () => {
    expect(phrases).toContain("do shell script");
    expect(terminals).toContain("terminal");
    expect(patterns).toHaveLength(2);
  });

  it("has a case for every refused phrase and an allowed case", () => {
    const folded = vectors.filter((v) => v.expect === "blocked").map((v) => v.source.toLowerCase().split(/\s+/).join(" "));
    for (const phrase of phrases) expect(folded.some((s) => s.includes(phrase)), phrase).toBe(true);
    expect(vectors.some((v) => v.expect === "allowed")).toBe(true);
  });

  it.each(vectors)("$name", ({ source, expect: wanted, apps }) => {
    expect(outcome(source)).toBe(wanted);
    if (apps !== undefined) expect(namedApps(source)).toEqual(apps);
  });
});
