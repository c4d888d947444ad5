// `deskbook setup` and `deskbook signing` off macOS: the real built CLI, its exit codes and words.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { CLI } from "../support/kernel-process.js";
import { tempDir } from "../support/temp-dir.js";

const deskbook = (home: string, ...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, DESKBOOK_HOME: home }, encoding: "utf8" });

describe.skipIf(process.platform === "darwin")("macOS-only commands elsewhere", () => {
  it.each([["setup"], ["setup", "--rebuild"], ["signing"], ["signing", "--create"]])("deskbook %s exits 1 and points at doctor", async (...args) => {
    const home = await tempDir("deskbook-macos-cmd-");
    const run = deskbook(home, ...args);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`deskbook ${args[0]} is for macOS`);
    expect(run.stderr).toContain("deskbook doctor");
    if (process.platform === "linux") expect(run.stderr).toContain("on Linux the helper needs no setup");
  });

  it("refuses unknown options with status 2 before anything else", async () => {
    const home = await tempDir("deskbook-macos-cmd-");
    expect(deskbook(home, "setup", "--rebiuld").status).toBe(2);
    expect(deskbook(home, "signing", "--force").stderr).toMatch(/unknown option --force/);
  });

  it("lists both commands in the help", async () => {
    const help = deskbook(await tempDir("deskbook-macos-cmd-"), "--help").stdout;
    expect(help).toMatch(/^\s+setup \[--rebuild\] \[--restart\]/m);
    expect(help).toMatch(/^\s+signing \[--create\]/m);
  });
});
