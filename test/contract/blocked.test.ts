// The contract's approval gate for apps blocked by default (a terminal): refused with `blocked`
// whatever the approval mode, unless config.json lists the app in `allow`. This file runs its own
// helper with {"approval": "allow-all"} and no allow list, so the refusal can only be the block.
import type { ChildProcess } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { announceSkip, blockedAppPlan, killApp, outcome, profile, refusedWith, useHelper } from "./harness.js";
import { hasCommand } from "./linux-helper.mjs";

const plan = blockedAppPlan();
const skip = announceSkip("test/contract/blocked.test.ts", plan.skip);
const { blocked } = profile;

describe.skipIf(skip)("helper contract: blocked apps", () => {
  const ownHelper = plan.helper === "own";
  const session = useHelper(ownHelper ? { config: { approval: "allow-all" } } : {});
  let terminal: ChildProcess;
  let pid: number;

  beforeAll(() => {
    if (!hasCommand(blocked.command)) {
      throw new Error(`${blocked.command} is not installed; this test needs it as the blocked app (Debian: apt-get install xterm)`);
    }
    terminal = session.spawnAsUser(blocked.command, blocked.args);
    if (terminal.pid === undefined) throw new Error(`could not start ${blocked.command}`);
    pid = terminal.pid;
  });

  it("refuses gated calls on a terminal the user started with blocked", async () => {
    // The pid runs at once; the helper may need a moment to know which app it is.
    await refusedWith(() => session.call("windows", { pid }), "blocked", 10_000);
    await expect(session.call("axTree", { pid })).rejects.toMatchObject({ code: "blocked" });
    await expect(session.call("activate", { pid })).rejects.toMatchObject({ code: "blocked" });
    await expect(session.call("keys", { pid, chords: [{ key: "a", mods: [] }] })).rejects.toMatchObject({ code: "blocked" });
    await expect(session.call("type", { pid, text: "echo hi\n" })).rejects.toMatchObject({ code: "blocked" });
  });

  it("refuses to launch it with blocked", async () => {
    const known = await session.call("resolveApp", { query: blocked.name });
    const params = known.bundleId ? { bundleId: known.bundleId } : known.path ? { path: known.path } : { name: known.name };
    const { result, error } = await outcome(session.call("launch", params, 30_000));
    if (result?.pid !== undefined && result.pid !== pid) await killApp(result.pid);
    expect(error?.code, `launch ${JSON.stringify(params)} answered ${JSON.stringify(result)}`).toBe("blocked");
  });

  it.runIf(ownHelper)("still serves apps that are not blocked", async () => {
    const calc = await session.launch(profile.calculator);
    expect((await session.call("windows", { pid: calc.pid })).length).toBeGreaterThan(0);
  });
});
