// The CI check for the macOS helper's Swift sources (there is no Swift compiler here): every
// .swift file under helper/macos/ must parse with tree-sitter-swift, and the check must be
// able to fail, or a green run would prove nothing.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SCRIPT = join(ROOT, "scripts/check-swift.mjs");

interface SyntaxError {
  file?: string;
  line: number;
  column: number;
  kind: "ERROR" | "MISSING";
  text: string;
}

/** What scripts/check-swift.mjs exports (a plain script, so it has no declaration file). */
interface CheckSwift {
  checkSwiftTree(dir?: string): { files: string[]; errors: SyntaxError[] };
  swiftSyntaxErrors(source: string): SyntaxError[];
}

const { checkSwiftTree, swiftSyntaxErrors } = (await import(pathToFileURL(SCRIPT).href)) as CheckSwift;

describe("Swift parse check (tree-sitter-swift)", () => {
  it("parses every Swift file of the macOS helper without a syntax error", () => {
    const { files, errors } = checkSwiftTree();
    const names = files.map((file) => file.slice(ROOT.length));
    expect(names).toEqual(expect.arrayContaining([
      "helper/macos/Package.swift",
      "helper/macos/Sources/DeskbookHelper/main.swift",
      "helper/macos/Sources/DeskbookHelperCore/Policy.swift",
      "helper/macos/Sources/DeskbookHelperCore/SocketServer.swift",
      "helper/macos/Tests/DeskbookHelperCoreTests/PolicyVectorTests.swift",
    ]));
    expect(errors.map((e) => `${e.file}:${e.line}:${e.column}: ${e.kind} ${e.text}`)).toEqual([]);
  });

  it("runs as `npm run check:swift`, printing the count and exiting 0", () => {
    const run = spawnSync(process.execPath, [SCRIPT], { cwd: ROOT, encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/^\d+ Swift files parsed, 0 errors\n$/);
    expect(run.status).toBe(0);
  });

  it("finds the errors in broken Swift, with line and column", () => {
    const broken = [
      "import Foundation",
      "",
      "struct Broken {",
      "    var count: Int = ",
      "}",
      "",
      "func unfinished(_ value: Int) -> Int {",
      "    if value > 0 {",
      "        return value",
      "",
    ].join("\n");
    const errors = swiftSyntaxErrors(broken);
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) {
      expect(["ERROR", "MISSING"]).toContain(error.kind);
      expect(error.line).toBeGreaterThanOrEqual(1);
      expect(error.column).toBeGreaterThanOrEqual(1);
    }
    expect(swiftSyntaxErrors("struct Fine {\n    var count: Int = 0\n}\n")).toEqual([]);
  });

  it("fails (exit 1) on a tree holding a broken file, naming file:line:col", () => {
    const dir = mkdtempSync(join(tmpdir(), "deskbook-swift-"));
    try {
      writeFileSync(join(dir, "Good.swift"), "let answer = 42\n");
      writeFileSync(join(dir, "Bad.swift"), "let answer = 42\nfunc f( {\n");
      const run = spawnSync(process.execPath, [SCRIPT, dir], { cwd: ROOT, encoding: "utf8" });
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/Bad\.swift:\d+:\d+: (ERROR|MISSING) /);
      expect(run.stderr).not.toMatch(/Good\.swift/);
      expect(run.stdout).toMatch(/^2 Swift files parsed, [1-9]\d* errors?\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
