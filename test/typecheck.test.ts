import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
// A guard against a hung compiler, not a speed check: tsc takes ~40 s here when idle and three
// to four times that on a 2-core machine at load 25, where a 120 s limit failed a correct tree.
const TSC_LIMIT_MS = 600_000;

// vitest strips types without checking them, and the build compiles only what ships; this
// checks the tests, fixtures and benches too, so a test cannot drift from the code it calls.
describe("types", () => {
  it("type-checks everything, tests included, in strict mode", async () => {
    const run = await new Promise<{ output: string; code: number | null; signal: string | null }>((resolve) => {
      const child = execFile(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.test.json"], { cwd: ROOT, encoding: "utf8", timeout: TSC_LIMIT_MS, maxBuffer: 64 * 1024 * 1024 }, (_error, stdout, stderr) => {
        resolve({ output: stdout + stderr, code: child.exitCode, signal: child.signalCode });
      });
    });
    expect(run.output).toBe("");
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
  }, TSC_LIMIT_MS + 10_000);
});
