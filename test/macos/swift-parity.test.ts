// What the macOS helper's Swift core must match on the TypeScript side, checked here because the
// Swift cannot be compiled or run on these machines. The blocked-app list, config.json's keys and
// defaults, the method lists, the error codes, the wire constants and the logged methods are
// generated from their TypeScript source (helper/macos/swift-tables.ts), so the check is that the
// committed files are what generation gives; the events and the helper's version are compared as written.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BLOCKED_APPS } from "../../helper/linux/blocked-apps.js";
import { swiftTables } from "../../helper/macos/swift-tables.js";

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
  it.each(Object.entries(swiftTables()))("has %s as generated from its TypeScript source (npm run generate:swift)", (name, generated) => {
    expect(swift(name)).toBe(generated);
  });

  it("blocks exactly the apps of helper/linux/blocked-apps.ts", () => {
    const names = stringLiterals(swift("BlockedApps.swift"));
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...BLOCKED_APPS].sort());
  });

  it("sends exactly the events of the protocol schema", () => {
    const names = stringLiterals(block(swift("Protocol.swift"), "public var name: String {", "{"));
    const schema = JSON.parse(readFileSync(fileURLToPath(new URL("../../src/helper/protocol.schema.json", import.meta.url)), "utf8")) as {
      definitions: { Event: { properties: { event: { enum: string[] } } } };
    };
    expect(names).toEqual(schema.definitions.Event.properties.event.enum);
  });

  it("names the package's version in the stub executable", () => {
    const version = (JSON.parse(readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")) as { version: string }).version;
    const main = readFileSync(new URL("../../helper/macos/Sources/DeskbookHelper/main.swift", import.meta.url), "utf8");
    expect(main).toContain(`let helperVersion = "deskbook macos helper ${version} `);
  });
});
