// What setup does to the bundle (plan) and the commands it runs for it (runner injected).
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { executeBuildPlan } from "../../src/macos/build-app.js";
import { planBuild } from "../../src/macos/build-plan.js";
import type { CommandOptions, CommandResult } from "../../src/macos/command-runner.js";
import { helperAppPaths, helperAppState } from "../../src/macos/helper-app.js";
import { infoPlist, stampedSourceHash } from "../../src/macos/info-plist.js";
import { tempDir } from "../support/temp-dir.js";

const IDENTITY = { name: "Deskbook Local Signing", sha1: "4E587951B705280CBB8086325CD134D4CDA04977" };
const HASH = "cd".repeat(32);

describe("planBuild", () => {
  it("does nothing to a current bundle, and says how it is signed", () => {
    for (const identity of [IDENTITY, undefined]) {
      const plan = planBuild({ state: "current", rebuild: false, identity });
      expect(plan.reason).toBeUndefined();
      expect(plan.steps).toEqual([]);
    }
    expect(planBuild({ state: "current", rebuild: false, identity: IDENTITY }).signing).toContain(IDENTITY.sha1);
    expect(planBuild({ state: "current", rebuild: false, identity: undefined }).signing).toMatch(/ad hoc.*deskbook signing --create/);
  });

  it("builds a missing or stale bundle, or any with --rebuild, quitting the helper first", () => {
    expect(planBuild({ state: "missing", rebuild: false, identity: undefined }).reason).toMatch(/not built/);
    expect(planBuild({ state: "stale", rebuild: false, identity: undefined }).reason).toMatch(/source changed/);
    const plan = planBuild({ state: "current", rebuild: true, identity: IDENTITY });
    expect(plan.reason).toMatch(/--rebuild/);
    expect(plan.steps.map((step) => step.kind)).toEqual(["quit-helper", "swift-build", "assemble", "sign", "verify", "install"]);
  });

  it("signs with the identity's SHA-1 when there is one, ad hoc (-) otherwise", () => {
    const sign = (identity: typeof IDENTITY | undefined) => planBuild({ state: "missing", rebuild: false, identity }).steps.find((step) => step.kind === "sign");
    expect(sign(IDENTITY)).toEqual({ kind: "sign", identity: IDENTITY.sha1 });
    expect(sign(undefined)).toEqual({ kind: "sign", identity: "-" });
  });
});

interface Recorded {
  command: string;
  args: readonly string[];
  options: CommandOptions | undefined;
}

/** A runner that records commands; `swift --show-bin-path` answers a directory with a fake binary. */
async function fakeRunner(failOn?: string): Promise<{ run: (c: string, a: readonly string[], o?: CommandOptions) => Promise<CommandResult>; calls: Recorded[] }> {
  const bin = await tempDir("deskbook-bin-");
  await writeFile(join(bin, "DeskbookHelper"), "#!/bin/sh\necho fake helper\n");
  const calls: Recorded[] = [];
  const run = async (command: string, args: readonly string[], options?: CommandOptions): Promise<CommandResult> => {
    calls.push({ command, args, options });
    if (failOn && command === failOn) return { status: 1, stdout: "", stderr: "error: it broke" };
    return { status: 0, stdout: args.includes("--show-bin-path") ? `${bin}\n` : "", stderr: "" };
  };
  return { run, calls };
}

async function context(home: string, run: Awaited<ReturnType<typeof fakeRunner>>["run"], order: string[]) {
  return {
    paths: helperAppPaths(home),
    sourceDir: "/src/helper/macos",
    scratchDir: "/home/.deskbook/swift-build",
    sourceHash: HASH,
    version: "0.1.0",
    run,
    quitHelper: async () => void order.push("quit"),
    log: () => undefined,
  };
}

