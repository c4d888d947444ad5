// desk.appleScript and desk.jxa on Linux: a clear `unsupported` from the real helper, and the
// helper serving on afterwards.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools } from "./helper-harness.js";

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon"]);
if (missing.length > 0) console.warn(`test/linux/desk-scripting.test.ts skipped: ${missing.join(", ")} missing`);

describe.skipIf(missing.length > 0)("scripting on Linux", () => {
  let run: DeskOnHelper;

  beforeAll(async () => {
    run = await startDeskOnHelper();
  });
  afterAll(async () => run?.stop());

  it("answers unsupported for AppleScript and JXA, and keeps serving", async () => {
    await expect(run.desk.appleScript('tell application "Finder" to activate')).rejects.toMatchObject({ code: "unsupported", message: expect.stringMatching(/AppleScript runs on macOS only/) });
    await expect(run.desk.jxa('Application("Finder").activate()')).rejects.toMatchObject({ code: "unsupported", message: expect.stringMatching(/JavaScript for Automation/) });
    await expect(run.client.request("runScript", { language: "perl" as "jxa", source: "1" })).rejects.toMatchObject({ code: "bad_request" });
    await expect(run.desk.appleScript("")).rejects.toThrow(TypeError);
    expect(await run.desk.listApps({ installed: true })).not.toHaveLength(0);
  });
});
