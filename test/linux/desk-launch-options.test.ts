// desk.launch / desk.getApp start options on the real helper: env and cwd reach the process,
// bad options are refused with clear errors, and the session survives them.
import { mkdtempSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools } from "./helper-harness.js";

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "galculator"]);
if (missing.length > 0) console.warn(`test/linux/desk-launch-options.test.ts skipped: ${missing.join(", ")} missing`);

function environOf(pid: number): Map<string, string> {
  const pairs = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return new Map(pairs.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));
}

describe.skipIf(missing.length > 0)("desk.launch and getApp start options", () => {
  let run: DeskOnHelper;

  beforeAll(async () => {
    run = await startDeskOnHelper();
  });
  afterAll(async () => run?.stop());

  it("starts the app with the variables and working directory asked, over the desktop's", async () => {
    const dir = realpathSync(mkdtempSync(join(run.machine.dir, "cwd-")));
    const calc = await run.desk.launch("galculator", { env: { DESKBOOK_PROBE: "from the cell", LANG: "C.UTF-8" }, cwd: dir });
    run.machine.trackPid(calc.pid);
    const env = environOf(calc.pid);
    expect(env.get("DESKBOOK_PROBE")).toBe("from the cell");
    expect(env.get("DISPLAY")).toBe(run.machine.desktop.DISPLAY);
    expect(env.get("QT_LINUX_ACCESSIBILITY_ALWAYS_ON")).toBe("1");
    expect(readlinkSync(`/proc/${calc.pid}/cwd`)).toBe(dir);
    // With env, a second launch is a second process, not the running one.
    const second = await run.desk.launch("galculator", { env: { DESKBOOK_PROBE: "second" } });
    run.machine.trackPid(second.pid);
    expect(second.pid).not.toBe(calc.pid);
    expect(environOf(second.pid).get("DESKBOOK_PROBE")).toBe("second");
    // getApp uses a running app as it is: its start options are for a process it starts.
    expect((await run.desk.getApp(`pid:${calc.pid}`, { env: { DESKBOOK_PROBE: "ignored" } })).pid).toBe(calc.pid);
  });

  it("refuses bad options before anything starts, and a cwd that is not a directory with bad_request", async () => {
    await expect(run.desk.launch("galculator", { env: { "NOT A NAME": "x" } })).rejects.toThrow(/launch's env: "NOT A NAME" is not a variable name/);
    await expect(run.desk.launch("galculator", { env: { N: 1 as unknown as string } })).rejects.toThrow(/launch's env: N must be a string/);
    await expect(run.desk.launch("galculator", { env: ["A=1"] as unknown as Record<string, string> })).rejects.toThrow(TypeError);
    await expect(run.desk.getApp("galculator", { cwd: "relative/dir" })).rejects.toThrow(/getApp's cwd is an absolute path/);
    await expect(run.desk.launch("galculator", { args: "x" as unknown as string[] })).rejects.toThrow(/launch's args is a list of strings/);
    await expect(run.desk.launch("galculator", { cwd: join(run.machine.dir, "no-such-dir") })).rejects.toMatchObject({ code: "bad_request", message: expect.stringMatching(/cwd .* does not exist/) });
    const file = join(run.machine.dir, "a-file");
    writeFileSync(file, "");
    await expect(run.desk.launch("galculator", { cwd: file })).rejects.toMatchObject({ code: "bad_request", message: expect.stringMatching(/is not a directory/) });
    // The helper is still there for the next call.
    expect((await run.desk.listApps()).some((app) => app.name === "Galculator")).toBe(true);
  });

  it("desk.env() is the desktop the helper drives", async () => {
    expect(await run.desk.env()).toEqual({ ...run.machine.desktop });
  });
});
