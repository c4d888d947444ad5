import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

// vitest strips types without checking them, and the build compiles only what ships; this
// checks the tests, fixtures and benches too, so a test cannot drift from the code it calls.
describe("types", () => {
  it("type-checks everything, tests included, in strict mode", () => {
    const run = spawnSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.test.json"], { cwd: ROOT, encoding: "utf8" });
    expect(run.stdout + run.stderr).toBe("");
    expect(run.status).toBe(0);
  }, 120_000);
});