describe("executeBuildPlan", () => {
  it("builds, assembles, signs with the identity, verifies and installs the bundle", async () => {
    const home = await tempDir("deskbook-home-");
    const { run, calls } = await fakeRunner();
    const order: string[] = [];
    await executeBuildPlan(planBuild({ state: "missing", rebuild: false, identity: IDENTITY }), await context(home, run, order));

    expect(order).toEqual(["quit"]);
    expect(calls.map((call) => [call.command, ...call.args])).toEqual([
      ["swift", "build", "-c", "release", "--package-path", "/src/helper/macos", "--scratch-path", "/home/.deskbook/swift-build"],
      ["swift", "build", "-c", "release", "--package-path", "/src/helper/macos", "--scratch-path", "/home/.deskbook/swift-build", "--show-bin-path"],
      ["codesign", "--force", "--sign", IDENTITY.sha1, "--identifier", "dev.deskbook.helper", "--timestamp=none", expect.stringMatching(/\/Deskbook Helper\.app$/)],
      ["codesign", "--verify", "--strict", "--verbose=2", expect.stringMatching(/\/Deskbook Helper\.app$/)],
    ]);
    expect(calls[0]!.options?.inherit).toBe(true);

    const paths = helperAppPaths(home);
    expect(await readFile(paths.executable, "utf8")).toContain("fake helper");
    expect((await stat(paths.executable)).mode & 0o777).toBe(0o755);
    expect(stampedSourceHash(await readFile(paths.infoPlist, "utf8"))).toBe(HASH);
    expect(helperAppState(paths, HASH).state).toBe("current");
    expect(existsSync(join(home, ".helper-build"))).toBe(false);
  });

  it("signs ad hoc without an identity", async () => {
    const { run, calls } = await fakeRunner();
    await executeBuildPlan(planBuild({ state: "stale", rebuild: false, identity: undefined }), await context(await tempDir("deskbook-home-"), run, []));
    const sign = calls.find((call) => call.command === "codesign" && call.args[0] === "--force");
    expect(sign?.args.slice(0, 3)).toEqual(["--force", "--sign", "-"]);
  });

  it("runs nothing for a current bundle", async () => {
    const { run, calls } = await fakeRunner();
    const order: string[] = [];
    await executeBuildPlan(planBuild({ state: "current", rebuild: false, identity: IDENTITY }), await context(await tempDir("deskbook-home-"), run, order));
    expect(calls).toEqual([]);
    expect(order).toEqual([]);
  });

  it("leaves the previous bundle in place when signing fails", async () => {
    const home = await tempDir("deskbook-home-");
    const paths = helperAppPaths(home);
    await mkdir(join(paths.app, "Contents", "MacOS"), { recursive: true });
    await writeFile(paths.executable, "old");
    await writeFile(paths.infoPlist, infoPlist({ version: "0.0.9", sourceHash: "ee".repeat(32) }));
    const { run } = await fakeRunner("codesign");
    await expect(executeBuildPlan(planBuild({ state: "stale", rebuild: false, identity: undefined }), await context(home, run, []))).rejects.toThrow(/codesign .*it broke/s);
    expect(await readFile(paths.executable, "utf8")).toBe("old");
  });
});

describe("helperAppState", () => {
  it("is missing, stale or current against the source hash", async () => {
    const paths = helperAppPaths(await tempDir("deskbook-home-"));
    expect(helperAppState(paths, HASH).state).toBe("missing");
    await mkdir(join(paths.app, "Contents", "MacOS"), { recursive: true });
    await writeFile(paths.executable, "x");
    await writeFile(paths.infoPlist, infoPlist({ version: "0.1.0", sourceHash: "ee".repeat(32) }));
    expect(helperAppState(paths, HASH)).toMatchObject({ state: "stale", builtFrom: "ee".repeat(32) });
    expect(helperAppState(paths, "ee".repeat(32)).state).toBe("current");
    // Without the source to compare, a built bundle is taken as it is.
    expect(helperAppState(paths, undefined).state).toBe("current");
  });
});
