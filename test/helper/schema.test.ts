import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, GATED_METHODS, MAX_MARKS, METHOD_NAMES, UNGATED_METHODS } from "../../src/helper/protocol.js";
import {
  isKnownMethod,
  protocolSchema,
  schemaPath,
  validateEnvelope,
  validateParams,
  validateResult,
} from "../../src/helper/schema.js";

const DOC = readFileSync(new URL("../../docs/backend-protocol.md", import.meta.url), "utf8");

/** The rows of the first table after `heading`: one array of trimmed cells per row. */
function tableAfter(heading: string): string[][] {
  const lines = DOC.slice(DOC.indexOf(`\n${heading}\n`)).split("\n");
  const start = lines.findIndex((line) => line.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.slice(1, -1).split("|").map((cell) => cell.trim()));
  }
  return rows;
}

/** "`axTree`" → "axTree". */
function code(cell: string): string {
  const match = /^`([^`]+)`$/.exec(cell);
  if (!match) throw new Error(`expected a \`code\` cell, found ${cell}`);
  return match[1]!;
}

const definitions = (): Record<string, unknown> => protocolSchema().definitions;

describe("the schema, the types and the doc agree", () => {
  it("loads the schema from src/helper", () => {
    expect(schemaPath()).toMatch(/src\/helper\/protocol\.schema\.json$/);
  });

  it("has exactly ERROR_CODES as the reply's error codes", () => {
    expect((definitions().ErrorCode as { enum: string[] }).enum).toEqual([...ERROR_CODES]);
  });

  it("has params and result definitions for every method, and no others", () => {
    const defs = Object.keys(definitions());
    const withParams = defs.filter((d) => d.endsWith(".params")).map((d) => d.slice(0, -".params".length));
    const withResult = defs.filter((d) => d.endsWith(".result")).map((d) => d.slice(0, -".result".length));
    expect(withParams.sort()).toEqual([...METHOD_NAMES].sort());
    expect(withResult.sort()).toEqual([...METHOD_NAMES].sort());
    expect((definitions().Method as { enum: string[] }).enum).toEqual([...METHOD_NAMES]);
  });

  // The desk API sends marks to the helper only up to MAX_MARKS; more would be refused here.
  it("caps screenshot's marks at MAX_MARKS", () => {
    const params = definitions()["screenshot.params"] as { properties: { marks: { maxItems: number } } };
    expect(params.properties.marks.maxItems).toBe(MAX_MARKS);
  });

  it("documents every schema method in the Methods table, in order", () => {
    const documented = tableAfter("## Methods").map((row) => code(row[0]!));
    expect(documented).toEqual([...METHOD_NAMES]);
  });

  it("marks exactly the gated methods as gated in the doc", () => {
    const rows = tableAfter("## Methods");
    const gated = rows.filter((row) => row[3] === "yes").map((row) => code(row[0]!));
    const open = rows.filter((row) => row[3] === "no").map((row) => code(row[0]!));
    expect(gated).toEqual([...GATED_METHODS]);
    expect(open.sort()).toEqual([...UNGATED_METHODS].sort());
  });

  it("documents every error code, in order", () => {
    const documented = tableAfter("## Errors").map((row) => code(row[0]!));
    expect(documented).toEqual([...ERROR_CODES]);
  });
});

describe("isKnownMethod", () => {
  it("knows protocol methods only", () => {
    expect(isKnownMethod("axTree")).toBe(true);
    expect(isKnownMethod("_script")).toBe(false);
    expect(isKnownMethod("toString")).toBe(false);
    expect(isKnownMethod(42)).toBe(false);
  });
});

describe("validateParams", () => {
  const cases: [string, unknown, string][] = [
    ["click", { pid: 1, x: 1 }, "click params: missing `y`"],
    ["click", { pid: 1, x: 1, y: 2, z: 3 }, "click params: unknown field `z`"],
    ["click", { pid: 0, x: 1, y: 2 }, "click params: pid must be >= 1"],
    ["click", { pid: 1, x: 1, y: 2, mode: "background" }, "click params: needs `windowId` when `mode` is given"],
    ["keys", { pid: 1, chords: [{ key: "a", mods: ["cmd"] }] }, 'keys params: chords[0].mods[0] must be one of "ctrl", "shift", "alt", "super", "fn"'],
    ["launch", { activate: true }, "launch params: needs one of `bundleId`, `path`, `name`"],
    ["screenshot", { pid: 1, windowId: 2, width: 10.5, height: 3 }, "screenshot params: width must be integer"],
    ["screenshot", { pid: 1, windowId: 2, width: 10, height: 3, quality: 0.8 }, "screenshot params: quality must be integer"],
    ["drag", { pid: 1, path: [[1, 2]] }, "drag params: path must NOT have fewer than 2 items"],
    ["ping", undefined, "ping params: must be object"],
    ["nope", {}, 'unknown method "nope"'],
  ];
  it.each(cases)("%s %j → %s", (method, params, message) => {
    expect(validateParams(method, params)).toEqual({ ok: false, message });
  });

  it("accepts valid params", () => {
    expect(validateParams("ping", {})).toEqual({ ok: true });
    expect(validateParams("launch", { bundleId: "calculator", activate: true })).toEqual({ ok: true });
    expect(validateParams("permissions", { prompt: true, inputMonitoring: true })).toEqual({ ok: true });
    expect(validateParams("permissions", { prompt: "screenRecording" })).toEqual({ ok: true });
    expect(validateParams("permissions", { prompt: "microphone" })).toMatchObject({ ok: false });
    expect(validateParams("setValue", { pid: 1, index: 2, value: 3 })).toEqual({ ok: true });
    expect(
      validateParams("type", { pid: 1, text: "hi", mode: "background", windowId: 9, windowLocation: "screen" }),
    ).toEqual({ ok: true });
  });
});

describe("validateResult and envelopes", () => {
  it("accepts hitTest's empty answer and a full element, and nothing in between", () => {
    expect(validateResult("hitTest", {})).toEqual({ ok: true });
    expect(validateResult("hitTest", { index: 3, role: "AXButton", actions: ["AXPress"], frame: [1, 2, 3, 4] })).toEqual({ ok: true });
    expect(validateResult("hitTest", { index: 3 })).toEqual({ ok: false, message: "hitTest result: missing `role`" });
  });

  it("lets results carry extra fields", () => {
    expect(validateResult("activate", { note: "already active" })).toEqual({ ok: true });
  });

  it("checks replies and events", () => {
    expect(validateEnvelope("Reply", { id: 1, result: {} })).toEqual({ ok: true });
    expect(validateEnvelope("Reply", { id: null, error: { code: "bad_request", message: "x" } })).toEqual({ ok: true });
    expect(validateEnvelope("Reply", { id: 1 })).toEqual({ ok: false, message: "reply: needs exactly one of `result`, `error`" });
    expect(validateEnvelope("Reply", { id: 1, error: { code: "oops", message: "x" } })).toMatchObject({ ok: false });
    expect(validateEnvelope("Event", { event: "escape" })).toEqual({ ok: true });
    expect(validateEnvelope("Event", { event: "stop", reason: "the menu said so" })).toEqual({ ok: true });
    expect(validateEnvelope("Event", { event: "stop" })).toMatchObject({ ok: false });
    expect(validateEnvelope("Event", { event: "stop", reason: "" })).toMatchObject({ ok: false });
    expect(validateEnvelope("Request", { id: 1.5, method: "ping" })).toMatchObject({ ok: false });
  });
});
