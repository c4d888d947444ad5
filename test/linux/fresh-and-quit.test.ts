// Runs that start from a known state, on the real Linux helper: `launch` with `fresh: true`
// gives the app its own XDG directories (removed when it exits), and closeApp ends an app
// with a close request first, then SIGTERM, then SIGKILL (the helper's polite and forced quit).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HelperClient } from "../../src/helper/client.js";
import { closeApp } from "../../src/helper/close-app.js";
import { processInfo } from "../../helper/linux/proc-info.js";
import { missingTools, startHelperDesktop, waitFor, type HelperDesktop, type RunningHelper } from "./helper-harness.js";

const missing = missingTools();
if (missing.length > 0) console.warn(`test/linux/fresh-and-quit.test.ts skipped: ${missing.join(", ")} missing`);

const environOf = (pid: number): Record<string, string> =>
  Object.fromEntries(readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean).map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]));

describe.skipIf(missing.length > 0)("Linux helper: fresh profiles and quit", () => {
  let desk: HelperDesktop;
  let helper: RunningHelper;
  let client: HelperClient;

  beforeAll(async () => {
    desk = await startHelperDesktop();
    desk.writeConfig({ allow: ["galculator", "mousepad"] });
    helper = await desk.startHelper();
    client = await HelperClient.connect({ socketPath: helper.socket, clientName: "fresh-test", requestTimeoutMs: 30_000 });
  });

  afterAll(async () => {
    await client?.close();
    await desk?.stop();
  });

  it("starts an app on a fresh profile, refuses fresh for a copy running with its own settings, and removes the profile once the app is gone", async () => {
    const calc = await client.request("launch", { name: "galculator", fresh: true });
    desk.trackPid(calc.pid!);
    const env = environOf(calc.pid!);
    const profiles = join(desk.home, "profiles");
    expect(env.XDG_CONFIG_HOME).toMatch(new RegExp(`^${profiles}/galculator-[0-9a-f]{8}/config$`));
    for (const name of ["XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"]) expect(existsSync(env[name]!), name).toBe(true);
    expect(env.GSETTINGS_BACKEND).toBe("memory");
    // The fresh copy is the one a second fresh launch gets.
    expect((await client.request("launch", { name: "galculator", fresh: true })).pid).toBe(calc.pid);
    const profile = join(env.XDG_CONFIG_HOME!, "..");
    expect(await closeApp(client, calc.pid!, "tidy up")).toBe("closed");
    expect(await processInfo(calc.pid!)).toBeNull();
    await waitFor(async () => !existsSync(profile), "the profile to be removed", 5000);

    const own = desk.spawnApp("galculator");
    await waitFor(async () => (await client.request("resolveApp", { query: "galculator" })).running, "galculator to run");
    await expect(client.request("launch", { name: "galculator", fresh: true })).rejects.toMatchObject({
      code: "failed",
      message: expect.stringContaining("already running with its own settings"),
    });
    expect(await closeApp(client, own.pid!, "tidy up")).toBe("closed");
    // Like every gated method, quit on a pid that no longer runs is not_running.
    await expect(closeApp(client, own.pid!, "tidy up")).rejects.toMatchObject({ code: "not_running" });
  }, 60_000);

  it("ends an app that holds up its close request (unsaved text) with signals, and logs both quits", async () => {
    const editor = await client.request("launch", { name: "mousepad", fresh: true });
    desk.trackPid(editor.pid!);
    const tree = await client.request("axTree", { pid: editor.pid! });
    const page = tree.nodes.find((n) => n.role === "AXTextArea")!;
    await client.request("setValue", { pid: editor.pid!, index: page.i, value: "not saved" });
    expect(await closeApp(client, editor.pid!, "tidy up")).toBe("forced");
    expect(await processInfo(editor.pid!)).toBeNull();
    const lines = readFileSync(join(desk.home, "actions.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    const quits = lines.filter((l) => l.action === "quit" && l.pid === editor.pid);
    expect(quits).toEqual([
      expect.objectContaining({ step: "tidy up", client: "fresh-test" }),
      expect.objectContaining({ step: "tidy up", client: "fresh-test", force: true }),
    ]);
  }, 60_000);
});
