// App lifecycle on the virtual desktop: desk.listApps running and installed, desk.launch with
// args (mousepad opens the file), app.hide, app.quit politely and forced, a name two apps
// share refused as ambiguous, and the helper itself never a target.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/desk/app.js";
import { processInfo } from "../../helper/linux/proc-info.js";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools, waitFor } from "./helper-harness.js";

const missing = missingTools();
if (missing.length > 0) console.warn(`test/linux/desk-lifecycle.test.ts skipped: ${missing.join(", ")} missing`);

describe.skipIf(missing.length > 0)("app lifecycle", () => {
  let run: DeskOnHelper;
  let notes: App;
  let file: string;

  beforeAll(async () => {
    run = await startDeskOnHelper();
    file = join(run.machine.dir, "notes.txt");
    writeFileSync(file, "opened through launch args\n");
    // Two desktop entries that share a name: the name alone must not pick one.
    const applications = join(run.machine.dir, ".local/share/applications");
    mkdirSync(applications, { recursive: true });
    for (const [id, program] of [["twin-one", "galculator"], ["twin-two", "mousepad"]]) {
      writeFileSync(join(applications, `${id}.desktop`), `[Desktop Entry]\nType=Application\nName=Twin Tool\nExec=${program}\n`);
    }
  });
  afterAll(async () => run?.stop());

  it("lists running apps by default, installed ones with { installed: true }", async () => {
    expect(await run.desk.listApps()).toEqual([]);
    const all = await run.desk.listApps({ installed: true });
    expect(all).toContainEqual(expect.objectContaining({ name: "Galculator", bundleId: "galculator", running: false }));
  });

  it("launches with args: mousepad opens the file", async () => {
    notes = await run.desk.launch("mousepad", { args: [file] });
    run.machine.trackPid(notes.pid);
    const [window] = await notes.windows();
    expect(window!.title).toMatch(/notes\.txt/);
    expect((await notes.find({ role: "AXTextArea" }))?.value).toBe("opened through launch args\n");
    expect((await run.desk.listApps()).map((a) => a.pid)).toEqual([notes.pid]);
  });

  it("refuses a name two apps share, naming both ids; the id works", async () => {
    await expect(run.desk.getApp("Twin Tool")).rejects.toMatchObject({ code: "ambiguous", message: expect.stringMatching(/twin-one.*twin-two|twin-two.*twin-one/) });
    await expect(run.desk.launch("twin tool")).rejects.toMatchObject({ code: "ambiguous" });
    expect(await run.client.request("resolveApp", { query: "twin-one" })).toMatchObject({ name: "Twin Tool", bundleId: "twin-one" });
  });

  it("hides the app: every window minimized", async () => {
    await notes.hide();
    expect((await notes.windows()).every((w) => w.minimized)).toBe(true);
    await (await notes.windows())[0]!.focus();
  });

  it("quits politely, and an app with unsaved work stays to ask; force ends it", async () => {
    const area = (await notes.find({ role: "AXTextArea" }))!;
    await notes.setValue(area.i, "unsaved work");
    expect(await notes.quit()).toBe(false);
    await waitFor(async () => (await notes.windows()).some((w) => w.subrole === "AXDialog"), "mousepad's save prompt");
    expect(await notes.quit({ force: true })).toBe(true);
    expect(await processInfo(notes.pid)).toBeNull();
    await expect(notes.windows()).rejects.toMatchObject({ code: "not_running" });
  });

  it("quits an app without unsaved work politely", async () => {
    const calc = await run.desk.getApp("galculator");
    run.machine.trackPid(calc.pid);
    expect(await calc.quit()).toBe(true);
    expect(await processInfo(calc.pid)).toBeNull();
  });

  it("never quits or hides the helper itself", async () => {
    const pid = run.helper.child.pid!;
    await expect(run.client.request("quit", { pid, force: true })).rejects.toMatchObject({ code: "blocked" });
    await expect(run.client.request("hide", { pid })).rejects.toMatchObject({ code: "blocked" });
    expect(await processInfo(pid)).not.toBeNull();
  });
});
