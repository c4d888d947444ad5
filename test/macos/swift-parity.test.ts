// What the macOS helper's Swift core must copy exactly from the TypeScript side, checked here
// because the Swift cannot be compiled or run on these machines: the blocked-app list (both
// helpers must pass the same policy vectors), the error codes, the method lists, the wire
// constants, the logged methods, and the helper's version.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LOGGED_METHODS } from "../../helper/linux/action-log.js";
import { BLOCKED_APPS } from "../../helper/linux/blocked-apps.js";
import { ERROR_CODES, MAX_LINE_BYTES, METHOD_NAMES, PROTOCOL_VERSION, UNGATED_METHODS } from "../../src/helper/protocol.js";

const CORE = new URL("../../helper/macos/Sources/DeskbookHelperCore/", import.meta.url);
const swift = (name: string): string => readFileSync(new URL(name, CORE), "utf8");

/** The double-quoted literals in Swift text, comments left out (none of these hold escapes). */
function stringLiterals(text: string): string[] {
  const code = text
    .split("\n")
    .filter((line) => !line.trim().startsWith("//"))
    .join("\n");
  return [...code.matchAll(/"([^"\\\n]*)"/g)].map((match) => match[1]!);
}

/** The body of a Swift declaration that opens with `head` and ends at the bracket matching `open`. */
function block(text: string, head: string, open: "[" | "{"): string {
  const start = text.indexOf(head);
  if (start < 0) throw new Error(`no "${head}" in the Swift source`);
  const from = text.indexOf(open, start + head.length - 1);
  const close = open === "[" ? "]" : "}";
  let depth = 0;
  for (let k = from; k < text.length; k++) {
    if (text[k] === open) depth++;
    if (text[k] === close && --depth === 0) return text.slice(from + 1, k);
  }
  throw new Error(`"${head}" is not closed`);
}

describe("the Swift core mirrors the TypeScript", () => {
  it("blocks exactly the apps of helper/linux/blocked-apps.ts", () => {
    const names = stringLiterals(swift("BlockedApps.swift"));
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...BLOCKED_APPS].sort());
  });

  it("has the error codes of ERROR_CODES, in order", () => {
    const body = block(swift("Protocol.swift"), "public enum ErrorCode", "{");
    const codes = [...body.matchAll(/^\s*case (\w+)(?: = "([^"]+)")?\s*$/gm)].map((m) => m[2] ?? m[1]);
    expect(codes).toEqual([...ERROR_CODES]);
  });

  it("has the method lists, the protocol version and the line bound of protocol.ts", () => {
    const protocol = swift("Protocol.swift");
    expect(stringLiterals(block(protocol, "public let METHOD_NAMES: [String] = [", "["))).toEqual([...METHOD_NAMES]);
    expect(stringLiterals(block(protocol, "public let UNGATED_METHODS: [String] = [", "["))).toEqual([...UNGATED_METHODS]);
    expect(protocol).toContain(`public let PROTOCOL_VERSION = ${PROTOCOL_VERSION}\n`);
    expect(MAX_LINE_BYTES).toBe(16 * 1024 * 1024);
    expect(protocol).toContain("public let MAX_LINE_BYTES = 16 * 1024 * 1024\n");
  });

  it("sends exactly the events of the protocol schema", () => {
    const names = stringLiterals(block(swift("Protocol.swift"), "public var name: String {", "{"));
    const schema = JSON.parse(readFileSync(fileURLToPath(new URL("../../src/helper/protocol.schema.json", import.meta.url)), "utf8")) as {
      definitions: { Event: { properties: { event: { enum: string[] } } } };
    };
    expect(names).toEqual(schema.definitions.Event.properties.event.enum);
  });

  it("logs the methods that action-log.ts logs", () => {
    const logged = stringLiterals(block(swift("ActionLog.swift"), "public static let loggedMethods: Set<String> = [", "["));
    expect(logged.sort()).toEqual([...LOGGED_METHODS].sort());
  });

  it("names the package's version in the stub executable", () => {
    const version = (JSON.parse(readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")) as { version: string }).version;
    const main = readFileSync(new URL("../../helper/macos/Sources/DeskbookHelper/main.swift", import.meta.url), "utf8");
    expect(main).toContain(`let helperVersion = "deskbook macos helper ${version} `);
  });
});
