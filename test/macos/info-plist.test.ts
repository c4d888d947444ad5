// The generated Info.plist, parsed back by Python's plistlib (a real plist parser).
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { infoPlist, stampedSourceHash } from "../../src/macos/info-plist.js";

const PYTHON = "/usr/bin/python3";
const HASH = "ab".repeat(32);

function parsePlist(text: string): Record<string, unknown> {
  const script = "import json, plistlib, sys; print(json.dumps(plistlib.loads(sys.stdin.buffer.read(), fmt=plistlib.FMT_XML)))";
  return JSON.parse(execFileSync(PYTHON, ["-c", script], { input: text, encoding: "utf8" })) as Record<string, unknown>;
}

describe("infoPlist", () => {
  it("is a well-formed XML plist with the bundle's identity", () => {
    const parsed = parsePlist(infoPlist({ version: "0.1.0", sourceHash: HASH }));
    expect(parsed).toMatchObject({
      CFBundleIdentifier: "dev.deskbook.helper",
      CFBundleName: "Deskbook Helper",
      CFBundleDisplayName: "Deskbook Helper",
      CFBundleExecutable: "DeskbookHelper",
      CFBundlePackageType: "APPL",
      CFBundleShortVersionString: "0.1.0",
      CFBundleVersion: "0.1.0",
      LSMinimumSystemVersion: "13.0",
      LSUIElement: true,
      DeskbookSourceHash: HASH,
    });
  });

  it("has no usage-description keys: Apple defines none for these permissions", () => {
    const keys = Object.keys(parsePlist(infoPlist({ version: "1.0.0", sourceHash: HASH })));
    expect(keys.filter((key) => key.endsWith("UsageDescription"))).toEqual([]);
  });

  it("escapes text, so odd versions still parse", () => {
    expect(parsePlist(infoPlist({ version: "1.0.0-<beta>&1", sourceHash: HASH })).CFBundleShortVersionString).toBe("1.0.0-<beta>&1");
  });

  it("gives back the stamped source hash, and nothing for a plist without one", () => {
    expect(stampedSourceHash(infoPlist({ version: "0.1.0", sourceHash: HASH }))).toBe(HASH);
    expect(stampedSourceHash("<plist><dict><key>CFBundleName</key><string>x</string></dict></plist>")).toBeUndefined();
  });
});
