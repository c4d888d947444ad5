import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CLI } from "../support/kernel-process.js";
import { tempDir } from "../support/temp-dir.js";

const deskbook = (home: string, ...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, DESKBOOK_HOME: home }, encoding: "utf8" });

describe("deskbook allow / deny", () => {
  it("adds apps to the lists once, keeping the other keys, in a 0600 file", async () => {
    const home = await tempDir("deskbook-policy-");
    await writeFile(join(home, "config.json"), JSON.stringify({ timeoutMs: 5000, allow: ["mousepad"] }));
    expect(deskbook(home, "allow", "galculator", "Mousepad").status).toBe(0);
    expect(deskbook(home, "deny", "xterm").status).toBe(0);
    const config = JSON.parse(await readFile(join(home, "config.json"), "utf8")) as Record<string, unknown>;
    expect(config).toEqual({ timeoutMs: 5000, allow: ["mousepad", "galculator"], deny: ["xterm"] });
    expect((await stat(join(home, "config.json"))).mode & 0o777).toBe(0o600);
  });

  it("refuses to run without an app, and leaves a config that is not an object alone", async () => {
    const home = await tempDir("deskbook-policy-");
    expect(deskbook(home, "allow").status).toBe(2);
    await writeFile(join(home, "config.json"), "[1, 2]");
    const run = deskbook(home, "allow", "galculator");
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/not a JSON object/);
    expect(await readFile(join(home, "config.json"), "utf8")).toBe("[1, 2]");
  });
});
